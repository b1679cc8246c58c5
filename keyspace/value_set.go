package keyspace

import (
	"bytes"
	"fmt"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/rdb"
	"github.com/ruvio/ruvio/types/set"
)

// The set value type, as the engine knows it: the value's wrapper and
// its configuration, its snapshot, DUMP and packed forms, the WAL records of
// its mutations (encoders and their replay). The set commands are in
// commands/set.go.

// kindSet is the snapshot value kind of a set (80–99 belong to this
// family's helpers).
const kindSet uint8 = 80

// SetObj is the value of a set key.
type SetObj struct {
	S set.Set // the set
}

// TypeName is the TYPE reply.
func (o *SetObj) TypeName() string { return "set" }

// Encoding is OBJECT ENCODING: the encoding the set is in now.
func (o *SetObj) Encoding() string { return o.S.Encoding() }

// Len is the number of members, which SCARD replies.
func (o *SetObj) Len() int { return o.S.Len() }

// Clone returns a deep copy, for COPY.
func (o *SetObj) Clone() any { return &SetObj{S: o.S.Clone()} }

// packTag, compact and reset make a set packable (packed.go).
func (o *SetObj) packTag() byte   { return packedSet }
func (o *SetObj) compact() []byte { return o.S.Compact() }
func (o *SetObj) reset()          { *o = SetObj{} }
func (o *SetObj) memoryUsage(int64) int64 {
	return int64(o.S.MemoryUsage())
}

// SnapshotKind is kindSet.
func (o *SetObj) SnapshotKind() uint8 { return kindSet }

// AppendSnapshot appends the types/set binary encoding.
func (o *SetObj) AppendSnapshot(dst []byte) []byte {
	out, err := o.S.AppendBinary(dst)
	if err != nil {
		// AppendBinary fails only for a value that cannot exist.
		panic(fmt.Sprintf("keyspace: encoding a set: %v", err))
	}
	return out
}

// SetConfig is the set encoding thresholds of the running configuration:
// Redis 7.0 has only intset and hashtable.
func (sh *Shard) SetConfig() set.Config {
	cfg := set.DefaultConfig
	cfg.MaxIntsetEntries = clampThreshold(sh.Srv.Opts.Live.SetMaxIntsetEntries())
	return cfg
}

// setValueType describes sets to the engine (value.go).
var setValueType = valueType{
	name:    "set",
	kinds:   []uint8{kindSet},
	packTag: packedSet,
	unpack: func(spare *spareObjs, b []byte) any {
		o := takeWrapper[SetObj](spare, packedSet)
		o.S = set.FromCompact(b)
		return o
	},
	decodeSnapshot: func(cfg valueConfig, _ uint8, val []byte) (any, error) {
		return decodeSet(cfg.set, val)
	},
	rdbKind: rdb.KindSet,
	fromRDB: func(cfg valueConfig, v *rdb.Value) any {
		o := &SetObj{}
		for _, m := range v.Elems {
			o.S.Add(cfg.set, m)
		}
		return o
	},
}

// setReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var setReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpSetAdd, persistence.OpSetRemove, persistence.OpSetStore, persistence.OpSetMove}, apply: replaySetFamilyRecord},
}

// replaySetFamilyRecord adapts the family decoder to the replay table.
func replaySetFamilyRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	return sh.applySetRecord(db, r.Op, p)
}

// RDBValue is the set's plain contents, for DUMP.
func (o *SetObj) RDBValue(int64) (rdb.Value, string) {
	v := rdb.Value{Kind: rdb.KindSet, Elems: make([][]byte, 0, o.S.Len())}
	o.S.Each(func(m []byte) bool {
		v.Elems = append(v.Elems, bytes.Clone(m))
		return true
	})
	return v, ""
}

// decodeSet rebuilds a set from its snapshot or STORE encoding.
func decodeSet(cfg set.Config, b []byte) (*SetObj, error) {
	s, err := set.Unmarshal(cfg, b)
	if err != nil {
		return nil, fmt.Errorf("keyspace: set value: %w", err)
	}
	return &SetObj{S: s}, nil
}

