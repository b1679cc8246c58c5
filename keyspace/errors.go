package keyspace

// Reply texts shared by many commands, in Redis's wording. The first word
// is the error code.
const (
	errSyntax       = "ERR syntax error"
	errWrongType    = "WRONGTYPE Operation against a key holding the wrong kind of value"
	errNotInt       = "ERR value is not an integer or out of range"
	errNotFloat     = "ERR value is not a valid float"
	errOverflow     = "ERR increment or decrement would overflow"
	errNoSuchKey    = "ERR no such key"
	errDBIndex      = "ERR DB index is out of range"
	errNoAuth       = "NOAUTH Authentication required."
	errCrossSlot    = "CROSSSLOT Keys in request don't hash to the same slot"
	errSelectShard  = "ERR SELECT is not allowed in cluster mode"
	errMaxClients   = "ERR max number of clients reached"
	errStringTooBig = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	errOffsetRange  = "ERR offset is out of range"
	errSameObject   = "ERR source and destination objects are the same"
	errNegTimeout   = "ERR timeout is negative"
	errWrongPass    = "WRONGPASS invalid username-password pair or user is disabled."
)

// errWrongArgs formats the arity error for a command.
func errWrongArgs(name string) string {
	return "ERR wrong number of arguments for '" + name + "' command"
}

// invalidExpireError is the reply to an expiry that is not positive or
// whose deadline overflows.
func invalidExpireError(cmd string) string {
	return "ERR invalid expire time in '" + cmd + "' command"
}
