package keyspace

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// walBytesPerKey is the WAL size of one SET of a small key and value,
// used to size tables before replay.
const walBytesPerKey = 64

// DiskOptions configure the WAL-backed persistence of every shard.
type DiskOptions struct {
	FS     persistence.FS          // the file system Dir is on
	Dir    string                  // the data directory: WAL segments and snapshots
	Policy persistence.FsyncPolicy // when records are fsynced (the fsync setting)
	// SegmentSize is the WAL rotation size.
	SegmentSize int64
	// SnapshotEvery takes a snapshot this often (0: never on a timer).
	SnapshotEvery time.Duration
	// SnapshotWALBytes and SnapshotWALPercent make the size trigger: a
	// snapshot is due once the WAL bytes written since the last one reach
	// max(SnapshotWALBytes, SnapshotWALPercent% of the last snapshot's
	// size), so snapshot writes stay proportional to the data written
	// rather than to the data set times the number of intervals.
	// SnapshotWALBytes 0: never by size.
	SnapshotWALBytes   int64
	SnapshotWALPercent int // the percentage of the size trigger
	// SnapshotOnShutdown writes a snapshot when the server stops.
	SnapshotOnShutdown bool
	// Repair truncates a damaged WAL, or loads a damaged snapshot up to
	// its first bad entry, instead of refusing to start.
	Repair bool
}

// Disk implements Persistence on top of the persistence package.
type Disk struct {
	opts DiskOptions
}

// NewDisk returns the WAL-backed persistence.
func NewDisk(opts DiskOptions) *Disk { return &Disk{opts: opts} }

// Open recovers a shard (newest snapshot, then the WAL after it), attaches
// its log, and removes keys whose deadline passed while the server was down.
func (d *Disk) Open(sh *Shard) error {
	o := d.opts
	log := sh.Logger()
	if err := o.FS.MkdirAll(o.Dir); err != nil {
		return fmt.Errorf("create data directory %s: %w", o.Dir, err)
	}
	begin := sh.Srv.Now()
	// Temporaries of snapshots a killed process never finished: nothing
	// reads them, and a crash loop would pile them up.
	if n, size, err := persistence.RemoveSnapshotTemps(o.FS, o.Dir, sh.Idx); err != nil {
		return err
	} else if n > 0 {
		log.Info("removed unfinished snapshot files left by an earlier process", zap.Int("files", n), zap.Int64("bytes", size))
	}
	// The table of database 0 is sized for the whole snapshot at once:
	// most data lives there, and the others grow as usual.
	reserve := func(n uint64) { sh.DBs[0].reserve(int(min(n, 1<<31))) }
	// The persistence package names the shard in its own log fields.
	plog := sh.Srv.Log
	snap, err := persistence.LoadSnapshots(o.FS, o.Dir, sh.Idx, plog,
		persistence.SnapshotLoadOptions{OnCount: reserve, Repair: o.Repair}, sh.LoadSnapshotEntry)
	if err != nil {
		return fmt.Errorf("load snapshot: %w", err)
	}
	seq, found := snap.Seq, snap.Found
	snapKeys := 0
	for _, db := range sh.DBs {
		snapKeys += db.Len()
	}
	// Size database 0 for the sealed WAL segments too (the newest one is
	// left to grow the table as usual). A record of a small key takes about
	// 64 bytes, so this never reserves much more than the replay inserts.
	if walBytes, err := persistence.SealedWALBytes(o.FS, o.Dir, sh.Idx); err == nil && walBytes > 0 {
		d := sh.DBs[0]
		d.reserve(d.Len() + int(min(walBytes/walBytesPerKey, 1<<31)))
	}
	stats, err := persistence.Recover(o.FS, o.Dir, sh.Idx, seq, o.Repair, plog, sh.ApplyRecord)
	if err != nil {
		return fmt.Errorf("recover WAL: %w", err)
	}
	// The history id first: a start refused here leaves no new segment.
	replID, newReplID, err := loadReplID(o.FS, o.Dir, sh.Idx)
	if err != nil {
		return fmt.Errorf("replication id: %w", err)
	}
	wal, err := persistence.OpenWAL(o.FS, o.Dir, sh.Idx, stats.LastSeq, sh.walOptions(o))
	if err != nil {
		return fmt.Errorf("open WAL: %w", err)
	}
	j := &WALJournal{WAL: wal, fs: o.FS, dir: o.Dir, Opts: o, ReplID: replID, newReplID: newReplID}
	j.published.Store(wal)
	j.Recovery = sh.Srv.Now().Sub(begin)
	j.RecoveredRecords = stats.Records
	j.lastSnapshotAt = sh.Srv.Now()
	// The size trigger counts the WAL since the snapshot, not since this
	// process started: a server restarted more often than the trigger
	// interval must still snapshot.
	j.walBeforeStart = uint64(stats.Bytes)
	sh.Journal = j
	sh.loggedWritesInline = LoggedWritesInline(sh.Srv.Opts.Config.Server.InlineWrites, o.Policy, runtime.GOMAXPROCS(0))
	if found {
		sh.SnapStatus.LastSeq = seq
		sh.SnapStatus.LastStatus = "ok"
		// The size trigger is proportional to the last snapshot's size.
		if size, err := o.FS.Stat(filepath.Join(o.Dir, persistence.SnapshotName(sh.Idx, seq))); err == nil {
			sh.SnapStatus.LastSize = size
		}
	}
	sh.SnapStatus.LastTime = sh.Srv.Now().Unix()
	// Keys whose deadline passed while the server was down go now, and
	// their deletions are logged like any expiry.
	sh.NowMs = sh.Srv.Now().UnixMilli()
	expired := 0
	for _, db := range sh.DBs {
		for i := len(db.Expiring) - 1; i >= 0; i-- {
			if i < len(db.Expiring) && db.EntryAt(db.Expiring[i]).Expired(sh.NowMs) {
				sh.ExpireEntry(db, db.EntryAt(db.Expiring[i]))
				expired++
			}
		}
	}
	sh.Commit()
	if snap.Salvaged {
		// The damaged snapshot is still the newest file: replace it
		// before serving, so the next start does not need it (or repair).
		if err := sh.StartSnapshot(); err != nil {
			return fmt.Errorf("snapshot after salvaging %s: %w", snap.File, err)
		}
		sh.FinishSnapshotNow()
		if sh.SnapStatus.LastStatus != "ok" {
			return fmt.Errorf("snapshot after salvaging %s failed (see the log)", snap.File)
		}
	}
	keys := 0
	for _, db := range sh.DBs {
		keys += db.Len()
	}
	log.Info("shard recovered",
		zap.Bool("snapshot", found), zap.Uint64("snapshot_seq", seq), zap.Int("snapshot_keys", snapKeys),
		zap.Int64("wal_records", stats.Records), zap.Int64("truncated_bytes", stats.TruncatedBytes),
		zap.Uint64("wal_last_sequence", stats.LastSeq), zap.Int("expired_on_load", expired),
		zap.Int("keys", keys), zap.Duration("duration", j.Recovery))
	return nil
}

