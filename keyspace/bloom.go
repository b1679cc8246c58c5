package keyspace

import (
	"fmt"
	"math"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/bloom"
	"github.com/ruvio/ruvio/types/num"
	"github.com/ruvio/ruvio/types/rdb"
)

// The Bloom filter commands with RedisBloom's surface (BF.RESERVE, BF.ADD,
// BF.MADD, BF.EXISTS, BF.MEXISTS, BF.INSERT, BF.INFO, BF.CARD) on
// types/bloom: same argument handling, replies and error texts, TYPE
// "MBbloom--". Adding is deterministic (the filter's hash is fixed and a
// new layer's shape depends only on the previous one), so the WAL record
// of an add names the items and the parameters a missing filter is
// created with, and replay adds them again.

// kindBloom is the snapshot value kind of a Bloom filter.
const kindBloom uint8 = 82

// bloomObj is the value of a Bloom filter key.
type bloomObj struct{ f *bloom.Filter }

func (o *bloomObj) typeName() string { return "MBbloom--" }

// encoding is what Redis reports for a module value.
func (o *bloomObj) encoding() string { return "raw" }
func (o *bloomObj) clone() any       { return &bloomObj{f: o.f.Clone()} }
func (o *bloomObj) memoryUsage(int64) int64 {
	return int64(o.f.MemoryUsage())
}
func (o *bloomObj) snapshotKind() uint8 { return kindBloom }
func (o *bloomObj) appendSnapshot(dst []byte) []byte {
	out, err := o.f.AppendBinary(dst)
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

// rdbValue refuses DUMP: RedisBloom's module encoding is not written.
func (o *bloomObj) rdbValue(int64) (rdb.Value, string) {
	return rdb.Value{}, "ERR DUMP of Bloom filters is not supported (RedisBloom's module encoding is not implemented)"
}

func decodeBloom(b []byte) (*bloomObj, error) {
	f, err := bloom.Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("keyspace: Bloom filter value: %w", err)
	}
	return &bloomObj{f: f}, nil
}

// bloomParams are the creation parameters of a filter.
type bloomParams struct {
	rate       float64
	capacity   uint64
	expansion  uint32
	nonScaling bool
}

var defaultBloomParams = bloomParams{rate: bloom.DefaultErrorRate, capacity: bloom.DefaultCapacity, expansion: bloom.DefaultExpansion}

