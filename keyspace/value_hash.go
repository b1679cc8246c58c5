package keyspace

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/hash"
	"github.com/ruvio/ruvio/types/rdb"
)

// The hash value type, as the engine knows it: the value's wrapper and
// its configuration, its snapshot, DUMP and packed forms, the WAL records of
// its mutations (encoders and their replay). The hash commands are in
// commands/hash.go.

// KindHash is the snapshot value kind of a hash (types/hash binary form).
const KindHash uint8 = 60

// HashObj is the value of a hash key.
type HashObj struct {
	H hash.Hash // the hash
	// ttl holds the field deadlines; nil while no field has one
	// (value_hash_ttl.go).
	ttl *fieldTTLs
}

// TypeName is the TYPE reply.
func (o *HashObj) TypeName() string { return "hash" }

// Encoding is OBJECT ENCODING: the encoding the hash is in now; a compact
// hash with field deadlines is "listpackex", as Redis 7.4 names it.
func (o *HashObj) Encoding() string {
	enc := o.H.Encoding()
	if o.ttl != nil && enc == "listpack" {
		return "listpackex"
	}
	return enc
}

// Len is the number of fields, which HLEN replies.
func (o *HashObj) Len() int { return o.H.Len() }

// Clone returns a deep copy, for COPY.
func (o *HashObj) Clone() any { return &HashObj{H: o.H.Clone(), ttl: o.ttl.clone()} }

// packTag, compact and reset make a hash packable (packed.go).
// A hash with field deadlines is not packed: its wrapper holds them.
func (o *HashObj) packTag() byte { return packedHash }
func (o *HashObj) compact() []byte {
	if o.ttl != nil {
		return nil
	}
	return o.H.Compact()
}
func (o *HashObj) reset() { *o = HashObj{} }

// memoryUsage is the heap the hash holds; the types measure it exactly, so
// samples is not needed.
func (o *HashObj) memoryUsage(int64) int64 {
	return int64(o.H.MemoryUsage()) + o.ttl.memoryUsage()
}

// SnapshotKind is KindHash, or KindHashTTL when fields have deadlines.
func (o *HashObj) SnapshotKind() uint8 {
	if o.ttl != nil {
		return KindHashTTL
	}
	return KindHash
}

// AppendSnapshot appends the types/hash binary encoding (KindHash) or the
// KindHashTTL one. It cannot fail for a hash built by the commands.
func (o *HashObj) AppendSnapshot(dst []byte) []byte {
	if o.ttl != nil {
		return o.appendHashTTLSnapshot(dst)
	}
	out, err := o.H.AppendBinary(dst)
	if err != nil {
		return dst
	}
	return out
}

// String is a canonical dump (fields sorted), for tests comparing states.
func (o *HashObj) String() string {
	var pairs []string
	o.H.Each(func(f, v []byte) bool {
		if at := o.FieldTTL(f); at != 0 {
			pairs = append(pairs, fmt.Sprintf("%q=%q@%d", f, v, at))
		} else {
			pairs = append(pairs, fmt.Sprintf("%q=%q", f, v))
		}
		return true
	})
	slices.Sort(pairs)
	return "hash{" + strings.Join(pairs, " ") + "}"
}

// HashConfig is the hash encoding thresholds from the live config.
func (sh *Shard) HashConfig() hash.Config {
	n, v := sh.Srv.Opts.Live.HashMaxListpack()
	return hash.Config{MaxListpackEntries: int(min(n, math.MaxInt32)), MaxListpackValue: int(min(v, math.MaxInt32))}
}

// LogHashSet writes a HashSet record of key with the field/value pairs in
// kv (alternating).
func (sh *Shard) LogHashSet(db int, key []byte, kv [][]byte) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(len(kv)/2))
	for _, b := range kv {
		p = persistence.AppendBytes(p, b)
	}
	sh.recordScratch(db, persistence.OpHashSet, p)
}

// LogHashDel writes a HashDel record of key with the removed fields.
func (sh *Shard) LogHashDel(db int, key []byte, fields [][]byte) {
	sh.touchKey(db, bstr(key))
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(len(fields)))
	for _, b := range fields {
		p = persistence.AppendBytes(p, b)
	}
	sh.recordScratch(db, persistence.OpHashDel, p)
}

