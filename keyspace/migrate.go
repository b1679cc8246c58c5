package keyspace

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/persistence"
)

// This file holds the keyspace's side of moving a slot range between
// shards of a cluster across hosts (the control plane decides, the
// receiving member drives the copy: internal/app):
//
//   - the sending shard streams its log (a snapshot, then the records
//     after it) to the receiving primary, like a replica's full resync;
//   - the receiving shard applies the keys and records of the range and
//     writes them to its own log under its own sequences, so its replicas
//     and its recovery have them; it neither serves nor expires them yet;
//   - once it has caught up, the sending shard freezes the range: every
//     command on its keys waits, reads too (parked like a CLIENT PAUSE);
//     the records up to the freeze reach the receiver and the control
//     plane commits;
//   - the freeze ends when the member applies a state without the
//     migration: committed, the held commands run again and get -MOVED;
//     aborted, they run here;
//   - a primary deletes, in small steps, the keys of slots it neither
//     serves nor receives (the sender's range after a commit, the
//     receiver's after an abort).

// Outgoing is a migration a shard of this process sends.
type Outgoing struct {
	ID    uint64
	Shard int
	Slots cluster.SlotRange
}

// shardMigration is a shard's part in migrations.
type shardMigration struct {
	// frozenID is the migration whose range is frozen (0: none), frozen
	// the range and frozenAt when the freeze began.
	frozenID uint64
	frozen   cluster.SlotRange
	frozenAt time.Time
	// heldID and heldSince publish frozenID and frozenAt (on the
	// monotonic clock, after Cluster.leaseBase) for Frozen, which other
	// goroutines call without a round trip through the shard.
	heldID    atomic.Uint64
	heldSince atomic.Int64
	// cleanup is the deletion of the keys of slots the shard no longer
	// keeps, in progress.
	cleanup *cleanupRun
	keyIdx  []int
}

// cleanupRun walks every database of a shard with a scan cursor.
type cleanupRun struct {
	db      int
	cursor  uint64
	deleted int64
	started time.Time
	keys    [][]byte
}

// Errors of the migration calls.
var (
	errNotImporting = errors.New("keyspace: the migration is not receiving on this shard (it ended)")
	errNotSending   = errors.New("ERR no migration of that id sends from this shard")
)

// SetMigrations publishes the migrations this process sends now. A shard
// frozen for a migration that is no longer listed (committed or aborted)
// is unfrozen: the writes it held run again, and find the range served
// here (aborted) or get -MOVED (committed, once the topology says so:
// publish the topology first).
func (s *Server) SetMigrations(out []Outgoing) {
	cp := slices.Clone(out)
	s.Cluster.outgoing.Store(&cp)
	for _, sh := range s.ShardList {
		sh.Post(func() {
			id := sh.Mig.frozenID
			if id == 0 || slices.ContainsFunc(cp, func(o Outgoing) bool { return o.ID == id }) {
				return
			}
			sh.unfreeze("the migration ended")
		})
	}
}

func (s *Server) outgoing(id uint64, shard int) (Outgoing, bool) {
	p := s.Cluster.outgoing.Load()
	if p == nil {
		return Outgoing{}, false
	}
	for _, o := range *p {
		if o.ID == id && o.Shard == shard {
			return o, true
		}
	}
	return Outgoing{}, false
}

// CheckSending reports whether migration id sends from shard sh (the
// stream a receiver asks for).
func (sh *Shard) CheckSending(id uint64) error {
	if _, ok := sh.Srv.outgoing(id, sh.Idx); !ok || sh.Srv.IsReplica() {
		return errNotSending
	}
	return nil
}