// logBloomAdd writes OpBloomAdd: key, the creation parameters (rate bits
// u64, capacity u64, expansion u64, nonscaling u8) used when the key is
// missing, item count u64 and the items.
func (sh *Shard) logBloomAdd(db int, key string, p bloomParams, items [][]byte) {
	sh.touchKey(db, key)
	if sh.journal == nil {
		return
	}
	b := appendStr(sh.scratch[:0], key)
	b = persistence.AppendU64(b, math.Float64bits(p.rate))
	b = persistence.AppendU64(b, p.capacity)
	b = persistence.AppendU64(b, uint64(p.expansion))
	var ns uint8
	if p.nonScaling {
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
	var prm bloomParams
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
	prm = bloomParams{rate: math.Float64frombits(bits), capacity: capacity, expansion: uint32(expansion), nonScaling: ns == 1}
	e := db.find(key)
	var o *bloomObj
	if e != nil {
		o, _ = db.obj(e).(*bloomObj)
	}
	if o == nil {
		f, err := bloom.New(prm.rate, prm.capacity, prm.expansion, prm.nonScaling)
		if err != nil {
			return err
		}
		o = &bloomObj{f: f}
		storeObj(db, e, key, o)
	}
	for range n {
		it, err := p.Bytes()
		if err != nil {
			return err
		}
		if _, err := o.f.Add(it); err != nil && err != bloom.ErrFull {
			return err
		}
	}
	return nil
}

// lookupBloom returns the filter at key (nil when absent); ok is false
// after a WRONGTYPE reply.
func lookupBloom(x *Ctx, key []byte, write bool) (*entry, *bloomObj, bool) {
	var e *entry
	if write {
		e = x.S.lookup(x.DB, key)
	} else {
		e = x.S.lookupRead(x.DB, key)
	}
	if e == nil {
		return nil, nil, true
	}
	o, ok := x.DB.obj(e).(*bloomObj)
	if !ok {
		x.W.Error(errWrongType)
	}
	return e, o, ok
}

// argIndex is the index of the first argument from 2 on equal to name
// (case-insensitive), or -1, as RedisBloom looks options up.
func argIndex(args [][]byte, name string) int {
	for i := 2; i < len(args); i++ {
		if eqFold(args[i], name) {
			return i
		}
	}
	return -1
}

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
func bfReserveCommand(x *Ctx) {
	args := x.Args
	if len(args) > 7 {
		x.W.Error(errWrongArgs(x.Cmd.FullName()))
		return
	}
	rate, ok := num.ParseFloat(args[2])
	if !ok {
		x.W.Error("ERR bad error rate")
		return
	}
	if rate >= 1 || rate <= 0 {
		x.W.Error("ERR (0 < error rate range < 1) ")
		return
	}
	capacity, ok := parseInt(args[3])
	if !ok {
		x.W.Error("ERR bad capacity")
		return
	}
	if capacity <= 0 {
		x.W.Error("ERR (capacity should be larger than 0)")
		return
	}
	prm := bloomParams{rate: rate, capacity: uint64(capacity), expansion: bloom.DefaultExpansion}
	prm.nonScaling = argIndex(args, "nonscaling") != -1
	ex := argIndex(args, "expansion")
	if ex+1 == len(args) {
		x.W.Error("ERR no expansion")
		return
	}
	if ex != -1 {
		if prm.nonScaling {
			x.W.Error("Nonscaling filters cannot expand")
			return
		}
		v, ok := parseInt(args[ex+1])
		if !ok || v < 1 || v > bloom.MaxExpansion {
			x.W.Error("ERR bad expansion")
			return
		}
		prm.expansion = uint32(v)
	}
	e, _, ok := lookupBloom(x, args[1], true)
	if !ok {
		return
	}
	if e != nil {
		x.W.Error("ERR item exists")
		return
	}
	f, err := bloom.New(prm.rate, prm.capacity, prm.expansion, prm.nonScaling)
	if err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	e = x.DB.add(args[1], nil, &bloomObj{f: f}, 0)
	x.S.logBloomAdd(x.DB.id, e.keyView(), prm, nil)
	x.W.OK()
}

// bfInsertCommon adds items to the filter at key, creating it with prm
// when autocreate is set: the shared body of BF.ADD, BF.MADD and
// BF.INSERT.
func bfInsertCommon(x *Ctx, key []byte, items [][]byte, prm bloomParams, autocreate, multi bool) {
	e, o, ok := lookupBloom(x, key, true)
	if !ok {
		return
	}
	if e == nil {
		if !autocreate {
			x.W.Error("ERR not found")
			return
		}
		f, err := bloom.New(prm.rate, prm.capacity, prm.expansion, prm.nonScaling)
		if err != nil {
			x.W.Error("ERR could not create filter")
			return
		}
		o = &bloomObj{f: f}
		e = x.DB.add(key, nil, o, 0)
	}
	results := make([]int8, 0, len(items))
	done := 0
	for _, it := range items {
		added, err := o.f.Add(it)
		done++
		if err != nil {
			results = append(results, -1)
			break
		}
		if added {
			results = append(results, 1)
		} else {
			results = append(results, 0)
		}
	}
	x.S.logBloomAdd(x.DB.id, e.keyView(), prm, items[:done])
	if multi {
		x.W.ArrayHeader(len(results))
	}
	for _, r := range results {
		if r < 0 {
			x.W.Error("ERR non scaling filter is full")
		} else {
			x.W.Int(int64(r))
		}
	}
}

// BF.ADD key item
func bfAddCommand(x *Ctx) {
	bfInsertCommon(x, x.Args[1], x.Args[2:], defaultBloomParams, true, false)
}

// BF.MADD key item [item ...]
func bfMaddCommand(x *Ctx) {
	bfInsertCommon(x, x.Args[1], x.Args[2:], defaultBloomParams, true, true)
}

// BF.INSERT's errors carry no ERR code: RedisBloom replies them as
// they are.
//
// BF.INSERT key [CAPACITY capacity] [ERROR error] [EXPANSION expansion]
// [NOCREATE] [NONSCALING] ITEMS item [item ...]
func bfInsertCommand(x *Ctx) {
	args := x.Args
	prm := defaultBloomParams
	capacity, expansion := int64(prm.capacity), int64(prm.expansion)
	autocreate := true
	items := -1
	pos := 2
	for pos < len(args) && items < 0 {
		a := args[pos]
		switch {
		case len(a) > 0 && (a[0] == 'i' || a[0] == 'I'):
			pos++
			items = pos
		case len(a) > 0 && (a[0] == 'e' || a[0] == 'E'):
			pos++
			if pos == len(args) {
				x.W.Error(errWrongArgs(x.Cmd.FullName()))
				return
			}
			if len(a) > 1 && (a[1] == 'r' || a[1] == 'R') {
				r, ok := num.ParseFloat(args[pos])
				if !ok {
					x.W.Error("Bad error rate")
					return
				}
				prm.rate = r
			} else {
				v, ok := parseInt(args[pos])
				if !ok {
					x.W.Error("Bad expansion")
					return
				}
				expansion = v
			}
			pos++
		case len(a) > 0 && (a[0] == 'c' || a[0] == 'C'):
			pos++
			if pos == len(args) {
				x.W.Error(errWrongArgs(x.Cmd.FullName()))
				return
			}
			v, ok := parseInt(args[pos])
			if !ok {
				x.W.Error("Bad capacity")
				return
			}
			capacity = v
			pos++
		case len(a) > 0 && (a[0] == 'n' || a[0] == 'N'):
			if len(a) > 2 && (a[2] == 'c' || a[2] == 'C') {
				autocreate = false
			} else {
				prm.nonScaling = true
			}
			pos++
		default:
			x.W.Error("Unknown argument received")
			return
		}
	}
	if items < 0 || items == len(args) {
		x.W.Error(errWrongArgs(x.Cmd.FullName()))
		return
	}
	if prm.rate <= 0 || prm.rate >= 1 || capacity < 1 || expansion < 1 || expansion > bloom.MaxExpansion {
		x.W.Error("Bad argument received")
		return
	}
	prm.capacity, prm.expansion = uint64(capacity), uint32(expansion)
	bfInsertCommon(x, args[1], args[items:], prm, autocreate, true)
}

// BF.EXISTS key item, BF.MEXISTS key item [item ...]. As in RedisBloom,
// a key that holds no filter, whatever its type, contains no item: the
// answer is 0, not WRONGTYPE.
func bfExistsGeneric(x *Ctx, multi bool) {
	var o *bloomObj
	if e := x.S.lookupRead(x.DB, x.Args[1]); e != nil && e.isObj() {
		o, _ = x.DB.obj(e).(*bloomObj)
	}
	if multi {
		x.W.ArrayHeader(len(x.Args) - 2)
	}
	for _, it := range x.Args[2:] {
		if o != nil && o.f.Exists(it) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
	}
}

func bfExistsCommand(x *Ctx)  { bfExistsGeneric(x, false) }
func bfMexistsCommand(x *Ctx) { bfExistsGeneric(x, true) }

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]. One field
// is answered as a one-element array, as RedisBloom does (and go-redis's
// BFInfoArg parses); no field, all five as a map.
func bfInfoCommand(x *Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(errWrongArgs(x.Cmd.FullName()))
		return
	}
	_, o, ok := lookupBloom(x, x.Args[1], false)
	if !ok {
		return
	}
	if o == nil {
		x.W.Error("ERR not found")
		return
	}
	f := o.f
	expansion := func() {
		if e, scaling := f.Expansion(); scaling {
			x.W.Int(int64(e))
		} else {
			x.W.Null()
		}
	}
	if len(x.Args) == 3 {
		field := x.Args[2]
		switch {
		case eqFold(field, "capacity"):
			x.W.ArrayHeader(1)
			x.W.Int(int64(f.Capacity()))
		case eqFold(field, "size"):
			x.W.ArrayHeader(1)
			x.W.Int(int64(f.MemoryUsage()))
		case eqFold(field, "filters"):
			x.W.ArrayHeader(1)
			x.W.Int(int64(f.Filters()))
		case eqFold(field, "items"):
			x.W.ArrayHeader(1)
			x.W.Int(int64(f.Card()))
		case eqFold(field, "expansion"):
			x.W.ArrayHeader(1)
			expansion()
		default:
			// RedisBloom's text, without an error code.
			x.W.Error("Invalid information value")
		}
		return
	}
	x.W.MapHeader(5)
	x.W.SimpleString("Capacity")
	x.W.Int(int64(f.Capacity()))
	x.W.SimpleString("Size")
	x.W.Int(int64(f.MemoryUsage()))
	x.W.SimpleString("Number of filters")
	x.W.Int(int64(f.Filters()))
	x.W.SimpleString("Number of items inserted")
	x.W.Int(int64(f.Card()))
	x.W.SimpleString("Expansion rate")
	expansion()
}

