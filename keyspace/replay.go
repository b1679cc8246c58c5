package keyspace

import (
	"errors"
	"fmt"

	"github.com/ruvio/ruvio/persistence"
)

// ErrReplay marks a WAL record the keyspace cannot apply.
var ErrReplay = errors.New("keyspace: cannot replay record")

// ApplyRecord replays one WAL record. Records are physical: they set state
// without re-running command logic and without looking at the clock (a
// deletion of an expired key has its own record). Payload bytes alias the
// reader's buffer, so everything kept is copied.
func (sh *Shard) ApplyRecord(r persistence.Record) error {
	if r.Op == persistence.OpBatch {
		return sh.applyBatch(r)
	}
	if int(r.DB) >= len(sh.DBs) {
		return fmt.Errorf("%w: seq %d: database %d does not exist (%d configured)", ErrReplay, r.Seq, r.DB, len(sh.DBs))
	}
	apply := ReplayOps[r.Op]
	if apply == nil {
		return fmt.Errorf("%w: seq %d: unknown opcode %d (%s)", ErrReplay, r.Seq, r.Op, r.Op)
	}
	p := persistence.NewPayloadReader(r.Payload)
	// A record changes collections in place, as a command does.
	defer sh.SettleMem()
	err := apply(sh, sh.DBs[r.DB], r, &p)
	if err == nil {
		// Bytes after the last field mean the writer and this reader
		// disagree on the layout: never guess.
		err = p.End()
	}
	if err != nil && !errors.Is(err, ErrReplay) {
		err = fmt.Errorf("%w: seq %d (%s): %v", ErrReplay, r.Seq, r.Op, err)
	}
	return err
}

// replayFunc applies the payload of record r to db, its database. The
// record-level decoders read every field, check p.End once and only then
// change anything, so a malformed record leaves the keyspace as it was.
type replayFunc func(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error

// ReplayOps maps each opcode the keyspace replays to its decoder; nil is
// an unknown opcode. OpBatch is handled by ApplyRecord itself. It is
// built once at package initialization and never written after.
var ReplayOps = buildReplayOps(replayRouteList())

// buildReplayOps is the keyspace's own records (the string and key
// records, RESTORE) and the routes each family contributes; an opcode
// claimed twice is a programming error and panics at startup.
func buildReplayOps(families [][]replayRoute) [256]replayFunc {
	t := [256]replayFunc{
		persistence.OpSet:      replaySetRecord,
		persistence.OpDel:      replayDelRecord,
		persistence.OpExpire:   replayExpireRecord,
		persistence.OpFlushDB:  replayFlushDBRecord,
		persistence.OpFlushAll: replayFlushAllRecord,
		persistence.OpSwapDB:   replaySwapDBRecord,
		persistence.OpMove:     replayMoveRecord,
		persistence.OpRename:   replayRenameRecord,
		persistence.OpCopy:     replayCopyRecord,
		persistence.OpAppend:   replayAppendRecord,
		persistence.OpSetRange: replaySetRangeRecord,
		persistence.OpRestore:  replayRestoreRecord,
	}
	for _, routes := range families {
		for _, r := range routes {
			for _, op := range r.ops {
				if t[op] != nil {
					panic(fmt.Sprintf("keyspace: opcode %s routed twice", op))
				}
				t[op] = r.apply
			}
		}
	}
	return t
}

// replayRoute sends a value type's opcodes to its decoder.
type replayRoute struct {
	ops   []persistence.Opcode
	apply replayFunc
}

func replayRestoreRecord(sh *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	return applyRestoreRecord(sh.ValueConfig(), db, p)
}

// The keyspace records (opcodes 1–11).

func replaySetRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	key, val, at := p.NextBytes(), p.NextBytes(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.Find(key); e != nil {
		e = db.SetString(e, val)
		db.SetDeadline(e, at)
	} else {
		db.AddString(key, val, at)
	}
	return nil
}

func replayDelRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	key := p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	db.Delete(key)
	return nil
}

func replayExpireRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	key, at := p.NextBytes(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.Find(key); e != nil {
		db.SetDeadline(e, at)
	}
	return nil
}

func replayFlushDBRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	if err := p.End(); err != nil {
		return err
	}
	db.Flush()
	return nil
}

func replayFlushAllRecord(sh *Shard, _ *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	if err := p.End(); err != nil {
		return err
	}
	for _, d := range sh.DBs {
		d.Flush()
	}
	return nil
}

