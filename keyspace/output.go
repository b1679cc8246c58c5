package keyspace

import (
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
)

// OutputMeter counts the reply bytes of one connection that are not in its
// socket yet: the bytes handed to its event loop and not yet written or
// buffered there (queued), plus the event loop's outbound buffer as last
// seen (buffered). Every producer of bytes for a client goes through it:
// command replies, MONITOR feeds and Pub/Sub messages, so the
// client output buffer limit and CLIENT LIST's omem see them all.
//
// Queue may be called from any goroutine; Written and SetBuffered only
// from the connection's event loop.
type OutputMeter struct {
	queued   atomic.Int64
	buffered atomic.Int64
	// peak is the largest Pending since the last Roll; prevPeak the one
	// before, so that the recent peak covers one to two roll periods.
	peak     atomic.Int64
	prevPeak atomic.Int64
	// class is the client's output limit class (config.OutputClass).
	class atomic.Uint32
	// softSince is when the pending bytes were first seen at or over the
	// class's soft limit, in the caller's clock; 0 when last seen under it.
	softSince atomic.Int64
}

// Breach says which output buffer limit a client broke.
type Breach uint8

// Breaches, from Check.
const (
	WithinLimits Breach = iota
	OverHard            // pending reached the hard limit
	OverSoft            // pending stayed at or over the soft limit for longer than its seconds
	OverReply           // one batch's replies reached limits.max_reply_size (a class without a hard limit)
)

// Check tells whether pending bytes break lim at time now (unix
// nanoseconds, from the caller's clock), as Redis judges a client's output
// buffer: at or over the hard limit breaks it at once; at or over the soft
// limit breaks it once every check since the first that saw it so has
// found it so, and more than lim.SoftSeconds have passed since that first
// one. A check under the soft limit starts the count again. 0 turns a
// limit off. Check may be called from any goroutine.
func (m *OutputMeter) Check(lim config.OutputLimit, pending, now int64) Breach {
	if lim.Hard > 0 && pending >= lim.Hard {
		return OverHard
	}
	if lim.Soft <= 0 || pending < lim.Soft {
		if m.softSince.Load() != 0 {
			m.softSince.Store(0)
		}
		return WithinLimits
	}
	since := m.softSince.Load()
	if since == 0 {
		// 0 means unset; a clock at 0 (tests) counts from 1 ns.
		m.softSince.CompareAndSwap(0, max(now, 1))
		return WithinLimits
	}
	if now-since > lim.SoftSeconds*1e9 {
		return OverSoft
	}
	return WithinLimits
}

// OverSoftSince is when the pending bytes were first seen at or over the
// soft limit (in Check's clock), 0 when they were last seen under it.
func (m *OutputMeter) OverSoftSince() int64 { return m.softSince.Load() }

// Queue records n bytes handed to the connection's writer and returns the
// pending total.
func (m *OutputMeter) Queue(n int) int64 {
	p := m.queued.Add(int64(n)) + m.buffered.Load()
	m.notePeak(p)
	return p
}

// Written records n queued bytes that reached the socket or the outbound
// buffer, which now holds outbound bytes.
func (m *OutputMeter) Written(n, outbound int) {
	m.queued.Add(-int64(n))
	m.SetBuffered(outbound)
}

// SetBuffered records the size of the connection's outbound buffer.
func (m *OutputMeter) SetBuffered(outbound int) {
	if m.buffered.Load() == int64(outbound) {
		return
	}
	m.buffered.Store(int64(outbound))
	m.notePeak(m.Pending())
}

// Pending is the number of reply bytes not in the socket yet.
func (m *OutputMeter) Pending() int64 { return m.queued.Load() + m.buffered.Load() }

// RecentPeak is the largest Pending seen over the last one or two roll
// periods.
func (m *OutputMeter) RecentPeak() int64 { return max(m.peak.Load(), m.prevPeak.Load()) }

// Roll starts a new peak period.
func (m *OutputMeter) Roll() {
	m.prevPeak.Store(m.peak.Load())
	m.peak.Store(m.Pending())
}

func (m *OutputMeter) notePeak(p int64) {
	for {
		old := m.peak.Load()
		if p <= old || m.peak.CompareAndSwap(old, p) {
			return
		}
	}
}

// Kill marks the client as cut off (over its output buffer limit, or ended
// by CLIENT KILL or QUIT): the commands it still has queued at its shard
// are dropped unrun and nothing more is pushed to it. The caller closes
// the connection. It reports whether this call cut the client off, so that
// only one of several goroutines logs and counts it.
func (c *Client) Kill() bool { return c.killed.CompareAndSwap(false, true) }

// SetOutputClass puts the client in output buffer limit class k, whose
// client-output-buffer-limit values apply to it from its next check on.
// Pub/Sub sets config.OutputPubSub while the client has subscriptions
// (Redis counts a client as pubsub while it is in subscribed mode) and
// config.OutputNormal when the last one goes; replication will set
// config.OutputReplica. Any goroutine may call it.
func (c *Client) SetOutputClass(k config.OutputClass) { c.Out.class.Store(uint32(k)) }

// OutputClass is the client's output buffer limit class (config.OutputNormal
// unless SetOutputClass said otherwise).
func (c *Client) OutputClass() config.OutputClass { return config.OutputClass(c.Out.class.Load()) }

// Killed reports whether Kill was called.
func (c *Client) Killed() bool { return c.killed.Load() }

// RecentMaxOutputBuffer is INFO's client_recent_max_output_buffer: the
// largest recent output buffer of any connected client.
func (s *Server) RecentMaxOutputBuffer() int64 {
	var m int64
	for _, c := range s.Clients() {
		m = max(m, c.Out.RecentPeak())
	}
	return m
}

// Unqueue takes back n queued bytes that will not be written (the
// connection closed first).
func (m *OutputMeter) Unqueue(n int) { m.queued.Add(-int64(n)) }

// OutputCutOff counts a client cut off for breaking its output buffer limit
// lim (or, with why OverReply, the largest reply) and logs it in one line:
// its address, class, the limit it broke and the bytes it had pending, and
// detaches c (Server.detach) so that nothing counts it from now on. The
// caller has won c.Kill.
func (s *Server) OutputCutOff(log *zap.Logger, c *Client, why Breach, lim config.OutputLimit, pending int64) {
	s.CountOutputBufferKill()
	// Gone at once: no later PUBLISH counts it, CLIENT LIST does not show
	// it; its shard releases the rest.
	s.detach(c)
	fields := []zap.Field{zap.String("remote", c.RemoteAddr), zap.Stringer("class", c.OutputClass())}
	switch why {
	case OverSoft:
		fields = append(fields, zap.String("limit", "soft"), zap.Int64("limit_bytes", lim.Soft), zap.Int64("soft_seconds", lim.SoftSeconds))
	case OverReply:
		fields = append(fields, zap.String("limit", "reply"), zap.Int64("limit_bytes", s.maxReplyBytes()))
	default:
		fields = append(fields, zap.String("limit", "hard"), zap.Int64("limit_bytes", lim.Hard))
	}
	log.Warn("closing client: output buffer limit reached", append(fields, zap.Int64("pending", pending))...)
}

// maxReplyBytes is the most reply bytes one batch may build for a client
// whose output class has no hard limit (limits.max_reply_size; 1 GiB in a
// Config that leaves it unset).
func (s *Server) maxReplyBytes() int64 {
	if n := s.Opts.Config.Limits.MaxReplySize; n > 0 {
		return n
	}
	return 1 << 30
}
