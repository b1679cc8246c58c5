package persistence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// FsyncPolicy says when appended records are fsynced.
type FsyncPolicy uint8

// Fsync policies (the `fsync` setting: "always", "everysec", "no").
const (
	// FsyncAlways fsyncs every committed batch before its Committer is told
	// (group commit: one fsync covers every batch queued meanwhile).
	FsyncAlways FsyncPolicy = iota
	// FsyncEverySec writes each batch at Commit and fsyncs about once per
	// second from a background goroutine.
	FsyncEverySec
	// FsyncNo writes each batch at Commit and fsyncs only on rotation and
	// Close.
	FsyncNo
)

// String returns the configuration spelling of p.
func (p FsyncPolicy) String() string {
	switch p {
	case FsyncAlways:
		return "always"
	case FsyncEverySec:
		return "everysec"
	case FsyncNo:
		return "no"
	}
	return fmt.Sprintf("FsyncPolicy(%d)", uint8(p))
}

// ParseFsyncPolicy parses "always", "everysec" or "no" (case-insensitive).
func ParseFsyncPolicy(s string) (FsyncPolicy, error) {
	switch strings.ToLower(s) {
	case "always":
		return FsyncAlways, nil
	case "everysec":
		return FsyncEverySec, nil
	case "no":
		return FsyncNo, nil
	}
	return 0, fmt.Errorf("persistence: invalid fsync policy %q (want always, everysec or no)", s)
}

// DefaultSegmentSize is the rotation threshold used when
// WALOptions.SegmentSize is zero.
const DefaultSegmentSize = 64 << 20

// everySecInterval is the FsyncEverySec period.
const everySecInterval = time.Second

// maxRecycledBuf is the largest batch buffer kept for reuse.
const maxRecycledBuf = 4 << 20

// WALOptions configures OpenWAL.
type WALOptions struct {
	Policy      FsyncPolicy
	SegmentSize int64       // rotate once a segment reaches this size; 0 = DefaultSegmentSize
	Logger      *zap.Logger // nil = no logging
	// MaxCommitDelay returns the longest the FsyncAlways sync goroutine
	// may hold a ready group back for writers expected to arrive (see
	// commitDelay); nil, or a value <= 0, never waits. It is read once per
	// group, so the setting may change while the WAL runs.
	MaxCommitDelay func() time.Duration
	// Clock is the time source of the commit delay and the fsync latency
	// it adapts to; nil = the system clock. Now must be safe from any
	// goroutine.
	Clock Clock
	// OnDurable, when set, is called with the new DurableSequence each
	// time it advances: from the sync goroutine under FsyncAlways, from
	// the appending goroutine otherwise. It must not block (replication
	// uses it to wake the senders that stream durable records).
	OnDurable func(seq uint64)
	// OnSynced, when set, is called with the new SyncedSequence each time
	// it advances under FsyncEverySec and FsyncNo (under FsyncAlways
	// OnDurable says it): from the syncing goroutine. It must not block.
	OnSynced func(seq uint64)
}

// Committer is told when everything appended before its Commit is durable
// according to the policy. err != nil means a write or fsync failed; no
// record from that point on can be trusted. Committed is called exactly
// once per Commit that returned false, possibly from another goroutine, and
// must not block for long (it runs on the WAL's sync goroutine).
type Committer interface {
	Committed(err error)
}

// pending is one committed batch waiting for the sync goroutine.
type pending struct {
	buf   []byte
	c     Committer
	recs  int
	first uint64 // sequence of the first record (0 if recs == 0)
	last  uint64
	// writers is how many writers c stands for (WriterCounter, else 1).
	writers int
}