// FreezeMigration holds the commands on the range of migration id, which
// this shard sends, and returns the last sequence of the shard's log:
// every record of the range is at or before it. The freeze ends when the
// migration is no longer listed (SetMigrations).
func (sh *Shard) FreezeMigration(id uint64) (uint64, error) {
	o, ok := sh.Srv.outgoing(id, sh.Idx)
	if !ok || sh.Srv.IsReplica() {
		return 0, errNotSending
	}
	j, ok := sh.Journal.(*WALJournal)
	if !ok {
		return 0, errors.New("ERR moving slots needs the write-ahead log")
	}
	if sh.Tx.Recording {
		sh.flushUnit()
	}
	if sh.Mig.frozenID != id {
		sh.Mig.frozenID, sh.Mig.frozen, sh.Mig.frozenAt = id, o.Slots, time.Now() // lint:allow-clock the pause is measured on the monotonic clock
		sh.Mig.heldSince.Store(int64(sh.Mig.frozenAt.Sub(sh.Srv.Cluster.leaseBase)))
		sh.Mig.heldID.Store(id)
		sh.Logger().Info("migration: commands on the range held", zap.Uint64("id", id), zap.Uint16("start", o.Slots.Start), zap.Uint16("end", o.Slots.End))
	}
	return j.WAL.LastSequence(), nil
}

// unfreeze ends the shard's freeze and resumes the writes it held.
func (sh *Shard) unfreeze(why string) {
	sh.Logger().Info("migration: commands on the range resumed", zap.Uint64("id", sh.Mig.frozenID), zap.String("reason", why),
		zap.Duration("held", time.Since(sh.Mig.frozenAt))) // lint:allow-clock monotonic
	sh.Mig.frozenID = 0
	sh.Mig.heldID.Store(0)
	if sh.ReleasePostponed() {
		sh.ResumeBlocked()
	}
}

// Frozen reports whether shard i holds a migration's commands now, and for
// how long (any goroutine).
func (s *Server) Frozen(i int) (id uint64, held time.Duration) {
	m := &s.ShardList[i].Mig
	if id = m.heldID.Load(); id != 0 {
		held = time.Since(s.Cluster.leaseBase) - time.Duration(m.heldSince.Load()) // lint:allow-clock monotonic
	}
	return id, held
}

// freezeHolds reports whether the running freeze holds cmd: any command on
// a key of the frozen range (reads too: once the commit is decided the
// receiver serves the range, and a read here could return what a write
// there has replaced), a write without keys (FLUSHALL and the like reach
// the range too), or an EXEC of a transaction with one of these. Commands
// queued inside MULTI are held at EXEC.
func (sh *Shard) freezeHolds(x *Ctx, cmd *Command, args [][]byte) bool {
	if cmd.Name == "exec" && x.C.Tx.Multi {
		for _, q := range x.C.Tx.Queued {
			if sh.frozenCall(q.Cmd, q.Args) {
				return true
			}
		}
		return false
	}
	if x.C.Tx.Multi {
		return false
	}
	return sh.frozenCall(cmd, args)
}

func (sh *Shard) frozenCall(cmd *Command, args [][]byte) bool {
	sh.Mig.keyIdx = cmd.KeyIndexes(args, sh.Mig.keyIdx[:0])
	if len(sh.Mig.keyIdx) == 0 {
		return sh.EffectiveFlags(cmd, args)&FlagWrite != 0
	}
	for _, i := range sh.Mig.keyIdx {
		if sh.slotFrozen(cluster.KeySlot(args[i])) {
			return true
		}
	}
	return false
}

func (sh *Shard) slotFrozen(slot uint16) bool {
	r := sh.Mig.frozen
	return sh.Mig.frozenID != 0 && r.Start <= slot && slot <= r.End
}

// errSlotMoving refuses a script's write to a frozen slot it did not
// declare: the script cannot be held halfway.
const errSlotMoving = "TRYAGAIN the slot is moving to another shard; retry"

// ---- the receiving side ----

// ImportEntry is one key of a migration's copy of its range, as a
// snapshot stores it.
type ImportEntry struct {
	DB       uint16
	Kind     uint8
	Key      []byte
	Value    []byte
	Deadline int64

	// A large collection is decoded, and its record built, before the
	// entry reaches the shard (ImportEntries): obj and val are the value,
	// record the OpRestore payload.
	obj    any
	val    []byte
	record []byte
}

// importDecodeOffLoop is the encoded size from which a collection of a
// migration's copy is decoded off the shard goroutine: a million-member
// sorted set takes about a second to rebuild, which the shard's other
// clients would otherwise wait for.
const importDecodeOffLoop = 64 << 10

