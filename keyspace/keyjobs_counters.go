package keyspace

import (
	"math"

	"github.com/ruvio/ruvio/persistence"
)

// limitObj is the value of a LIMIT key: the calls admitted in the current
// window. The window is the key's deadline, so an unused window simply
// expires.
type limitObj struct {
	count int64
}

func (l *limitObj) typeName() string        { return "limit" }
func (l *limitObj) encoding() string        { return "limit" }
func (l *limitObj) clone() any              { c := *l; return &c }
func (l *limitObj) memoryUsage(int64) int64 { return 8 }
func (l *limitObj) snapshotKind() uint8     { return kindLimit }
func (l *limitObj) appendSnapshot(dst []byte) []byte {
	return persistence.AppendU64(dst, uint64(l.count))
}

// onceObj is the value of a ONCE key. It holds nothing (the key and its
// deadline are the whole state), so storing it allocates nothing.
type onceObj struct{}

func (onceObj) typeName() string                 { return "once" }
func (onceObj) encoding() string                 { return "once" }
func (onceObj) clone() any                       { return onceObj{} }
func (onceObj) snapshotKind() uint8              { return kindOnce }
func (onceObj) appendSnapshot(dst []byte) []byte { return dst }
func (onceObj) memoryUsage(samples int64) int64  { return 0 }

// setvObj is a versioned string: it reads as a string (GET, MGET, STRLEN,
// GETRANGE, TYPE string) but only SETV with the current version changes
// it. A plain SET replaces it with a plain string; INCR-family commands,
// APPEND and SETRANGE refuse it.
type setvObj struct {
	version int64
	val     []byte
}

func (v *setvObj) stringBytes(*entry) []byte { return v.val }
func (v *setvObj) clone() any {
	return &setvObj{version: v.version, val: copyBytes(v.val)}
}
func (v *setvObj) memoryUsage(int64) int64 { return 32 + int64(cap(v.val)) }
func (v *setvObj) snapshotKind() uint8     { return kindSetV }

// appendSnapshot encodes version u64 then the value bytes to the end.
func (v *setvObj) appendSnapshot(dst []byte) []byte {
	dst = persistence.AppendU64(dst, uint64(v.version))
	return append(dst, v.val...)
}

// LIMIT key max window_ms
func limitCommand(x *Ctx) {
	limit, ok := parsePositive(x, x.Args[2], errPositiveMax)
	if !ok {
		return
	}
	at, ok := parseTTLArg(x, x.Args[3])
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	e := sh.lookup(db, x.Args[1])
	if e == nil {
		e = db.add(x.Args[1], nil, &limitObj{count: 1}, at)
		sh.logLimit(db.id, e.keyView(), 1, at)
		x.W.Int(limit - 1)
		return
	}
	l, isLimit := db.obj(e).(*limitObj)
	if !isLimit {
		x.W.Error(errWrongType)
		return
	}
	if l.count >= limit {
		x.W.Null()
		return
	}
	l.count++
	sh.logLimit(db.id, e.keyView(), l.count, e.expireAt)
	x.W.Int(limit - l.count)
}

// ONCE key ttl_ms
func onceCommand(x *Ctx) {
	at, ok := parseTTLArg(x, x.Args[2])
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	if e := sh.lookup(db, x.Args[1]); e != nil {
		if _, isOnce := db.obj(e).(onceObj); !isOnce {
			x.W.Error(errWrongType)
			return
		}
		x.W.Int(0)
		return
	}
	e := db.add(x.Args[1], nil, onceObj{}, at)
	sh.logOnce(db.id, e.keyView(), at)
	x.W.Int(1)
}

// TAKE key count
func takeCommand(x *Ctx) {
	n, ok := parsePositive(x, x.Args[2], errPositiveCount)
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	e := sh.lookup(db, x.Args[1])
	if e == nil {
		x.W.Null()
		return
	}
	if db.obj(e) != nil {
		x.W.Error(errWrongType)
		return
	}
	cur, isInt := parseInt(db.val(e))
	if !isInt {
		x.W.Error(errWrongType)
		return
	}
	if cur < n {
		x.W.Null()
		return
	}
	storeInt(x, e, x.Args[1], cur-n)
}

// incrbyMaxCommand is INCRBY key n MAX limit: it adds n only when the
// result stays at or below limit, else replies a null bulk and writes
// nothing. incrbyCommand hands every call with more than three arguments
// here.
func incrbyMaxCommand(x *Ctx) {
	if len(x.Args) != 5 || !eqFold(x.Args[3], "max") {
		x.W.Error(errSyntax)
		return
	}
	n, ok1 := parseInt(x.Args[2])
	limit, ok2 := parseInt(x.Args[4])
	if !ok1 || !ok2 {
		x.W.Error(errNotInt)
		return
	}
	e, cur, ok := intValueOrReply(x, x.Args[1])
	if !ok {
		return
	}
	if n > 0 && cur > 0 && n > math.MaxInt64-cur {
		// The sum is above every int64, so above limit: a rejection like
		// any other, not an error.
		x.W.Null()
		return
	}
	if n < 0 && cur < 0 && n < math.MinInt64-cur {
		x.W.Error(errOverflow)
		return
	}
	cur += n
	if cur > limit {
		x.W.Null()
		return
	}
	storeInt(x, e, x.Args[1], cur)
}

// SETV key value [version]
func setvCommand(x *Ctx) {
	args := x.Args
	if len(args) > 4 {
		x.W.Error(errSyntax)
		return
	}
	var want int64
	if len(args) == 4 {
		var ok bool
		if want, ok = parsePositive(x, args[3], errSetVVersion); !ok {
			return
		}
	}
	sh, db := x.S, x.DB
	e := sh.lookup(db, args[1])
	if e == nil {
		if want != 0 {
			x.W.Error(errSetVNoKey)
			return
		}
		v := &setvObj{version: 1, val: copyBytes(args[2])}
		e = db.add(args[1], nil, v, 0)
		sh.logSetV(db.id, e.keyView(), v.val, 1, 0)
		sh.noteChange(noteSetV, e.keyView(), 1, true)
		x.W.Int(1)
		return
	}
	switch v := db.obj(e).(type) {
	case *setvObj:
		switch {
		case want == 0:
			x.W.Error(errSetVExists)
			return
		case want != v.version:
			x.W.Error(errSetVMismatch)
			return
		case v.version == math.MaxInt64:
			x.W.Error(errSetVOverflow)
			return
		}
		val := args[2]
		if cap(v.val) >= len(val) && cap(v.val) <= 2*len(val)+16 {
			v.val = v.val[:len(val)]
			copy(v.val, val)
		} else {
			v.val = copyBytes(val)
		}
		v.version++
		sh.logSetV(db.id, e.keyView(), v.val, v.version, e.expireAt)
		sh.noteChange(noteSetV, e.keyView(), v.version, true)
		x.W.Int(v.version)
	case nil:
		// A plain string has no version to match.
		if want == 0 {
			x.W.Error(errSetVExists)
		} else {
			x.W.Error(errSetVMismatch)
		}
	default:
		x.W.Error(errWrongType)
	}
}