// WAL is one shard's write-ahead log. Append, AppendParts, Begin/Put*/End,
// Commit and Close must be called from one goroutine (the shard's); Err,
// LastSequence, DurableSequence, Stats and RemoveSegmentsBefore are safe
// from any goroutine.
type WAL struct {
	fs    FS
	dir   string
	shard int
	opts  WALOptions
	log   *zap.Logger

	// Owned by the appending goroutine.
	buf        []byte // current batch
	batchRecs  int
	batchFirst uint64
	seq        uint64 // last appended sequence
	recStart   int    // offset in buf of the record being built (Begin)
	closed     bool
	// lastSole is the sole client of the last commit with records and
	// soleRun how many commits in a row came from it (0: the last commit
	// had several clients); see loneRun.
	lastSole int64
	soleRun  int

	// Group commit (FsyncAlways).
	mu       sync.Mutex
	cond     *sync.Cond
	queue    []pending // mu guards
	free     [][]byte  // mu guards: recycled batch buffers
	stopping bool      // mu guards
	// queuedWriters counts the writers of queue; mu guards.
	queuedWriters int
	// wantWriters, while delaying, is the count that ends the delay; mu
	// guards both.
	wantWriters int
	delaying    bool
	// arrive wakes the sync goroutine from a commit delay (capacity 1).
	arrive   chan struct{}
	delay    commitDelay // owned by the sync goroutine
	clock    Clock
	spare    []pending // owned by the sync goroutine
	inflight atomic.Int64
	done     chan struct{}
	stop     chan struct{} // FsyncEverySec ticker stop

	// Segment file. Owned by the sync goroutine under FsyncAlways and by the
	// appending goroutine otherwise; fileMu guards f, fSize and curFirst
	// against the FsyncEverySec syncer, which holds it while syncing.
	fileMu   sync.Mutex
	f        File
	fSize    int64
	curFirst uint64
	// preallocated is set while f has reserved space past fSize.
	preallocated bool
	// durableSize is, under FsyncAlways, how many bytes of f its last
	// successful fsync covered; retired is set once f was handed to its
	// close (rotation) and before its successor exists. Both are for
	// dropUndurable.
	durableSize int64
	retired     bool
	// dirUnsynced is set when a segment was created without fsyncing the
	// directory (rotation under everysec and no): the next periodic sync,
	// Sync or Close syncs it first. Set and cleared under fileMu.
	dirUnsynced bool
	// background counts closed segments still being synced.
	background sync.WaitGroup
	// syncMu guards the synced frontier under FsyncEverySec and FsyncNo:
	// closing are the segments closed in the background and not synced
	// yet (in order), curSynced the last sequence of a sync of the
	// current segment, closedSynced the last record of a segment whose
	// background sync finished.
	syncMu       sync.Mutex
	closing      []segmentRange
	curSynced    uint64
	closedSynced uint64
	syncedSeq    atomic.Uint64
	wbuf         []byte // sync goroutine: concatenation of queued batches

	segMu sync.Mutex
	segs  []segmentInfo // segMu guards; the last one is the current segment

	// openedSeq is the last sequence at OpenWAL; createdSegment says
	// OpenWAL created the segment it opened (no empty file of that name
	// was there). Abandon uses them.
	openedSeq      uint64
	createdSegment bool

	errOnce sync.Once
	err     atomic.Pointer[error]

	m walMetrics
}

// segmentRange is the records first..last of a segment.
type segmentRange struct{ first, last uint64 }

// OpenWAL opens shard's log in dir for appending after Recover returned
// lastSeq; the next record gets lastSeq+1. It always starts a new segment
// named after lastSeq+1 (reusing an empty file of that name) and fsyncs the
// directory. It fails with ErrSequence if a segment holding records after
// lastSeq exists.
func OpenWAL(fs FS, dir string, shard int, lastSeq uint64, opts WALOptions) (*WAL, error) {
	if opts.SegmentSize <= 0 {
		opts.SegmentSize = DefaultSegmentSize
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Policy > FsyncNo {
		return nil, fmt.Errorf("persistence: open WAL: invalid %v", opts.Policy)
	}
	if err := fs.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("persistence: create %s: %w", dir, err)
	}
	segs, err := listSegments(fs, dir, shard)
	if err != nil {
		return nil, err
	}
	reused := false
	for i, s := range segs {
		if s.firstSeq > lastSeq+1 {
			return nil, fmt.Errorf("%w: segment %s starts after last sequence %d", ErrSequence, s.path, lastSeq)
		}
		if s.firstSeq == lastSeq+1 {
			size, err := fs.Stat(s.path)
			if err != nil {
				return nil, fmt.Errorf("persistence: stat %s: %w", s.path, err)
			}
			if size != 0 {
				return nil, fmt.Errorf("%w: segment %s holds records after last sequence %d", ErrSequence, s.path, lastSeq)
			}
			segs = append(segs[:i], segs[i+1:]...)
			reused = true
			break
		}
	}
	w := &WAL{
		fs: fs, dir: dir, shard: shard, opts: opts, log: opts.Logger,
		seq:    lastSeq,
		buf:    make([]byte, 0, 64<<10),
		segs:   segs,
		done:   make(chan struct{}),
		arrive: make(chan struct{}, 1),
		clock:  opts.Clock,
	}
	if w.clock == nil {
		w.clock = &sysClock{}
	}
	w.cond = sync.NewCond(&w.mu)
	w.m.lastSeq.Store(lastSeq)
	w.m.durableSeq.Store(lastSeq)
	w.m.writtenSeq.Store(lastSeq)
	w.m.lastSyncedSeq.Store(lastSeq)
	w.syncedSeq.Store(lastSeq)
	if err := w.openSegment(lastSeq+1, true); err != nil {
		return nil, err
	}
	w.openedSeq, w.createdSegment = lastSeq, !reused
	switch opts.Policy {
	case FsyncAlways:
		go w.syncLoop()
	case FsyncEverySec:
		w.stop = make(chan struct{})
		go w.everySecLoop()
	default:
		close(w.done)
	}
	return w, nil
}

