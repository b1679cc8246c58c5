package keyspace

import (
	"errors"
	"fmt"
	"math"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/rdb"
)

// DUMP and RESTORE speak Redis 7.0's serialization (types/rdb), so
// payloads move both ways between Ruvio and Redis. A value is converted
// to and from rdb.Value, the plain form of its contents; DUMP writes the
// encoding Redis would give it under its default thresholds.
//
// RESTORE is logged as the value it created, never as the payload: a
// string as OpSet, any other value as OpRestore carrying its snapshot
// encoding and deadline, so replay never decodes Redis's format.
//
// Bloom filters are refused: RedisBloom serializes them as a module value
// in its own format, which Ruvio does not write or read, and a payload
// Redis with RedisBloom could not load would be worse than an error.
// Key-job values are native to Ruvio and have no Redis form either.
// Streams convert like the others (dump_stream.go); a stream with
// delayed entries (XADD DELAY) is refused, as Redis's format cannot say
// an entry is held.

const (
	errBusyKey       = "BUSYKEY Target key name already exists."
	errDumpPayload   = "ERR DUMP payload version or checksum are wrong"
	errBadDataFormat = "ERR Bad data format"
)

// rdbValuer is implemented by the value types DUMP serializes (and by
// those it refuses with their own message).
type rdbValuer interface {
	// rdbValue returns the value's plain contents (copies: iterators may
	// reuse their buffers), or the error to reply when it has none.
	rdbValue(now int64) (rdb.Value, string)
}

// rdbValueOf converts the value of e to its plain contents. msg is the
// error to reply when the type has no Redis serialization.
func rdbValueOf(db *DB, e *entry, now int64) (v rdb.Value, msg string) {
	o := db.obj(e)
	if o == nil {
		return rdb.Value{Kind: rdb.KindString, Str: db.val(e)}, ""
	}
	if rv, ok := o.(rdbValuer); ok {
		return rv.rdbValue(now)
	}
	return v, "ERR DUMP of this value type is not supported"
}

// objectFromRDB builds a keyspace value from plain contents: a string
// (obj nil) or a collection in the given encodings.
func objectFromRDB(cfg valueConfig, v *rdb.Value) (val []byte, obj any) {
	if v.Kind == rdb.KindString {
		return v.Str, nil
	}
	if vt := values.byRDBKind[v.Kind]; vt != nil {
		return nil, vt.fromRDB(cfg, v)
	}
	return nil, nil
}

// DUMP key
func dumpCommand(x *Ctx) {
	e := x.S.lookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Null()
		return
	}
	v, msg := rdbValueOf(x.DB, e, x.S.nowMs)
	if msg != "" {
		x.W.Error(msg)
		return
	}
	x.W.Bulk(rdb.AppendDump(nil, &v))
}

// restoreValue decodes a DUMP payload into contents. msg is the error to
// reply when it cannot.
func restoreValue(p []byte) (v rdb.Value, msg string) {
	_, v, err := rdb.ParseDump(p)
	switch {
	case err == nil:
		return v, ""
	case errors.Is(err, rdb.ErrDumpFooter):
		return v, errDumpPayload
	}
	// Module values (RedisBloom's filters among them) get Redis's reply
	// without the module.
	return v, errBadDataFormat
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
func restoreCommand(x *Ctx) {
	sh, db, args := x.S, x.DB, x.Args
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case eqFold(args[j], "replace"):
			replace = true
		case eqFold(args[j], "absttl"):
			absTTL = true
		case eqFold(args[j], "idletime") && more >= 1 && freq == -1:
			n, ok := parseInt(args[j+1])
			if !ok {
				x.W.Error(errNotInt)
				return
			}
			if n < 0 {
				x.W.Error("ERR Invalid IDLETIME value, must be >= 0")
				return
			}
			idle = n
			j++
		case eqFold(args[j], "freq") && more >= 1 && idle == -1:
			n, ok := parseInt(args[j+1])
			if !ok {
				x.W.Error(errNotInt)
				return
			}
			if n < 0 || n > 255 {
				x.W.Error("ERR Invalid FREQ value, must be >= 0 and <= 255")
				return
			}
			freq = n
			j++
		default:
			x.W.Error(errSyntax)
			return
		}
	}
	key := args[1]
	old := sh.lookup(db, key)
	if !replace && old != nil {
		x.W.Error(errBusyKey)
		return
	}
	ttl, ok := parseInt(args[2])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	if ttl < 0 {
		x.W.Error("ERR Invalid TTL value, must be >= 0")
		return
	}
	v, msg := restoreValue(args[3])
	if msg != "" {
		x.W.Error(msg)
		return
	}
	at := ttl
	if ttl != 0 && !absTTL {
		if ttl > math.MaxInt64-sh.nowMs {
			at = math.MaxInt64
		} else {
			at = ttl + sh.nowMs
		}
	}
	if at != 0 && at <= sh.nowMs {
		// Already expired: the value is not created, and a replaced key
		// is deleted.
		if old != nil {
			sh.logDel(db.id, string(key))
			db.remove(old)
			x.notify(evGeneric, "del", key)
		}
		x.W.OK()
		return
	}
	val, obj := objectFromRDB(sh.valueConfig(), &v)
	if old != nil {
		db.remove(old)
	}
	e := db.add(key, val, obj, at)
	sh.logRestore(db.id, key, val, obj, at)
	switch {
	case freq >= 0 && sh.srv.opts.Live.LFU():
		e.touch(lfuState(lfuMinutes(sh.nowMs), uint8(freq)))
	case idle >= 0 && !sh.srv.opts.Live.LFU():
		// Idle longer than the clock has run: half a clock period, as
		// Redis does.
		clock := int64(accessTime(sh.nowMs))
		at := clock - idle
		if at < 0 {
			at = (clock + clockMask/2) % clockMask
		}
		e.touch(uint32(at))
	}
	x.notify(evNew, "new", key)
	x.notify(evGeneric, "restore", key)
	x.W.OK()
}

// logRestore logs a restored value: a string as OpSet, anything else as
// OpRestore with its snapshot encoding.
func (sh *Shard) logRestore(db int, key, val []byte, obj any, at int64) {
	if !sh.logged(db, string(key)) {
		return
	}
	if obj == nil {
		p := persistence.AppendBytes(sh.scratch[:0], key)
		p = persistence.AppendBytes(p, val)
		p = persistence.AppendI64(p, at)
		sh.recordScratch(db, persistence.OpSet, p)
		return
	}
	sv := obj.(snapshotValue)
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendI64(p, at)
	p = persistence.AppendU8(p, sv.snapshotKind())
	p = sv.appendSnapshot(p)
	sh.recordScratch(db, persistence.OpRestore, p)
}

// applyRestoreRecord replays OpRestore: the key holds the value with the
// deadline, whatever it held before.
func applyRestoreRecord(cfg valueConfig, db *DB, p *persistence.PayloadReader) error {
	key, err := p.Bytes()
	if err != nil {
		return err
	}
	at, err := p.I64()
	if err != nil {
		return err
	}
	kind, err := p.U8()
	if err != nil {
		return err
	}
	val, obj, err := decodeSnapshotValue(cfg, kind, p.Rest())
	if err != nil {
		return err
	}
	if obj == nil {
		return fmt.Errorf("restore record of key %q holds no collection", key)
	}
	if e := db.find(key); e != nil {
		db.remove(e)
	}
	db.add(key, val, obj, at)
	return nil
}