func replaySwapDBRecord(sh *Shard, _ *DB, r persistence.Record, p *persistence.PayloadReader) error {
	a, b := p.NextU16(), p.NextU16()
	if err := p.End(); err != nil {
		return err
	}
	if int(a) >= len(sh.DBs) || int(b) >= len(sh.DBs) {
		return fmt.Errorf("%w: seq %d: SWAPDB %d %d out of range", ErrReplay, r.Seq, a, b)
	}
	sh.SwapDB(int(a), int(b))
	return nil
}

func replayMoveRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	key, target := p.NextBytes(), p.NextU16()
	if err := p.End(); err != nil {
		return err
	}
	if int(target) >= len(sh.DBs) {
		return fmt.Errorf("%w: seq %d: MOVE to database %d", ErrReplay, r.Seq, target)
	}
	if e := db.Find(key); e != nil {
		if old := sh.DBs[target].Find(key); old != nil {
			sh.DBs[target].Remove(old)
		}
		db.Transfer(e, sh.DBs[target], key)
	}
	return nil
}

func replayRenameRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	src, dst := p.NextBytes(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.Find(src); e != nil && string(src) != string(dst) {
		if old := db.Find(dst); old != nil {
			db.Remove(old)
		}
		db.Transfer(e, db, dst)
	}
	return nil
}

func replayCopyRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	src, dst, target, replace := p.NextBytes(), p.NextBytes(), p.NextU16(), p.NextU8()
	if err := p.End(); err != nil {
		return err
	}
	if int(target) >= len(sh.DBs) {
		return fmt.Errorf("%w: seq %d: COPY to database %d", ErrReplay, r.Seq, target)
	}
	e := db.Find(src)
	if e == nil {
		return nil
	}
	tdb := sh.DBs[target]
	if tdb.Find(dst) != nil && replace == 0 {
		return nil
	}
	val, obj, ok := CloneValue(db, e)
	if !ok {
		return fmt.Errorf("%w: seq %d: value of type %T cannot be copied", ErrReplay, r.Seq, db.Obj(e))
	}
	if tdb == db && string(src) == string(dst) {
		return nil
	}
	replaySet(tdb, dst, val, obj, e.ExpireAt)
	return nil
}

func replayAppendRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	key, suffix := p.NextBytes(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.Find(key); e != nil {
		n := len(db.Val(e))
		e = db.ResizeVal(e, n+len(suffix))
		copy(db.Val(e)[n:], suffix)
	} else {
		db.Add(key, suffix, nil, 0)
	}
	return nil
}

func replaySetRangeRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	key, off, b := p.NextBytes(), p.NextU64(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	// The command refused strings longer than proto-max-bulk-len, so a
	// larger end is damage; it must not overflow or panic.
	if limit := uint64(sh.Srv.Opts.Live.ProtoMaxBulkLen()); uint64(len(b)) > limit || off > limit-uint64(len(b)) {
		return fmt.Errorf("%w: seq %d: SETRANGE to offset %d + %d bytes exceeds proto-max-bulk-len %d", ErrReplay, r.Seq, off, len(b), limit)
	}
	end := int(off) + len(b)
	e := db.Find(key)
	if e == nil {
		// Created at its exact length, as SETRANGE and SETBIT create it:
		// zeros up to off.
		buf := make([]byte, end)
		copy(buf[off:], b)
		e = db.AddStringOwned(key, buf, 0)
		e.SetKind(e.Kind() | FlagRaw)
		return nil
	}
	if end > len(db.Val(e)) {
		e = db.ResizeVal(e, end)
	}
	copy(db.Val(e)[off:], b)
	return nil
}

// replaySet stores a value under key, replacing whatever was there. A
// string val is copied.
func replaySet(db *DB, key, val []byte, obj any, at int64) {
	if e := db.Find(key); e != nil {
		if obj != nil {
			db.SetObj(e, obj)
		} else {
			e = db.SetString(e, val)
		}
		db.SetDeadline(e, at)
		return
	}
	db.Add(key, val, obj, at)
}

// SwapDB exchanges two databases in O(1); their ids follow their places.
func (sh *Shard) SwapDB(a, b int) {
	sh.DBs[a], sh.DBs[b] = sh.DBs[b], sh.DBs[a]
	sh.DBs[a].ID, sh.DBs[b].ID = a, b
}