// openSegment creates the segment starting at first and, if syncDir,
// fsyncs the directory; else it leaves that to the next periodic sync
// (dirUnsynced). The caller owns the file state (and holds fileMu if a
// syncer may run).
func (w *WAL) openSegment(first uint64, syncDir bool) error {
	path := filepath.Join(w.dir, SegmentName(w.shard, first))
	f, err := w.fs.Create(path)
	if err != nil {
		return fmt.Errorf("persistence: create segment %s: %w", path, err)
	}
	preallocated, err := w.preallocate(f)
	if err == nil && syncDir {
		if err = w.fs.SyncDir(w.dir); err != nil {
			err = fmt.Errorf("persistence: sync dir %s after creating %s: %w", w.dir, path, err)
		}
	}
	if err != nil {
		// The segment holds nothing yet: leave no file behind.
		_ = f.Close()
		_ = w.fs.Remove(path)
		return err
	}
	if !syncDir {
		w.dirUnsynced = true
	}
	w.f, w.fSize, w.curFirst, w.preallocated = f, 0, first, preallocated
	w.durableSize, w.retired = 0, false
	w.segMu.Lock()
	w.segs = append(w.segs, segmentInfo{path: path, firstSeq: first})
	w.m.segments.Store(int64(len(w.segs)))
	w.segMu.Unlock()
	return nil
}

// preallocate reserves the segment size for the new, empty segment f
// where the file system can. Appends grow the file regardless, so a
// failure only costs the cheaper syncs; but a file system that cannot
// hold the whole reservation may have allocated part of it before
// failing (ext4 does, and keeps it), taking the space every other file
// of the directory needs. The file is then cut back to empty, and the
// segment grows as it is written.
func (w *WAL) preallocate(f File) (bool, error) {
	p, ok := f.(Preallocator)
	if !ok || w.opts.SegmentSize <= 0 {
		return false, nil
	}
	err := p.Preallocate(w.opts.SegmentSize)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS):
		w.log.Debug("persistence: segment not preallocated: the file system does not support it", zap.String("file", f.Name()), zap.Error(err))
		return false, nil
	}
	if terr := f.Truncate(0); terr != nil {
		return false, fmt.Errorf("persistence: release the space of %s after a failed preallocation (%v): %w", f.Name(), err, terr)
	}
	msg := "persistence: segment not preallocated; it grows as it is written"
	if errors.Is(err, syscall.ENOSPC) {
		msg = fmt.Sprintf("persistence: segment not preallocated: the volume has less free space than persistence.segment_size (%d bytes); it grows as it is written, and writes fail once the volume is full", w.opts.SegmentSize)
	}
	w.log.Warn(msg, zap.String("file", f.Name()), zap.Error(err))
	return false, nil
}

// closeInBackground fsyncs and closes a finished segment holding records
// first..last on its own goroutine; Close waits for it. Until its sync
// is done SyncedSequence stays before first. syncDir says the segment was
// created without a directory sync that has not happened since
// (dirUnsynced): its records count as durable once both are done.
func (w *WAL) closeInBackground(f File, first, last uint64, syncDir bool) {
	r := segmentRange{first: first, last: last}
	if first <= last {
		w.syncMu.Lock()
		w.closing = append(w.closing, r)
		w.syncMu.Unlock()
	}
	w.background.Add(1)
	go func() {
		defer w.background.Done()
		if err := w.syncFile(f); err != nil {
			w.setErr(fmt.Errorf("persistence: fsync closed segment %s: %w", f.Name(), err))
		} else if err := w.syncDirIf(syncDir); err != nil {
			w.setErr(fmt.Errorf("persistence: sync dir %s for closed segment %s: %w", w.dir, f.Name(), err))
		} else if first <= last {
			w.segmentSynced(r)
		}
		if err := f.Close(); err != nil {
			w.setErr(fmt.Errorf("persistence: close segment %s: %w", f.Name(), err))
		}
	}()
}

// trimLocked cuts a preallocated segment back to the bytes written, so
// only the last segment of a crashed process ever has a zero tail.
func (w *WAL) trimLocked() error {
	if !w.preallocated {
		return nil
	}
	if err := w.f.Truncate(w.fSize); err != nil {
		return fmt.Errorf("persistence: trim segment %s to %d bytes: %w", w.f.Name(), w.fSize, err)
	}
	w.preallocated = false
	return nil
}

// rotate fsyncs and closes the current segment and starts one at first.
func (w *WAL) rotate(first uint64) error {
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	if err := w.trimLocked(); err != nil {
		return err
	}
	if w.opts.Policy != FsyncAlways {
		// Under everysec and no, the appending goroutine (the shard loop)
		// must not wait while a whole segment of dirty pages is flushed:
		// the closed segment is synced and closed in the background, and a
		// failure still sets the sticky error. Nor does it fsync the
		// directory for the new segment: that commits the filesystem's
		// journal, which in ordered mode first writes the data of the
		// segment just closed (tens of milliseconds for 64 MB). The next
		// periodic sync does it before it counts any record durable.
		w.retired = true
		w.closeInBackground(w.f, w.curFirst, first-1, w.dirUnsynced)
		w.log.Debug("persistence: WAL segment rotated", zap.String("closed", w.f.Name()), zap.Int64("size", w.fSize))
		return w.openSegment(first, false)
	}
	if err := w.syncFileLocked(); err != nil {
		return err
	}
	// The closed segment's records are durable now, whatever happens to
	// the rest of the group: a failure after this point must not count
	// them as lost (dropUndurable keeps them, and so must the replies).
	w.markDurable(w.m.writtenSeq.Load())
	w.retired = true
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("persistence: close segment %s: %w", w.f.Name(), err)
	}
	w.log.Debug("persistence: WAL segment rotated", zap.String("closed", w.f.Name()), zap.Int64("size", w.fSize))
	return w.openSegment(first, true)
}

