package keyspace

import (
	"bytes"
	"fmt"
	"math"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/rdb"
	"github.com/ruvio/ruvio/types/zset"
)

// The sorted set value type, as the engine knows it: the value's wrapper and
// its configuration, its snapshot, DUMP and packed forms, the WAL records of
// its mutations (encoders and their replay). The sorted set commands are in
// commands/zset.go.

// kindZSet is the snapshot value kind of a sorted set.
const kindZSet uint8 = 81

// ZsetObj is the value of a sorted set key.
type ZsetObj struct {
	Z zset.ZSet // the sorted set
}

// TypeName is the TYPE reply.
func (o *ZsetObj) TypeName() string { return "zset" }

// Encoding is OBJECT ENCODING: the encoding the sorted set is in now.
func (o *ZsetObj) Encoding() string { return o.Z.Encoding() }

// Len is the number of members, which ZCARD replies.
func (o *ZsetObj) Len() int { return o.Z.Len() }

// Clone returns a deep copy, for COPY.
func (o *ZsetObj) Clone() any { return &ZsetObj{Z: o.Z.Clone()} }

// packTag, compact and reset make a sorted set packable (packed.go).
func (o *ZsetObj) packTag() byte   { return packedZSet }
func (o *ZsetObj) compact() []byte { return o.Z.Compact() }
func (o *ZsetObj) reset()          { *o = ZsetObj{} }
func (o *ZsetObj) memoryUsage(int64) int64 {
	return int64(o.Z.MemoryUsage())
}

// SnapshotKind is kindZSet.
func (o *ZsetObj) SnapshotKind() uint8 { return kindZSet }

// AppendSnapshot appends the types/zset binary encoding.
func (o *ZsetObj) AppendSnapshot(dst []byte) []byte {
	out, err := o.Z.AppendBinary(dst)
	if err != nil {
		panic(fmt.Sprintf("keyspace: encoding a sorted set: %v", err))
	}
	return out
}

// ZsetConfig is the sorted set encoding thresholds of the running
// configuration (zset-max-listpack-entries, zset-max-listpack-value).
func (sh *Shard) ZsetConfig() zset.Config {
	cfg := zset.DefaultConfig
	cfg.MaxListpackEntries = clampThreshold(sh.Srv.Opts.Live.ZSetMaxListpackEntries())
	cfg.MaxListpackValue = clampThreshold(sh.Srv.Opts.Live.ZSetMaxListpackValue())
	return cfg
}

// zsetValueType describes sorted sets to the engine (value.go).
var zsetValueType = valueType{
	name:    "zset",
	kinds:   []uint8{kindZSet},
	packTag: packedZSet,
	unpack: func(spare *spareObjs, b []byte) any {
		o := takeWrapper[ZsetObj](spare, packedZSet)
		o.Z = zset.FromCompact(b)
		return o
	},
	decodeSnapshot: func(cfg valueConfig, _ uint8, val []byte) (any, error) {
		return decodeZSet(cfg.zset, val)
	},
	rdbKind: rdb.KindZSet,
	fromRDB: func(cfg valueConfig, v *rdb.Value) any {
		o := &ZsetObj{}
		for _, z := range v.Z {
			// Scores were checked (no NaN) by the decoder.
			_, _, _ = o.Z.Add(cfg.zset, z.Member, z.Score, 0)
		}
		return o
	},
}

// zsetReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var zsetReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpZAdd, persistence.OpZRemove, persistence.OpZStore}, apply: replayZSetRecord},
}

// replayZSetRecord adapts the family decoder to the replay table.
func replayZSetRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	return sh.applyZSetRecord(db, r.Op, p)
}

// RDBValue is the sorted set's plain contents, for DUMP.
func (o *ZsetObj) RDBValue(int64) (rdb.Value, string) {
	v := rdb.Value{Kind: rdb.KindZSet, Z: make([]rdb.ZEntry, 0, o.Z.Len())}
	o.Z.Each(func(m []byte, score float64) bool {
		v.Z = append(v.Z, rdb.ZEntry{Member: bytes.Clone(m), Score: score})
		return true
	})
	return v, ""
}

func decodeZSet(cfg zset.Config, b []byte) (*ZsetObj, error) {
	z, err := zset.Unmarshal(cfg, b)
	if err != nil {
		return nil, fmt.Errorf("keyspace: sorted set value: %w", err)
	}
	return &ZsetObj{Z: z}, nil
}

// Scored is a member and its score.
type Scored struct {
	M []byte  // the member
	S float64 // its score
}

// Logging.

// LogZAdd logs the scores of items set in key's sorted set, creating it:
// OpZAdd. Nothing is logged or marked for no item.
func (sh *Shard) LogZAdd(db int, key string, items []Scored) {
	if len(items) == 0 {
		return
	}
	sh.touchKey(db, key)
	if sh.Journal == nil {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(len(items)))
	for _, it := range items {
		p = persistence.AppendU64(p, math.Float64bits(it.S))
		p = persistence.AppendBytes(p, it.M)
	}
	sh.recordScratch(db, persistence.OpZAdd, p)
}

// LogZRemove logs members removed from key's sorted set (an emptied one
// is deleted at replay): OpZRemove. Nothing is logged or marked for no
// member.
func (sh *Shard) LogZRemove(db int, key string, members [][]byte) {
	if len(members) == 0 {
		return
	}
	sh.touchKey(db, key)
	if sh.Journal == nil {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(len(members)))
	for _, m := range members {
		p = persistence.AppendBytes(p, m)
	}
	sh.recordScratch(db, persistence.OpZRemove, p)
}

// LogZStore logs key replaced by the sorted set o, without a deadline
// (the STORE commands): OpZStore.
func (sh *Shard) LogZStore(db int, key string, o *ZsetObj) {
	sh.touchKey(db, key)
	if sh.Journal == nil {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = o.AppendSnapshot(p)
	sh.recordScratch(db, persistence.OpZStore, p)
}

// applyZSetRecord replays one sorted set WAL record into db. The whole
// payload is checked before the sorted set changes.
func (sh *Shard) applyZSetRecord(db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	cfg := sh.ZsetConfig()
	key := p.NextBytes()
	if op == persistence.OpZStore {
		if err := p.Err(); err != nil {
			return err
		}
		o, err := decodeZSet(cfg, p.Rest())
		if err != nil {
			return err
		}
		StoreObj(db, db.Find(key), key, o)
		return nil
	}
	n := p.NextCount(1)
	// A first pass checks the entries; the second, from this copy of the
	// reader, applies them.
	entries := *p
	for range n {
		if op == persistence.OpZAdd {
			p.NextU64()
		}
		p.NextBytes()
	}
	if err := p.End(); err != nil {
		return err
	}
	e := db.Find(key)
	var o *ZsetObj
	if e != nil {
		o, _ = db.Obj(e).(*ZsetObj)
	}
	if op == persistence.OpZAdd && o == nil {
		o = &ZsetObj{}
		if e != nil {
			db.SetObj(e, o)
		} else {
			e = db.Add(key, nil, o, 0)
		}
	}
	if o == nil {
		return nil
	}
	for range n {
		if op == persistence.OpZRemove {
			o.Z.Remove(entries.NextBytes())
			continue
		}
		bits, m := entries.NextU64(), entries.NextBytes()
		if _, _, err := o.Z.Add(cfg, m, math.Float64frombits(bits), 0); err != nil {
			return err
		}
	}
	if o.Z.Len() == 0 {
		db.Remove(e)
	}
	return nil
}

// Replies.