// applyHashRecord replays a HashSet or HashDel record into db. The whole
// payload is checked before the hash changes.
func applyHashRecord(sh *Shard, db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	per := uint64(1)
	if op == persistence.OpHashSet {
		per = 2
	}
	key, n := p.NextBytes(), p.NextCount(int(per))
	fields := p.NextFields(n * per)
	if err := p.End(); err != nil {
		return err
	}
	e := db.Find(key)
	var o *HashObj
	if e != nil {
		var isHash bool
		if o, isHash = db.Obj(e).(*HashObj); !isHash {
			if op == persistence.OpHashDel {
				return fmt.Errorf("%s on a key that is not a hash", op)
			}
			o = &HashObj{}
			db.SetObj(e, o)
		}
	} else {
		if op == persistence.OpHashDel {
			return fmt.Errorf("%s on a missing key", op)
		}
		o = &HashObj{}
		e = db.Add(key, nil, o, 0)
	}
	cfg := sh.HashConfig()
	for fields.Len() > 0 {
		if op == persistence.OpHashDel {
			o.Delete(fields.NextBytes())
			continue
		}
		f, v := fields.NextBytes(), fields.NextBytes()
		o.Set(cfg, f, v)
	}
	if o.H.Len() == 0 {
		RemoveEmpty(db, e)
	}
	return nil
}

// hashValueType describes hashes to the engine (value.go).
var hashValueType = valueType{
	name:    "hash",
	kinds:   []uint8{KindHash, KindHashTTL},
	packTag: packedHash,
	unpack: func(spare *spareObjs, b []byte) any {
		o := takeWrapper[HashObj](spare, packedHash)
		o.H = hash.FromCompact(b)
		return o
	},
	decodeSnapshot: func(cfg valueConfig, kind uint8, val []byte) (any, error) {
		if kind == KindHashTTL {
			return decodeHashTTLValue(cfg.hash, val)
		}
		return decodeHashValue(cfg.hash, val)
	},
	rdbKind: rdb.KindHash,
	fromRDB: func(cfg valueConfig, v *rdb.Value) any {
		o := &HashObj{}
		for i := 0; i+1 < len(v.Pairs); i += 2 {
			o.H.Set(cfg.hash, v.Pairs[i], v.Pairs[i+1])
			if i/2 < len(v.FieldTTLs) && v.FieldTTLs[i/2] > 0 {
				o.SetFieldTTL(v.Pairs[i], v.FieldTTLs[i/2])
			}
		}
		return o
	},
}

// hashReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var hashReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpHashSet, persistence.OpHashDel}, apply: replayHashRecord},
	{ops: []persistence.Opcode{persistence.OpHashFieldExpire, persistence.OpHashSetEx}, apply: replayHashFieldTTL},
}

// replayHashRecord adapts the family decoder to the replay table.
func replayHashRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	return applyHashRecord(sh, db, r.Op, p)
}

// RDBValue is the hash's plain contents, for DUMP, with the fields'
// deadlines in FieldTTLs. A field expired but not yet deleted is written
// with its deadline, as Redis writes it: the restored hash deletes it in
// turn, and a payload is never an empty hash.
func (o *HashObj) RDBValue(int64) (rdb.Value, string) {
	v := rdb.Value{Kind: rdb.KindHash, Pairs: make([][]byte, 0, 2*o.H.Len())}
	if o.ttl != nil {
		v.FieldTTLs = make([]int64, 0, o.H.Len())
	}
	o.H.Each(func(f, val []byte) bool {
		if o.ttl != nil {
			v.FieldTTLs = append(v.FieldTTLs, o.FieldTTL(f))
		}
		v.Pairs = append(v.Pairs, bytes.Clone(f), bytes.Clone(val))
		return true
	})
	return v, ""
}

// decodeHashValue rebuilds a hash from its snapshot encoding.
func decodeHashValue(cfg hash.Config, val []byte) (any, error) {
	h, err := hash.Unmarshal(cfg, val)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", persistence.ErrCorrupt, err)
	}
	if h.Len() == 0 {
		return nil, fmt.Errorf("%w: empty hash", persistence.ErrCorrupt)
	}
	return &HashObj{H: h}, nil
}
