package keyspace

import "sync/atomic"

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
}

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

// Kill marks the client as cut off (over its output buffer limit): the
// commands it still has queued at its shard are dropped unrun. The caller
// closes the connection.
func (c *Client) Kill() { c.killed.Store(true) }

// Killed reports whether Kill was called.
func (c *Client) Killed() bool { return c.killed.Load() }

// recentMaxOutputBuffer is INFO's client_recent_max_output_buffer: the
// largest recent output buffer of any connected client.
func (s *Server) recentMaxOutputBuffer() int64 {
	var m int64
	for _, c := range s.Clients() {
		m = max(m, c.Out.RecentPeak())
	}
	return m
}

// Unqueue takes back n queued bytes that will not be written (the
// connection closed first).
func (m *OutputMeter) Unqueue(n int) { m.queued.Add(-int64(n)) }
