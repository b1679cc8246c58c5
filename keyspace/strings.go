package keyspace

import (
	"math"
	"strconv"

	"github.com/ruvio/ruvio/types/num"
)

// stringOf returns the bytes of a string or string-like entry; ok is
// false when the entry holds another type.
func stringOf(db *DB, e *entry) ([]byte, bool) {
	if o := db.obj(e); o != nil {
		if sv, isV := o.(stringLike); isV {
			return sv.stringBytes(e), true
		}
		return nil, false
	}
	return db.val(e), true
}

// stringValue returns the bytes of a string entry; ok is false (and
// WRONGTYPE has been replied) when the entry holds another type.
func stringValue(x *Ctx, e *entry) ([]byte, bool) {
	v, ok := stringOf(x.DB, e)
	if !ok {
		x.W.Error(errWrongType)
	}
	return v, ok
}

// getGeneric replies the string at key, or a null bulk when the key is
// missing, and returns its entry. It returns nil when the key is missing
// or holds another type (WRONGTYPE has been replied). GET, GETDEL and
// GETEX share it.
func getGeneric(x *Ctx, key []byte) *entry {
	e := x.S.lookupRead(x.DB, key)
	if e == nil {
		x.W.Null()
		return nil
	}
	v, ok := stringValue(x, e)
	if !ok {
		return nil
	}
	x.W.Bulk(v)
	return e
}

// stringLike is implemented by value types that read as strings (GET works
// on them) but are not plain strings, such as versioned strings.
type stringLike interface {
	stringBytes(e *entry) []byte
}

// GET key
func getCommand(x *Ctx) {
	getGeneric(x, x.Args[1])
}

// setFlags are the parsed options of SET.
type setFlags struct {
	nx, xx, get, keepTTL bool
	at                   int64 // absolute deadline in ms, 0 = none
}

// parseExpireArg converts an EX/PX/EXAT/PXAT value to an absolute
// deadline. It replies and returns false on error.
func parseExpireArg(x *Ctx, unit string, arg []byte, cmd string) (int64, bool) {
	n, ok := parseInt(arg)
	if !ok {
		x.W.Error(errNotInt)
		return 0, false
	}
	if n <= 0 {
		x.W.Error(invalidExpireError(cmd))
		return 0, false
	}
	var at int64
	switch unit {
	case "ex":
		if n > math.MaxInt64/1000 || n*1000 > math.MaxInt64-x.S.nowMs {
			x.W.Error(invalidExpireError(cmd))
			return 0, false
		}
		at = x.S.nowMs + n*1000
	case "px":
		if n > math.MaxInt64-x.S.nowMs {
			x.W.Error(invalidExpireError(cmd))
			return 0, false
		}
		at = x.S.nowMs + n
	case "exat":
		if n > math.MaxInt64/1000 {
			x.W.Error(invalidExpireError(cmd))
			return 0, false
		}
		at = n * 1000
	case "pxat":
		at = n
	}
	return at, true
}

// expireUnit names the expiry option a is ("ex", "px", "exat", "pxat"), or
// "" when a is none of them.
func expireUnit(a []byte) string {
	switch {
	case eqFold(a, "ex"):
		return "ex"
	case eqFold(a, "px"):
		return "px"
	case eqFold(a, "exat"):
		return "exat"
	case eqFold(a, "pxat"):
		return "pxat"
	}
	return ""
}

// parseSetOptions parses SET's options from args[3:]. As in Redis, an
// option may repeat (the last expiry wins) but may not conflict.
func parseSetOptions(x *Ctx, args [][]byte) (setFlags, bool) {
	var f setFlags
	expUnit := "" // "keepttl" or an expireUnit, once given
	for i := 3; i < len(args); i++ {
		a := args[i]
		unit := expireUnit(a)
		switch {
		case eqFold(a, "nx") && !f.xx:
			f.nx = true
		case eqFold(a, "xx") && !f.nx:
			f.xx = true
		case eqFold(a, "get"):
			f.get = true
		case eqFold(a, "keepttl") && (expUnit == "" || expUnit == "keepttl"):
			f.keepTTL = true
			expUnit = "keepttl"
		case unit != "" && (expUnit == "" || expUnit == unit) && i+1 < len(args):
			at, ok := parseExpireArg(x, unit, args[i+1], "set")
			if !ok {
				return f, false
			}
			f.at = at
			expUnit = unit
			i++
		default:
			x.W.Error(errSyntax)
			return f, false
		}
	}
	return f, true
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ms-ts|KEEPTTL]
func setCommand(x *Ctx) {
	f := setFlags{}
	if len(x.Args) > 3 {
		var ok bool
		if f, ok = parseSetOptions(x, x.Args); !ok {
			return
		}
	}
	setGeneric(x, x.Args[1], x.Args[2], f, true)
}

