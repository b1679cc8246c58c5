package keyspace

import (
	"cmp"
	"slices"

	"github.com/ruvio/ruvio/types/bitfield"
	"github.com/ruvio/ruvio/types/bitmap"
)

// The bitmap commands beyond SETBIT and GETBIT (strings.go): BITCOUNT,
// BITPOS, BITOP, BITFIELD and BITFIELD_RO. The algorithms live in
// types/bitmap and types/bitfield; this file parses, looks keys up, logs
// and replies.

// parseBitUnit reads the optional BYTE|BIT argument of BITCOUNT and BITPOS.
func parseBitUnit(x *Ctx, arg []byte) (inBits, ok bool) {
	switch {
	case eqFold(arg, "bit"):
		return true, true
	case eqFold(arg, "byte"):
		return false, true
	}
	x.W.Error(errSyntax)
	return false, false
}

// BITCOUNT key [start end [BYTE|BIT]]
func bitcountCommand(x *Ctx) {
	e := x.S.lookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	v, ok := stringValue(x, e)
	if !ok {
		return
	}
	switch len(x.Args) {
	case 2:
		x.W.Int(bitmap.Count(v))
		return
	case 4, 5:
	default:
		x.W.Error(errSyntax)
		return
	}
	start, ok1 := parseInt(x.Args[2])
	end, ok2 := parseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.W.Error(errNotInt)
		return
	}
	if start < 0 && end < 0 && start > end {
		x.W.Int(0)
		return
	}
	inBits := false
	if len(x.Args) == 5 {
		if inBits, ok = parseBitUnit(x, x.Args[4]); !ok {
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
func bitposCommand(x *Ctx) {
	bit, ok := parseInt(x.Args[2])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	if bit != 0 && bit != 1 {
		x.W.Error("ERR The bit argument must be 1 or 0.")
		return
	}
	e := x.S.lookupRead(x.DB, x.Args[1])
	if e == nil {
		// A missing key is an endless run of zeros.
		x.W.Int(-bit)
		return
	}
	v, ok := stringValue(x, e)
	if !ok {
		return
	}
	n := int64(len(v))
	start, end := int64(0), int64(-1)
	inBits, endGiven := false, false
	switch len(x.Args) {
	case 3:
	case 4, 5, 6:
		if start, ok = parseInt(x.Args[3]); !ok {
			x.W.Error(errNotInt)
			return
		}
		if len(x.Args) == 6 {
			if inBits, ok = parseBitUnit(x, x.Args[5]); !ok {
				return
			}
		}
		if len(x.Args) >= 5 {
			if end, ok = parseInt(x.Args[4]); !ok {
				x.W.Error(errNotInt)
				return
			}
			endGiven = true
		}
	default:
		x.W.Error(errSyntax)
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
func bitopCommand(x *Ctx) {
	var op bitmap.Op
	switch name := x.Args[1]; {
	case eqFold(name, "and"):
		op = bitmap.And
	case eqFold(name, "or"):
		op = bitmap.Or
	case eqFold(name, "xor"):
		op = bitmap.Xor
	case eqFold(name, "not"):
		op = bitmap.Not
	default:
		x.W.Error(errSyntax)
		return
	}
	if op == bitmap.Not && len(x.Args) != 4 {
		x.W.Error("ERR BITOP NOT must be called with a single source key.")
		return
	}
	srcs := make([][]byte, 0, len(x.Args)-3)
	for _, k := range x.Args[3:] {
		e := x.S.lookupRead(x.DB, k)
		if e == nil {
			srcs = append(srcs, nil)
			continue
		}
		v, ok := stringValue(x, e)
		if !ok {
			return
		}
		srcs = append(srcs, v)
	}
	res := bitmap.Apply(op, srcs)
	if len(res) == 0 {
		x.S.deleteKey(x.DB, x.Args[2])
		x.W.Int(0)
		return
	}
	// res is a new buffer: kept as the value, not copied.
	markRaw(x.S.storeStringOwned(x.DB, x.S.lookup(x.DB, x.Args[2]), x.Args[2], res, 0, false))
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
	n, ok := parseInt(arg[1:])
	signed := arg[0] == 'i'
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return bitfield.Type{}, false
	}
	return bitfield.Type{Signed: signed, Bits: uint(n)}, true
}

// parseBitfieldOffset reads a bit offset, or #N meaning N fields of bits
// each, bounded as SETBIT's offsets are.
func parseBitfieldOffset(x *Ctx, arg []byte, bits uint) (uint64, bool) {
	hash := len(arg) > 0 && arg[0] == '#'
	if hash {
		arg = arg[1:]
	}
	n, ok := parseInt(arg)
	if ok && hash {
		n *= int64(bits) // wraps like Redis's multiplication; caught below
	}
	if !ok || n < 0 || n>>3 >= x.S.srv.opts.Live.ProtoMaxBulkLen() {
		x.W.Error(errBitOffset)
		return 0, false
	}
	return uint64(n), true
}

// BITFIELD key [GET type offset] [SET type offset value]
// [INCRBY type offset increment] [OVERFLOW WRAP|SAT|FAIL] ...
func bitfieldCommand(x *Ctx) { bitfieldGeneric(x, false) }

// BITFIELD_RO key [GET type offset ...]
func bitfieldROCommand(x *Ctx) { bitfieldGeneric(x, true) }

func bitfieldGeneric(x *Ctx, readOnly bool) {
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
		case eqFold(sub, "get") && rem >= 2:
			op.kind = 'g'
		case eqFold(sub, "set") && rem >= 3:
			op.kind = 's'
		case eqFold(sub, "incrby") && rem >= 3:
			op.kind = 'i'
		case eqFold(sub, "overflow") && rem >= 1:
			j++
			switch a := args[j]; {
			case eqFold(a, "wrap"):
				ow = bitfield.Wrap
			case eqFold(a, "sat"):
				ow = bitfield.Sat
			case eqFold(a, "fail"):
				ow = bitfield.Fail
			default:
				x.W.Error("ERR Invalid OVERFLOW type specified")
				return
			}
			continue
		default:
			x.W.Error(errSyntax)
			return
		}
		t, ok := parseBitfieldType(args[j+1])
		if !ok {
			x.W.Error("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
			return
		}
		op.typ, op.ow = t, ow
		if op.off, ok = parseBitfieldOffset(x, args[j+2], t.Bits); !ok {
			return
		}
		if op.kind != 'g' {
			writes = true
			maxBit = max(maxBit, op.off+uint64(t.Bits)-1)
			if op.arg, ok = parseInt(args[j+3]); !ok {
				x.W.Error(errNotInt)
				return
			}
			j++
		}
		j += 2
		ops = append(ops, op)
	}
	db := x.DB
	var e *entry
	if !writes {
		e = sh.lookupRead(db, args[1])
		var v []byte
		if e != nil {
			var ok bool
			if v, ok = stringValue(x, e); !ok {
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
	e = sh.lookup(db, args[1])
	if e != nil && db.obj(e) != nil {
		x.W.Error(errWrongType)
		return
	}
	need := int(maxBit>>3) + 1
	created := e == nil
	oldLen := 0
	switch {
	case created:
		e = db.addStringOwned(args[1], make([]byte, need), 0)
	default:
		// resizeVal keeps the accounting exact and may move the entry;
		// at the current length it only marks the string modified.
		oldLen = len(db.val(e))
		e = db.resizeVal(e, max(need, oldLen))
	}
	markRaw(e)
	v := db.val(e)
	// The log gets the byte ranges the writes changed, plus the last
	// byte when the string grew (replay pads with zeros up to it), never
	// the zeros themselves: the record is as large as the request.
	var spans []byteSpan
	if len(v) > oldLen {
		spans = append(spans, byteSpan{len(v) - 1, len(v) - 1})
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
			spans = append(spans, byteSpan{int(op.off >> 3), int((op.off + uint64(op.typ.Bits) - 1) >> 3)})
		}
	}
	sh.logByteSpans(db.id, e.keyView(), v, spans)
}

// byteSpan is the byte range lo..hi (inclusive) of a string.
type byteSpan struct{ lo, hi int }

// logByteSpans logs the bytes of v in spans as SetRange records, merging
// spans that overlap or touch. Several records are written as one unit
// (unless one is being collected already), so that they replay whole.
func (sh *Shard) logByteSpans(db int, key string, v []byte, spans []byteSpan) {
	if len(spans) == 0 {
		return
	}
	slices.SortFunc(spans, func(a, b byteSpan) int { return cmp.Compare(a.lo, b.lo) })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.lo <= last.hi+1 {
			last.hi = max(last.hi, s.hi)
			continue
		}
		merged = append(merged, s)
	}
	own := len(merged) > 1 && sh.journal != nil && !sh.tx.recording
	if own {
		sh.beginUnit()
	}
	// The last first: replaying it creates or grows the string to its
	// length at once, the others then write inside it.
	for i := len(merged) - 1; i >= 0; i-- {
		s := merged[i]
		sh.logSetRange(db, key, int64(s.lo), v[s.lo:s.hi+1])
	}
	if own {
		sh.endUnit()
	}
}

// markRaw flags a string that a bitmap or HyperLogLog command wrote:
// Redis creates and unshares those values as raw strings, so OBJECT
// ENCODING reports raw whatever their length.
func markRaw(e *entry) { e.setKind(e.kind() | flagRaw) }

func registerBitmapFamily(t commandTable) {
	const rw, ro, fast, deny = FlagWrite, FlagReadOnly, FlagFast, FlagDenyOOM
	t.add(
		&Command{Name: "bitcount", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "2.6.0", Summary: "Counts the number of set bits (population counting) in a string.", Complexity: "O(N)", Handler: bitcountCommand},
		&Command{Name: "bitpos", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "2.8.7", Summary: "Finds the first set (1) or clear (0) bit in a string.", Complexity: "O(N)", Handler: bitposCommand},
		&Command{Name: "bitop", Arity: -4, Flags: rw | deny, FirstKey: 2, LastKey: -1, Step: 1, Group: "bitmap", Since: "2.6.0", Summary: "Performs bitwise operations on multiple strings, and stores the result.", Complexity: "O(N)", Handler: bitopCommand},
		&Command{Name: "bitfield", Arity: -2, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "3.2.0", Summary: "Performs arbitrary bitfield integer operations on strings.", Complexity: "O(1) for each subcommand specified", Handler: bitfieldCommand},
		&Command{Name: "bitfield_ro", Arity: -2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "6.0.0", Summary: "Performs arbitrary read-only bitfield integer operations on strings.", Complexity: "O(1) for each subcommand specified", Handler: bitfieldROCommand},
	)
}