// syncFile makes f's data durable. Under fsync always a commit waits on
// every sync, and a direct fdatasync returns soonest; under everysec and
// no nothing waits on it, and a background sync (BackgroundSyncer) leaves
// the reactors and shards running meanwhile even on one P.
func (w *WAL) syncFile(f File) error {
	if w.opts.Policy == FsyncAlways {
		return f.Sync()
	}
	return syncInBackground(f)
}

// syncDirIf fsyncs the WAL's directory when need is set.
func (w *WAL) syncDirIf(need bool) error {
	if !need {
		return nil
	}
	return w.fs.SyncDir(w.dir)
}

// syncFileLocked fsyncs the directory if a segment was created without
// (dirUnsynced), then the current segment if anything was written since
// the last fsync. Caller holds fileMu or owns the file.
func (w *WAL) syncFileLocked() error {
	if err := w.syncDirIf(w.dirUnsynced); err != nil {
		return fmt.Errorf("persistence: sync dir %s after creating %s: %w", w.dir, w.f.Name(), err)
	}
	w.dirUnsynced = false
	written := w.m.writtenSeq.Load()
	if written == w.m.lastSyncedSeq.Load() {
		return nil
	}
	t0 := w.clock.Now()
	if err := w.syncFile(w.f); err != nil {
		return fmt.Errorf("persistence: fsync %s (records through sequence %d): %w", w.f.Name(), written, err)
	}
	w.m.synced(w.clock.Now().Sub(t0))
	w.m.lastSyncedSeq.Store(written)
	return nil
}

// dropUndurable cuts the current segment back to the records known to be
// durable after a failed write or fsync, and syncs the cut: bytes handed
// to the kernel before a failed fsync may still reach the disk later, and
// a partial write may hold whole records, and none of those records may
// come back at the next start, since their writes were refused. Under
// FsyncAlways that is the size the last successful fsync covered; under
// FsyncEverySec and FsyncNo every record written is acknowledged, so only
// the tail of a failed write goes. The caller owns the file (the sync
// goroutine, or the appending goroutine at a failed commit). A failure to
// cut is logged: nothing more can be done from here.
func (w *WAL) dropUndurable() {
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	if w.retired || w.f == nil {
		// The segment was synced whole (or is being synced by its
		// background close) before it was closed; its successor was never
		// created.
		return
	}
	size := w.fSize
	if w.opts.Policy == FsyncAlways {
		size = w.durableSize
	}
	err := w.f.Truncate(size)
	if err == nil {
		err = w.f.Sync()
	}
	if err != nil {
		w.log.Error("persistence: cannot cut the WAL back to its durable records; records of refused writes may be replayed at the next start",
			zap.Int("shard", w.shard), zap.String("file", w.f.Name()), zap.Int64("durable_size", size), zap.Error(err))
		return
	}
	if size < w.fSize {
		w.log.Warn("persistence: WAL cut back to its durable records after a failure",
			zap.Int("shard", w.shard), zap.String("file", w.f.Name()), zap.Int64("from", w.fSize), zap.Int64("to", size),
			zap.Uint64("durable_sequence", w.m.durableSeq.Load()))
	}
	w.fSize, w.preallocated = size, false
}

// write writes b (recs records ending at lastSeq) to the current segment.
func (w *WAL) write(b []byte, recs int, lastSeq uint64) error {
	n, err := w.f.Write(b)
	if err != nil {
		return fmt.Errorf("persistence: write %d bytes to %s at offset %d: %w", len(b), w.f.Name(), w.fSize, err)
	}
	w.fSize += int64(n)
	w.m.wrote(recs, n)
	w.m.writtenSeq.Store(lastSeq)
	return nil
}

func (w *WAL) setErr(err error) {
	w.errOnce.Do(func() {
		w.err.Store(&err)
		w.log.Error("persistence: WAL failed; the shard must stop accepting writes",
			zap.Int("shard", w.shard), zap.Error(err))
	})
}

// Err returns the first write or fsync error (sticky). Once it is non-nil
// the shard must refuse writes: later Commits report it to their
// Committers.
func (w *WAL) Err() error {
	if p := w.err.Load(); p != nil {
		return *p
	}
	return nil
}

// LastSequence returns the sequence of the last appended record.
func (w *WAL) LastSequence() uint64 { return w.m.lastSeq.Load() }

// DurableSequence returns the last sequence known to be fsynced
// (FsyncAlways) or written to the file (FsyncEverySec, FsyncNo).
func (w *WAL) DurableSequence() uint64 { return w.m.durableSeq.Load() }

