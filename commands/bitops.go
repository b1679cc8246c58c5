package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"github.com/ruvio/ruvio/types/bitfield"
	"github.com/ruvio/ruvio/types/bitmap"
)

// The bitmap commands beyond SETBIT and GETBIT (strings.go): BITCOUNT,
// BITPOS, BITOP, BITFIELD and BITFIELD_RO. The algorithms live in
// types/bitmap and types/bitfield; this file parses, looks keys up, logs
// and replies.

// parseBitUnitOrReply reads the optional BYTE|BIT argument of BITCOUNT and BITPOS.
func parseBitUnitOrReply(x *keyspace.Ctx, arg []byte) (inBits, ok bool) {
	switch {
	case keyspace.EqFold(arg, "bit"):
		return true, true
	case keyspace.EqFold(arg, "byte"):
		return false, true
	}
	x.W.Error(keyspace.ErrSyntax)
	return false, false
}

// BITCOUNT key [start end [BYTE|BIT]]
func bitcountCommand(x *keyspace.Ctx) {
	e := x.S.LookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	v, ok := stringValueOrReply(x, e)
	if !ok {
		return
	}
	switch len(x.Args) {
	case 2:
		x.W.Int(bitmap.Count(v))
		return
	case 4, 5:
	default:
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	start, ok1 := keyspace.ParseInt(x.Args[2])
	end, ok2 := keyspace.ParseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if start < 0 && end < 0 && start > end {
		x.W.Int(0)
		return
	}
	inBits := false
	if len(x.Args) == 5 {
		if inBits, ok = parseBitUnitOrReply(x, x.Args[4]); !ok {
			return
		}
	}
	first, last, ok := bitmap.Range(int64(len(v)), start, end, inBits)
	if !ok {
		x.W.Int(0)
		return
	}
	x.W.Int(bitmap.CountRange(v, first, last))
}

// BITPOS key bit [start [end [BYTE|BIT]]]
func bitposCommand(x *keyspace.Ctx) {
	bit, ok := keyspace.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if bit != 0 && bit != 1 {
		x.W.Error("ERR The bit argument must be 1 or 0.")
		return
	}
	e := x.S.LookupRead(x.DB, x.Args[1])
	if e == nil {
		// A missing key is an endless run of zeros.
		x.W.Int(-bit)
		return
	}
	v, ok := stringValueOrReply(x, e)
	if !ok {
		return
	}
	n := int64(len(v))
	start, end := int64(0), int64(-1)
	inBits, endGiven := false, false
	switch len(x.Args) {
	case 3:
	case 4, 5, 6:
		if start, ok = keyspace.ParseInt(x.Args[3]); !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
		if len(x.Args) == 6 {
			if inBits, ok = parseBitUnitOrReply(x, x.Args[5]); !ok {
				return
			}
		}
		if len(x.Args) >= 5 {
			if end, ok = keyspace.ParseInt(x.Args[4]); !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			endGiven = true
		}
	default:
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	first, last, ok := bitmap.Range(n, start, end, inBits)
	if !ok {
		x.W.Int(-1)
		return
	}
	pos := bitmap.Pos(v, int(bit), first, last)
	if pos < 0 && bit == 0 && !endGiven {
		// Without an explicit end the string reads as zero-padded: the
		// first clear bit is the one just past it.
		pos = last + 1
	}
	x.W.Int(pos)
}

// BITOP AND|OR|XOR|NOT destkey key [key ...]: replies the length of the
// result; an empty result deletes destkey.
func bitopCommand(x *keyspace.Ctx) {
	var op bitmap.Op
	switch name := x.Args[1]; {
	case keyspace.EqFold(name, "and"):
		op = bitmap.And
	case keyspace.EqFold(name, "or"):
		op = bitmap.Or
	case keyspace.EqFold(name, "xor"):
		op = bitmap.Xor
	case keyspace.EqFold(name, "not"):
		op = bitmap.Not
	default:
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	if op == bitmap.Not && len(x.Args) != 4 {
		x.W.Error("ERR BITOP NOT must be called with a single source key.")
		return
	}
	srcs := make([][]byte, 0, len(x.Args)-3)
	for _, k := range x.Args[3:] {
		e := x.S.LookupRead(x.DB, k)
		if e == nil {
			srcs = append(srcs, nil)
			continue
		}
		v, ok := stringValueOrReply(x, e)
		if !ok {
			return
		}
		srcs = append(srcs, v)
	}
	res := bitmap.Apply(op, srcs)
	if len(res) == 0 {
		x.S.DeleteKey(x.DB, x.Args[2])
		x.W.Int(0)
		return
	}
	// res is a new buffer: kept as the value, not copied.
	markRaw(x.S.StoreStringOwned(x.DB, x.S.Lookup(x.DB, x.Args[2]), x.Args[2], res, 0, false))
	x.W.Int(int64(len(res)))
}

// bitfieldOp is one parsed BITFIELD subcommand.
type bitfieldOp struct {
	kind byte // 'g', 's' or 'i'
	typ  bitfield.Type
	off  uint64
	arg  int64
	ow   bitfield.Overflow
}

// parseBitfieldType reads i1..i64 or u1..u63.
func parseBitfieldType(arg []byte) (bitfield.Type, bool) {
	if len(arg) < 2 || (arg[0] != 'i' && arg[0] != 'u') {
		return bitfield.Type{}, false
	}
	n, ok := keyspace.ParseInt(arg[1:])
	signed := arg[0] == 'i'
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return bitfield.Type{}, false
	}
	return bitfield.Type{Signed: signed, Bits: uint(n)}, true
}

// parseBitfieldOffsetOrReply reads a bit offset, or #N meaning N fields of bits
// each, bounded as SETBIT's offsets are.
func parseBitfieldOffsetOrReply(x *keyspace.Ctx, arg []byte, bits uint) (uint64, bool) {
	hash := len(arg) > 0 && arg[0] == '#'
	if hash {
		arg = arg[1:]
	}
	n, ok := keyspace.ParseInt(arg)
	if ok && hash {
		n *= int64(bits) // wraps like Redis's multiplication; caught below
	}
	if !ok || n < 0 || n>>3 >= x.S.Srv.Opts.Live.ProtoMaxBulkLen() {
		x.W.Error(errBitOffset)
		return 0, false
	}
	return uint64(n), true
}

// BITFIELD key [GET type offset] [SET type offset value]
// [INCRBY type offset increment] [OVERFLOW WRAP|SAT|FAIL] ...
func bitfieldCommand(x *keyspace.Ctx) { bitfieldGeneric(x, false) }

// BITFIELD_RO key [GET type offset ...]
func bitfieldROCommand(x *keyspace.Ctx) { bitfieldGeneric(x, true) }

func bitfieldGeneric(x *keyspace.Ctx, readOnly bool) {
	sh := x.S
	var ops []bitfieldOp
	ow := bitfield.Wrap
	writes := false
	var maxBit uint64 // highest bit a write touches
	args := x.Args
	for j := 2; j < len(args); j++ {
		rem := len(args) - j - 1
		var op bitfieldOp
		switch sub := args[j]; {
		case keyspace.EqFold(sub, "get") && rem >= 2:
			op.kind = 'g'
		case keyspace.EqFold(sub, "set") && rem >= 3:
			op.kind = 's'
		case keyspace.EqFold(sub, "incrby") && rem >= 3:
			op.kind = 'i'
		case keyspace.EqFold(sub, "overflow") && rem >= 1:
			j++
			switch a := args[j]; {
			case keyspace.EqFold(a, "wrap"):
				ow = bitfield.Wrap
			case keyspace.EqFold(a, "sat"):
				ow = bitfield.Sat
			case keyspace.EqFold(a, "fail"):
				ow = bitfield.Fail
			default:
				x.W.Error("ERR Invalid OVERFLOW type specified")
				return
			}
			continue
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
		t, ok := parseBitfieldType(args[j+1])
		if !ok {
			x.W.Error("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
			return
		}
		op.typ, op.ow = t, ow
		if op.off, ok = parseBitfieldOffsetOrReply(x, args[j+2], t.Bits); !ok {
			return
		}
		if op.kind != 'g' {
			writes = true
			maxBit = max(maxBit, op.off+uint64(t.Bits)-1)
			if op.arg, ok = keyspace.ParseInt(args[j+3]); !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			j++
		}
		j += 2
		ops = append(ops, op)
	}
	db := x.DB
	var e *keyspace.Entry
	if !writes {
		e = sh.LookupRead(db, args[1])
		var v []byte
		if e != nil {
			var ok bool
			if v, ok = stringValueOrReply(x, e); !ok {
				return
			}
		}
		x.W.ArrayHeader(len(ops))
		for _, op := range ops {
			x.W.Int(bitfield.Get(v, op.off, op.typ))
		}
		return
	}
	if readOnly {
		x.W.Error("ERR BITFIELD_RO only supports the GET subcommand")
		return
	}
	e = sh.Lookup(db, args[1])
	if e != nil && db.Obj(e) != nil {
		x.W.Error(keyspace.ErrWrongType)
		return
	}
	need := int(maxBit>>3) + 1
	created := e == nil
	oldLen := 0
	switch {
	case created:
		e = db.AddStringOwned(args[1], make([]byte, need), 0)
	default:
		// resizeVal keeps the accounting exact and may move the entry;
		// at the current length it only marks the string modified.
		oldLen = len(db.Val(e))
		e = db.ResizeVal(e, max(need, oldLen))
	}
	markRaw(e)
	v := db.Val(e)
	// The log gets the byte ranges the writes changed, plus the last
	// byte when the string grew (replay pads with zeros up to it), never
	// the zeros themselves: the record is as large as the request.
	var spans []keyspace.ByteSpan
	if len(v) > oldLen {
		spans = append(spans, keyspace.ByteSpan{Lo: len(v) - 1, Hi: len(v) - 1})
	}
	x.W.ArrayHeader(len(ops))
	for _, op := range ops {
		if op.kind == 'g' {
			x.W.Int(bitfield.Get(v, op.off, op.typ))
			continue
		}
		old := bitfield.Get(v, op.off, op.typ)
		var nv, reply int64
		var over bool
		if op.kind == 'i' {
			nv, over = bitfield.Incr(op.typ, old, op.arg, op.ow)
			reply = nv
		} else {
			nv, over = bitfield.Incr(op.typ, op.arg, 0, op.ow)
			reply = old
		}
		if over && op.ow == bitfield.Fail {
			x.W.Null()
			continue
		}
		x.W.Int(reply)
		bitfield.Set(v, op.off, op.typ.Bits, uint64(nv))
		if nv != old {
			spans = append(spans, keyspace.ByteSpan{Lo: int(op.off >> 3), Hi: int((op.off + uint64(op.typ.Bits) - 1) >> 3)})
		}
	}
	sh.LogByteSpans(db.ID, e.KeyView(), v, spans)
}

// markRaw flags a string that a bitmap or HyperLogLog command wrote:
// Redis creates and unshares those values as raw strings, so OBJECT
// ENCODING reports raw whatever their length.
func markRaw(e *keyspace.Entry) { e.SetKind(e.Kind() | keyspace.FlagRaw) }

func registerBitmapFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	t.Add(
		&keyspace.Command{Name: "bitcount", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "2.6.0", Summary: "Counts the number of set bits (population counting) in a string.", Complexity: "O(N)", Handler: bitcountCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "bitpos", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "2.8.7", Summary: "Finds the first set (1) or clear (0) bit in a string.", Complexity: "O(N)", Handler: bitposCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "bitop", Arity: -4, Flags: rw | deny, FirstKey: 2, LastKey: -1, Step: 1, Group: "bitmap", Since: "2.6.0", Summary: "Performs bitwise operations on multiple strings, and stores the result.", Complexity: "O(N)", Handler: bitopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 2, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 3, -1, 1)}},
		&keyspace.Command{Name: "bitfield", Arity: -2, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "3.2.0", Summary: "Performs arbitrary bitfield integer operations on strings.", Complexity: "O(1) for each subcommand specified", Handler: bitfieldCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate|keyspace.KeyVariableFlags, 1, 0, 1)}},
		&keyspace.Command{Name: "bitfield_ro", Arity: -2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "6.0.0", Summary: "Performs arbitrary read-only bitfield integer operations on strings.", Complexity: "O(1) for each subcommand specified", Handler: bitfieldROCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
	)
}
