package keyspace

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/hash"
	"github.com/ruvio/ruvio/types/list"
	"github.com/ruvio/ruvio/types/set"
	"github.com/ruvio/ruvio/types/stream"
	"github.com/ruvio/ruvio/types/zset"
)

// Snapshots are point-in-time at a WAL sequence and are taken without fork
// and without stopping the shard. At the start each database's 32-bit hash
// space is cut into as many buckets as its table has slots, and that cut
// stays fixed for the run whatever the table does afterwards: a key's
// bucket is the top bits of its hash, which no resize, probe or backward
// shift changes. The shard serializes buckets in order between batches,
// and before any command mutates a key in a bucket the cursor has not
// reached yet (a write, an insert, a deletion, an expiry or an eviction),
// that bucket is serialized first. Every bucket is therefore written
// exactly once, as it was when the snapshot began, and the tables keep
// growing and shrinking freely meanwhile (table.eachInRange finds a
// bucket's keys at any table size). Commands that touch a whole database
// (FLUSHDB, FLUSHALL, SWAPDB) or a second database (MOVE, COPY … DB)
// finish the snapshot first.

// Value kinds in snapshot files. Append-only, like opcodes.
const (
	KindString uint8 = 0 // a plain string
)

// SnapshotValue is implemented by value types other than plain strings.
type SnapshotValue interface {
	SnapshotKind() uint8
	// AppendSnapshot appends the value's encoding.
	AppendSnapshot(dst []byte) []byte
}

// valueConfig is the set of encoding thresholds a collection is rebuilt
// with: the live CONFIG values, so a loaded collection takes the encoding
// the same data would have had if written by commands.
type valueConfig struct {
	hash     hash.Config
	set      set.Config
	zset     zset.Config
	listFill int
	stream   stream.Config
}

// ValueConfig reads the live encoding thresholds.
func (sh *Shard) ValueConfig() valueConfig {
	return valueConfig{hash: sh.HashConfig(), set: sh.SetConfig(), zset: sh.ZsetConfig(), listFill: sh.ListFill(), stream: sh.StreamConfig()}
}

// DefaultValueConfig is the thresholds' built-in values.
func DefaultValueConfig() valueConfig {
	return valueConfig{hash: hash.DefaultConfig, set: set.DefaultConfig, zset: zset.DefaultConfig, listFill: list.DefaultFill, stream: stream.DefaultConfig}
}

// DecodeSnapshotValue rebuilds a value read from a snapshot, collections
// in the encodings cfg's thresholds give them. val aliases the reader's
// buffer and must be copied when kept.
func DecodeSnapshotValue(cfg valueConfig, kind uint8, val []byte) ([]byte, any, error) {
	if kind == KindString {
		return CopyBytes(val), nil, nil
	}
	vt := values.bySnapshotKind[kind]
	if vt == nil {
		return nil, nil, fmt.Errorf("keyspace: snapshot value kind %d is unknown", kind)
	}
	obj, err := vt.decodeSnapshot(cfg, kind, val)
	return nil, obj, err
}

// snapshotBucketsPerStep bounds the work of one incremental step.
const snapshotBucketsPerStep = 4096

// snapshotRun is a snapshot in progress.
type snapshotRun struct {
	w       *persistence.SnapshotWriter
	seq     uint64
	Started time.Time
	dbs     []*DB
	// cursor: database index and next bucket in it.
	db, bucket int
	// shift is, per database, 32 - log2(its bucket count).
	shift []uint8
	// ahead marks, per database, buckets serialized before the cursor
	// reached them (a bitset, allocated on first use).
	ahead [][]uint64
	err   error
	// buf is scratch space for value encodings.
	buf []byte
}

// buckets is the bucket count of database i.
func (run *snapshotRun) buckets(i int) int { return 1 << (32 - run.shift[i]) }

// snapshotResult is what the background finisher reports.
type snapshotResult struct {
	seq      uint64
	size     int64
	keys     uint64
	err      error
	duration time.Duration
	// removeErr is the failure to delete the WAL segments the snapshot
	// covers (the snapshot itself is good).
	removeErr error
}

// snapshotInfo is the snapshot status INFO persistence reports.
type snapshotInfo struct {
	inProgress   bool
	LastTime     int64 // unix seconds of the last success
	LastDuration time.Duration
	LastSize     int64
	LastStatus   string
	LastSeq      uint64
}