// SyncedSequence returns the last sequence such that it and every record
// before it are known to be fsynced: DurableSequence under FsyncAlways;
// under FsyncEverySec what the last periodic fsync covered; under FsyncNo
// what segment rotations and Sync covered. A replica acknowledges it.
func (w *WAL) SyncedSequence() uint64 {
	if w.opts.Policy == FsyncAlways {
		return w.m.durableSeq.Load()
	}
	return w.syncedSeq.Load()
}

// Sync fsyncs the current segment now and advances SyncedSequence; under
// FsyncAlways, where every commit syncs, it does nothing. It may be
// called from any goroutine while the WAL is open (a replica under
// FsyncNo syncs so for its acknowledgements).
func (w *WAL) Sync() error {
	if w.opts.Policy == FsyncAlways {
		return w.Err()
	}
	if err := w.Err(); err != nil {
		return err
	}
	w.fileMu.Lock()
	written := w.m.writtenSeq.Load()
	err := w.syncFileLocked()
	w.fileMu.Unlock()
	if err != nil {
		w.setErr(err)
		return err
	}
	w.currentSynced(written)
	return nil
}

// currentSynced records that the current segment is synced through seq
// (every record written when the sync began).
func (w *WAL) currentSynced(seq uint64) {
	w.syncMu.Lock()
	w.curSynced = max(w.curSynced, seq)
	w.advanceSyncedLocked()
}

// segmentSynced records that the closed segment r is synced.
func (w *WAL) segmentSynced(r segmentRange) {
	w.syncMu.Lock()
	for i, c := range w.closing {
		if c == r {
			w.closing = append(w.closing[:i], w.closing[i+1:]...)
			break
		}
	}
	w.closedSynced = max(w.closedSynced, r.last)
	w.advanceSyncedLocked()
}

// advanceSyncedLocked moves SyncedSequence to the highest synced record
// with nothing unsynced before it, and unlocks syncMu.
func (w *WAL) advanceSyncedLocked() {
	frontier := max(w.curSynced, w.closedSynced)
	if len(w.closing) > 0 {
		// A segment before is still being synced.
		frontier = min(frontier, w.closing[0].first-1)
	}
	advanced := frontier > w.syncedSeq.Load()
	if advanced {
		w.syncedSeq.Store(frontier)
	}
	w.syncMu.Unlock()
	if advanced && w.opts.OnSynced != nil {
		w.opts.OnSynced(frontier)
	}
}

// Stats returns the WAL's counters. Safe from any goroutine.
func (w *WAL) Stats() WALStats { return w.m.snapshot() }

// TakeMaxFsync returns the longest fsync since the previous call (0 when
// none ran) and starts over; for the latency monitor. Safe from any
// goroutine.
func (w *WAL) TakeMaxFsync() time.Duration { return time.Duration(w.m.maxFsyncNs.Swap(0)) }

// Append encodes one record with the given payload into the current batch
// and returns its sequence number. It does no I/O and does not allocate
// once the batch buffer has grown. See End for oversized payloads.
func (w *WAL) Append(db uint16, op Opcode, payload []byte) uint64 {
	w.Begin(db, op)
	w.buf = append(w.buf, payload...)
	return w.End()
}

// AppendEncoded adds rec, one record encoded by AppendRecord (a replica
// copying its primary's log), to the current batch as it is. Its sequence
// must be the next one: a replica's log holds the primary's records under
// the primary's numbers. It returns the record's sequence.
func (w *WAL) AppendEncoded(rec []byte) (uint64, error) {
	r, n, err := DecodeRecord(rec)
	if err != nil {
		return 0, err
	}
	if n != len(rec) {
		return 0, fmt.Errorf("%w: %d bytes after the record", ErrCorrupt, len(rec)-n)
	}
	if r.Seq != w.seq+1 {
		return 0, fmt.Errorf("%w: record sequence %d, want %d", ErrSequence, r.Seq, w.seq+1)
	}
	w.buf = append(w.buf, rec...)
	w.seq++
	if w.batchRecs == 0 {
		w.batchFirst = w.seq
	}
	w.batchRecs++
	w.m.lastSeq.Store(w.seq)
	return w.seq, nil
}

// AppendParts is Append with the payload given as pieces that are
// concatenated as they are (no length prefixes are added: use Begin and
// PutBytes for length-prefixed fields).
func (w *WAL) AppendParts(db uint16, op Opcode, parts ...[]byte) uint64 {
	w.Begin(db, op)
	for _, p := range parts {
		w.buf = append(w.buf, p...)
	}
	return w.End()
}

// Begin starts a record whose payload is then built in place with the Put
// methods and completed by End: the zero-copy, zero-allocation way to
// encode a multi-field payload. Between Begin and End no other method may
// be called.
func (w *WAL) Begin(db uint16, op Opcode) {
	w.recStart = len(w.buf)
	w.buf = appendHeader(w.buf, w.seq+1, db, op)
}

// PutBytes appends a length-prefixed field (as AppendBytes) to the record
// being built.
func (w *WAL) PutBytes(b []byte) { w.buf = AppendBytes(w.buf, b) }

// PutRaw appends b to the record being built, without a length prefix.
func (w *WAL) PutRaw(b []byte) { w.buf = append(w.buf, b...) }

