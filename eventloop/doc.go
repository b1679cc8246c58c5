// Package eventloop is the network edge: the gnet event handler that
// accepts connections, turns their input into batches for their shard and
// writes the replies back.
//
// # Input
//
// OnTraffic parses the complete requests of a read in place
// (codec.ParseCommand), copies their bytes once into a keyspace.Batch and
// hands it to the connection's shard. A request the read ends inside of
// goes to the connection's codec.Parser, which keeps it, and its position,
// until later reads complete it: a request costs time linear in its size
// however it is split. One batch takes at most 64 KB of input and 1024
// commands, so a backlog becomes several bounded batches.
//
// # Flow control
//
// A connection's input is left unread (gnet keeps buffering it, within
// client-query-buffer-limit) while
//
//   - its shard's ring is full: the shard wakes it after a drain;
//   - it has four batches in flight, or one while its unsent replies are
//     over 64 KB: the write callback of a batch wakes it;
//   - its unsent replies are over 4 MB (or half the hard limit): it is
//     looked at again every 10 ms, since gnet drains its outbound buffer
//     without telling;
//   - a request over the unauthenticated limits waits behind commands
//     that may authenticate the client.
//
// Unsent replies are counted in the client's keyspace.OutputMeter: the
// batch replies, MONITOR lines and Pub/Sub frames handed to gnet and not
// yet written, plus gnet's outbound buffer. Past the hard limit
// (ruvio-client-output-buffer-limit) the client is cut off: closed, and
// what it still had queued is not run.
//
// # Goroutines
//
// gnet calls the handler on the connection's event loop; the per-connection
// state (conn) is owned by it. Shards deliver replies from their own
// goroutines through AsyncWrite, whose callback runs on the event loop
// again; off the loop only AsyncWrite, Wake and Close are used.
package eventloop