// setGeneric is the body shared by SET, SETNX, SETEX and PSETEX. okReply
// selects +OK/null (SET) rather than :1/:0 (SETNX).
func setGeneric(x *Ctx, key, val []byte, f setFlags, okReply bool) {
	sh := x.S
	e := sh.lookup(x.DB, key)
	if f.get {
		// GET replies the old value first, whether or not the value is
		// then set; a key of another type refuses the whole command.
		if e == nil {
			x.W.Null()
		} else {
			v, ok := stringValue(x, e)
			if !ok {
				return
			}
			x.W.Bulk(v)
		}
	}
	if (f.nx && e != nil) || (f.xx && e == nil) {
		if f.get {
			return
		}
		if okReply {
			x.W.Null()
		} else {
			x.W.Int(0)
		}
		return
	}
	if f.at != 0 && f.at <= sh.nowMs {
		// A deadline already in the past: the key ends up deleted.
		if e != nil {
			sh.deleteKey(x.DB, key)
			x.notify(evGeneric, "del", key)
		}
	} else {
		if x.ownedArg(val) {
			e = sh.storeStringOwned(x.DB, e, key, val, f.at, f.keepTTL)
		} else {
			e = sh.storeStringIn(x.DB, e, key, val, f.at, f.keepTTL)
		}
		sh.noteChange(noteSet, e.keyView(), 0, false)
		x.notify(evString, "set", key)
		if f.at != 0 {
			x.notify(evGeneric, "expire", key)
		}
	}
	if f.get {
		return
	}
	if okReply {
		x.W.OK()
	} else {
		x.W.Int(1)
	}
}

// SETNX key value
func setnxCommand(x *Ctx) {
	setGeneric(x, x.Args[1], x.Args[2], setFlags{nx: true}, false)
}

// SETEX key seconds value / PSETEX key milliseconds value
func setexCommand(x *Ctx) {
	unit := "ex"
	if x.Cmd.Name == "psetex" {
		unit = "px"
	}
	at, ok := parseExpireArg(x, unit, x.Args[2], x.Cmd.Name)
	if !ok {
		return
	}
	setGeneric(x, x.Args[1], x.Args[3], setFlags{at: at}, true)
}

// MGET key [key ...]
func mgetCommand(x *Ctx) {
	x.W.ArrayHeader(len(x.Args) - 1)
	for _, k := range x.Args[1:] {
		e := x.S.lookupRead(x.DB, k)
		if e == nil {
			x.W.Null()
			continue
		}
		if v, ok := stringOf(x.DB, e); ok {
			x.W.Bulk(v)
		} else {
			x.W.Null()
		}
	}
}

// MSET key value [key value ...] / MSETNX
func msetCommand(x *Ctx) {
	if len(x.Args)%2 != 1 {
		x.W.Error(errWrongArgs(x.Cmd.Name))
		return
	}
	nx := x.Cmd.Name == "msetnx"
	if nx {
		for i := 1; i < len(x.Args); i += 2 {
			if x.S.lookup(x.DB, x.Args[i]) != nil {
				x.W.Int(0)
				return
			}
		}
	}
	for i := 1; i < len(x.Args); i += 2 {
		if v := x.Args[i+1]; x.ownedArg(v) {
			x.S.storeStringOwned(x.DB, x.S.lookup(x.DB, x.Args[i]), x.Args[i], v, 0, false)
		} else {
			x.S.storeString(x.DB, x.Args[i], v, 0, false)
		}
		x.notify(evString, "set", x.Args[i])
	}
	if nx {
		x.W.Int(1)
	} else {
		x.W.OK()
	}
}

