package acl

// redisError is an error whose text is Redis's own, capitalised as Redis writes it.
type redisError string

func (e redisError) Error() string { return string(e) }

// Rule errors, with Redis 7.0's texts (they reach clients after "Error in ACL SETUSER
// modifier '<rule>': ").
var (
	// ErrSyntax: the rule is not understood, or a pattern holds a space or NUL byte.
	ErrSyntax error = redisError("Syntax error")
	// ErrUnknownCommand: a +/- rule names no known command, subcommand or category.
	ErrUnknownCommand error = redisError("Unknown command or category name in ACL")
	// ErrKeyPatternAfterAll: a key pattern added after ~* or allkeys.
	ErrKeyPatternAfterAll error = redisError("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	// ErrChannelPatternAfterAll: a channel pattern added after &* or allchannels.
	ErrChannelPatternAfterAll error = redisError("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	// ErrNoSuchPassword: <pass or !hash removes a password the user does not have.
	ErrNoSuchPassword error = redisError("The password you are trying to remove from the user does not exist")
	// ErrBadHash: #hash or !hash is not 64 lowercase hexadecimal characters.
	ErrBadHash error = redisError("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	// ErrDuplicateUser: a user defined twice in configuration.
	ErrDuplicateUser error = redisError("Duplicate user found. A user can only be defined once in config files")
	// ErrFirstArgOfSubcommand: +container|sub|arg.
	ErrFirstArgOfSubcommand error = redisError("Allowing first-arg of a subcommand is not supported")
	// ErrUsernameSpaces: a user name with a space or NUL byte.
	ErrUsernameSpaces error = redisError("Usernames can't contain spaces or null characters")
	// ErrDeleteDefault: ACL DELUSER default.
	ErrDeleteDefault error = redisError("The 'default' user cannot be removed")
)

// RuleError is a rule that failed to apply, formatted as Redis formats ACL SETUSER errors.
type RuleError struct {
	Rule string // the rule as given (a whole "(…)" selector for errors inside one)
	Err  error  // one of the Err* values
}

func (e *RuleError) Error() string {
	return "Error in ACL SETUSER modifier '" + e.Rule + "': " + e.Err.Error()
}

// Unwrap returns the underlying Err* value.
func (e *RuleError) Unwrap() error { return e.Err }
