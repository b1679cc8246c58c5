package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"github.com/ruvio/ruvio/types/bloom"
	"github.com/ruvio/ruvio/types/num"
)

// The Bloom filter commands with RedisBloom's surface (BF.RESERVE, BF.ADD,
// BF.MADD, BF.EXISTS, BF.MEXISTS, BF.INSERT, BF.INFO, BF.CARD) on
// types/bloom: same argument handling, replies and error texts, TYPE
// "MBbloom--". Adding is deterministic (the filter's hash is fixed and a
// new layer's shape depends only on the previous one), so the WAL record
// of an add names the items and the parameters a missing filter is
// created with, and replay adds them again.

var defaultBloomParams = keyspace.BloomParams{Rate: bloom.DefaultErrorRate, Capacity: bloom.DefaultCapacity, Expansion: bloom.DefaultExpansion}

// lookupBloomOrReply returns the filter at key (nil when absent); ok is false
// after a WRONGTYPE reply.
func lookupBloomOrReply(x *keyspace.Ctx, key []byte, write bool) (*keyspace.Entry, *keyspace.BloomObj, bool) {
	return lookupTypedOrReply[*keyspace.BloomObj](x, key, !write)
}

// argIndex is the index of the first argument from 2 on equal to name
// (case-insensitive), or -1, as RedisBloom looks options up.
func argIndex(args [][]byte, name string) int {
	for i := 2; i < len(args); i++ {
		if keyspace.EqFold(args[i], name) {
			return i
		}
	}
	return -1
}

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
func bfReserveCommand(x *keyspace.Ctx) {
	args := x.Args
	if len(args) > 7 {
		x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
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
	capacity, ok := keyspace.ParseInt(args[3])
	if !ok {
		x.W.Error("ERR bad capacity")
		return
	}
	if capacity <= 0 {
		x.W.Error("ERR (capacity should be larger than 0)")
		return
	}
	prm := keyspace.BloomParams{Rate: rate, Capacity: uint64(capacity), Expansion: bloom.DefaultExpansion}
	prm.NonScaling = argIndex(args, "nonscaling") != -1
	ex := argIndex(args, "expansion")
	if ex+1 == len(args) {
		x.W.Error("ERR no expansion")
		return
	}
	if ex != -1 {
		if prm.NonScaling {
			x.W.Error("Nonscaling filters cannot expand")
			return
		}
		v, ok := keyspace.ParseInt(args[ex+1])
		if !ok || v < 1 || v > bloom.MaxExpansion {
			x.W.Error("ERR bad expansion")
			return
		}
		prm.Expansion = uint32(v)
	}
	e, _, ok := lookupBloomOrReply(x, args[1], true)
	if !ok {
		return
	}
	if e != nil {
		x.W.Error("ERR item exists")
		return
	}
	f, err := bloom.New(prm.Rate, prm.Capacity, prm.Expansion, prm.NonScaling)
	if err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	e = x.DB.Add(args[1], nil, &keyspace.BloomObj{F: f}, 0)
	x.S.LogBloomAdd(x.DB.ID, e.KeyView(), prm, nil)
	x.W.OK()
}

// bfInsertCommon adds items to the filter at key, creating it with prm
// when autocreate is set: the shared body of BF.ADD, BF.MADD and
// BF.INSERT. Each item's answer is 1 or 0 in RESP2 and true or false in
// RESP3, as RedisBloom replies.
func bfInsertCommon(x *keyspace.Ctx, key []byte, items [][]byte, prm keyspace.BloomParams, autocreate, multi bool) {
	e, o, ok := lookupBloomOrReply(x, key, true)
	if !ok {
		return
	}
	if e == nil {
		if !autocreate {
			x.W.Error("ERR not found")
			return
		}
		f, err := bloom.New(prm.Rate, prm.Capacity, prm.Expansion, prm.NonScaling)
		if err != nil {
			x.W.Error("ERR could not create filter")
			return
		}
		o = &keyspace.BloomObj{F: f}
		e = x.DB.Add(key, nil, o, 0)
	}
	results := make([]int8, 0, len(items))
	done := 0
	for _, it := range items {
		added, err := o.F.Add(it)
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
	x.S.LogBloomAdd(x.DB.ID, e.KeyView(), prm, items[:done])
	if multi {
		x.W.ArrayHeader(len(results))
	}
	for _, r := range results {
		if r < 0 {
			x.W.Error("ERR non scaling filter is full")
		} else {
			x.W.Bool(r == 1)
		}
	}
}

// BF.ADD key item
func bfAddCommand(x *keyspace.Ctx) {
	bfInsertCommon(x, x.Args[1], x.Args[2:], defaultBloomParams, true, false)
}

// BF.MADD key item [item ...]
func bfMaddCommand(x *keyspace.Ctx) {
	bfInsertCommon(x, x.Args[1], x.Args[2:], defaultBloomParams, true, true)
}

// BF.INSERT's errors carry no ERR code: RedisBloom replies them as
// they are.
//
// BF.INSERT key [CAPACITY capacity] [ERROR error] [EXPANSION expansion]
// [NOCREATE] [NONSCALING] ITEMS item [item ...]
func bfInsertCommand(x *keyspace.Ctx) {
	args := x.Args
	prm := defaultBloomParams
	capacity, expansion := int64(prm.Capacity), int64(prm.Expansion)
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
				x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
				return
			}
			if len(a) > 1 && (a[1] == 'r' || a[1] == 'R') {
				r, ok := num.ParseFloat(args[pos])
				if !ok {
					x.W.Error("Bad error rate")
					return
				}
				prm.Rate = r
			} else {
				v, ok := keyspace.ParseInt(args[pos])
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
				x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
				return
			}
			v, ok := keyspace.ParseInt(args[pos])
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
				prm.NonScaling = true
			}
			pos++
		default:
			x.W.Error("Unknown argument received")
			return
		}
	}
	if items < 0 || items == len(args) {
		x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
		return
	}
	if prm.Rate <= 0 || prm.Rate >= 1 || capacity < 1 || expansion < 1 || expansion > bloom.MaxExpansion {
		x.W.Error("Bad argument received")
		return
	}
	prm.Capacity, prm.Expansion = uint64(capacity), uint32(expansion)
	bfInsertCommon(x, args[1], args[items:], prm, autocreate, true)
}