// GETSET key value
func getsetCommand(x *Ctx) {
	setGeneric(x, x.Args[1], x.Args[2], setFlags{get: true}, true)
}

// GETDEL key
func getdelCommand(x *Ctx) {
	if getGeneric(x, x.Args[1]) != nil {
		x.S.deleteKey(x.DB, x.Args[1])
		x.notify(evGeneric, "del", x.Args[1])
	}
}

// GETEX key [EX s|PX ms|EXAT ts|PXAT ms-ts|PERSIST] and GETEX key ms
func getexCommand(x *Ctx) {
	args := x.Args
	var at int64
	persist, change := false, false
	switch {
	case len(args) == 2:
	case len(args) == 3 && eqFold(args[2], "persist"):
		persist, change = true, true
	case len(args) == 3:
		// GETEX key milliseconds: deadline is now plus the given time.
		n, ok := parseInt(args[2])
		if !ok {
			if args[2][0] >= '0' && args[2][0] <= '9' || args[2][0] == '-' {
				x.W.Error(errNotInt)
			} else {
				x.W.Error(errSyntax)
			}
			return
		}
		if n <= 0 || n > math.MaxInt64-x.S.nowMs {
			x.W.Error(invalidExpireError("getex"))
			return
		}
		at, change = x.S.nowMs+n, true
	default:
		// Options may repeat (the last wins) but not conflict.
		given := ""
		for i := 2; i < len(args); i++ {
			unit := expireUnit(args[i])
			switch {
			case eqFold(args[i], "persist") && (given == "" || given == "persist"):
				persist, given = true, "persist"
			case unit != "" && (given == "" || given == unit) && i+1 < len(args):
				var ok bool
				if at, ok = parseExpireArg(x, unit, args[i+1], "getex"); !ok {
					return
				}
				given = unit
				i++
			default:
				x.W.Error(errSyntax)
				return
			}
		}
		change = true
	}
	e := getGeneric(x, args[1])
	if e == nil || !change {
		return
	}
	if persist {
		if e.expireAt != 0 {
			x.DB.setDeadline(e, 0)
			x.S.logExpire(x.DB.id, e.keyView(), 0)
			x.notify(evGeneric, "persist", args[1])
		}
		return
	}
	x.S.setDeadline(x.DB, e, at)
	if at <= x.S.nowMs {
		x.notify(evGeneric, "del", args[1])
	} else {
		x.notify(evGeneric, "expire", args[1])
	}
}

// APPEND key value
func appendCommand(x *Ctx) {
	sh := x.S
	e := sh.lookup(x.DB, x.Args[1])
	add := x.Args[2]
	if e == nil {
		e = x.DB.add(x.Args[1], copyBytes(add), nil, 0)
		sh.logSet(x.DB.id, e.keyView(), x.DB.val(e), 0)
		x.notify(evNew, "new", x.Args[1])
		x.notify(evString, "append", x.Args[1])
		x.W.Int(int64(len(x.DB.val(e))))
		return
	}
	if x.DB.obj(e) != nil {
		x.W.Error(errWrongType)
		return
	}
	if int64(len(x.DB.val(e))+len(add)) > x.S.srv.opts.Live.ProtoMaxBulkLen() {
		x.W.Error(errStringTooBig)
		return
	}
	n := len(x.DB.val(e))
	e = x.DB.resizeVal(e, n+len(add))
	copy(x.DB.val(e)[n:], add)
	sh.logAppend(x.DB.id, e.keyView(), add)
	x.notify(evString, "append", x.Args[1])
	x.W.Int(int64(len(x.DB.val(e))))
}

// STRLEN key
func strlenCommand(x *Ctx) {
	e := x.S.lookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	if v, ok := stringValue(x, e); ok {
		x.W.Int(int64(len(v)))
	}
}