// walOptions are the options of sh's WAL.
func (sh *Shard) walOptions(o DiskOptions) persistence.WALOptions {
	wopts := persistence.WALOptions{Policy: o.Policy, SegmentSize: o.SegmentSize, Logger: sh.Srv.Log}
	if live := sh.Srv.Opts.Live; live != nil {
		wopts.MaxCommitDelay = live.CommitDelayMax
	}
	if h := sh.Srv.Opts.OnDurable; h != nil {
		idx := sh.Idx
		wopts.OnDurable = func(seq uint64) { h(idx, seq) }
		// The hook only wakes (senders, a replica's acknowledger): it is
		// told of synced progress under everysec and no too.
		wopts.OnSynced = wopts.OnDurable
	}
	return wopts
}

// Published is the shard's current log, for goroutines other than the
// shard's.
func (j *WALJournal) Published() *persistence.WAL { return j.published.Load() }

// WALJournal is a shard's Journal: its WAL plus the snapshot schedule.
type WALJournal struct {
	WAL *persistence.WAL // the shard's write-ahead log; the shard's goroutine's
	// published is WAL for other goroutines (a replica's acknowledgements,
	// metrics): a full resync replaces WAL on the shard's goroutine.
	published atomic.Pointer[persistence.WAL]
	fs        persistence.FS
	dir       string
	Opts      DiskOptions // the options the journal was opened with

	// ReplID names the history of the shard's log (replication.go): a
	// replica resumes from its sequence only on a primary of the same id.
	ReplID string
	// newReplID says this start created the replID file.
	newReplID bool

	Recovery         time.Duration // how long recovery took at start (INFO persistence)
	RecoveredRecords int64         // the WAL records that recovery replayed
	lastSnapshotAt   time.Time
	// bytesAtSnapshot is the WAL byte count when the last snapshot began.
	bytesAtSnapshot uint64
	// walBeforeStart is the size of the records after the loaded snapshot
	// that recovery replayed, until the first scheduled snapshot of this
	// process.
	walBeforeStart uint64
	// RewriteScheduled is set by a BGREWRITEAOF that found a snapshot
	// running: the next tick after it ends starts another.
	RewriteScheduled bool
	// appended counts the records of the current group.
	appended int
	// GroupedCommands counts the commands released by WAL commits, for
	// commands-per-fsync.
	GroupedCommands atomic.Int64
}

// Append adds one record to the current group.
func (j *WALJournal) Append(db uint16, op persistence.Opcode, payload []byte) {
	j.WAL.Append(db, op, payload)
	j.appended++
}

// AppendParts adds one record whose payload is parts concatenated, so a
// large value goes into the log's buffer without first being copied into
// a payload of its own.
func (j *WALJournal) AppendParts(db uint16, op persistence.Opcode, parts ...[]byte) {
	j.WAL.AppendParts(db, op, parts...)
	j.appended++
}

// Commit closes the group of records appended since the last Commit. Once
// the log has failed, a group without records (reads, refused writes) is
// settled at once: its replies that depend only on durable records leave
// now (Committed).
func (j *WALJournal) Commit(g interface{ Committed(error) }, commands int) bool {
	n := j.appended
	j.appended = 0
	if err := j.WAL.Err(); n == 0 && err != nil {
		g.Committed(err)
		return false
	}
	j.GroupedCommands.Add(int64(commands))
	return j.WAL.Commit(g)
}