// Logging.

// LogSetMembers logs members added to (op OpSetAdd) or removed from (op
// OpSetRemove) key's set; replay creates the set, or deletes an emptied one.
func (sh *Shard) LogSetMembers(db int, op persistence.Opcode, key string, members [][]byte) {
	sh.touchKey(db, key)
	if sh.Journal == nil {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(len(members)))
	for _, m := range members {
		p = persistence.AppendBytes(p, m)
	}
	sh.recordScratch(db, op, p)
}

// LogSetStore logs key replaced by the set o, without a deadline (the
// STORE commands): OpSetStore.
func (sh *Shard) LogSetStore(db int, key string, o *SetObj) {
	sh.touchKey(db, key)
	if sh.Journal == nil {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = o.AppendSnapshot(p)
	sh.recordScratch(db, persistence.OpSetStore, p)
}

// LogSetMove logs member moved from src to dst (SMOVE): OpSetMove.
// dstChanged is false when dst already holds member: as in Redis, the
// destination then counts as unchanged (WATCH on it is not broken).
func (sh *Shard) LogSetMove(db int, src, dst string, member []byte, dstChanged bool) {
	sh.touchKey(db, src)
	if dstChanged {
		sh.touchKey(db, dst)
	}
	if sh.Journal == nil {
		return
	}
	p := AppendStr(sh.scratch[:0], src)
	p = AppendStr(p, dst)
	p = persistence.AppendBytes(p, member)
	sh.recordScratch(db, persistence.OpSetMove, p)
}

// applySetRecord replays one set WAL record into db. The whole payload is
// checked before the set changes.
func (sh *Shard) applySetRecord(db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	cfg := sh.SetConfig()
	key := p.NextBytes()
	switch op {
	case persistence.OpSetAdd, persistence.OpSetRemove:
		members := p.NextFields(p.NextCount(1))
		if err := p.End(); err != nil {
			return err
		}
		e := db.Find(key)
		var o *SetObj
		if e != nil {
			o, _ = db.Obj(e).(*SetObj)
		}
		if op == persistence.OpSetAdd && o == nil {
			o = &SetObj{}
			if e != nil {
				db.SetObj(e, o)
			} else {
				e = db.Add(key, nil, o, 0)
			}
		}
		if o == nil {
			return nil
		}
		for members.Len() > 0 {
			if op == persistence.OpSetAdd {
				o.S.Add(cfg, members.NextBytes())
			} else {
				o.S.Remove(members.NextBytes())
			}
		}
		if o.S.Len() == 0 {
			db.Remove(e)
		}
	case persistence.OpSetStore:
		if err := p.Err(); err != nil {
			return err
		}
		o, err := decodeSet(cfg, p.Rest())
		if err != nil {
			return err
		}
		StoreObj(db, db.Find(key), key, o)
	case persistence.OpSetMove:
		dst, m := p.NextBytes(), p.NextBytes()
		if err := p.End(); err != nil {
			return err
		}
		sh.replaySetMove(db, key, dst, m)
	}
	return nil
}

// replaySetMove moves member m from the set at src (when it is one) to the
// set at dst, creating or replacing it.
func (sh *Shard) replaySetMove(db *DB, src, dst, m []byte) {
	if e := db.Find(src); e != nil {
		if o, ok := db.Obj(e).(*SetObj); ok {
			o.S.Remove(m)
			if o.S.Len() == 0 {
				db.Remove(e)
			}
		}
	}
	e := db.Find(dst)
	o, ok := (*SetObj)(nil), false
	if e != nil {
		o, ok = db.Obj(e).(*SetObj)
	}
	if !ok {
		o = &SetObj{}
		StoreObj(db, e, dst, o)
	}
	o.S.Add(sh.SetConfig(), m)
}

// Replies.

// Commands.