// intValueOrReply returns the integer stored at key, 0 when the key is
// missing. It replies WRONGTYPE for a value of another type, or the
// not-an-integer error, and returns false when there is no integer.
func intValueOrReply(x *Ctx, key []byte) (*entry, int64, bool) {
	e := x.S.lookup(x.DB, key)
	if e == nil {
		return nil, 0, true
	}
	if x.DB.obj(e) != nil {
		x.W.Error(errWrongType)
		return e, 0, false
	}
	n, ok := parseInt(x.DB.val(e))
	if !ok {
		x.W.Error(errNotInt)
	}
	return e, n, ok
}

// storeInt stores n at key (whose live entry is e, nil when absent) as a
// decimal string, keeping the key's TTL, and replies n.
func storeInt(x *Ctx, e *entry, key []byte, n int64) {
	var tmp [20]byte
	x.S.storeStringIn(x.DB, e, key, strconv.AppendInt(tmp[:0], n, 10), 0, true)
	x.notify(evString, "incrby", key)
	x.W.Int(n)
}

// incrGeneric adds delta to the integer at key and replies the result.
func incrGeneric(x *Ctx, delta int64) {
	e, cur, ok := intValueOrReply(x, x.Args[1])
	if !ok {
		return
	}
	if (delta < 0 && cur < 0 && delta < math.MinInt64-cur) || (delta > 0 && cur > 0 && delta > math.MaxInt64-cur) {
		x.W.Error(errOverflow)
		return
	}
	storeInt(x, e, x.Args[1], cur+delta)
}

// INCR key / DECR key
func incrCommand(x *Ctx) {
	if x.Cmd.Name == "decr" {
		incrGeneric(x, -1)
	} else {
		incrGeneric(x, 1)
	}
}

// INCRBY key increment / DECRBY key decrement
func incrbyCommand(x *Ctx) {
	if len(x.Args) != 3 {
		// INCRBY key n MAX limit (keyjobs_counters.go).
		incrbyMaxCommand(x)
		return
	}
	n, ok := parseInt(x.Args[2])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	if x.Cmd.Name == "decrby" {
		if n == math.MinInt64 {
			x.W.Error("ERR decrement would overflow")
			return
		}
		n = -n
	}
	incrGeneric(x, n)
}

// INCRBYFLOAT key increment
//
// The sum is computed with C's long double precision and range and printed
// as Redis prints it (types/num), so results match Redis digit for digit:
// 10.5 + 0.1 is 10.6, not float64's 10.6 of 10.59999....
func incrbyfloatCommand(x *Ctx) {
	sh := x.S
	e := sh.lookup(x.DB, x.Args[1])
	cur := num.LongDoubleFromInt(0)
	if e != nil {
		if x.DB.obj(e) != nil {
			x.W.Error(errWrongType)
			return
		}
		v, ok := num.ParseLongDouble(x.DB.val(e))
		if !ok {
			x.W.Error(errNotFloat)
			return
		}
		cur = v
	}
	incr, ok := num.ParseLongDouble(x.Args[2])
	if !ok {
		x.W.Error(errNotFloat)
		return
	}
	sum, ok := num.AddLongDouble(cur, incr)
	if !ok {
		x.W.Error("ERR increment would produce NaN or Infinity")
		return
	}
	var tmp [64]byte
	out := num.AppendLongDoubleHuman(tmp[:0], sum)
	sh.storeStringIn(x.DB, e, x.Args[1], out, 0, true)
	x.notify(evString, "incrbyfloat", x.Args[1])
	x.W.Bulk(out)
}

// GETRANGE key start end (and SUBSTR)
func getrangeCommand(x *Ctx) {
	start, ok1 := parseInt(x.Args[2])
	end, ok2 := parseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.W.Error(errNotInt)
		return
	}
	e := x.S.lookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Bulk(nil)
		return
	}
	v, ok := stringValue(x, e)
	if !ok {
		return
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		x.W.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if n == 0 || start > end {
		x.W.Bulk(nil)
		return
	}
	x.W.Bulk(v[start : end+1])
}

