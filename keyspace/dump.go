package keyspace

import (
	"fmt"

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

// ObjectFromRDB builds a keyspace value from plain contents: a string
// (obj nil) or a collection in the given encodings.
func ObjectFromRDB(cfg valueConfig, v *rdb.Value) (val []byte, obj any) {
	if v.Kind == rdb.KindString {
		return v.Str, nil
	}
	if vt := values.byRDBKind[v.Kind]; vt != nil {
		return nil, vt.fromRDB(cfg, v)
	}
	return nil, nil
}

// LogRestore logs a restored value: a string as OpSet, anything else as
// OpRestore with its snapshot encoding.
func (sh *Shard) LogRestore(db int, key, val []byte, obj any, at int64) {
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
	sv := obj.(SnapshotValue)
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendI64(p, at)
	p = persistence.AppendU8(p, sv.SnapshotKind())
	p = sv.AppendSnapshot(p)
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
	val, obj, err := DecodeSnapshotValue(cfg, kind, p.Rest())
	if err != nil {
		return err
	}
	if obj == nil {
		return fmt.Errorf("restore record of key %q holds no collection", key)
	}
	if e := db.Find(key); e != nil {
		db.Remove(e)
	}
	db.Add(key, val, obj, at)
	return nil
}