// receiving checks that shard sh receives migration id now (its
// primary: a replica has the keys from its primary's log).
func (sh *Shard) receiving(id uint64) error {
	t := sh.Srv.Topology()
	if id == 0 || t.LocalReplica || sh.Idx >= len(t.ImportIDs) || t.ImportIDs[sh.Idx] != id {
		return errNotImporting
	}
	if _, ok := sh.Journal.(*WALJournal); !ok {
		return errors.New("keyspace: moving slots needs the write-ahead log")
	}
	return nil
}

// ImportEntries stores keys of migration id's copy on shard, those of
// the slots it receives (others are skipped), replacing what the shard
// held under those names, and logs them.
func (s *Server) ImportEntries(shard int, id uint64, es []ImportEntry) error {
	sh := s.ShardList[shard]
	t := s.Topology()
	cfg := sh.ValueConfig()
	for i := range es {
		e := &es[i]
		if e.Kind == KindString || len(e.Value) < importDecodeOffLoop || t.ImportingShard(cluster.KeySlot(e.Key)) != shard {
			continue
		}
		val, obj, err := DecodeSnapshotValue(cfg, e.Kind, e.Value)
		if err != nil {
			return fmt.Errorf("keyspace: key %q of the copy: %w", e.Key, err)
		}
		p := persistence.AppendBytes(make([]byte, 0, len(e.Key)+len(e.Value)+24), e.Key)
		p = persistence.AppendI64(p, e.Deadline)
		p = persistence.AppendU8(p, e.Kind)
		e.val, e.obj, e.record = val, obj, append(p, e.Value...)
	}
	var err error
	if !sh.do(func() { err = sh.importEntries(id, es) }) {
		return errShardStopped
	}
	return err
}

func (sh *Shard) importEntries(id uint64, es []ImportEntry) error {
	if err := sh.receiving(id); err != nil {
		return err
	}
	sh.FinishSnapshotNow()
	t := sh.Srv.Topology()
	for _, e := range es {
		if t.ImportingShard(cluster.KeySlot(e.Key)) != sh.Idx {
			continue
		}
		if int(e.DB) >= len(sh.DBs) {
			return fmt.Errorf("keyspace: the sender has database %d, this server %d databases", e.DB, len(sh.DBs))
		}
		if e.obj != nil {
			db := sh.DBs[e.DB]
			if old := db.Find(e.Key); old != nil {
				db.Remove(old)
			}
			db.Add(e.Key, e.val, e.obj, e.Deadline)
			sh.SettleMem()
			sh.record(int(e.DB), persistence.OpRestore, e.record)
			continue
		}
		var p []byte
		op := persistence.OpRestore
		if e.Kind == KindString {
			op = persistence.OpSet
			p = persistence.AppendBytes(sh.scratch[:0], e.Key)
			p = persistence.AppendBytes(p, e.Value)
			p = persistence.AppendI64(p, e.Deadline)
		} else {
			p = persistence.AppendBytes(sh.scratch[:0], e.Key)
			p = persistence.AppendI64(p, e.Deadline)
			p = persistence.AppendU8(p, e.Kind)
			p = append(p, e.Value...)
		}
		if err := sh.ApplyRecord(persistence.Record{DB: e.DB, Op: op, Payload: p}); err != nil {
			return fmt.Errorf("keyspace: key %q of the copy: %w", e.Key, err)
		}
		sh.recordScratch(int(e.DB), op, p)
	}
	return nil
}

// ImportRecords applies the records of recs (encoded as the log stores
// them, from the sender's log) that concern the slots shard receives for
// migration id, and logs them under the shard's own sequences. It returns
// the sender's sequence of the last record. A record it cannot place in
// or out of the range (SWAPDB; a record naming keys on both sides) fails
// the migration.
func (s *Server) ImportRecords(shard int, id uint64, recs []byte) (uint64, error) {
	sh := s.ShardList[shard]
	var last uint64
	var err error
	if !sh.do(func() { last, err = sh.importRecords(id, recs) }) {
		return 0, errShardStopped
	}
	return last, err
}