// SETRANGE key offset value
func setrangeCommand(x *Ctx) {
	sh := x.S
	off, ok := parseInt(x.Args[2])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	if off < 0 {
		x.W.Error(errOffsetRange)
		return
	}
	val := x.Args[3]
	e := sh.lookup(x.DB, x.Args[1])
	if e != nil && x.DB.obj(e) != nil {
		x.W.Error(errWrongType)
		return
	}
	if len(val) == 0 {
		if e == nil {
			x.W.Int(0)
		} else {
			x.W.Int(int64(len(x.DB.val(e))))
		}
		return
	}
	// off+len(val) may overflow: compare against the limit minus the
	// length instead, as Redis's checkStringLength guards its sum.
	if off > sh.srv.opts.Live.ProtoMaxBulkLen()-int64(len(val)) {
		x.W.Error(errStringTooBig)
		return
	}
	end := int(off) + len(val)
	if e == nil {
		buf := make([]byte, end)
		copy(buf[off:], val)
		e = x.DB.addStringOwned(x.Args[1], buf, 0)
		markRaw(e) // Redis builds the new string raw
		// Logged as the write, not the value: replay pads with zeros as
		// the command did, and the log grows by what the client sent.
		sh.logSetRange(x.DB.id, e.keyView(), off, val)
		x.notify(evNew, "new", x.Args[1])
		x.notify(evString, "setrange", x.Args[1])
		x.W.Int(int64(len(x.DB.val(e))))
		return
	}
	e = x.DB.resizeVal(e, max(end, len(x.DB.val(e))))
	copy(x.DB.val(e)[off:], val)
	sh.logSetRange(x.DB.id, e.keyView(), off, val)
	x.notify(evString, "setrange", x.Args[1])
	x.W.Int(int64(len(x.DB.val(e))))
}

// errBitOffset is the reply to a bad SETBIT/GETBIT offset.
const errBitOffset = "ERR bit offset is not an integer or out of range"

// parseBitOffset parses the bit offset of SETBIT and GETBIT: a strict
// integer, not negative, whose byte lies below proto-max-bulk-len. It
// replies and returns false on error.
func parseBitOffset(x *Ctx, arg []byte) (int64, bool) {
	n, ok := parseInt(arg)
	if !ok || n < 0 || n>>3 >= x.S.srv.opts.Live.ProtoMaxBulkLen() {
		x.W.Error(errBitOffset)
		return 0, false
	}
	return n, true
}

// SETBIT key offset value: replies the bit's previous value; the string
// grows, zero-padded, to hold the bit.
func setbitCommand(x *Ctx) {
	sh := x.S
	off, ok := parseBitOffset(x, x.Args[2])
	if !ok {
		return
	}
	on, ok := parseInt(x.Args[3])
	if !ok || on&^1 != 0 {
		x.W.Error("ERR bit is not an integer or out of range")
		return
	}
	byteIdx := int(off >> 3)
	shift := 7 - uint(off&7)
	e := sh.lookup(x.DB, x.Args[1])
	if e != nil && x.DB.obj(e) != nil {
		x.W.Error(errWrongType)
		return
	}
	if e == nil {
		buf := make([]byte, byteIdx+1)
		buf[byteIdx] = byte(on) << shift
		e = x.DB.addStringOwned(x.Args[1], buf, 0)
		markRaw(e) // Redis builds a bitmap as a raw string
		// The last byte alone: replay pads the zeros before it, so a bit
		// far out costs the log a few bytes, not the whole string.
		sh.logSetRange(x.DB.id, e.keyView(), int64(byteIdx), x.DB.val(e)[byteIdx:])
		x.notify(evNew, "new", x.Args[1])
		x.notify(evString, "setbit", x.Args[1])
		x.W.Int(0)
		return
	}
	grew := false
	if byteIdx >= len(x.DB.val(e)) {
		grew = true
		e = x.DB.resizeVal(e, byteIdx+1)
	}
	// Redis makes the string raw before looking at the bit, even when
	// nothing changes.
	markRaw(e)
	b := x.DB.val(e)[byteIdx]
	prev := int64(b>>shift) & 1
	if grew || prev != on {
		b = b&^(1<<shift) | byte(on)<<shift
		x.DB.val(e)[byteIdx] = b
		sh.logSetRange(x.DB.id, e.keyView(), int64(byteIdx), x.DB.val(e)[byteIdx:byteIdx+1])
	}
	x.notify(evString, "setbit", x.Args[1])
	x.W.Int(prev)
}