var errSnapshotRunning = errors.New("keyspace: a snapshot is already in progress")

// StartSnapshot begins a background snapshot at the current WAL sequence.
func (sh *Shard) StartSnapshot() error {
	j, ok := sh.Journal.(*WALJournal)
	if !ok {
		return errors.New("keyspace: persistence is off")
	}
	if sh.Snap != nil || sh.SnapFinishing {
		return errSnapshotRunning
	}
	if f := sh.observeLogFailure(); f != nil && f.tainted {
		return fmt.Errorf("keyspace: shard %d: %w", sh.Idx, errSnapshotLogFailed)
	}
	if sh.Tx.Recording {
		// BGSAVE inside EXEC: the snapshot holds the unit's writes so far,
		// so their records must come before its sequence.
		sh.flushUnit()
	}
	seq := j.WAL.LastSequence()
	w, err := persistence.CreateSnapshot(j.fs, j.dir, sh.Idx, seq, sh.Srv.Log)
	if err != nil {
		return fmt.Errorf("keyspace: shard %d: start snapshot: %w", sh.Idx, err)
	}
	run := &snapshotRun{w: w, seq: seq, Started: sh.Srv.Now(), dbs: append([]*DB(nil), sh.DBs...)}
	run.ahead = make([][]uint64, len(run.dbs))
	for _, db := range run.dbs {
		run.shift = append(run.shift, db.T.shift)
	}
	sh.Snap = run
	sh.SnapStatus.inProgress = true
	return nil
}

// SnapshotTouch serializes key's bucket before a mutation if the cursor
// has not passed it yet.
func (sh *Shard) SnapshotTouch(db *DB, key []byte) {
	run := sh.Snap
	i := -1
	for k, d := range run.dbs {
		if d == db {
			i = k
			break
		}
	}
	if i < 0 || i < run.db {
		return
	}
	b := int(db.T.hash(key) >> run.shift[i])
	if i == run.db && b < run.bucket {
		return
	}
	if run.ahead[i] == nil {
		run.ahead[i] = make([]uint64, (run.buckets(i)+63)/64)
	}
	if run.ahead[i][b/64]&(1<<(b%64)) != 0 {
		return
	}
	run.ahead[i][b/64] |= 1 << (b % 64)
	sh.snapshotBucket(run, i, b)
}

// snapshotBucket writes every entry of bucket b of database i.
func (sh *Shard) snapshotBucket(run *snapshotRun, i, b int) {
	if run.err != nil {
		return
	}
	db := run.dbs[i]
	lo := uint64(b) << run.shift[i]
	db.T.eachInRange(lo, lo+1<<run.shift[i], func(h uint32) {
		if run.err != nil {
			return
		}
		e := db.EntryAt(h)
		kind := KindString
		val := db.Val(e)
		if o := db.Obj(e); o != nil {
			sv, ok := o.(SnapshotValue)
			if !ok {
				run.err = fmt.Errorf("keyspace: value of type %T has no snapshot encoding", o)
				return
			}
			kind = sv.SnapshotKind()
			run.buf = sv.AppendSnapshot(run.buf[:0])
			val = run.buf
		}
		run.err = run.w.Add(uint16(i), kind, e.Key(), val, e.ExpireAt)
	})
}

// SnapshotStep advances the cursor by up to n buckets; it finishes the run
// when the cursor passes the last bucket.
func (sh *Shard) SnapshotStep(n int) {
	// The latency monitor times the step (snapshot-step).
	defer sh.latencyEnd(LatencyEventSnapshotStep, sh.latencyStart())
	run := sh.Snap
	for n > 0 && run.db < len(run.dbs) && run.err == nil {
		for run.bucket < run.buckets(run.db) && n > 0 {
			if a := run.ahead[run.db]; a == nil || a[run.bucket/64]&(1<<(run.bucket%64)) == 0 {
				sh.snapshotBucket(run, run.db, run.bucket)
			}
			run.bucket++
			n--
		}
		if run.bucket >= run.buckets(run.db) {
			run.db++
			run.bucket = 0
		}
	}
	if run.db >= len(run.dbs) || run.err != nil {
		sh.endSnapshotScan()
	}
}

