package commands

// invalidExpireError is the reply to an expiry that is not positive or
// whose deadline overflows.
func invalidExpireError(cmd string) string {
	return "ERR invalid expire time in '" + cmd + "' command"
}
