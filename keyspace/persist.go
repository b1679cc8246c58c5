package keyspace

import (
	"fmt"
	"path/filepath"
	"strconv"
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
	FS     persistence.FS
	Dir    string
	Policy persistence.FsyncPolicy
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
	SnapshotWALPercent int
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
	log := sh.logger()
	if err := o.FS.MkdirAll(o.Dir); err != nil {
		return fmt.Errorf("create data directory %s: %w", o.Dir, err)
	}
	begin := sh.srv.now()
	// Temporaries of snapshots a killed process never finished: nothing
	// reads them, and a crash loop would pile them up.
	if n, size, err := persistence.RemoveSnapshotTemps(o.FS, o.Dir, sh.idx); err != nil {
		return err
	} else if n > 0 {
		log.Info("removed unfinished snapshot files left by an earlier process", zap.Int("files", n), zap.Int64("bytes", size))
	}
	// The table of database 0 is sized for the whole snapshot at once:
	// most data lives there, and the others grow as usual.
	reserve := func(n uint64) { sh.dbs[0].reserve(int(min(n, 1<<31))) }
	// The persistence package names the shard in its own log fields.
	plog := sh.srv.log
	snap, err := persistence.LoadSnapshots(o.FS, o.Dir, sh.idx, plog,
		persistence.SnapshotLoadOptions{OnCount: reserve, Repair: o.Repair}, sh.loadSnapshotEntry)
	if err != nil {
		return fmt.Errorf("load snapshot: %w", err)
	}
	seq, found := snap.Seq, snap.Found
	snapKeys := 0
	for _, db := range sh.dbs {
		snapKeys += db.Len()
	}
	// Size database 0 for the sealed WAL segments too (the newest one is
	// left to grow the table as usual). A record of a small key takes about
	// 64 bytes, so this never reserves much more than the replay inserts.
	if walBytes, err := persistence.SealedWALBytes(o.FS, o.Dir, sh.idx); err == nil && walBytes > 0 {
		d := sh.dbs[0]
		d.reserve(d.Len() + int(min(walBytes/walBytesPerKey, 1<<31)))
	}
	stats, err := persistence.Recover(o.FS, o.Dir, sh.idx, seq, o.Repair, plog, sh.applyRecord)
	if err != nil {
		return fmt.Errorf("recover WAL: %w", err)
	}
	// The history id first: a start refused here leaves no new segment.
	replID, newReplID, err := loadReplID(o.FS, o.Dir, sh.idx)
	if err != nil {
		return fmt.Errorf("replication id: %w", err)
	}
	wal, err := persistence.OpenWAL(o.FS, o.Dir, sh.idx, stats.LastSeq, sh.walOptions(o))
	if err != nil {
		return fmt.Errorf("open WAL: %w", err)
	}
	j := &walJournal{wal: wal, fs: o.FS, dir: o.Dir, opts: o, replID: replID, newReplID: newReplID}
	j.recovery = sh.srv.now().Sub(begin)
	j.recoveredRecords = stats.Records
	j.lastSnapshotAt = sh.srv.now()
	// The size trigger counts the WAL since the snapshot, not since this
	// process started: a server restarted more often than the trigger
	// interval must still snapshot.
	j.walBeforeStart = uint64(stats.Bytes)
	sh.journal = j
	if found {
		sh.snapStatus.lastSeq = seq
		sh.snapStatus.lastStatus = "ok"
		// The size trigger is proportional to the last snapshot's size.
		if size, err := o.FS.Stat(filepath.Join(o.Dir, persistence.SnapshotName(sh.idx, seq))); err == nil {
			sh.snapStatus.lastSize = size
		}
	}
	sh.snapStatus.lastTime = sh.srv.now().Unix()
	// Keys whose deadline passed while the server was down go now, and
	// their deletions are logged like any expiry.
	sh.nowMs = sh.srv.now().UnixMilli()
	expired := 0
	for _, db := range sh.dbs {
		for i := len(db.expiring) - 1; i >= 0; i-- {
			if i < len(db.expiring) && db.entryAt(db.expiring[i]).expired(sh.nowMs) {
				sh.expireEntry(db, db.entryAt(db.expiring[i]))
				expired++
			}
		}
	}
	sh.commit()
	if snap.Salvaged {
		// The damaged snapshot is still the newest file: replace it
		// before serving, so the next start does not need it (or repair).
		if err := sh.startSnapshot(); err != nil {
			return fmt.Errorf("snapshot after salvaging %s: %w", snap.File, err)
		}
		sh.finishSnapshotNow()
		if sh.snapStatus.lastStatus != "ok" {
			return fmt.Errorf("snapshot after salvaging %s failed (see the log)", snap.File)
		}
	}
	keys := 0
	for _, db := range sh.dbs {
		keys += db.Len()
	}
	log.Info("shard recovered",
		zap.Bool("snapshot", found), zap.Uint64("snapshot_seq", seq), zap.Int("snapshot_keys", snapKeys),
		zap.Int64("wal_records", stats.Records), zap.Int64("truncated_bytes", stats.TruncatedBytes),
		zap.Uint64("wal_last_sequence", stats.LastSeq), zap.Int("expired_on_load", expired),
		zap.Int("keys", keys), zap.Duration("duration", j.recovery))
	return nil
}