// PutU8 appends a byte to the record being built.
func (w *WAL) PutU8(v uint8) { w.buf = append(w.buf, v) }

// PutU16 appends a little-endian uint16 to the record being built.
func (w *WAL) PutU16(v uint16) { w.buf = binary.LittleEndian.AppendUint16(w.buf, v) }

// PutU64 appends a little-endian uint64 to the record being built.
func (w *WAL) PutU64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }

// PutI64 appends a little-endian int64 to the record being built.
func (w *WAL) PutI64(v int64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(v)) }

// End completes the record started by Begin and returns its sequence
// number. If the payload exceeds MaxPayloadSize the record is dropped, the
// WAL's sticky error becomes ErrRecordTooLarge (the mutation cannot be made
// durable) and End returns 0; callers should check sizes up front.
func (w *WAL) End() uint64 {
	rec := w.buf[w.recStart:]
	if payload := len(rec) - RecordHeaderSize; payload > MaxPayloadSize {
		w.buf = w.buf[:w.recStart]
		w.setErr(fmt.Errorf("%w: payload of %d bytes", ErrRecordTooLarge, payload))
		return 0
	}
	finishRecord(rec)
	w.seq++
	if w.batchRecs == 0 {
		w.batchFirst = w.seq
	}
	w.batchRecs++
	w.m.lastSeq.Store(w.seq)
	return w.seq
}

// Commit closes the current batch (possibly empty).
//
// It returns true when the caller may release the replies that depend on
// the batch right away: under FsyncEverySec and FsyncNo the batch was
// written to the segment with one write in the calling goroutine; under
// FsyncAlways only an empty batch with nothing in flight qualifies. c is
// not called when Commit returns true (c may be nil then).
//
// Otherwise Commit returns false and c.Committed is called exactly once:
// under FsyncAlways from the sync goroutine, which writes every queued
// batch with one write, fsyncs once for all of them and notifies their
// Committers in commit order; an empty batch committed while a sync is in
// flight waits behind it. Commit never waits for an fsync. On a write
// error, or once Err is set, c.Committed(err) is called (under
// FsyncEverySec/FsyncNo from inside Commit) and nothing more is written.
// Commit does not allocate in steady state.
func (w *WAL) Commit(c Committer) (immediate bool) {
	if w.opts.Policy == FsyncAlways {
		return w.commitAlways(c)
	}
	recs, last := w.batchRecs, w.seq
	b := w.buf
	w.resetBatch()
	if err := w.Err(); err != nil {
		if c != nil {
			c.Committed(err)
		}
		return false
	}
	if recs == 0 {
		return true
	}
	err := w.writeBatch(b, recs, last-uint64(recs)+1, last)
	if err != nil {
		w.setErr(err)
		w.dropUndurable()
		if c != nil {
			c.Committed(w.Err())
		}
		return false
	}
	w.markDurable(last)
	return true
}

// markDurable publishes seq as the durable sequence and tells OnDurable.
func (w *WAL) markDurable(seq uint64) {
	w.m.durableSeq.Store(seq)
	if w.opts.OnDurable != nil {
		w.opts.OnDurable(seq)
	}
}

// maxKeptBatchBuf is the largest batch buffer kept for the next group: a
// burst (a pipe of a million commands drained at once) can grow it to tens
// of megabytes, which would otherwise stay pinned for the process's life.
const maxKeptBatchBuf = 4 << 20

func (w *WAL) resetBatch() {
	w.buf = w.buf[:0]
	if cap(w.buf) > maxKeptBatchBuf {
		w.buf = nil
	}
	w.batchRecs = 0
	w.batchFirst = 0
}

// writeBatch writes one batch, rotating first if the segment is full.
func (w *WAL) writeBatch(b []byte, recs int, first, last uint64) error {
	if w.fSize >= w.opts.SegmentSize {
		if err := w.rotate(first); err != nil {
			return err
		}
	}
	return w.write(b, recs, last)
}

func (w *WAL) commitAlways(c Committer) bool {
	if w.batchRecs == 0 && w.inflight.Load() == 0 && w.Err() == nil {
		return true
	}
	if w.batchRecs > 0 && w.lone(c) && w.inflight.Load() == 0 && w.Err() == nil {
		return w.syncInline(c)
	}
	p := pending{c: c, recs: w.batchRecs, first: w.batchFirst, last: w.seq, writers: 1}
	if p.recs == 0 {
		p.writers = 0 // nothing to make durable: not a writer the next group expects
	} else if wc, ok := c.(WriterCounter); ok {
		p.writers = wc.Writers()
	}
	w.inflight.Add(1)
	w.mu.Lock()
	if p.recs > 0 {
		p.buf = w.buf
		if n := len(w.free); n > 0 {
			w.buf = w.free[n-1][:0]
			w.free[n-1] = nil
			w.free = w.free[:n-1]
		} else {
			// As large as the last batch, up to what resetBatch keeps: a
			// batch holding one 512 MB value must not cost another 512 MB
			// for the next one.
			w.buf = make([]byte, 0, min(cap(p.buf), maxKeptBatchBuf))
		}
	}
	w.queue = append(w.queue, p)
	w.queuedWriters += p.writers
	w.cond.Signal()
	if w.delaying && w.queuedWriters >= w.wantWriters {
		select {
		case w.arrive <- struct{}{}:
		default:
		}
	}
	w.mu.Unlock()
	w.resetBatch()
	return false
}