// BF.CARD key
func bfCardCommand(x *Ctx) {
	_, o, ok := lookupBloom(x, x.Args[1], false)
	if !ok {
		return
	}
	if o == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(o.f.Card()))
}

func registerBloomFamily(t commandTable) {
	const rw, ro, fast, deny = FlagWrite, FlagReadOnly, FlagFast, FlagDenyOOM
	c := func(name string, arity int, flags Flag, summary, complexity string, h HandlerFunc) *Command {
		return &Command{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Group: "bf", Since: "1.0.0", Summary: summary, Complexity: complexity, Handler: h}
	}
	t.add(
		c("bf.reserve", -4, rw|deny, "Creates a new Bloom Filter", "O(1)", bfReserveCommand),
		c("bf.add", 3, rw|deny|fast, "Adds an item to a Bloom Filter", "O(k), where k is the number of hash functions used by the last sub-filter", bfAddCommand),
		c("bf.madd", -3, rw|deny, "Adds one or more items to a Bloom Filter. A filter will be created if it does not exist", "O(k * n), where k is the number of hash functions and n is the number of items", bfMaddCommand),
		c("bf.insert", -4, rw|deny, "Adds one or more items to a Bloom Filter. A filter will be created if it does not exist", "O(k * n), where k is the number of hash functions and n is the number of items", bfInsertCommand),
		c("bf.exists", 3, ro|fast, "Checks whether an item exists in a Bloom Filter", "O(k), where k is the number of hash functions used by the last sub-filter", bfExistsCommand),
		c("bf.mexists", -3, ro, "Checks whether one or more items exist in a Bloom Filter", "O(k * n), where k is the number of hash functions and n is the number of items", bfMexistsCommand),
		c("bf.info", -2, ro|fast, "Returns information about a Bloom Filter", "O(1)", bfInfoCommand),
		c("bf.card", 2, ro|fast, "Returns the cardinality of a Bloom filter", "O(1)", bfCardCommand),
	)
}
