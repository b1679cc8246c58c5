package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"strconv"

	"github.com/ruvio/ruvio/types/num"
)

// stringOf returns the bytes of a string or string-like entry; ok is
// false when the entry holds another type.
func stringOf(db *keyspace.DB, e *keyspace.Entry) ([]byte, bool) {
	if o := db.Obj(e); o != nil {
		if sv, isV := o.(stringLike); isV {
			return sv.StringBytes(e), true
		}
		return nil, false
	}
	return db.Val(e), true
}

// stringValueOrReply returns the bytes of a string entry; ok is false (and
// WRONGTYPE has been replied) when the entry holds another type.
func stringValueOrReply(x *keyspace.Ctx, e *keyspace.Entry) ([]byte, bool) {
	v, ok := stringOf(x.DB, e)
	if !ok {
		x.W.Error(keyspace.ErrWrongType)
	}
	return v, ok
}

// getGeneric replies the string at key, or a null bulk when the key is
// missing, and returns its entry. It returns nil when the key is missing
// or holds another type (WRONGTYPE has been replied). GET, GETDEL and
// GETEX share it.
func getGeneric(x *keyspace.Ctx, key []byte) *keyspace.Entry {
	e := x.S.LookupRead(x.DB, key)
	if e == nil {
		x.W.Null()
		return nil
	}
	v, ok := stringValueOrReply(x, e)
	if !ok {
		return nil
	}
	x.W.Bulk(v)
	return e
}

// stringLike is implemented by value types that read as strings (GET works
// on them) but are not plain strings, such as versioned strings.
type stringLike interface {
	StringBytes(e *keyspace.Entry) []byte
}

// GET key
func getCommand(x *keyspace.Ctx) {
	getGeneric(x, x.Args[1])
}

// setFlags are the parsed options of SET.
type setFlags struct {
	nx, xx, get, keepTTL bool
	at                   int64 // absolute deadline in ms, 0 = none
	// ifeq is IFEQ's comparison value (Valkey 8.1): set only when the
	// current value is a string equal to it; nil when not given.
	ifeq []byte
}

// parseExpireArgOrReply converts an EX/PX/EXAT/PXAT value to an absolute
// deadline. It replies and returns false on error.
func parseExpireArgOrReply(x *keyspace.Ctx, unit string, arg []byte, cmd string) (int64, bool) {
	n, ok := keyspace.ParseInt(arg)
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return 0, false
	}
	if n <= 0 {
		x.W.Error(invalidExpireError(cmd))
		return 0, false
	}
	var at int64
	switch unit {
	case "ex":
		if n > math.MaxInt64/1000 || n*1000 > math.MaxInt64-x.S.NowMs {
			x.W.Error(invalidExpireError(cmd))
			return 0, false
		}
		at = x.S.NowMs + n*1000
	case "px":
		if n > math.MaxInt64-x.S.NowMs {
			x.W.Error(invalidExpireError(cmd))
			return 0, false
		}
		at = x.S.NowMs + n
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
	case keyspace.EqFold(a, "ex"):
		return "ex"
	case keyspace.EqFold(a, "px"):
		return "px"
	case keyspace.EqFold(a, "exat"):
		return "exat"
	case keyspace.EqFold(a, "pxat"):
		return "pxat"
	}
	return ""
}