// walOptions are the options of sh's WAL.
func (sh *Shard) walOptions(o DiskOptions) persistence.WALOptions {
	wopts := persistence.WALOptions{Policy: o.Policy, SegmentSize: o.SegmentSize, Logger: sh.srv.log}
	if live := sh.srv.opts.Live; live != nil {
		wopts.MaxCommitDelay = live.CommitDelayMax
	}
	if h := sh.srv.opts.OnDurable; h != nil {
		idx := sh.idx
		wopts.OnDurable = func(seq uint64) { h(idx, seq) }
		// The hook only wakes (senders, a replica's acknowledger): it is
		// told of synced progress under everysec and no too.
		wopts.OnSynced = wopts.OnDurable
	}
	return wopts
}

// walJournal is a shard's Journal: its WAL plus the snapshot schedule.
type walJournal struct {
	wal  *persistence.WAL
	fs   persistence.FS
	dir  string
	opts DiskOptions

	// replID names the history of the shard's log (replication.go): a
	// replica resumes from its sequence only on a primary of the same id.
	replID string
	// newReplID says this start created the replID file.
	newReplID bool

	recovery         time.Duration
	recoveredRecords int64
	lastSnapshotAt   time.Time
	// bytesAtSnapshot is the WAL byte count when the last snapshot began.
	bytesAtSnapshot uint64
	// walBeforeStart is the size of the records after the loaded snapshot
	// that recovery replayed, until the first scheduled snapshot of this
	// process.
	walBeforeStart uint64
	// rewriteScheduled is set by a BGREWRITEAOF that found a snapshot
	// running: the next tick after it ends starts another.
	rewriteScheduled bool
	// appended counts the records of the current group.
	appended int
	// groupedCommands counts the commands released by WAL commits, for
	// commands-per-fsync.
	groupedCommands atomic.Int64
}

// Append adds one record to the current group.
func (j *walJournal) Append(db uint16, op persistence.Opcode, payload []byte) {
	j.wal.Append(db, op, payload)
	j.appended++
}

// AppendParts adds one record whose payload is parts concatenated, so a
// large value goes into the log's buffer without first being copied into
// a payload of its own.
func (j *walJournal) AppendParts(db uint16, op persistence.Opcode, parts ...[]byte) {
	j.wal.AppendParts(db, op, parts...)
	j.appended++
}

// Commit closes the group of records appended since the last Commit. Once
// the log has failed, a group without records (reads, refused writes) is
// settled at once: its replies that depend only on durable records leave
// now (Committed).
func (j *walJournal) Commit(g interface{ Committed(error) }, commands int) bool {
	n := j.appended
	j.appended = 0
	if err := j.wal.Err(); n == 0 && err != nil {
		g.Committed(err)
		return false
	}
	j.groupedCommands.Add(int64(commands))
	return j.wal.Commit(g)
}