// BF.EXISTS key item, BF.MEXISTS key item [item ...]. As in RedisBloom,
// a key that holds no filter, whatever its type, contains no item: the
// answer is 0 (false in RESP3), not WRONGTYPE.
func bfExistsGeneric(x *keyspace.Ctx, multi bool) {
	var o *keyspace.BloomObj
	if e := x.S.LookupRead(x.DB, x.Args[1]); e != nil && e.IsObj() {
		o, _ = x.DB.Obj(e).(*keyspace.BloomObj)
	}
	if multi {
		x.W.ArrayHeader(len(x.Args) - 2)
	}
	for _, it := range x.Args[2:] {
		x.W.Bool(o != nil && o.F.Exists(it))
	}
}

func bfExistsCommand(x *keyspace.Ctx) { bfExistsGeneric(x, false) }

func bfMexistsCommand(x *keyspace.Ctx) { bfExistsGeneric(x, true) }

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]. As
// RedisBloom answers: one field is a one-element array in RESP2 (`*1
// :100`) and a one-entry map under its name in RESP3 (`%1 +Capacity
// :100`); no field, all five as a map (a flat array in RESP2). go-redis's
// BFInfoArg parses both single-field shapes.
func bfInfoCommand(x *keyspace.Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
		return
	}
	_, o, ok := lookupBloomOrReply(x, x.Args[1], false)
	if !ok {
		return
	}
	if o == nil {
		x.W.Error("ERR not found")
		return
	}
	f := o.F
	expansion := func() {
		if e, scaling := f.Expansion(); scaling {
			x.W.Int(int64(e))
		} else {
			x.W.Null()
		}
	}
	if len(x.Args) == 3 {
		field := x.Args[2]
		one := func(name string) {
			if x.W.Proto >= 3 {
				x.W.MapHeader(1)
				x.W.SimpleString(name)
			} else {
				x.W.ArrayHeader(1)
			}
		}
		switch {
		case keyspace.EqFold(field, "capacity"):
			one("Capacity")
			x.W.Int(int64(f.Capacity()))
		case keyspace.EqFold(field, "size"):
			one("Size")
			x.W.Int(int64(f.MemoryUsage()))
		case keyspace.EqFold(field, "filters"):
			one("Number of filters")
			x.W.Int(int64(f.Filters()))
		case keyspace.EqFold(field, "items"):
			one("Number of items inserted")
			x.W.Int(int64(f.Card()))
		case keyspace.EqFold(field, "expansion"):
			one("Expansion rate")
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
func bfCardCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReplyZero[*keyspace.BloomObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Int(int64(o.F.Card()))
}

func registerBloomFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	c := func(name string, arity int, flags keyspace.Flag, summary, complexity string, h keyspace.HandlerFunc) *keyspace.Command {
		return &keyspace.Command{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Group: "bf", Since: "1.0.0", Summary: summary, Complexity: complexity, Handler: h}
	}
	t.Add(
		withSpecs(c("bf.reserve", -4, rw|deny, "Creates a new Bloom Filter", "O(1)", bfReserveCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}, nil),
		withSpecs(c("bf.add", 3, rw|deny|fast, "Adds an item to a Bloom Filter", "O(k), where k is the number of hash functions used by the last sub-filter", bfAddCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}, nil),
		withSpecs(c("bf.madd", -3, rw|deny, "Adds one or more items to a Bloom Filter. A filter will be created if it does not exist", "O(k * n), where k is the number of hash functions and n is the number of items", bfMaddCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}, nil),
		withSpecs(c("bf.insert", -4, rw|deny, "Adds one or more items to a Bloom Filter. A filter will be created if it does not exist", "O(k * n), where k is the number of hash functions and n is the number of items", bfInsertCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}, nil),
		withSpecs(c("bf.exists", 3, ro|fast, "Checks whether an item exists in a Bloom Filter", "O(k), where k is the number of hash functions used by the last sub-filter", bfExistsCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("bf.mexists", -3, ro, "Checks whether one or more items exist in a Bloom Filter", "O(k * n), where k is the number of hash functions and n is the number of items", bfMexistsCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("bf.info", -2, ro|fast, "Returns information about a Bloom Filter", "O(1)", bfInfoCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}, nil),
		withSpecs(c("bf.card", 2, ro|fast, "Returns the cardinality of a Bloom filter", "O(1)", bfCardCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}, nil),
	)
}