// GETBIT key offset: 0 past the end of the string or for a missing key.
func getbitCommand(x *Ctx) {
	off, ok := parseBitOffset(x, x.Args[2])
	if !ok {
		return
	}
	e := x.S.lookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	v, ok := stringValue(x, e)
	if !ok {
		return
	}
	byteIdx := off >> 3
	if byteIdx >= int64(len(v)) {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(v[byteIdx]>>(7-uint(off&7))) & 1)
}

// lcsRange is one matching range of LCS ... IDX: a[aStart..aEnd] equals
// b[bStart..bEnd].
type lcsRange struct{ aStart, aEnd, bStart, bEnd int }

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the longest
// common subsequence of two strings by the classic dynamic programming
// table, walked back from the end as Redis walks it, so the reported
// ranges and the chosen subsequence are the ones Redis reports.
func lcsCommand(x *Ctx) {
	sh := x.S
	ea := sh.lookupRead(x.DB, x.Args[1])
	eb := sh.lookupRead(x.DB, x.Args[2])
	var a, b []byte
	for i, e := range [2]*entry{ea, eb} {
		if e == nil {
			continue
		}
		v, ok := stringOf(x.DB, e)
		if !ok {
			x.W.Error("ERR The specified keys must contain string values")
			return
		}
		if i == 0 {
			a = v
		} else {
			b = v
		}
	}
	var minMatch int64
	getLen, getIdx, withMatchLen := false, false, false
	for j := 3; j < len(x.Args); j++ {
		opt := x.Args[j]
		switch {
		case eqFold(opt, "idx"):
			getIdx = true
		case eqFold(opt, "len"):
			getLen = true
		case eqFold(opt, "withmatchlen"):
			withMatchLen = true
		case eqFold(opt, "minmatchlen") && j+1 < len(x.Args):
			n, ok := parseInt(x.Args[j+1])
			if !ok {
				x.W.Error(errNotInt)
				return
			}
			minMatch = max(n, 0)
			j++
		default:
			x.W.Error(errSyntax)
			return
		}
	}
	if getIdx && getLen {
		x.W.Error("ERR If you want both the length and indexes, please just use IDX.")
		return
	}
	if int64(len(a)) >= math.MaxUint32-1 || int64(len(b)) >= math.MaxUint32-1 {
		x.W.Error("ERR String too long for LCS")
		return
	}
	alen, blen := len(a), len(b)
	cells := uint64(alen+1) * uint64(blen+1)
	if cells*4 > uint64(sh.srv.opts.Live.ProtoMaxBulkLen()) {
		x.W.Error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
		return
	}
	w := blen + 1
	tbl := make([]uint32, cells)
	for i := 1; i <= alen; i++ {
		row, prev := tbl[i*w:(i+1)*w], tbl[(i-1)*w:i*w]
		for j := 1; j <= blen; j++ {
			if a[i-1] == b[j-1] {
				row[j] = prev[j-1] + 1
			} else {
				row[j] = max(prev[j], row[j-1])
			}
		}
	}
	total := int(tbl[alen*w+blen])
	if getLen {
		x.W.Int(int64(total))
		return
	}
	result := make([]byte, total)
	var ranges []lcsRange
	idx := total
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0 // aStart == alen: no open range
	i, j := alen, blen
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				// Contiguous with the open range: extend it backward.
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if tbl[(i-1)*w+j] > tbl[i*w+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			if getIdx && (minMatch == 0 || int64(aEnd-aStart+1) >= minMatch) {
				ranges = append(ranges, lcsRange{aStart, aEnd, bStart, bEnd})
			}
			aStart = alen
		}
	}
	if !getIdx {
		x.W.Bulk(result)
		return
	}
	x.W.MapHeader(2)
	x.W.BulkString("matches")
	x.W.ArrayHeader(len(ranges))
	for _, r := range ranges {
		if withMatchLen {
			x.W.ArrayHeader(3)
		} else {
			x.W.ArrayHeader(2)
		}
		x.W.ArrayHeader(2)
		x.W.Int(int64(r.aStart))
		x.W.Int(int64(r.aEnd))
		x.W.ArrayHeader(2)
		x.W.Int(int64(r.bStart))
		x.W.Int(int64(r.bEnd))
		if withMatchLen {
			x.W.Int(int64(r.aEnd - r.aStart + 1))
		}
	}
	x.W.BulkString("len")
	x.W.Int(int64(total))
}

