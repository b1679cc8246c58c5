package eventloop

import (
	"context"
	"net"
	"sync"

	"github.com/panjf2000/gnet/v2"

	"github.com/ruvio/ruvio/keyspace"
)

// outbox carries what shards send to the connections of one reactor: the
// replies of batches and pushed bytes (Pub/Sub messages, invalidations,
// MONITOR lines, the replication stream). gnet's AsyncWrite costs two
// allocations a call (its hook and a queue node), one per reply; an
// outbox gathers the deliveries that arrive while the reactor is busy and
// has it write them all in one task (EventLoop.Execute), so a reply costs
// no allocation and a busy reactor one task per turn.
//
// Deliveries are written in the order they were posted. A delivery to a
// connection that has closed, or whose Close the loop has queued (QUIT, an
// output limit broken), is dropped, as gnet drops a write queued behind a
// Close.
type outbox struct {
	loop executor

	mu        sync.Mutex
	queued    []delivery
	scheduled bool // a Run is queued on the loop and has not taken queued yet

	// spare is the slice a Run wrote last, kept for reuse; loop only.
	spare []delivery
}

// executor runs a task on a connection's loop: a gnet reactor
// (gnet.EventLoop), or a TLS link's own loop.
type executor interface {
	Execute(ctx context.Context, r gnet.Runnable) error
}

// delivery is, for connection cn, one batch's replies (r) or pushed
// bytes (b).
type delivery struct {
	cn     *conn
	r      *request
	b      []byte
	pooled bool // b is from the keyspace's push pool
}

// post queues d for the reactor; any goroutine.
func (o *outbox) post(d delivery) {
	if d.cn.direct {
		d.cn.wmu.Lock()
		d.cn.posted++
		d.cn.wmu.Unlock()
	}
	o.enqueue(d)
}

// enqueue is post for a delivery already counted in its connection's
// posted.
func (o *outbox) enqueue(d delivery) {
	o.mu.Lock()
	o.queued = append(o.queued, d)
	kick := !o.scheduled
	o.scheduled = true
	o.mu.Unlock()
	if kick {
		o.schedule()
	}
}

// runInline runs b on this loop if sh is idle (Shard.TryRun) and writes
// what that delivered at once: b's replies, unless they wait for the log
// to sync, and pushes to this loop's other connections. Meanwhile
// deliveries queue without waking the loop. Loop only.
func (o *outbox) runInline(sh *keyspace.Shard, b *keyspace.Batch) bool {
	o.mu.Lock()
	o.scheduled = true
	o.mu.Unlock()
	ran := sh.TryRun(b)
	// A Run queued before finds nothing left, or what is posted after.
	_ = o.Run(context.Background())
	return ran
}

// schedule queues a Run on the loop; the caller has set scheduled.
func (o *outbox) schedule() {
	if err := o.loop.Execute(context.Background(), o); err != nil {
		// The engine is shutting down: nothing will be written.
		o.mu.Lock()
		failed := o.queued
		o.queued = nil
		o.scheduled = false
		o.mu.Unlock()
		for i := range failed {
			failed[i].abandon()
			failed[i].cn.unpost()
		}
	}
}

// Run writes every queued delivery; gnet calls it on the loop.
func (o *outbox) Run(context.Context) error {
	o.mu.Lock()
	batch := o.queued
	o.queued = o.spare[:0]
	o.scheduled = false
	o.mu.Unlock()
	for i := range batch {
		batch[i].write()
		batch[i].cn.wrote()
	}
	clear(batch)
	o.spare = batch
	return nil
}

// write puts the delivery in its connection's socket or outbound buffer;
// loop only.
func (d *delivery) write() {
	cn := d.cn
	if cn.closed || cn.shut {
		if cn.lingerFD >= 0 && d.r != nil {
			cn.lingerWrite(d.r)
			return
		}
		d.drop(net.ErrClosed)
		return
	}
	c := cn.gc
	if d.r != nil {
		_, err := c.Write(d.r.unsent())
		cn.wroteOnLoop(c)
		_ = d.r.written(c, err)
		return
	}
	n := len(d.b)
	out := &cn.client.Out
	if n == 0 {
		// Nothing to write (a refresh: gnet may have flushed its outbound
		// buffer since the last write counted it).
		out.SetBuffered(c.OutboundBuffered())
		if d.pooled {
			cn.srv.ks.PutPushBuffer(d.b)
		}
		return
	}
	_, err := c.Write(d.b)
	cn.wroteOnLoop(c)
	if err != nil {
		out.Unqueue(n)
	} else {
		out.Written(n, c.OutboundBuffered())
		cn.srv.ks.CountNetOutput(n)
	}
	// gnet has written b or copied what the socket did not take into its
	// own buffer: b is free either way.
	if d.pooled {
		cn.srv.ks.PutPushBuffer(d.b)
	}
}

// wroteOnLoop notes a write of the loop's: if gnet kept bytes the socket
// did not take, it now watches the socket level-triggered (keepEdge).
func (cn *conn) wroteOnLoop(c link) {
	if cn.edge && c.OutboundBuffered() > 0 {
		cn.edge = false
	}
}

// drop gives up a delivery to a closed connection; loop only.
func (d *delivery) drop(err error) {
	if d.r != nil {
		_ = d.r.written(d.cn.gc, err)
		return
	}
	d.abandon()
}

// abandon gives up a delivery off the loop: its bytes no longer count as
// the client's pending output and its buffers are recycled.
func (d *delivery) abandon() {
	if r := d.r; r != nil {
		d.cn.client.Out.Unqueue(len(r.unsent()))
		d.cn.srv.putRequest(r)
		return
	}
	d.cn.client.Out.Unqueue(len(d.b))
	if d.pooled {
		d.cn.srv.ks.PutPushBuffer(d.b)
	}
}

// outboxOf returns the outbox of reactor el, made on first use.
func (s *Server) outboxOf(el gnet.EventLoop) *outbox {
	s.outboxMu.Lock()
	defer s.outboxMu.Unlock()
	o, ok := s.outboxes[el]
	if !ok {
		o = &outbox{loop: el}
		s.outboxes[el] = o
	}
	return o
}