func (sh *Shard) importRecords(id uint64, recs []byte) (uint64, error) {
	if err := sh.receiving(id); err != nil {
		return 0, err
	}
	sh.FinishSnapshotNow()
	t := sh.Srv.Topology()
	var last uint64
	for len(recs) > 0 {
		r, n, err := persistence.DecodeRecord(recs)
		if err != nil {
			return last, fmt.Errorf("keyspace: a record of the sender after sequence %d: %w", last, err)
		}
		recs = recs[n:]
		last = r.Seq
		if r.Op == persistence.OpBatch {
			entries, err := persistence.DecodeBatch(nil, r.Payload)
			if err != nil {
				return last, fmt.Errorf("keyspace: record %d of the sender: %w", r.Seq, err)
			}
			for _, e := range entries {
				if err := sh.importRecord(t, persistence.Record{Seq: r.Seq, DB: e.DB, Op: e.Op, Payload: e.Payload}); err != nil {
					return last, err
				}
			}
			continue
		}
		if err := sh.importRecord(t, r); err != nil {
			return last, err
		}
	}
	return last, nil
}

func (sh *Shard) importRecord(t *cluster.Topology, r persistence.Record) error {
	in := func(key []byte) bool { return t.ImportingShard(cluster.KeySlot(key)) == sh.Idx }
	switch r.Op {
	case persistence.OpFlushAll:
		for i := range sh.DBs {
			sh.dropImported(t, i)
		}
		return nil
	case persistence.OpFlushDB:
		if int(r.DB) < len(sh.DBs) {
			sh.dropImported(t, int(r.DB))
		}
		return nil
	case persistence.OpSwapDB:
		return errors.New("keyspace: the sender ran SWAPDB during the migration")
	}
	p := persistence.NewPayloadReader(r.Payload)
	key, err := p.Bytes()
	if err != nil {
		return fmt.Errorf("keyspace: record %d (%s) of the sender: %w", r.Seq, r.Op, err)
	}
	switch r.Op {
	case persistence.OpRename, persistence.OpCopy, persistence.OpListMove, persistence.OpSetMove:
		dst, err := p.Bytes()
		if err != nil {
			return fmt.Errorf("keyspace: record %d (%s) of the sender: %w", r.Seq, r.Op, err)
		}
		if in(key) != in(dst) {
			return fmt.Errorf("keyspace: record %d (%s) of the sender names keys inside and outside the moving range", r.Seq, r.Op)
		}
	}
	if !in(key) {
		return nil
	}
	if err := sh.ApplyRecord(r); err != nil {
		return fmt.Errorf("keyspace: record %d of the sender: %w", r.Seq, err)
	}
	sh.record(int(r.DB), r.Op, r.Payload)
	return nil
}

// dropImported deletes, and logs, the keys of database db in the slots the
// shard receives (a FLUSHDB or FLUSHALL on the sender).
func (sh *Shard) dropImported(t *cluster.Topology, db int) {
	d := sh.DBs[db]
	var keys [][]byte
	d.Each(func(e *Entry) {
		if k := e.KeyView(); t.ImportingShard(cluster.KeySlot([]byte(k))) == sh.Idx {
			keys = append(keys, []byte(k))
		}
	})
	for _, k := range keys {
		if e := d.Find(k); e != nil {
			sh.LogDel(db, string(k))
			d.Remove(e)
		}
	}
}

// receivingSlot reports whether key's slot is one the shard receives: its
// deadline is the sender's to act on (the sender's deletion arrives as a
// record), as on a replica.
func (sh *Shard) receivingSlot(key []byte) bool {
	t := sh.Srv.Topology()
	return sh.Idx < len(t.ImportIDs) && t.ImportIDs[sh.Idx] != 0 && t.ImportingShard(cluster.KeySlot(key)) == sh.Idx
}

// ReplicatedTo reports, for the receiving side's commit under synchronous
// replication, how many replicas of shard acknowledged seq, and how many
// replication.sync_replicas asks for.
func (s *Server) ReplicatedTo(shard int, seq uint64) (acked, want int) {
	sh := s.ShardList[shard]
	want = s.Opts.Live.SyncReplicas()
	sh.do(func() { acked = sh.AckedAtLeast(seq) })
	return acked, want
}

