package keyspace

// Reply texts shared by many commands, in Redis's wording. The first word
// is the error code.
const (
	ErrSyntax       = "ERR syntax error"
	ErrWrongType    = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrNotInt       = "ERR value is not an integer or out of range"
	ErrNotFloat     = "ERR value is not a valid float"
	ErrOverflow     = "ERR increment or decrement would overflow"
	ErrNoSuchKey    = "ERR no such key"
	ErrDBIndex      = "ERR DB index is out of range"
	errNoAuth       = "NOAUTH Authentication required."
	ErrCrossSlot    = "CROSSSLOT Keys in request don't hash to the same slot"
	ErrSelectShard  = "ERR SELECT is not allowed in cluster mode"
	errMaxClients   = "ERR max number of clients reached"
	ErrStringTooBig = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrOffsetRange  = "ERR offset is out of range"
	ErrSameObject   = "ERR source and destination objects are the same"
	ErrNegTimeout   = "ERR timeout is negative"
	ErrWrongPass    = "WRONGPASS invalid username-password pair or user is disabled."
)

// ErrWrongArgs formats the arity error for a command.
func ErrWrongArgs(name string) string {
	return "ERR wrong number of arguments for '" + name + "' command"
}