// awaitDurable waits until the WAL has made every record up to seq
// durable; it fails if the WAL fails first. The records must have been
// committed (the shard commits at the end of every drain).
func (j *WALJournal) awaitDurable(seq uint64) error {
	for j.WAL.DurableSequence() < seq {
		if err := j.WAL.Err(); err != nil {
			if j.WAL.DurableSequence() >= seq {
				return nil
			}
			return fmt.Errorf("%w: %w", errSnapshotLogFailed, err)
		}
		time.Sleep(50 * time.Microsecond)
	}
	return nil
}

// Err is the WAL's sticky error.
func (j *WALJournal) Err() error { return j.WAL.Err() }

// Sequences are the WAL's last appended and durable sequences.
func (j *WALJournal) Sequences() (last, durable uint64) {
	return j.WAL.LastSequence(), j.WAL.DurableSequence()
}

// fsyncLatency enters the longest fsync since the last tick in the
// latency monitor when it reaches latency-monitor-threshold, as Redis's
// aof-fsync-always (fsync always) or aof-background-fsync (everysec)
// event, at the tick's second.
func (j *WALJournal) fsyncLatency(sh *Shard) {
	d := j.WAL.TakeMaxFsync()
	live := sh.Srv.Opts.Live
	if live == nil {
		return
	}
	if thr := live.LatencyMonitorThreshold(); thr <= 0 || d.Milliseconds() < thr {
		return
	}
	ev := LatencyEventFsyncBackground
	if j.Opts.Policy == persistence.FsyncAlways {
		ev = LatencyEventFsyncAlways
	}
	sh.Latency.Add(ev, sh.Srv.Now().Unix(), d.Milliseconds())
}

// Tick starts a scheduled snapshot when one is due, and enters slow
// fsyncs in the latency monitor.
func (j *WALJournal) Tick(sh *Shard) {
	j.fsyncLatency(sh)
	sh.PollSnapshot()
	if sh.Snap != nil || sh.SnapFinishing || j.WAL.Err() != nil {
		return
	}
	due := j.RewriteScheduled
	j.RewriteScheduled = false
	if j.Opts.SnapshotEvery > 0 && sh.Srv.Now().Sub(j.lastSnapshotAt) >= j.Opts.SnapshotEvery {
		due = true
	}
	if limit := SnapshotWALThreshold(j.Opts.SnapshotWALBytes, j.Opts.SnapshotWALPercent, sh.SnapStatus.LastSize); limit > 0 &&
		int64(j.walBeforeStart+j.WAL.Stats().Bytes-j.bytesAtSnapshot) >= limit {
		due = true
	}
	if live := sh.Srv.Opts.Live; !due && live != nil {
		due = savePointMet(live.SavePoints(), sh.Srv.Now().Sub(j.lastSnapshotAt), j.WAL.LastSequence()-sh.SnapStatus.LastSeq)
	}
	if !due || j.WAL.LastSequence() == sh.SnapStatus.LastSeq {
		return
	}
	if err := sh.StartSnapshot(); err != nil {
		sh.Logger().Warn("scheduled snapshot", zap.Error(err))
	}
	j.lastSnapshotAt = sh.Srv.Now()
	j.bytesAtSnapshot = j.WAL.Stats().Bytes
	j.walBeforeStart = 0
}

// savePointMet reports whether one of Redis's save points is met: elapsed
// since the last snapshot and changes (WAL records) since it.
func savePointMet(points []config.SavePoint, elapsed time.Duration, changes uint64) bool {
	for _, p := range points {
		if elapsed >= time.Duration(p.Seconds)*time.Second && changes >= uint64(p.Changes) {
			return true
		}
	}
	return false
}

// SnapshotWALThreshold is the WAL growth since the last snapshot that makes
// the next one due: the larger of floor and percent% of the last
// snapshot's size (as Redis's auto-aof-rewrite-min-size and
// -percentage); 0 when floor is 0 (the size trigger is off).
func SnapshotWALThreshold(floor int64, percent int, lastSize int64) int64 {
	if floor <= 0 {
		return 0
	}
	// percent is at most 10000 (validated): no overflow below 900 TB.
	return max(floor, lastSize*int64(percent)/100)
}

// Close flushes, syncs and closes the WAL.
func (j *WALJournal) Close() error { return j.WAL.Close() }

// abandon closes the WAL of a start that is refused, removing the segment
// and the history id file the start created if nothing was written.
func (j *WALJournal) abandon(shard int) error {
	removed, err := j.WAL.Abandon()
	if err != nil {
		return err
	}
	// The history id goes with the log it was made for: kept when the
	// start wrote records (expired keys deleted at load).
	if removed && j.newReplID {
		if err := j.fs.Remove(j.dir + "/" + replIDName(shard)); err != nil {
			return fmt.Errorf("remove the new history id of shard %d: %w", shard, err)
		}
		return j.fs.SyncDir(j.dir)
	}
	return nil
}
