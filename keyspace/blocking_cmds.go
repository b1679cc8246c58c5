package keyspace

// The blocking list and sorted-set pops. Each tries its non-blocking form
// first; with nothing to pop it parks the client (blocking.go) with a
// Serve function that performs exactly that non-blocking pop, so the log
// records and keyspace events of a served pop are those of LPOP, LMOVE,
// ZPOPMIN, ... Inside EXEC (x.NoBlock) they reply as timed out at once.
