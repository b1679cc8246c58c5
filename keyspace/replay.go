package keyspace

import (
	"errors"
	"fmt"

	"github.com/ruvio/ruvio/persistence"
)

// errReplay marks a WAL record the keyspace cannot apply.
var errReplay = errors.New("keyspace: cannot replay record")

// applyRecord replays one WAL record. Records are physical: they set state
// without re-running command logic and without looking at the clock (a
// deletion of an expired key has its own record). Payload bytes alias the
// reader's buffer, so everything kept is copied.
func (sh *Shard) applyRecord(r persistence.Record) error {
	if r.Op == persistence.OpBatch {
		return sh.applyBatch(r)
	}
	if int(r.DB) >= len(sh.dbs) {
		return fmt.Errorf("%w: seq %d: database %d does not exist (%d configured)", errReplay, r.Seq, r.DB, len(sh.dbs))
	}
	apply := replayOps[r.Op]
	if apply == nil {
		return fmt.Errorf("%w: seq %d: unknown opcode %d (%s)", errReplay, r.Seq, r.Op, r.Op)
	}
	p := persistence.NewPayloadReader(r.Payload)
	// A record changes collections in place, as a command does.
	defer sh.settleMem()
	err := apply(sh, sh.dbs[r.DB], r, &p)
	if err == nil {
		// Bytes after the last field mean the writer and this reader
		// disagree on the layout: never guess.
		err = p.End()
	}
	if err != nil && !errors.Is(err, errReplay) {
		err = fmt.Errorf("%w: seq %d (%s): %v", errReplay, r.Seq, r.Op, err)
	}
	return err
}

// replayFunc applies the payload of record r to db, its database. The
// record-level decoders read every field, check p.End once and only then
// change anything, so a malformed record leaves the keyspace as it was.
type replayFunc func(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error

// replayOps maps each opcode the keyspace replays to its decoder; nil is
// an unknown opcode. OpBatch is handled by applyRecord itself. It is
// built once at package initialization and never written after.
var replayOps = buildReplayOps(replayRouteList())

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
	return applyRestoreRecord(sh.valueConfig(), db, p)
}

// The keyspace records (opcodes 1–11).

func replaySetRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	key, val, at := p.NextBytes(), p.NextBytes(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.find(key); e != nil {
		e = db.setString(e, val)
		db.setDeadline(e, at)
	} else {
		db.addString(key, val, at)
	}
	return nil
}

func replayDelRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	key := p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	db.delete(key)
	return nil
}

func replayExpireRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	key, at := p.NextBytes(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.find(key); e != nil {
		db.setDeadline(e, at)
	}
	return nil
}

func replayFlushDBRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	if err := p.End(); err != nil {
		return err
	}
	db.flush()
	return nil
}

func replayFlushAllRecord(sh *Shard, _ *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	if err := p.End(); err != nil {
		return err
	}
	for _, d := range sh.dbs {
		d.flush()
	}
	return nil
}

func replaySwapDBRecord(sh *Shard, _ *DB, r persistence.Record, p *persistence.PayloadReader) error {
	a, b := p.NextU16(), p.NextU16()
	if err := p.End(); err != nil {
		return err
	}
	if int(a) >= len(sh.dbs) || int(b) >= len(sh.dbs) {
		return fmt.Errorf("%w: seq %d: SWAPDB %d %d out of range", errReplay, r.Seq, a, b)
	}
	sh.swapDB(int(a), int(b))
	return nil
}

func replayMoveRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	key, target := p.NextBytes(), p.NextU16()
	if err := p.End(); err != nil {
		return err
	}
	if int(target) >= len(sh.dbs) {
		return fmt.Errorf("%w: seq %d: MOVE to database %d", errReplay, r.Seq, target)
	}
	if e := db.find(key); e != nil {
		if old := sh.dbs[target].find(key); old != nil {
			sh.dbs[target].remove(old)
		}
		db.transfer(e, sh.dbs[target], key)
	}
	return nil
}

func replayRenameRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	src, dst := p.NextBytes(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.find(src); e != nil && string(src) != string(dst) {
		if old := db.find(dst); old != nil {
			db.remove(old)
		}
		db.transfer(e, db, dst)
	}
	return nil
}

func replayCopyRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	src, dst, target, replace := p.NextBytes(), p.NextBytes(), p.NextU16(), p.NextU8()
	if err := p.End(); err != nil {
		return err
	}
	if int(target) >= len(sh.dbs) {
		return fmt.Errorf("%w: seq %d: COPY to database %d", errReplay, r.Seq, target)
	}
	e := db.find(src)
	if e == nil {
		return nil
	}
	tdb := sh.dbs[target]
	if tdb.find(dst) != nil && replace == 0 {
		return nil
	}
	val, obj, ok := cloneValue(db, e)
	if !ok {
		return fmt.Errorf("%w: seq %d: value of type %T cannot be copied", errReplay, r.Seq, db.obj(e))
	}
	if tdb == db && string(src) == string(dst) {
		return nil
	}
	replaySet(tdb, dst, val, obj, e.expireAt)
	return nil
}

func replayAppendRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	key, suffix := p.NextBytes(), p.NextBytes()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.find(key); e != nil {
		n := len(db.val(e))
		e = db.resizeVal(e, n+len(suffix))
		copy(db.val(e)[n:], suffix)
	} else {
		db.add(key, suffix, nil, 0)
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
	if limit := uint64(sh.srv.opts.Live.ProtoMaxBulkLen()); uint64(len(b)) > limit || off > limit-uint64(len(b)) {
		return fmt.Errorf("%w: seq %d: SETRANGE to offset %d + %d bytes exceeds proto-max-bulk-len %d", errReplay, r.Seq, off, len(b), limit)
	}
	end := int(off) + len(b)
	e := db.find(key)
	if e == nil {
		// Created at its exact length, as SETRANGE and SETBIT create it:
		// zeros up to off.
		buf := make([]byte, end)
		copy(buf[off:], b)
		e = db.addStringOwned(key, buf, 0)
		e.setKind(e.kind() | flagRaw)
		return nil
	}
	if end > len(db.val(e)) {
		e = db.resizeVal(e, end)
	}
	copy(db.val(e)[off:], b)
	return nil
}

// replaySet stores a value under key, replacing whatever was there. A
// string val is copied.
func replaySet(db *DB, key, val []byte, obj any, at int64) {
	if e := db.find(key); e != nil {
		if obj != nil {
			db.setObj(e, obj)
		} else {
			e = db.setString(e, val)
		}
		db.setDeadline(e, at)
		return
	}
	db.add(key, val, obj, at)
}

// swapDB exchanges two databases in O(1); their ids follow their places.
func (sh *Shard) swapDB(a, b int) {
	sh.dbs[a], sh.dbs[b] = sh.dbs[b], sh.dbs[a]
	sh.dbs[a].id, sh.dbs[b].id = a, b
}