func registerStringFamily(t commandTable) {
	const rw, ro, fast, deny = FlagWrite, FlagReadOnly, FlagFast, FlagDenyOOM
	t.add(
		&Command{Name: "get", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Returns the string value of a key.", Complexity: "O(1)", Handler: getCommand},
		&Command{Name: "set", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", Complexity: "O(1)", Handler: setCommand},
		&Command{Name: "setnx", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Set the string value of a key only when the key doesn't exist.", Complexity: "O(1)", Handler: setnxCommand},
		&Command{Name: "setex", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.0.0", Summary: "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.", Complexity: "O(1)", Handler: setexCommand},
		&Command{Name: "psetex", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.6.0", Summary: "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.", Complexity: "O(1)", Handler: setexCommand},
		&Command{Name: "mget", Arity: -2, Flags: ro | fast, FirstKey: 1, LastKey: -1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Atomically returns the string values of one or more keys.", Complexity: "O(N) where N is the number of keys to retrieve.", Handler: mgetCommand},
		&Command{Name: "mset", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: -1, Step: 2, Group: "string", Since: "1.0.1", Summary: "Atomically creates or modifies the string values of one or more keys.", Complexity: "O(N) where N is the number of keys to set.", Handler: msetCommand},
		&Command{Name: "msetnx", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: -1, Step: 2, Group: "string", Since: "1.0.1", Summary: "Atomically modifies the string values of one or more keys only when all keys don't exist.", Complexity: "O(N) where N is the number of keys to set.", Handler: msetCommand},
		&Command{Name: "getset", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Returns the previous string value of a key after setting it to a new value.", Complexity: "O(1)", Handler: getsetCommand},
		&Command{Name: "getdel", Arity: 2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "6.2.0", Summary: "Returns the string value of a key after deleting the key.", Complexity: "O(1)", Handler: getdelCommand},
		&Command{Name: "getex", Arity: -2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "6.2.0", Summary: "Returns the string value of a key after setting its expiration time; GETEX key milliseconds extends it by that many milliseconds from now.", Complexity: "O(1)", Handler: getexCommand},
		&Command{Name: "append", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.0.0", Summary: "Appends a string to the value of a key. Creates the key if it doesn't exist.", Complexity: "O(1)", Handler: appendCommand},
		&Command{Name: "strlen", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.2.0", Summary: "Returns the length of a string value.", Complexity: "O(1)", Handler: strlenCommand},
		&Command{Name: "incr", Arity: 2, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrCommand},
		&Command{Name: "decr", Arity: 2, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrCommand},
		&Command{Name: "incrby", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrbyCommand},
		&Command{Name: "decrby", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrbyCommand},
		&Command{Name: "incrbyfloat", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.6.0", Summary: "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrbyfloatCommand},
		&Command{Name: "getrange", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.4.0", Summary: "Returns a substring of the string stored at a key.", Complexity: "O(N) where N is the length of the returned string.", Handler: getrangeCommand},
		&Command{Name: "substr", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Returns a substring from a string value.", Complexity: "O(N) where N is the length of the returned string.", Handler: getrangeCommand},
		&Command{Name: "setbit", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "2.2.0", Summary: "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.", Complexity: "O(1)", Handler: setbitCommand},
		&Command{Name: "getbit", Arity: 3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "2.2.0", Summary: "Returns a bit value by offset.", Complexity: "O(1)", Handler: getbitCommand},
		&Command{Name: "lcs", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 2, Step: 1, Group: "string", Since: "7.0.0", Summary: "Finds the longest common substring.", Complexity: "O(N*M) where N and M are the lengths of s1 and s2, respectively", Handler: lcsCommand},
		&Command{Name: "setrange", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.2.0", Summary: "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", Complexity: "O(1), not counting the time taken to copy the new string in place.", Handler: setrangeCommand},
	)
}
