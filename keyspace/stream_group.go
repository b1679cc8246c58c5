package keyspace

// The consumer-group half of the stream family: XGROUP, XACK, XPENDING,
// XCLAIM, XAUTOCLAIM, and XINFO (stream.go has the rest and the command
// table entries).
