package eventloop

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Direct replies (server.direct_replies, on by default). A batch's replies
// normally travel back to the reactor that read it: the shard posts them to
// the reactor's outbox, which queues a task on the reactor and wakes it (an
// eventfd write, then one more turn of epoll_wait) to write them.
// Unpipelined, that hand-back is a fifth of the CPU a request costs. With
// direct replies, when nothing for the connection waits at the reactor, the
// goroutine that ran the batch writes the replies into the socket itself,
// as a single-threaded server writes after it runs a command; the reactor is
// not woken at all.
//
// What keeps a connection's bytes in order: every write to the socket, the
// loop's and this one, happens under the connection's wmu, and this one
// happens only while the outbox holds nothing for the connection (posted),
// gnet holds no unsent bytes of it (outbound) and the loop is not waiting
// to see a reply (hold: stalled input, a throttled or closing connection).
// What the socket does not take goes to the loop as an ordinary delivery,
// behind which nothing passes. The descriptor is gnet's own: gnet calls
// OnClose (closeDirect) before it closes it.
//
// What it would loosen: the order across connections that a reactor per
// shard keeps. A level-triggered epoll puts a socket the reactor has just
// read back on its ready list until the reactor's next epoll_wait, so a
// reply written before that wait would let the client's next request on
// that socket be reported ahead of a request it sent afterwards on another
// connection. The reactors read sockets edge-triggered (Server.armEdge),
// where a socket joins the ready list only when bytes arrive.

// writeDirect writes r's replies into the socket from the calling goroutine
// (the shard's, or the loop's when it ran the batch inline) and recycles r,
// when the connection allows it: done reports that. When the socket took
// only part (full, or broken), r.sent is that part and counted reports that
// r's delivery of the rest is already counted in posted, so that nothing
// passes it: the caller hands it to the loop (outbox.enqueue), which sees
// any error itself.
func (r *request) writeDirect() (done, counted bool) {
	cn := r.conn
	buf := r.Out.Buf
	if !cn.direct || r.CloseAfter || len(buf) == 0 {
		return false, false
	}
	cn.wmu.Lock()
	if cn.wfd < 0 || cn.posted > 0 || cn.outbound || cn.hold || cn.client.Killed() {
		cn.wmu.Unlock()
		return false, false
	}
	n, _ := writeFull(cn.wfd, buf)
	if n < len(buf) {
		cn.posted++
		cn.wmu.Unlock()
		if n > 0 {
			cn.srv.ks.CountNetOutput(n)
		}
		r.sent = n
		return false, true
	}
	s := cn.srv
	partial := r.partial
	s.putRequest(r)
	if !partial {
		cn.inflight.Add(-1)
	}
	cn.wmu.Unlock()
	s.ks.CountNetOutput(n)
	return true, false
}

// writeFull writes b to fd until it is all written, the socket is full
// (EAGAIN) or it fails; it returns the bytes written.
func writeFull(fd int, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Write(fd, b[n:])
		if m > 0 {
			n += m
		}
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return n, err
		case m <= 0:
			return n, unix.EAGAIN
		}
	}
	return n, nil
}

// wrote records that the loop wrote (or dropped) one of the connection's
// deliveries; loop only.
func (cn *conn) wrote() {
	if !cn.direct {
		return
	}
	cn.wmu.Lock()
	cn.posted--
	if cn.wfd >= 0 {
		cn.outbound = cn.gc.OutboundBuffered() > 0
	}
	cn.wmu.Unlock()
}

// unpost records that one of the connection's deliveries was dropped off
// the loop (the engine is stopping); any goroutine.
func (cn *conn) unpost() {
	if !cn.direct {
		return
	}
	cn.wmu.Lock()
	cn.posted--
	cn.wmu.Unlock()
}

// syncHold publishes, for writeDirect, whether the loop must see every
// reply; loop only, after any change to what it depends on.
func (cn *conn) syncHold() {
	if !cn.direct {
		return
	}
	hold := cn.stalled || cn.throttled || cn.shut || cn.closed
	cn.wmu.Lock()
	cn.hold = hold
	cn.wmu.Unlock()
}

// stall leaves the connection's input unread until a batch in flight is
// written, whose written resumes it. inflight is the count the decision
// was made on: a batch written directly before the hold was published
// would resume nothing, so if the count fell meanwhile the loop is woken
// to look again.
func (cn *conn) stall(c link, inflight int32) {
	cn.stalled = true
	cn.syncHold()
	if cn.inflight.Load() < inflight {
		cn.stalled = false
		cn.syncHold()
		_ = c.Wake(nil)
	}
}

// closeDirect ends direct replies on a connection being closed; loop
// only, from OnClose, which gnet calls before it closes the descriptor (so
// that its number cannot belong to a new connection while a direct write
// may still use it).
func (cn *conn) closeDirect() {
	if !cn.direct {
		return
	}
	cn.wmu.Lock()
	cn.hold = true
	cn.wfd = -1
	cn.wmu.Unlock()
}
