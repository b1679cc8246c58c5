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
	db := sh.dbs[r.DB]
	p := persistence.NewPayloadReader(r.Payload)
	// A record changes collections in place, as a command does.
	defer sh.settleMem()
	var err error
	switch r.Op {
	case persistence.OpSet:
		var key, val []byte
		var at int64
		if key, err = p.Bytes(); err == nil {
			if val, err = p.Bytes(); err == nil {
				at, err = p.I64()
			}
		}
		if err == nil {
			if e := db.find(key); e != nil {
				e = db.setString(e, val)
				db.setDeadline(e, at)
			} else {
				db.addString(key, val, at)
			}
		}
	case persistence.OpDel:
		var key []byte
		if key, err = p.Bytes(); err == nil {
			db.delete(key)
		}
	case persistence.OpExpire:
		var key []byte
		var at int64
		if key, err = p.Bytes(); err == nil {
			if at, err = p.I64(); err == nil {
				if e := db.find(key); e != nil {
					db.setDeadline(e, at)
				}
			}
		}
	case persistence.OpFlushDB:
		db.flush()
	case persistence.OpFlushAll:
		for _, d := range sh.dbs {
			d.flush()
		}
	case persistence.OpSwapDB:
		var a, b uint16
		if a, err = p.U16(); err == nil {
			if b, err = p.U16(); err == nil {
				if int(a) >= len(sh.dbs) || int(b) >= len(sh.dbs) {
					return fmt.Errorf("%w: seq %d: SWAPDB %d %d out of range", errReplay, r.Seq, a, b)
				}
				sh.swapDB(int(a), int(b))
			}
		}
	case persistence.OpMove:
		var key []byte
		var target uint16
		if key, err = p.Bytes(); err == nil {
			if target, err = p.U16(); err == nil {
				if int(target) >= len(sh.dbs) {
					return fmt.Errorf("%w: seq %d: MOVE to database %d", errReplay, r.Seq, target)
				}
				if e := db.find(key); e != nil {
					if old := sh.dbs[target].find(key); old != nil {
						sh.dbs[target].remove(old)
					}
					db.transfer(e, sh.dbs[target], key)
				}
			}
		}
	case persistence.OpRename:
		var src, dst []byte
		if src, err = p.Bytes(); err == nil {
			if dst, err = p.Bytes(); err == nil {
				if e := db.find(src); e != nil && string(src) != string(dst) {
					if old := db.find(dst); old != nil {
						db.remove(old)
					}
					db.transfer(e, db, dst)
				}
			}
		}
	case persistence.OpCopy:
		var src, dst []byte
		var target uint16
		var replace uint8
		if src, err = p.Bytes(); err == nil {
			if dst, err = p.Bytes(); err == nil {
				if target, err = p.U16(); err == nil {
					replace, err = p.U8()
				}
			}
		}
		if err == nil {
			if int(target) >= len(sh.dbs) {
				return fmt.Errorf("%w: seq %d: COPY to database %d", errReplay, r.Seq, target)
			}
			e := db.find(src)
			if e == nil {
				break
			}
			tdb := sh.dbs[target]
			if tdb.find(dst) != nil && replace == 0 {
				break
			}
			val, obj, ok := cloneValue(db, e)
			if !ok {
				return fmt.Errorf("%w: seq %d: value of type %T cannot be copied", errReplay, r.Seq, db.obj(e))
			}
			if tdb == db && string(src) == string(dst) {
				break
			}
			replaySet(tdb, dst, val, obj, e.expireAt)
		}
	case persistence.OpAppend:
		var key, suffix []byte
		if key, err = p.Bytes(); err == nil {
			if suffix, err = p.Bytes(); err == nil {
				if e := db.find(key); e != nil {
					n := len(db.val(e))
					e = db.resizeVal(e, n+len(suffix))
					copy(db.val(e)[n:], suffix)
				} else {
					db.add(key, suffix, nil, 0)
				}
			}
		}
	case persistence.OpSetRange:
		var key, b []byte
		var off uint64
		if key, err = p.Bytes(); err == nil {
			if off, err = p.U64(); err == nil {
				b, err = p.Bytes()
			}
		}
		if err == nil {
			// The command refused strings longer than proto-max-bulk-len,
			// so a larger end is damage; it must not overflow or panic.
			if limit := uint64(sh.srv.opts.Live.ProtoMaxBulkLen()); uint64(len(b)) > limit || off > limit-uint64(len(b)) {
				return fmt.Errorf("%w: seq %d: SETRANGE to offset %d + %d bytes exceeds proto-max-bulk-len %d", errReplay, r.Seq, off, len(b), limit)
			}
			end := int(off) + len(b)
			e := db.find(key)
			if e == nil {
				// Created at its exact length, as SETRANGE and SETBIT
				// create it: zeros up to off.
				buf := make([]byte, end)
				copy(buf[off:], b)
				e = db.addStringOwned(key, buf, 0)
				e.setKind(e.kind() | flagRaw)
				break
			}
			if end > len(db.val(e)) {
				e = db.resizeVal(e, end)
			}
			copy(db.val(e)[off:], b)
		}
	case persistence.OpLease, persistence.OpRelease, persistence.OpSemaphoreAcquire, persistence.OpSemaphoreRelease,
		persistence.OpSetV, persistence.OpLimit, persistence.OpOnce, persistence.OpIdempotencyPut:
		err = applyKeyJobRecord(db, r.Op, &p)
	case persistence.OpHashSet, persistence.OpHashDel:
		err = applyHashRecord(sh, db, r.Op, &p)
	case persistence.OpListPush, persistence.OpListPop, persistence.OpListSet, persistence.OpListInsert,
		persistence.OpListRem, persistence.OpListTrim, persistence.OpListMove:
		err = applyListRecord(sh, db, r.Op, &p)
	case persistence.OpListStore:
		err = sh.applyListStore(db, &p)
	case persistence.OpSetAdd, persistence.OpSetRemove, persistence.OpSetStore, persistence.OpSetMove:
		err = sh.applySetRecord(db, r.Op, &p)
	case persistence.OpZAdd, persistence.OpZRemove, persistence.OpZStore:
		err = sh.applyZSetRecord(db, r.Op, &p)
	case persistence.OpBloomAdd:
		err = applyBloomRecord(db, &p)
	case persistence.OpRestore:
		err = applyRestoreRecord(sh.valueConfig(), db, &p)
	case persistence.OpStreamAdd, persistence.OpStreamDel, persistence.OpStreamTrim, persistence.OpStreamSetID,
		persistence.OpStreamGroupCreate, persistence.OpStreamGroupSetID, persistence.OpStreamGroupDestroy,
		persistence.OpStreamConsumerCreate, persistence.OpStreamConsumerDel, persistence.OpStreamGroupRead,
		persistence.OpStreamClaim, persistence.OpStreamAck:
		err = sh.applyStreamRecord(db, r.Op, &p)
	default:
		return fmt.Errorf("%w: seq %d: unknown opcode %d (%s)", errReplay, r.Seq, r.Op, r.Op)
	}
	if err == nil {
		// Bytes after the last field mean the writer and this reader
		// disagree on the layout: never guess.
		err = p.Done()
	}
	if err != nil {
		return fmt.Errorf("%w: seq %d (%s): %v", errReplay, r.Seq, r.Op, err)
	}
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
