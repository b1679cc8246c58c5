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
// A connection's input is left unread while
//
//   - its shard's ring is full: the shard wakes it after a drain;
//   - it has four batches in flight, or one while its unsent replies are
//     over 64 KB: the write callback of a batch wakes it;
//   - its unsent replies are over 4 MB (or half its class's hard limit):
//     it is looked at again every 10 ms, since gnet drains its outbound
//     buffer without telling;
//   - a request over the unauthenticated limits waits behind commands
//     that may authenticate the client.
//
// gnet reads all a socket holds into the connection's inbound buffer
// whether the handler consumes it or not. Once readAheadPause bytes wait
// there the connection's read interest is taken out of its reactor's epoll
// instance (readGate), and put back when fewer than readAheadResume wait:
// TCP then holds the client back, and a client's unread input is bounded
// by a few batches, not by client-query-buffer-limit.
//
// Unsent replies are counted in the client's keyspace.OutputMeter: the
// batch replies and MONITOR lines handed to gnet and not yet written,
// plus gnet's outbound buffer. They are held to the output buffer limits
// of the client's class (client-output-buffer-limit: normal, pubsub,
// replica; keyspace.Client.SetOutputClass) by OutputMeter.Check, on the
// event loop's 10 ms clock: when a batch's replies are written, when a
// MONITOR line is queued and at every poll of a paused connection (which
// gets no replies to trigger a check). At the hard limit, or over the soft
// limit for more than its seconds, the client is cut off: closed, what it
// still had queued is not run, and one line is logged (address, class,
// the limit broken, unsent bytes). A shard that finds a batch's replies
// would reach the hard limit stops the batch itself.
//
// # TLS
//
// gnet has no TLS. TLS ports (Options.TLSPort+i) are served beside the
// reactors by crypto/tls listeners (tls.go); a connection whose handshake
// is done becomes a tlsLink, which offers the calls the code above makes
// on a gnet connection (link) and runs them under a loop role of its own,
// so TLS clients take the same path: batches, rings, outbox, output
// accounting, back-pressure and limits.
//
// # Goroutines
//
// gnet calls the handler on the connection's event loop; the per-connection
// state (conn) is owned by it. Shards deliver replies from their own
// goroutines through the reactor's outbox, which the event loop empties in
// one task (outbox.go); off the loop only the outbox, Wake and Close are
// used.
package eventloop
