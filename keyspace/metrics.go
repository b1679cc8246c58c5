package keyspace

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/persistence"
)

// The shard's figures for a scraper (the metrics endpoint). Most of a
// shard's counters are plain fields only its goroutine may touch, so that
// counting costs nothing on the command path. A scraper asks for a copy:
// it raises a flag and wakes the shard, which copies its figures at the
// top of its next loop round (between drains, never inside one) and
// signals. Copying is cheap (the per-command counters and a few
// figures), bounded, and done without locks on the command path. A shard
// busy with one long command (DEBUG SLEEP) answers late; the scraper's
// context bounds its wait and it then reports the last copy.

// ReplicaLag is how far one replica of a shard is behind.
type ReplicaLag struct {
	Addr      string        // the replica's address
	Records   uint64        // log records it has not acknowledged
	SinceAck  time.Duration // time since its last acknowledgement
	Connected time.Duration // time since it connected
}

// ShardMetrics is a copy of one shard's figures, taken on the shard's
// goroutine (Shard.ReadMetrics).
type ShardMetrics struct {
	// Taken is when the copy was made; Fresh reports whether it was made
	// for the read that returned it (false: the shard did not answer in
	// time and this is the previous copy).
	Taken time.Time
	Fresh bool
	// Commands is the per-command counters, indexed by Command.ID.
	Commands []CmdStat
	// ErrorReplies is total_error_replies; Errors the counts per code.
	ErrorReplies int64
	Errors       map[string]int64
	// Keys and Expires are per database: keys, and keys with a TTL.
	Keys, Expires []int64
	// Blocked is the clients parked on this shard (BLPOP, WAIT, ...).
	Blocked int
	// Channels, Patterns and ShardChannels are the Pub/Sub subscriptions'
	// distinct names.
	Channels, Patterns, ShardChannels int
	// WALOn reports a write-ahead log; WAL its counters, and
	// GroupedCommands the commands its commits released.
	WALOn           bool
	WAL             persistence.WALStats
	GroupedCommands int64
	// SnapshotInProgress, SnapshotLastUnix (unix seconds of the last
	// success, 0: none), SnapshotLastDuration and SnapshotLastOK describe
	// the snapshots.
	SnapshotInProgress   bool
	SnapshotLastUnix     int64
	SnapshotLastDuration time.Duration
	SnapshotLastOK       bool
	// Replicas is the replicas streaming from this shard.
	Replicas []ReplicaLag
	// LatencyEvents is the latency monitor's all-time highs, in
	// milliseconds, by event.
	LatencyEvents map[string]int64
}

// metricsPub is the shard's published copy of its figures.
type metricsPub struct {
	want atomic.Bool // a scraper waits for a fresh copy
	mu   sync.Mutex
	snap ShardMetrics  // guarded by mu
	done chan struct{} // guarded by mu; closed when the next copy is made
}

// publishMetrics copies the shard's figures for scrapers. Shard goroutine,
// holding the shard.
func (sh *Shard) publishMetrics() {
	sh.metrics.want.Store(false)
	p := sh.metrics
	p.mu.Lock()
	defer p.mu.Unlock()
	m := &p.snap
	m.Taken = sh.Srv.Now()
	m.Commands = append(m.Commands[:0], sh.CmdStats.ByID...)
	m.ErrorReplies = sh.CmdStats.ErrorReplies
	if m.Errors == nil {
		m.Errors = map[string]int64{}
	}
	clear(m.Errors)
	for k, v := range sh.CmdStats.Errors {
		m.Errors[k] = v
	}
	m.Keys, m.Expires = m.Keys[:0], m.Expires[:0]
	for _, db := range sh.DBs {
		m.Keys = append(m.Keys, int64(db.Len()))
		m.Expires = append(m.Expires, int64(db.Expires()))
	}
	m.Blocked = len(sh.Blk.Clients)
	sh.Pubsub.Mu.Lock()
	m.Channels = len(sh.Pubsub.Tables[SubChannel])
	m.Patterns = len(sh.Pubsub.Tables[SubPattern])
	m.ShardChannels = len(sh.Pubsub.Tables[SubShard])
	sh.Pubsub.Mu.Unlock()
	j, ok := sh.Journal.(*WALJournal)
	m.WALOn = ok
	if ok {
		m.WAL = j.WAL.Stats()
		m.GroupedCommands = j.GroupedCommands.Load()
	}
	st := sh.SnapStatus
	m.SnapshotInProgress = sh.Snap != nil || sh.SnapFinishing
	m.SnapshotLastUnix = st.LastTime
	m.SnapshotLastDuration = st.LastDuration
	m.SnapshotLastOK = st.LastStatus == "" || st.LastStatus == "ok"
	m.Replicas = m.Replicas[:0]
	nowMs := m.Taken.UnixMilli()
	for _, r := range sh.Repl.Replicas {
		lag := ReplicaLag{Addr: r.Addr, SinceAck: time.Duration(max(nowMs-r.AckAtMs, 0)) * time.Millisecond,
			Connected: time.Duration(max(nowMs-r.SinceMs, 0)) * time.Millisecond}
		if ok && m.WAL.LastSequence > r.Ack {
			lag.Records = m.WAL.LastSequence - r.Ack
		}
		m.Replicas = append(m.Replicas, lag)
	}
	if m.LatencyEvents == nil {
		m.LatencyEvents = map[string]int64{}
	}
	clear(m.LatencyEvents)
	for n, s := range sh.Latency.events {
		m.LatencyEvents[n] = s.MaxMs
	}
	if p.done != nil {
		close(p.done)
		p.done = nil
	}
}

// ErrMetricsStale is returned by ReadMetrics when the shard did not copy
// its figures before the context ended: dst then holds the previous copy.
var ErrMetricsStale = fmt.Errorf("keyspace: shard metrics: the shard did not answer in time")

// ReadMetrics copies the shard's figures into dst, reusing dst's slices
// and maps. It asks the shard for a fresh copy and waits for it until ctx
// ends; then it returns the previous copy (zero before the first) with
// dst.Fresh false and an error wrapping ErrMetricsStale and ctx's error.
// Safe from any goroutine; several readers may wait at once.
func (sh *Shard) ReadMetrics(ctx context.Context, dst *ShardMetrics) error {
	p := sh.metrics
	p.mu.Lock()
	if p.done == nil {
		p.done = make(chan struct{})
	}
	done := p.done
	p.mu.Unlock()
	p.want.Store(true)
	sh.Ring.Signal()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("%w: shard %d: %w", ErrMetricsStale, sh.Idx, ctx.Err())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	dst.copyFrom(&p.snap)
	dst.Fresh = err == nil
	return err
}

// copyFrom copies src into m, reusing m's storage.
func (m *ShardMetrics) copyFrom(src *ShardMetrics) {
	cmds, keys, exp, reps, errs, lat := m.Commands, m.Keys, m.Expires, m.Replicas, m.Errors, m.LatencyEvents
	*m = *src
	m.Commands = append(cmds[:0], src.Commands...)
	m.Keys = append(keys[:0], src.Keys...)
	m.Expires = append(exp[:0], src.Expires...)
	m.Replicas = append(reps[:0], src.Replicas...)
	if errs == nil {
		errs = map[string]int64{}
	}
	clear(errs)
	for k, v := range src.Errors {
		errs[k] = v
	}
	m.Errors = errs
	if lat == nil {
		lat = map[string]int64{}
	}
	clear(lat)
	for k, v := range src.LatencyEvents {
		lat[k] = v
	}
	m.LatencyEvents = lat
}
