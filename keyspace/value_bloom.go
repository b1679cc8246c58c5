package keyspace

import (
	"fmt"
	"math"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/bloom"
	"github.com/ruvio/ruvio/types/rdb"
)

// The Bloom filter value type, as the engine knows it: the value's wrapper and
// its configuration, its snapshot, DUMP and packed forms, the WAL records of
// its mutations (encoders and their replay). The Bloom filter commands are in
// commands/bloom.go.

// kindBloom is the snapshot value kind of a Bloom filter.
const kindBloom uint8 = 82

// BloomObj is the value of a Bloom filter key.
type BloomObj struct {
	F *bloom.Filter // the filter
}

// TypeName is the TYPE reply: RedisBloom's module type name.
func (o *BloomObj) TypeName() string { return "MBbloom--" }

// Encoding is what Redis reports for a module value.
func (o *BloomObj) Encoding() string { return "raw" }

// Clone returns a deep copy, for COPY.
func (o *BloomObj) Clone() any { return &BloomObj{F: o.F.Clone()} }
func (o *BloomObj) memoryUsage(int64) int64 {
	return int64(o.F.MemoryUsage())
}

// SnapshotKind is kindBloom.
func (o *BloomObj) SnapshotKind() uint8 { return kindBloom }

// AppendSnapshot appends the filter's binary encoding (types/bloom).
func (o *BloomObj) AppendSnapshot(dst []byte) []byte {
	out, err := o.F.AppendBinary(dst)
	if err != nil {
		panic(fmt.Sprintf("keyspace: encoding a Bloom filter: %v", err))
	}
	return out
}

// bloomValueType describes Bloom filters to the engine (value.go).
var bloomValueType = valueType{
	name:  "bloom",
	kinds: []uint8{kindBloom},
	decodeSnapshot: func(_ valueConfig, _ uint8, val []byte) (any, error) {
		return decodeBloom(val)
	},
}

// bloomReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var bloomReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpBloomAdd}, apply: replayBloomRecord},
}

// replayBloomRecord adapts the family decoder to the replay table.
func replayBloomRecord(_ *Shard, db *DB, _ persistence.Record, p *persistence.PayloadReader) error {
	return applyBloomRecord(db, p)
}

// RDBValue refuses DUMP: RedisBloom's module encoding is not written.
func (o *BloomObj) RDBValue(int64) (rdb.Value, string) {
	return rdb.Value{}, "ERR DUMP of Bloom filters is not supported (RedisBloom's module encoding is not implemented)"
}

func decodeBloom(b []byte) (*BloomObj, error) {
	f, err := bloom.Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("keyspace: Bloom filter value: %w", err)
	}
	return &BloomObj{F: f}, nil
}

// BloomParams are the creation parameters of a filter.
type BloomParams struct {
	Rate       float64 // the requested false-positive rate (error_rate)
	Capacity   uint64  // the items the first layer holds (capacity)
	Expansion  uint32  // how many times larger each new layer is (EXPANSION)
	NonScaling bool    // NONSCALING: one layer, adds refused once full
}

// LogBloomAdd writes OpBloomAdd: key, the creation parameters (rate bits
// u64, capacity u64, expansion u64, nonscaling u8) used when the key is
// missing, item count u64 and the items.
func (sh *Shard) LogBloomAdd(db int, key string, p BloomParams, items [][]byte) {
	sh.touchKey(db, key)
	if sh.Journal == nil {
		return
	}
	b := AppendStr(sh.scratch[:0], key)
	b = persistence.AppendU64(b, math.Float64bits(p.Rate))
	b = persistence.AppendU64(b, p.Capacity)
	b = persistence.AppendU64(b, uint64(p.Expansion))
	var ns uint8
	if p.NonScaling {
		ns = 1
	}
	b = persistence.AppendU8(b, ns)
	b = persistence.AppendU64(b, uint64(len(items)))
	for _, it := range items {
		b = persistence.AppendBytes(b, it)
	}
	sh.recordScratch(db, persistence.OpBloomAdd, b)
}

// applyBloomRecord replays OpBloomAdd into db.
func applyBloomRecord(db *DB, p *persistence.PayloadReader) error {
	key, err := p.Bytes()
	if err != nil {
		return err
	}
	var prm BloomParams
	var bits, capacity, expansion, n uint64
	var ns uint8
	if bits, err = p.U64(); err == nil {
		if capacity, err = p.U64(); err == nil {
			if expansion, err = p.U64(); err == nil {
				if ns, err = p.U8(); err == nil {
					n, err = p.U64()
				}
			}
		}
	}
	if err != nil {
		return err
	}
	if n > uint64(p.Len()) || expansion > math.MaxUint32 {
		return fmt.Errorf("bloom record: count %d or expansion %d out of range", n, expansion)
	}
	prm = BloomParams{Rate: math.Float64frombits(bits), Capacity: capacity, Expansion: uint32(expansion), NonScaling: ns == 1}
	e := db.Find(key)
	var o *BloomObj
	if e != nil {
		o, _ = db.Obj(e).(*BloomObj)
	}
	if o == nil {
		f, err := bloom.New(prm.Rate, prm.Capacity, prm.Expansion, prm.NonScaling)
		if err != nil {
			return err
		}
		o = &BloomObj{F: f}
		StoreObj(db, e, key, o)
	}
	for range n {
		it, err := p.Bytes()
		if err != nil {
			return err
		}
		if _, err := o.F.Add(it); err != nil && err != bloom.ErrFull {
			return err
		}
	}
	return nil
}
