package persistence

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// RecoveryStats describes one Recover run.
type RecoveryStats struct {
	LastSeq        uint64        // last sequence seen, or afterSeq if larger; pass to OpenWAL
	Records        int64         // records applied (Seq > afterSeq)
	Bytes          int64         // encoded bytes of the applied records
	Segments       int           // segment files read
	TruncatedBytes int64         // bytes of an incomplete final record, or cut by repair
	ZeroBytes      int64         // preallocated zeros cut after the last record
	Repaired       bool          // repair moved damaged data aside
	Duration       time.Duration // wall time of the run
}

// WALStats is a point-in-time view of a WAL's counters.
type WALStats struct {
	Fsyncs              uint64        // explicit fsyncs of segment files
	Writes              uint64        // write calls to segment files
	Records             uint64        // records written to segment files
	Bytes               uint64        // bytes written to segment files
	LastFsyncLatency    time.Duration // duration of the most recent fsync
	TotalFsyncLatency   time.Duration // sum of all fsync durations
	LastRecordsPerFsync uint64        // records made durable by the most recent fsync
	AvgRecordsPerFsync  float64       // records made durable per fsync, on average
	AvgFsyncLatency     time.Duration // TotalFsyncLatency / Fsyncs
	CommitDelays        uint64        // groups the commit delay held back for expected writers
	CommitDelaysEarly   uint64        // of those, delays ended early because the writers arrived
	CommitDelayTotal    time.Duration // time groups were held back, in total
	InlineSyncs         uint64        // lone clients' commits synced without the sync goroutine
	Segments            int           // live segment files (including the current one)
	LastSequence        uint64        // as LastSequence
	DurableSequence     uint64        // as DurableSequence
	// FsyncHist counts the fsyncs by duration: bucket i (i <
	// FsyncBuckets-1) those under 2^i microseconds and at least
	// 2^(i-1) (bucket 0: under 1µs), the last one the rest.
	FsyncHist [FsyncBuckets]uint64
}

// FsyncBuckets is the number of buckets of WALStats.FsyncHist.
const FsyncBuckets = 26

// walMetrics holds the WAL's counters; every field is atomic so Stats is
// safe from any goroutine.
type walMetrics struct {
	fsyncs        atomic.Uint64
	writes        atomic.Uint64
	records       atomic.Uint64
	bytes         atomic.Uint64
	lastFsyncNs   atomic.Int64
	totalFsyncNs  atomic.Int64
	unsyncedRecs  atomic.Uint64 // records written since the last fsync
	syncedRecs    atomic.Uint64 // records covered by fsyncs so far
	lastPerFsync  atomic.Uint64
	delays        atomic.Uint64
	delaysEarly   atomic.Uint64
	delayNs       atomic.Int64
	inlineSyncs   atomic.Uint64
	segments      atomic.Int64
	lastSeq       atomic.Uint64
	durableSeq    atomic.Uint64
	writtenSeq    atomic.Uint64 // last sequence handed to File.Write
	lastSyncedSeq atomic.Uint64 // writtenSeq at the start of the last fsync
	fsyncHist     [FsyncBuckets]atomic.Uint64
	maxFsyncNs    atomic.Int64 // the longest fsync since TakeMaxFsync last read it
}

func (m *walMetrics) wrote(records int, bytes int) {
	m.writes.Add(1)
	m.records.Add(uint64(records))
	m.bytes.Add(uint64(bytes))
	m.unsyncedRecs.Add(uint64(records))
}

func (m *walMetrics) synced(d time.Duration) {
	m.fsyncs.Add(1)
	us := d.Microseconds()
	b := 0
	if us > 0 {
		b = min(bits.Len64(uint64(us)), FsyncBuckets-1)
	}
	m.fsyncHist[b].Add(1)
	for cur := m.maxFsyncNs.Load(); int64(d) > cur && !m.maxFsyncNs.CompareAndSwap(cur, int64(d)); cur = m.maxFsyncNs.Load() {
	}
	m.lastFsyncNs.Store(int64(d))
	m.totalFsyncNs.Add(int64(d))
	n := m.unsyncedRecs.Swap(0)
	m.syncedRecs.Add(n)
	m.lastPerFsync.Store(n)
}

func (m *walMetrics) delayed(d time.Duration, early bool) {
	m.delays.Add(1)
	if early {
		m.delaysEarly.Add(1)
	}
	m.delayNs.Add(int64(d))
}

func (m *walMetrics) snapshot() WALStats {
	s := WALStats{
		Fsyncs:              m.fsyncs.Load(),
		Writes:              m.writes.Load(),
		Records:             m.records.Load(),
		Bytes:               m.bytes.Load(),
		LastFsyncLatency:    time.Duration(m.lastFsyncNs.Load()),
		TotalFsyncLatency:   time.Duration(m.totalFsyncNs.Load()),
		LastRecordsPerFsync: m.lastPerFsync.Load(),
		CommitDelays:        m.delays.Load(),
		CommitDelaysEarly:   m.delaysEarly.Load(),
		CommitDelayTotal:    time.Duration(m.delayNs.Load()),
		InlineSyncs:         m.inlineSyncs.Load(),
		Segments:            int(m.segments.Load()),
		LastSequence:        m.lastSeq.Load(),
		DurableSequence:     m.durableSeq.Load(),
	}
	for i := range m.fsyncHist {
		s.FsyncHist[i] = m.fsyncHist[i].Load()
	}
	if s.Fsyncs > 0 {
		s.AvgRecordsPerFsync = float64(m.syncedRecs.Load()) / float64(s.Fsyncs)
		s.AvgFsyncLatency = s.TotalFsyncLatency / time.Duration(s.Fsyncs)
	}
	return s
}
