package keyspace

import (
	"math/bits"
	"slices"
	"strings"
	"time"
)

// Latency: the per-command latency histograms (LATENCY HISTOGRAM, INFO
// latencystats, the metrics endpoint) and the latency monitor (LATENCY
// LATEST, HISTORY, GRAPH, RESET, DOCTOR). Both are the shard's, as its
// slow log is: each shard of a process answers for its own commands.
// Shard goroutine only; a scraper reads a copy (metrics.go).

// LatencyBuckets is the number of buckets of a command's latency
// histogram. Bucket i (i < LatencyBuckets-1) counts the calls that took
// less than 2^i microseconds and at least 2^(i-1) (bucket 0: under 1µs);
// the last bucket counts the rest. Powers of two are the boundaries Redis
// reports in LATENCY HISTOGRAM.
const LatencyBuckets = 26

// LatencyHist is one command's latency histogram on one shard: counts
// per bucket, not cumulative.
type LatencyHist [LatencyBuckets]int64

// LatencyBucketUpperUs is the upper bound of bucket i in microseconds;
// the last bucket has none (math.Inf in Prometheus terms) and reports -1.
func LatencyBucketUpperUs(i int) int64 {
	if i >= LatencyBuckets-1 {
		return -1
	}
	return int64(1) << i
}

// latencyBucket is the bucket a call that took d falls in.
func latencyBucket(d time.Duration) int {
	us := d.Microseconds()
	if us <= 0 {
		return 0
	}
	return min(bits.Len64(uint64(us)), LatencyBuckets-1)
}

// Count is the number of calls the histogram holds.
func (h *LatencyHist) Count() int64 {
	var n int64
	for _, c := range h {
		n += c
	}
	return n
}

// PercentileUs is the upper bound, in microseconds, of the bucket the
// p-th percentile (0..100) falls in; 0 for an empty histogram. A call in
// the last bucket reports that bucket's lower bound.
func (h *LatencyHist) PercentileUs(p float64) int64 {
	total := h.Count()
	if total == 0 {
		return 0
	}
	// The rank of the percentile, at least the first call.
	rank := max(int64(float64(total)*p/100+0.5), 1)
	var seen int64
	for i, c := range h {
		seen += c
		if seen >= rank {
			if up := LatencyBucketUpperUs(i); up >= 0 {
				return up
			}
			return LatencyBucketUpperUs(i - 1)
		}
	}
	return LatencyBucketUpperUs(LatencyBuckets - 2)
}

// Latency monitor event names, as Redis 7.0 names them where the event
// exists here.
const (
	LatencyEventCommand     = "command"      // a command not flagged fast
	LatencyEventFastCommand = "fast-command" // a command flagged fast (@fast)
	LatencyEventExpireCycle = "expire-cycle" // the active expiry cycle
	LatencyEventEviction    = "eviction-cycle"
	// The WAL's fsyncs (the longest since the last tick): under fsync
	// always and under everysec.
	LatencyEventFsyncAlways     = "aof-fsync-always"
	LatencyEventFsyncBackground = "aof-background-fsync"
	// One step of a snapshot between two drains (Ruvio's own event: the
	// snapshot is written by the shard in steps, not by a fork).
	LatencyEventSnapshotStep = "snapshot-step"
)

// latencyHistoryLen is how many samples an event keeps, as Redis's
// LATENCY_TS_LEN.
const latencyHistoryLen = 160

// LatencySample is the worst latency of an event within one second.
type LatencySample struct {
	UnixSec int64 // the second
	Ms      int64 // the latency, milliseconds
}

// LatencySeries is the recent samples of one event.
type LatencySeries struct {
	samples [latencyHistoryLen]LatencySample // a ring; next is the oldest
	next    int
	// MaxMs is the highest latency ever recorded for the event (since its
	// last reset).
	MaxMs int64
}

// add records a sample, keeping the worst one per second.
func (s *LatencySeries) add(sec, ms int64) {
	s.MaxMs = max(s.MaxMs, ms)
	prev := &s.samples[(s.next+latencyHistoryLen-1)%latencyHistoryLen]
	if prev.UnixSec == sec {
		prev.Ms = max(prev.Ms, ms)
		return
	}
	s.samples[s.next] = LatencySample{UnixSec: sec, Ms: ms}
	s.next = (s.next + 1) % latencyHistoryLen
}

// Latest is the newest sample.
func (s *LatencySeries) Latest() LatencySample {
	return s.samples[(s.next+latencyHistoryLen-1)%latencyHistoryLen]
}

// History returns the samples, oldest first.
func (s *LatencySeries) History() []LatencySample {
	out := make([]LatencySample, 0, latencyHistoryLen)
	for j := range latencyHistoryLen {
		if e := s.samples[(s.next+j)%latencyHistoryLen]; e.UnixSec != 0 {
			out = append(out, e)
		}
	}
	return out
}

// LatencyMonitor is a shard's latency events (LATENCY). Shard goroutine
// only.
type LatencyMonitor struct {
	events map[string]*LatencySeries
}

// Add records that event lasted ms milliseconds at unix second sec.
func (m *LatencyMonitor) Add(event string, sec, ms int64) {
	s := m.events[event]
	if s == nil {
		if m.events == nil {
			m.events = map[string]*LatencySeries{}
		}
		s = &LatencySeries{}
		m.events[event] = s
	}
	s.add(sec, ms)
}

// Event returns the series of event (case-insensitive), nil when it has
// none.
func (m *LatencyMonitor) Event(name string) (string, *LatencySeries) {
	if s := m.events[name]; s != nil {
		return name, s
	}
	for n, s := range m.events {
		if strings.EqualFold(n, name) {
			return n, s
		}
	}
	return "", nil
}

// Events returns the names of the events with samples, sorted.
func (m *LatencyMonitor) Events() []string {
	names := make([]string, 0, len(m.events))
	for n := range m.events {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Reset drops the samples of the events named (case-insensitive), or of
// every event when names is empty, and returns how many it dropped.
func (m *LatencyMonitor) Reset(names ...[]byte) int {
	if len(names) == 0 {
		n := len(m.events)
		clear(m.events)
		return n
	}
	n := 0
	for _, name := range names {
		if ev, s := m.Event(string(name)); s != nil {
			delete(m.events, ev)
			n++
		}
	}
	return n
}

// latencyAfter records a command that took d in the latency monitor when
// latency-monitor-threshold is on and d reaches it.
func (sh *Shard) latencyAfter(cmd *Command, d time.Duration, thresholdMs int64) {
	ms := d.Milliseconds()
	if ms < thresholdMs {
		return
	}
	ev := LatencyEventCommand
	if cmd.Flags&FlagFast != 0 {
		ev = LatencyEventFastCommand
	}
	sh.Latency.Add(ev, sh.Srv.Now().Unix(), ms)
}

// latencyStart returns the time a monitored step begins, or -1 when the
// latency monitor is off (so the step is not timed at all).
func (sh *Shard) latencyStart() time.Duration {
	if sh.Srv.Opts.Live.LatencyMonitorThreshold() <= 0 {
		return -1
	}
	return sh.Srv.elapsed()
}

// latencyEnd records event when the step begun at start (latencyStart)
// lasted at least latency-monitor-threshold.
func (sh *Shard) latencyEnd(event string, start time.Duration) {
	if start < 0 {
		return
	}
	thr := sh.Srv.Opts.Live.LatencyMonitorThreshold()
	if ms := (sh.Srv.elapsed() - start).Milliseconds(); thr > 0 && ms >= thr {
		sh.Latency.Add(event, sh.Srv.Now().Unix(), ms)
	}
}