// ---- dropping the keys of slots a shard no longer keeps ----

// cleanupBucketsPerStep bounds one step of the deletion of unkept keys.
const cleanupBucketsPerStep = 256

// scheduleCleanup starts (or restarts) the deletion of the keys the
// shard does not keep under the current topology.
func (sh *Shard) scheduleCleanup() {
	if sh.Mig.cleanup != nil {
		sh.Mig.cleanup.db, sh.Mig.cleanup.cursor = 0, 0
		return
	}
	sh.Mig.cleanup = &cleanupRun{started: time.Now()} // lint:allow-clock duration log only
}

// cleanupStep deletes the unkept keys of up to cleanupBucketsPerStep
// buckets and reports whether it did any work. Only a primary deletes;
// its records reach its replicas (a primary demoted meanwhile drops the
// run; a pause defers it).
func (sh *Shard) cleanupStep() bool {
	run := sh.Mig.cleanup
	t := sh.Srv.Topology()
	if t.LocalReplica || sh.Srv.IsReplica() {
		sh.Mig.cleanup = nil
		return false
	}
	if sh.PauseActive() {
		return false
	}
	for n := 0; n < cleanupBucketsPerStep && run.db < len(sh.DBs); n++ {
		db := sh.DBs[run.db]
		run.keys = run.keys[:0]
		run.cursor = db.T.Scan(run.cursor, func(h uint32) {
			e := db.EntryAt(h)
			if k := e.Key(); !t.Keeps(sh.Idx, cluster.KeySlot(k)) {
				run.keys = append(run.keys, k)
			}
		})
		for _, k := range run.keys {
			e := db.Find(k)
			if e == nil {
				continue
			}
			if sh.Snap != nil {
				sh.SnapshotTouch(db, k)
				e = db.Find(k)
			}
			sh.LogDel(db.ID, string(k))
			db.Remove(e)
			run.deleted++
		}
		if run.cursor == 0 {
			run.db++
		}
	}
	sh.Commit()
	if run.db >= len(sh.DBs) {
		sh.Mig.cleanup = nil
		if run.deleted > 0 {
			sh.Logger().Info("deleted the keys of slots this shard no longer serves", zap.Int64("keys", run.deleted),
				zap.Duration("duration", time.Since(run.started))) // lint:allow-clock duration log only
		}
	}
	return true
}

// redirectBlocked answers the clients blocked on keys of slots the shard
// no longer serves with the slot's redirection (MOVED), as Redis Cluster
// does when a slot moves away, instead of leaving them waiting on keys
// that will never change here.
func (sh *Shard) redirectBlocked() {
	t := sh.Srv.Topology()
	for _, bc := range sh.Blk.Clients {
		if bc.done || bc.Postponed || len(bc.keys) == 0 {
			continue
		}
		slot := cluster.KeySlot([]byte(bc.keys[0].Key))
		if t.ShardOf(slot) == sh.Idx {
			continue
		}
		msg := sh.Srv.SlotRefusal(t, slot, sh.Idx, true, bc.c)
		if msg == "" {
			continue
		}
		sh.endBlockedWithError(bc, msg)
	}
	if len(sh.Blk.Resume) > 0 {
		sh.ResumeBlocked()
	}
}

// cleanupPlan returns the shards of a primary that delete keys when its
// topology goes from old to t: those that kept a slot under old and do not
// under t; every shard, for all the slots it does not keep, on the first
// topology from the control plane (a crash may have interrupted a
// deletion) and the first as a primary. A replica, or a topology not from
// the control plane, deletes nothing.
func cleanupPlan(old, t *cluster.Topology, shards int) []int {
	if !t.Multi || t.Epoch == 0 || t.LocalReplica {
		return nil
	}
	full := old == nil || old.Epoch == 0 || old.LocalReplica
	var clean []int
	for idx := range shards {
		need := full
		for slot := 0; !need && slot < cluster.SlotCount; slot++ {
			need = old.Keeps(idx, uint16(slot)) && !t.Keeps(idx, uint16(slot))
		}
		if need {
			clean = append(clean, idx)
		}
	}
	return clean
}