// awaitDurable waits until the WAL has made every record up to seq
// durable; it fails if the WAL fails first. The records must have been
// committed (the shard commits at the end of every drain).
func (j *walJournal) awaitDurable(seq uint64) error {
	for j.wal.DurableSequence() < seq {
		if err := j.wal.Err(); err != nil {
			if j.wal.DurableSequence() >= seq {
				return nil
			}
			return fmt.Errorf("%w: %w", errSnapshotLogFailed, err)
		}
		time.Sleep(50 * time.Microsecond)
	}
	return nil
}

// Err is the WAL's sticky error.
func (j *walJournal) Err() error { return j.wal.Err() }

// Sequences are the WAL's last appended and durable sequences.
func (j *walJournal) Sequences() (last, durable uint64) {
	return j.wal.LastSequence(), j.wal.DurableSequence()
}

// Tick starts a scheduled snapshot when one is due.
func (j *walJournal) Tick(sh *Shard) {
	sh.pollSnapshot()
	if sh.snap != nil || sh.snapFinishing || j.wal.Err() != nil {
		return
	}
	due := j.rewriteScheduled
	j.rewriteScheduled = false
	if j.opts.SnapshotEvery > 0 && sh.srv.now().Sub(j.lastSnapshotAt) >= j.opts.SnapshotEvery {
		due = true
	}
	if limit := snapshotWALThreshold(j.opts.SnapshotWALBytes, j.opts.SnapshotWALPercent, sh.snapStatus.lastSize); limit > 0 &&
		int64(j.walBeforeStart+j.wal.Stats().Bytes-j.bytesAtSnapshot) >= limit {
		due = true
	}
	if live := sh.srv.opts.Live; !due && live != nil {
		due = savePointMet(live.SavePoints(), sh.srv.now().Sub(j.lastSnapshotAt), j.wal.LastSequence()-sh.snapStatus.lastSeq)
	}
	if !due || j.wal.LastSequence() == sh.snapStatus.lastSeq {
		return
	}
	if err := sh.startSnapshot(); err != nil {
		sh.logger().Warn("scheduled snapshot", zap.Error(err))
	}
	j.lastSnapshotAt = sh.srv.now()
	j.bytesAtSnapshot = j.wal.Stats().Bytes
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

// snapshotWALThreshold is the WAL growth since the last snapshot that makes
// the next one due: the larger of floor and percent% of the last
// snapshot's size (as Redis's auto-aof-rewrite-min-size and
// -percentage); 0 when floor is 0 (the size trigger is off).
func snapshotWALThreshold(floor int64, percent int, lastSize int64) int64 {
	if floor <= 0 {
		return 0
	}
	// percent is at most 10000 (validated): no overflow below 900 TB.
	return max(floor, lastSize*int64(percent)/100)
}

// Close flushes, syncs and closes the WAL.
func (j *walJournal) Close() error { return j.wal.Close() }

// abandon closes the WAL of a start that is refused, removing the segment
// and the history id file the start created if nothing was written.
func (j *walJournal) abandon(shard int) error {
	removed, err := j.wal.Abandon()
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

// persistenceInfo returns the lines of INFO persistence for sh: the Redis
// fields clients and tools read, then the WAL and snapshot state.
func persistenceInfo(sh *Shard) []infoField {
	st := sh.snapStatus
	lastSave := st.lastTime
	if lastSave == 0 {
		lastSave = sh.srv.started.Unix()
	}
	inProgress := sh.snap != nil || sh.snapFinishing
	status := st.lastStatus
	if status == "" {
		status = "ok"
	}
	lastDur := int64(-1)
	if st.lastDuration > 0 {
		lastDur = int64(st.lastDuration / time.Second)
	}
	cur := int64(-1)
	if sh.snap != nil {
		cur = int64(sh.srv.now().Sub(sh.snap.started) / time.Second)
	}
	j, ok := sh.journal.(*walJournal)
	var ws persistence.WALStats
	changes := uint64(0)
	if ok {
		ws = j.wal.Stats()
		changes = ws.LastSequence - st.lastSeq
	}
	writeStatus := "ok"
	if ok && j.wal.Err() != nil {
		writeStatus = "err"
	}
	f := []infoField{
		{"loading", "0"},
		{"async_loading", "0"},
		{"rdb_changes_since_last_save", u64(changes)},
		{"rdb_bgsave_in_progress", boolDigit(inProgress)},
		{"rdb_last_save_time", i64(lastSave)},
		{"rdb_last_bgsave_status", status},
		{"rdb_last_bgsave_time_sec", i64(lastDur)},
		{"rdb_current_bgsave_time_sec", i64(cur)},
		{"aof_enabled", boolDigit(ok)},
		// The WAL's rewrite is a snapshot (BGREWRITEAOF).
		{"aof_rewrite_in_progress", boolDigit(inProgress)},
		{"aof_rewrite_scheduled", boolDigit(ok && j.rewriteScheduled)},
		{"aof_last_write_status", writeStatus},
	}
	if !ok {
		return append(f, infoField{"wal_enabled", "0"})
	}
	cmdsPerFsync := "0.00"
	if ws.Fsyncs > 0 {
		cmdsPerFsync = strconv.FormatFloat(float64(j.groupedCommands.Load())/float64(ws.Fsyncs), 'f', 2, 64)
	}
	walErr := ""
	if err := j.wal.Err(); err != nil {
		walErr = err.Error()
	}
	return append(f,
		infoField{"wal_enabled", "1"},
		infoField{"wal_fsync_policy", j.opts.Policy.String()},
		infoField{"wal_last_sequence", u64(ws.LastSequence)},
		infoField{"wal_durable_sequence", u64(ws.DurableSequence)},
		infoField{"wal_segments", i64(int64(ws.Segments))},
		infoField{"wal_bytes", u64(ws.Bytes)},
		infoField{"wal_records", u64(ws.Records)},
		infoField{"wal_fsyncs", u64(ws.Fsyncs)},
		infoField{"wal_last_fsync_latency_us", i64(ws.LastFsyncLatency.Microseconds())},
		infoField{"wal_avg_fsync_latency_us", i64(ws.AvgFsyncLatency.Microseconds())},
		infoField{"wal_commands_per_fsync", cmdsPerFsync},
		infoField{"wal_commit_delay_max_us", i64(commitDelayMax(sh).Microseconds())},
		infoField{"wal_commit_delays", u64(ws.CommitDelays)},
		infoField{"wal_commit_delays_early", u64(ws.CommitDelaysEarly)},
		infoField{"wal_inline_syncs", u64(ws.InlineSyncs)},
		infoField{"wal_commit_delay_total_us", i64(ws.CommitDelayTotal.Microseconds())},
		infoField{"wal_commit_delay_avg_us", i64(avgDelay(ws).Microseconds())},
		infoField{"wal_records_per_fsync", strconv.FormatFloat(ws.AvgRecordsPerFsync, 'f', 2, 64)},
		infoField{"wal_error", walErr},
		infoField{"snapshot_in_progress", boolDigit(inProgress)},
		infoField{"snapshot_last_time", i64(st.lastTime)},
		infoField{"snapshot_last_duration_ms", i64(st.lastDuration.Milliseconds())},
		infoField{"snapshot_last_size", i64(st.lastSize)},
		infoField{"snapshot_last_sequence", u64(st.lastSeq)},
		infoField{"snapshot_last_status", status},
		infoField{"recovery_time_ms", i64(j.recovery.Milliseconds())},
		infoField{"recovery_wal_records", i64(j.recoveredRecords)},
	)
}

// commitDelayMax is the configured commit-delay bound (0 without settings).
func commitDelayMax(sh *Shard) time.Duration {
	if live := sh.srv.opts.Live; live != nil {
		return live.CommitDelayMax()
	}
	return 0
}

// avgDelay is the mean time a delayed group was held back.
func avgDelay(ws persistence.WALStats) time.Duration {
	if ws.CommitDelays == 0 {
		return 0
	}
	return ws.CommitDelayTotal / time.Duration(ws.CommitDelays)
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }
func i64(v int64) string  { return strconv.FormatInt(v, 10) }

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