// lone counts c in the run of commits from one sole client and reports
// whether the run is long enough to sync c on the appending goroutine.
func (w *WAL) lone(c Committer) bool {
	sw, ok := c.(SoleWriter)
	if !ok {
		w.soleRun = 0
		return false
	}
	id, ok := sw.SoleWriter()
	switch {
	case !ok:
		w.soleRun = 0
	case w.soleRun > 0 && id == w.lastSole:
		w.soleRun++
	default:
		w.lastSole, w.soleRun = id, 1
	}
	return w.soleRun >= loneRun
}

// syncInline writes and fsyncs the current batch on the appending
// goroutine: a lone client's commit (see loneRun). The caller saw
// inflight == 0, so the sync goroutine has released every earlier group
// and, with an empty queue that only this goroutine fills, does not touch
// the file until the next queued commit; the atomic inflight counter
// orders its last file access before this one. It returns true when the
// batch is durable; on failure it tells c and returns false.
func (w *WAL) syncInline(c Committer) bool {
	group := [1]pending{{buf: w.buf, recs: w.batchRecs, first: w.batchFirst, last: w.seq, writers: 1}}
	err := w.writeGroup(group[:]) // group stays on the stack: writeGroup keeps no items
	w.resetBatch()
	if err != nil {
		w.setErr(err)
		w.dropUndurable()
		c.Committed(w.Err())
		return false
	}
	w.m.inlineSyncs.Add(1)
	return true
}

// syncLoop is the FsyncAlways sync goroutine.
func (w *WAL) syncLoop() {
	defer close(w.done)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.stopping {
			w.cond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		w.delayLocked()
		items := w.queue
		writers := w.queuedWriters
		w.queue = w.spare[:0]
		w.queuedWriters = 0
		w.mu.Unlock()

		err := w.Err()
		fsyncs := w.m.fsyncs.Load()
		if err == nil {
			err = w.writeGroup(items)
			if err != nil {
				w.setErr(err)
				w.dropUndurable()
				err = w.Err()
			}
		}
		var took time.Duration
		if w.m.fsyncs.Load() != fsyncs {
			took = time.Duration(w.m.lastFsyncNs.Load())
		}
		for i := range items {
			if items[i].c != nil {
				items[i].c.Committed(err)
			}
		}
		w.inflight.Add(-int64(len(items)))

		w.mu.Lock()
		// Writers that queued during the sync and those just released
		// make the next group.
		w.delay.synced(w.clock.Now(), took, writers, w.queuedWriters)
		for i := range items {
			if b := items[i].buf; b != nil && cap(b) <= maxRecycledBuf {
				w.free = append(w.free, b[:0])
			}
			items[i] = pending{}
		}
		w.spare = items[:0]
		w.mu.Unlock()
	}
}

// delayLocked holds the ready group back, when the commit-delay policy
// says it pays, until the expected writers have queued or the delay limit
// has passed. Called by the sync goroutine with mu held; it releases mu
// while it waits.
func (w *WAL) delayLocked() {
	if w.stopping || w.opts.MaxCommitDelay == nil || w.Err() != nil {
		return
	}
	start := w.clock.Now()
	want, limit := w.delay.plan(start, w.queuedWriters, w.opts.MaxCommitDelay())
	if limit <= 0 {
		return
	}
	deadline := start.Add(limit)
	before := w.queuedWriters
	w.wantWriters, w.delaying = want, true
	early := false
	for !w.stopping {
		if w.queuedWriters >= want {
			early = true
			break
		}
		remaining := deadline.Sub(w.clock.Now())
		if remaining <= 0 {
			break
		}
		w.mu.Unlock()
		select {
		case <-w.arrive:
		case <-w.clock.After(remaining):
		}
		w.mu.Lock()
	}
	w.delaying = false
	select {
	case <-w.arrive:
	default:
	}
	took := w.clock.Now().Sub(start)
	w.delay.delayed(w.queuedWriters-before, took)
	w.m.delayed(took, early)
}