// parseSetOptionsOrReply parses SET's options from args[3:]. As in Redis, an
// option may repeat (the last expiry wins) but may not conflict. IFEQ
// (Valkey 8.1) conflicts with NX and XX, and needs its value.
func parseSetOptionsOrReply(x *keyspace.Ctx, args [][]byte) (setFlags, bool) {
	var f setFlags
	expUnit := "" // "keepttl" or an expireUnit, once given
	for i := 3; i < len(args); i++ {
		a := args[i]
		unit := expireUnit(a)
		switch {
		case keyspace.EqFold(a, "nx") && !f.xx && f.ifeq == nil:
			f.nx = true
		case keyspace.EqFold(a, "xx") && !f.nx && f.ifeq == nil:
			f.xx = true
		case keyspace.EqFold(a, "ifeq") && !f.nx && !f.xx && i+1 < len(args):
			f.ifeq = args[i+1]
			i++
		case keyspace.EqFold(a, "get"):
			f.get = true
		case keyspace.EqFold(a, "keepttl") && (expUnit == "" || expUnit == "keepttl"):
			f.keepTTL = true
			expUnit = "keepttl"
		case unit != "" && (expUnit == "" || expUnit == unit) && i+1 < len(args):
			at, ok := parseExpireArgOrReply(x, unit, args[i+1], "set")
			if !ok {
				return f, false
			}
			f.at = at
			expUnit = unit
			i++
		default:
			x.W.Error(keyspace.ErrSyntax)
			return f, false
		}
	}
	return f, true
}

// SET key value [NX|XX|IFEQ comparison-value] [GET]
// [EX s|PX ms|EXAT ts|PXAT ms-ts|KEEPTTL]
func setCommand(x *keyspace.Ctx) {
	f := setFlags{}
	if len(x.Args) > 3 {
		var ok bool
		if f, ok = parseSetOptionsOrReply(x, x.Args); !ok {
			return
		}
	}
	setGeneric(x, x.Args[1], x.Args[2], f, true)
}