// endSnapshotScan unfreezes the tables and finishes the file in the
// background; the result comes back through snapDone.
func (sh *Shard) endSnapshotScan() {
	run := sh.Snap
	sh.Snap = nil
	sh.SnapFinishing = true
	go func() {
		res := snapshotResult{seq: run.seq, keys: run.w.Count()}
		if j, ok := sh.Journal.(*WALJournal); ok && run.err == nil {
			// Published only once the log holds its records durably: a
			// snapshot must never make a write durable that the log
			// failed to, and whose client was told so.
			run.err = j.awaitDurable(run.seq)
		}
		if run.err != nil {
			run.w.Abort()
			res.err = run.err
		} else {
			res.size, res.err = run.w.Finish()
		}
		res.duration = sh.Srv.Now().Sub(run.Started)
		if j, ok := sh.Journal.(*WALJournal); ok && res.err == nil {
			// Here, not on the shard: deleting segments is slow.
			res.removeErr = j.WAL.RemoveSegmentsBefore(res.seq)
		}
		sh.snapDone <- res
		sh.Ring.Signal()
	}()
}

// FinishSnapshotNow completes a running snapshot synchronously, for
// commands that cannot run while one is in progress and for SAVE.
func (sh *Shard) FinishSnapshotNow() {
	if j, ok := sh.Journal.(*WALJournal); ok && j.appended > 0 && (sh.Snap != nil || sh.SnapFinishing) {
		// The finisher waits for the log to make the snapshot's records
		// durable: they must not wait for the end of this drain.
		sh.Commit()
	}
	if sh.Snap != nil {
		sh.SnapshotStep(int(^uint(0) >> 1))
	}
	if sh.SnapFinishing {
		sh.collectSnapshot(<-sh.snapDone)
	}
}

// PollSnapshot picks up a finished background snapshot, if any.
func (sh *Shard) PollSnapshot() {
	if !sh.SnapFinishing {
		return
	}
	select {
	case res := <-sh.snapDone:
		sh.collectSnapshot(res)
	default:
	}
}

// collectSnapshot records a snapshot's outcome and drops the WAL segments
// it makes redundant.
func (sh *Shard) collectSnapshot(res snapshotResult) {
	sh.SnapFinishing = false
	st := &sh.SnapStatus
	st.inProgress = false
	log := sh.Logger()
	if res.err != nil {
		st.LastStatus = "err"
		log.Error("snapshot failed", zap.Uint64("seq", res.seq), zap.Error(res.err))
		return
	}
	st.LastStatus = "ok"
	st.LastTime = sh.Srv.Now().Unix()
	st.LastDuration = res.duration
	st.LastSize = res.size
	st.LastSeq = res.seq
	log.Info("snapshot written", zap.String("file", persistence.SnapshotName(sh.Idx, res.seq)), zap.Uint64("seq", res.seq), zap.Uint64("keys", res.keys),
		zap.Int64("bytes", res.size), zap.Duration("duration", res.duration))
	if res.removeErr != nil {
		log.Warn("removing WAL segments covered by the snapshot", zap.Error(res.removeErr))
	}
}

// LoadSnapshotEntry adds one entry read from a snapshot file. A snapshot
// holds each key once (its CRC vouches for the file), so entries are
// inserted without a lookup.
func (sh *Shard) LoadSnapshotEntry(db uint16, kind uint8, key, value []byte, deadline int64) error {
	if int(db) >= len(sh.DBs) {
		return fmt.Errorf("keyspace: snapshot names database %d, but %d are configured", db, len(sh.DBs))
	}
	d := sh.DBs[db]
	if kind == KindString {
		d.AddString(key, value, deadline)
		return nil
	}
	val, obj, err := DecodeSnapshotValue(sh.ValueConfig(), kind, value)
	if err != nil {
		return err
	}
	d.Add(key, val, obj, deadline)
	sh.SettleMem()
	return nil
}

// snapshotBeforeWrite prepares a running snapshot for a write command:
// the buckets of its keys are serialized first, and commands that reach
// beyond their keys complete the snapshot.
func (sh *Shard) snapshotBeforeWrite(cmd *Command, args [][]byte, db *DB) {
	switch cmd.Name {
	case "flushdb", "flushall", "swapdb", "move", "copy":
		sh.FinishSnapshotNow()
		return
	}
	if cmd.FirstKey <= 0 && cmd.NumKeysAt <= 0 && cmd.MovableKeys == nil {
		sh.FinishSnapshotNow()
		return
	}
	sh.keyIdx = cmd.KeyIndexes(args, sh.keyIdx[:0])
	for _, i := range sh.keyIdx {
		sh.SnapshotTouch(db, args[i])
	}
}