// writeGroup writes the queued batches with as few writes as possible (one
// unless a rotation intervenes) and fsyncs once.
func (w *WAL) writeGroup(items []pending) error {
	var out []byte
	var outRecs int
	var outLast uint64
	copied := false
	flush := func() error {
		if len(out) == 0 {
			return nil
		}
		err := w.write(out, outRecs, outLast)
		out, outRecs, copied = nil, 0, false
		return err
	}
	var last uint64
	for i := range items {
		p := &items[i]
		if p.recs == 0 {
			continue
		}
		if w.fSize+int64(len(out)) >= w.opts.SegmentSize {
			if err := flush(); err != nil {
				return err
			}
			if err := w.rotate(p.first); err != nil {
				return err
			}
		}
		switch {
		case out == nil:
			out = p.buf
		case !copied:
			w.wbuf = append(append(w.wbuf[:0], out...), p.buf...)
			out, copied = w.wbuf, true
		default:
			w.wbuf = append(w.wbuf, p.buf...)
			out = w.wbuf
		}
		outRecs += p.recs
		outLast = p.last
		last = p.last
	}
	if err := flush(); err != nil {
		return err
	}
	if cap(w.wbuf) > maxRecycledBuf {
		w.wbuf = nil
	}
	if last == 0 {
		return nil // only empty batches: the sync they waited for is done
	}
	if err := w.syncFileLocked(); err != nil {
		return err
	}
	w.durableSize = w.fSize
	w.markDurable(last)
	return nil
}

// everySecLoop is the FsyncEverySec background syncer.
func (w *WAL) everySecLoop() {
	defer close(w.done)
	t := time.NewTicker(everySecInterval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		if w.Err() != nil {
			continue
		}
		w.fileMu.Lock()
		written := w.m.writtenSeq.Load()
		err := w.syncFileLocked()
		w.fileMu.Unlock()
		if err != nil {
			w.setErr(err)
			continue
		}
		w.currentSynced(written)
	}
}

// RemoveSegmentsBefore deletes whole segments whose records all have
// sequence <= seq (typically the sequence of a finished snapshot) and
// fsyncs the directory. The current segment is never removed. It may run
// on any goroutine, beside appends: the segments leave the list under its
// lock, and the files are deleted after it is released, since deleting a
// 64 MB file can take tens of milliseconds (a filesystem mounted with
// discard trims its extents).
func (w *WAL) RemoveSegmentsBefore(seq uint64) error {
	w.segMu.Lock()
	k := 0
	for k+1 < len(w.segs) && w.segs[k+1].firstSeq <= seq+1 {
		k++
	}
	old := make([]segmentInfo, k)
	copy(old, w.segs[:k])
	w.segs = append(w.segs[:0], w.segs[k:]...)
	w.m.segments.Store(int64(len(w.segs)))
	w.segMu.Unlock()
	if k == 0 {
		return nil
	}
	for i, sg := range old {
		if err := w.fs.Remove(sg.path); err != nil {
			// Keep the rest listed: they are older than every segment
			// still in the list.
			w.segMu.Lock()
			w.segs = append(old[i:len(old):len(old)], w.segs...)
			w.m.segments.Store(int64(len(w.segs)))
			w.segMu.Unlock()
			return fmt.Errorf("persistence: remove segment %s: %w", sg.path, err)
		}
		w.log.Debug("persistence: removed WAL segment", zap.String("file", sg.path))
	}
	if err := w.fs.SyncDir(w.dir); err != nil {
		return fmt.Errorf("persistence: sync dir %s after removing segments: %w", w.dir, err)
	}
	return nil
}

// Abandon closes a log opened for a start that is then refused. When no
// record was appended since OpenWAL, the segment OpenWAL created is
// removed as well (removed reports it), so that the refused start leaves
// the directory as it found it.
func (w *WAL) Abandon() (removed bool, err error) {
	if w.closed {
		return false, ErrClosed
	}
	w.fileMu.Lock()
	path := w.f.Name()
	w.fileMu.Unlock()
	w.segMu.Lock()
	current := len(w.segs) > 0 && w.segs[len(w.segs)-1].path == path
	w.segMu.Unlock()
	remove := w.createdSegment && w.seq == w.openedSeq && current
	if err := w.Close(); err != nil {
		return false, err
	}
	if !remove {
		return false, nil
	}
	if err := w.fs.Remove(path); err != nil {
		return false, fmt.Errorf("persistence: remove unused segment %s: %w", path, err)
	}
	if err := w.fs.SyncDir(w.dir); err != nil {
		return true, fmt.Errorf("persistence: sync dir %s after removing %s: %w", w.dir, path, err)
	}
	return true, nil
}

// Close writes any uncommitted records, waits for the sync goroutine,
// fsyncs and closes the segment. It returns the sticky error if one
// occurred. The WAL must not be used afterwards.
func (w *WAL) Close() error {
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	if w.batchRecs > 0 {
		w.Commit(nil)
	}
	switch w.opts.Policy {
	case FsyncAlways:
		w.mu.Lock()
		w.stopping = true
		w.cond.Signal()
		select {
		case w.arrive <- struct{}{}: // end a commit delay now
		default:
		}
		w.mu.Unlock()
	case FsyncEverySec:
		close(w.stop)
	}
	<-w.done
	w.background.Wait()
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	err := w.Err()
	if err == nil {
		err = w.trimLocked()
	}
	if err == nil {
		if err = w.syncFileLocked(); err == nil {
			w.markDurable(w.m.writtenSeq.Load())
			if w.opts.Policy != FsyncAlways {
				w.currentSynced(w.m.writtenSeq.Load())
			}
		} else {
			w.setErr(err)
		}
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("persistence: close segment %s: %w", w.f.Name(), cerr)
	}
	return err
}