// setGeneric is the body shared by SET, SETNX, SETEX and PSETEX. okReply
// selects +OK/null (SET) rather than :1/:0 (SETNX).
func setGeneric(x *keyspace.Ctx, key, val []byte, f setFlags, okReply bool) {
	sh := x.S
	e := sh.Lookup(x.DB, key)
	if f.get {
		// GET replies the old value first, whether or not the value is
		// then set; a key of another type refuses the whole command.
		if e == nil {
			x.W.Null()
		} else {
			v, ok := stringValueOrReply(x, e)
			if !ok {
				return
			}
			x.W.Bulk(v)
		}
	}
	abort := (f.nx && e != nil) || (f.xx && e == nil)
	if f.ifeq != nil {
		// IFEQ: a missing key, or a string that differs, is not set. With
		// GET the old value has been replied (or WRONGTYPE, stopping here).
		if e == nil {
			abort = true
		} else {
			v, isStr := stringOf(x.DB, e)
			if !isStr {
				x.W.Error(keyspace.ErrWrongType)
				return
			}
			abort = string(v) != string(f.ifeq)
		}
	}
	if abort {
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
	if f.at != 0 && f.at <= sh.NowMs {
		// A deadline already in the past: the key ends up deleted.
		if e != nil {
			sh.DeleteKey(x.DB, key)
			x.Notify(keyspace.EvGeneric, "del", key)
		}
	} else {
		if x.OwnedArg(val) {
			e = sh.StoreStringOwned(x.DB, e, key, val, f.at, f.keepTTL)
		} else {
			e = sh.StoreStringIn(x.DB, e, key, val, f.at, f.keepTTL)
		}
		shardNoteChange(sh, noteSet, e.KeyView(), 0, false)
		x.Notify(keyspace.EvString, "set", key)
		if f.at != 0 {
			x.Notify(keyspace.EvGeneric, "expire", key)
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
func setnxCommand(x *keyspace.Ctx) {
	setGeneric(x, x.Args[1], x.Args[2], setFlags{nx: true}, false)
}

// SETEX key seconds value / PSETEX key milliseconds value
func setexCommand(x *keyspace.Ctx) {
	unit := "ex"
	if x.Cmd.Name == "psetex" {
		unit = "px"
	}
	at, ok := parseExpireArgOrReply(x, unit, x.Args[2], x.Cmd.Name)
	if !ok {
		return
	}
	setGeneric(x, x.Args[1], x.Args[3], setFlags{at: at}, true)
}

// MGET key [key ...]
func mgetCommand(x *keyspace.Ctx) {
	x.W.ArrayHeader(len(x.Args) - 1)
	for _, k := range x.Args[1:] {
		e := x.S.LookupRead(x.DB, k)
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
func msetCommand(x *keyspace.Ctx) {
	if len(x.Args)%2 != 1 {
		x.W.Error(keyspace.ErrWrongArgs(x.Cmd.Name))
		return
	}
	nx := x.Cmd.Name == "msetnx"
	if nx {
		for i := 1; i < len(x.Args); i += 2 {
			if x.S.Lookup(x.DB, x.Args[i]) != nil {
				x.W.Int(0)
				return
			}
		}
	}
	for i := 1; i < len(x.Args); i += 2 {
		if v := x.Args[i+1]; x.OwnedArg(v) {
			x.S.StoreStringOwned(x.DB, x.S.Lookup(x.DB, x.Args[i]), x.Args[i], v, 0, false)
		} else {
			x.S.StoreString(x.DB, x.Args[i], v, 0, false)
		}
		x.Notify(keyspace.EvString, "set", x.Args[i])
	}
	if nx {
		x.W.Int(1)
	} else {
		x.W.OK()
	}
}

// GETSET key value
func getsetCommand(x *keyspace.Ctx) {
	setGeneric(x, x.Args[1], x.Args[2], setFlags{get: true}, true)
}

// GETDEL key
func getdelCommand(x *keyspace.Ctx) {
	if getGeneric(x, x.Args[1]) != nil {
		x.S.DeleteKey(x.DB, x.Args[1])
		x.Notify(keyspace.EvGeneric, "del", x.Args[1])
	}
}

// DELIFEQ key value (Valkey 9.0): deletes the key when it holds a string
// equal to value; 1 when deleted, 0 otherwise (missing key or another
// value), WRONGTYPE when it holds another type.
func delifeqCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	e := x.S.Lookup(x.DB, key)
	if e == nil {
		x.W.Int(0)
		return
	}
	v, ok := stringValueOrReply(x, e)
	if !ok {
		return
	}
	if string(v) != string(x.Args[2]) {
		x.W.Int(0)
		return
	}
	x.S.DeleteKey(x.DB, key)
	x.Notify(keyspace.EvGeneric, "del", key)
	x.W.Int(1)
}

// GETEX key [EX s|PX ms|EXAT ts|PXAT ms-ts|PERSIST] and GETEX key ms
func getexCommand(x *keyspace.Ctx) {
	args := x.Args
	var at int64
	persist, change := false, false
	switch {
	case len(args) == 2:
	case len(args) == 3 && keyspace.EqFold(args[2], "persist"):
		persist, change = true, true
	case len(args) == 3:
		// GETEX key milliseconds: deadline is now plus the given time.
		n, ok := keyspace.ParseInt(args[2])
		if !ok {
			if args[2][0] >= '0' && args[2][0] <= '9' || args[2][0] == '-' {
				x.W.Error(keyspace.ErrNotInt)
			} else {
				x.W.Error(keyspace.ErrSyntax)
			}
			return
		}
		if n <= 0 || n > math.MaxInt64-x.S.NowMs {
			x.W.Error(invalidExpireError("getex"))
			return
		}
		at, change = x.S.NowMs+n, true
	default:
		// Options may repeat (the last wins) but not conflict.
		given := ""
		for i := 2; i < len(args); i++ {
			unit := expireUnit(args[i])
			switch {
			case keyspace.EqFold(args[i], "persist") && (given == "" || given == "persist"):
				persist, given = true, "persist"
			case unit != "" && (given == "" || given == unit) && i+1 < len(args):
				var ok bool
				if at, ok = parseExpireArgOrReply(x, unit, args[i+1], "getex"); !ok {
					return
				}
				given = unit
				i++
			default:
				x.W.Error(keyspace.ErrSyntax)
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
		if e.ExpireAt != 0 {
			x.DB.SetDeadline(e, 0)
			x.S.LogExpire(x.DB.ID, e.KeyView(), 0)
			x.Notify(keyspace.EvGeneric, "persist", args[1])
		}
		return
	}
	x.S.SetDeadline(x.DB, e, at)
	if at <= x.S.NowMs {
		x.Notify(keyspace.EvGeneric, "del", args[1])
	} else {
		x.Notify(keyspace.EvGeneric, "expire", args[1])
	}
}

// APPEND key value
func appendCommand(x *keyspace.Ctx) {
	sh := x.S
	e := sh.Lookup(x.DB, x.Args[1])
	add := x.Args[2]
	if e == nil {
		e = x.DB.Add(x.Args[1], keyspace.CopyBytes(add), nil, 0)
		sh.LogSet(x.DB.ID, e.KeyView(), x.DB.Val(e), 0)
		x.Notify(keyspace.EvNew, "new", x.Args[1])
		x.Notify(keyspace.EvString, "append", x.Args[1])
		x.W.Int(int64(len(x.DB.Val(e))))
		return
	}
	if x.DB.Obj(e) != nil {
		x.W.Error(keyspace.ErrWrongType)
		return
	}
	if int64(len(x.DB.Val(e))+len(add)) > x.S.Srv.Opts.Live.ProtoMaxBulkLen() {
		x.W.Error(keyspace.ErrStringTooBig)
		return
	}
	n := len(x.DB.Val(e))
	e = x.DB.ResizeVal(e, n+len(add))
	copy(x.DB.Val(e)[n:], add)
	sh.LogAppend(x.DB.ID, e.KeyView(), add)
	x.Notify(keyspace.EvString, "append", x.Args[1])
	x.W.Int(int64(len(x.DB.Val(e))))
}

// STRLEN key
func strlenCommand(x *keyspace.Ctx) {
	e := x.S.LookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	if v, ok := stringValueOrReply(x, e); ok {
		x.W.Int(int64(len(v)))
	}
}

// intValueOrReply returns the integer stored at key, 0 when the key is
// missing. It replies WRONGTYPE for a value of another type, or the
// not-an-integer error, and returns false when there is no integer.
func intValueOrReply(x *keyspace.Ctx, key []byte) (*keyspace.Entry, int64, bool) {
	e := x.S.Lookup(x.DB, key)
	if e == nil {
		return nil, 0, true
	}
	if x.DB.Obj(e) != nil {
		x.W.Error(keyspace.ErrWrongType)
		return e, 0, false
	}
	n, ok := keyspace.ParseInt(x.DB.Val(e))
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
	}
	return e, n, ok
}

// storeInt stores n at key (whose live entry is e, nil when absent) as a
// decimal string, keeping the key's TTL, and replies n.
func storeInt(x *keyspace.Ctx, e *keyspace.Entry, key []byte, n int64) {
	var tmp [20]byte
	x.S.StoreStringIn(x.DB, e, key, strconv.AppendInt(tmp[:0], n, 10), 0, true)
	x.Notify(keyspace.EvString, "incrby", key)
	x.W.Int(n)
}

// incrGeneric adds delta to the integer at key and replies the result.
func incrGeneric(x *keyspace.Ctx, delta int64) {
	e, cur, ok := intValueOrReply(x, x.Args[1])
	if !ok {
		return
	}
	if (delta < 0 && cur < 0 && delta < math.MinInt64-cur) || (delta > 0 && cur > 0 && delta > math.MaxInt64-cur) {
		x.W.Error(keyspace.ErrOverflow)
		return
	}
	storeInt(x, e, x.Args[1], cur+delta)
}

// INCR key / DECR key
func incrCommand(x *keyspace.Ctx) {
	if x.Cmd.Name == "decr" {
		incrGeneric(x, -1)
	} else {
		incrGeneric(x, 1)
	}
}

// INCRBY key increment / DECRBY key decrement
func incrbyCommand(x *keyspace.Ctx) {
	if len(x.Args) != 3 {
		// INCRBY key n MAX limit (keyjobs_counters.go).
		incrbyMaxCommand(x)
		return
	}
	n, ok := keyspace.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
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
func incrbyfloatCommand(x *keyspace.Ctx) {
	sh := x.S
	e := sh.Lookup(x.DB, x.Args[1])
	cur := num.LongDoubleFromInt(0)
	if e != nil {
		if x.DB.Obj(e) != nil {
			x.W.Error(keyspace.ErrWrongType)
			return
		}
		v, ok := num.ParseLongDouble(x.DB.Val(e))
		if !ok {
			x.W.Error(keyspace.ErrNotFloat)
			return
		}
		cur = v
	}
	incr, ok := num.ParseLongDouble(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotFloat)
		return
	}
	sum, ok := num.AddLongDouble(cur, incr)
	if !ok {
		x.W.Error("ERR increment would produce NaN or Infinity")
		return
	}
	var tmp [64]byte
	out := num.AppendLongDoubleHuman(tmp[:0], sum)
	sh.StoreStringIn(x.DB, e, x.Args[1], out, 0, true)
	x.Notify(keyspace.EvString, "incrbyfloat", x.Args[1])
	x.W.Bulk(out)
}

// GETRANGE key start end (and SUBSTR)
func getrangeCommand(x *keyspace.Ctx) {
	start, ok1 := keyspace.ParseInt(x.Args[2])
	end, ok2 := keyspace.ParseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	e := x.S.LookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Bulk(nil)
		return
	}
	v, ok := stringValueOrReply(x, e)
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
func setrangeCommand(x *keyspace.Ctx) {
	sh := x.S
	off, ok := keyspace.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if off < 0 {
		x.W.Error(keyspace.ErrOffsetRange)
		return
	}
	val := x.Args[3]
	e := sh.Lookup(x.DB, x.Args[1])
	if e != nil && x.DB.Obj(e) != nil {
		x.W.Error(keyspace.ErrWrongType)
		return
	}
	if len(val) == 0 {
		if e == nil {
			x.W.Int(0)
		} else {
			x.W.Int(int64(len(x.DB.Val(e))))
		}
		return
	}
	// off+len(val) may overflow: compare against the limit minus the
	// length instead, as Redis's checkStringLength guards its sum.
	if off > sh.Srv.Opts.Live.ProtoMaxBulkLen()-int64(len(val)) {
		x.W.Error(keyspace.ErrStringTooBig)
		return
	}
	end := int(off) + len(val)
	if e == nil {
		buf := make([]byte, end)
		copy(buf[off:], val)
		e = x.DB.AddStringOwned(x.Args[1], buf, 0)
		markRaw(e) // Redis builds the new string raw
		// Logged as the write, not the value: replay pads with zeros as
		// the command did, and the log grows by what the client sent.
		sh.LogSetRange(x.DB.ID, e.KeyView(), off, val)
		x.Notify(keyspace.EvNew, "new", x.Args[1])
		x.Notify(keyspace.EvString, "setrange", x.Args[1])
		x.W.Int(int64(len(x.DB.Val(e))))
		return
	}
	e = x.DB.ResizeVal(e, max(end, len(x.DB.Val(e))))
	copy(x.DB.Val(e)[off:], val)
	sh.LogSetRange(x.DB.ID, e.KeyView(), off, val)
	x.Notify(keyspace.EvString, "setrange", x.Args[1])
	x.W.Int(int64(len(x.DB.Val(e))))
}

// errBitOffset is the reply to a bad SETBIT/GETBIT offset.
const errBitOffset = "ERR bit offset is not an integer or out of range"

// parseBitOffsetOrReply parses the bit offset of SETBIT and GETBIT: a strict
// integer, not negative, whose byte lies below proto-max-bulk-len. It
// replies and returns false on error.
func parseBitOffsetOrReply(x *keyspace.Ctx, arg []byte) (int64, bool) {
	n, ok := keyspace.ParseInt(arg)
	if !ok || n < 0 || n>>3 >= x.S.Srv.Opts.Live.ProtoMaxBulkLen() {
		x.W.Error(errBitOffset)
		return 0, false
	}
	return n, true
}

// SETBIT key offset value: replies the bit's previous value; the string
// grows, zero-padded, to hold the bit.
func setbitCommand(x *keyspace.Ctx) {
	sh := x.S
	off, ok := parseBitOffsetOrReply(x, x.Args[2])
	if !ok {
		return
	}
	on, ok := keyspace.ParseInt(x.Args[3])
	if !ok || on&^1 != 0 {
		x.W.Error("ERR bit is not an integer or out of range")
		return
	}
	byteIdx := int(off >> 3)
	shift := 7 - uint(off&7)
	e := sh.Lookup(x.DB, x.Args[1])
	if e != nil && x.DB.Obj(e) != nil {
		x.W.Error(keyspace.ErrWrongType)
		return
	}
	if e == nil {
		buf := make([]byte, byteIdx+1)
		buf[byteIdx] = byte(on) << shift
		e = x.DB.AddStringOwned(x.Args[1], buf, 0)
		markRaw(e) // Redis builds a bitmap as a raw string
		// The last byte alone: replay pads the zeros before it, so a bit
		// far out costs the log a few bytes, not the whole string.
		sh.LogSetRange(x.DB.ID, e.KeyView(), int64(byteIdx), x.DB.Val(e)[byteIdx:])
		x.Notify(keyspace.EvNew, "new", x.Args[1])
		x.Notify(keyspace.EvString, "setbit", x.Args[1])
		x.W.Int(0)
		return
	}
	grew := false
	if byteIdx >= len(x.DB.Val(e)) {
		grew = true
		e = x.DB.ResizeVal(e, byteIdx+1)
	}
	// Redis makes the string raw before looking at the bit, even when
	// nothing changes.
	markRaw(e)
	b := x.DB.Val(e)[byteIdx]
	prev := int64(b>>shift) & 1
	if grew || prev != on {
		b = b&^(1<<shift) | byte(on)<<shift
		x.DB.Val(e)[byteIdx] = b
		sh.LogSetRange(x.DB.ID, e.KeyView(), int64(byteIdx), x.DB.Val(e)[byteIdx:byteIdx+1])
	}
	x.Notify(keyspace.EvString, "setbit", x.Args[1])
	x.W.Int(prev)
}

// GETBIT key offset: 0 past the end of the string or for a missing key.
func getbitCommand(x *keyspace.Ctx) {
	off, ok := parseBitOffsetOrReply(x, x.Args[2])
	if !ok {
		return
	}
	e := x.S.LookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	v, ok := stringValueOrReply(x, e)
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
func lcsCommand(x *keyspace.Ctx) {
	sh := x.S
	ea := sh.LookupRead(x.DB, x.Args[1])
	eb := sh.LookupRead(x.DB, x.Args[2])
	var a, b []byte
	for i, e := range [2]*keyspace.Entry{ea, eb} {
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
		case keyspace.EqFold(opt, "idx"):
			getIdx = true
		case keyspace.EqFold(opt, "len"):
			getLen = true
		case keyspace.EqFold(opt, "withmatchlen"):
			withMatchLen = true
		case keyspace.EqFold(opt, "minmatchlen") && j+1 < len(x.Args):
			n, ok := keyspace.ParseInt(x.Args[j+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			minMatch = max(n, 0)
			j++
		default:
			x.W.Error(keyspace.ErrSyntax)
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
	if cells*4 > uint64(sh.Srv.Opts.Live.ProtoMaxBulkLen()) {
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

func registerStringFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	t.Add(
		&keyspace.Command{Name: "get", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Returns the string value of a key.", Complexity: "O(1)", Handler: getCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "set", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", Complexity: "O(1)", Handler: setCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate|keyspace.KeyVariableFlags, 1, 0, 1)}},
		&keyspace.Command{Name: "setnx", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Set the string value of a key only when the key doesn't exist.", Complexity: "O(1)", Handler: setnxCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "setex", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.0.0", Summary: "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.", Complexity: "O(1)", Handler: setexCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "psetex", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.6.0", Summary: "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.", Complexity: "O(1)", Handler: setexCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "mget", Arity: -2, Flags: ro | fast, FirstKey: 1, LastKey: -1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Atomically returns the string values of one or more keys.", Complexity: "O(N) where N is the number of keys to retrieve.", Handler: mgetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, -1, 1)}, Tips: []string{tipMultiShard}},
		&keyspace.Command{Name: "mset", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: -1, Step: 2, Group: "string", Since: "1.0.1", Summary: "Atomically creates or modifies the string values of one or more keys.", Complexity: "O(N) where N is the number of keys to set.", Handler: msetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, -1, 2)}, Tips: []string{tipMultiShard, tipAllSucceeded}},
		&keyspace.Command{Name: "msetnx", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: -1, Step: 2, Group: "string", Since: "1.0.1", Summary: "Atomically modifies the string values of one or more keys only when all keys don't exist.", Complexity: "O(N) where N is the number of keys to set.", Handler: msetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyInsert, 1, -1, 2)}, Tips: []string{tipMultiShard, tipAggMin}},
		&keyspace.Command{Name: "getset", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Returns the previous string value of a key after setting it to a new value.", Complexity: "O(1)", Handler: getsetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "getdel", Arity: 2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "6.2.0", Summary: "Returns the string value of a key after deleting the key.", Complexity: "O(1)", Handler: getdelCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "delifeq", Arity: 3, Flags: rw, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "9.0.0", Summary: "Delete key if value matches string.", Complexity: "O(1)", Handler: delifeqCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRM|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "getex", Arity: -2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "6.2.0", Summary: "Returns the string value of a key after setting its expiration time; GETEX key milliseconds extends it by that many milliseconds from now.", Complexity: "O(1)", Handler: getexCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "append", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.0.0", Summary: "Appends a string to the value of a key. Creates the key if it doesn't exist.", Complexity: "O(1)", Handler: appendCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "strlen", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.2.0", Summary: "Returns the length of a string value.", Complexity: "O(1)", Handler: strlenCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
		&keyspace.Command{Name: "incr", Arity: 2, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "decr", Arity: 2, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "incrby", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrbyCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "decrby", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrbyCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "incrbyfloat", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.6.0", Summary: "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.", Complexity: "O(1)", Handler: incrbyfloatCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "getrange", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.4.0", Summary: "Returns a substring of the string stored at a key.", Complexity: "O(N) where N is the length of the returned string.", Handler: getrangeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "substr", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "1.0.0", Summary: "Returns a substring from a string value.", Complexity: "O(N) where N is the length of the returned string.", Handler: getrangeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "setbit", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "2.2.0", Summary: "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.", Complexity: "O(1)", Handler: setbitCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "getbit", Arity: 3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "bitmap", Since: "2.2.0", Summary: "Returns a bit value by offset.", Complexity: "O(1)", Handler: getbitCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "lcs", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 2, Step: 1, Group: "string", Since: "7.0.0", Summary: "Finds the longest common substring.", Complexity: "O(N*M) where N and M are the lengths of s1 and s2, respectively", Handler: lcsCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 1, 1)}},
		&keyspace.Command{Name: "setrange", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "2.2.0", Summary: "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", Complexity: "O(1), not counting the time taken to copy the new string in place.", Handler: setrangeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
	)
}
