package keyspace

// This file holds COMMAND: the server describing its own command table.
// Every reply is built from the one table the dispatcher uses (srv.cmds),
// in the shapes of Redis 7.0's COMMAND, so client libraries that read key
// positions, flags or docs from the server work unchanged.

// TruncArg returns an argument for an error message, cut to 128 bytes as
// Redis's %.128s does.
func TruncArg(b []byte) string {
	return string(AppendTruncated(nil, b, 128))
}
