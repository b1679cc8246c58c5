package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
)

// LIMIT key max window_ms
func limitCommand(x *keyspace.Ctx) {
	limit, ok := parsePositiveOrReply(x, x.Args[2], errPositiveMax)
	if !ok {
		return
	}
	at, ok := parseTTLArgOrReply(x, x.Args[3])
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	e := sh.Lookup(db, x.Args[1])
	if e == nil {
		e = db.Add(x.Args[1], nil, &keyspace.LimitObj{Count: 1}, at)
		sh.LogLimit(db.ID, e.KeyView(), 1, at)
		x.W.Int(limit - 1)
		return
	}
	l, isLimit := db.Obj(e).(*keyspace.LimitObj)
	if !isLimit {
		x.W.Error(keyspace.ErrWrongType)
		return
	}
	if l.Count >= limit {
		x.W.Null()
		return
	}
	l.Count++
	sh.LogLimit(db.ID, e.KeyView(), l.Count, e.ExpireAt)
	x.W.Int(limit - l.Count)
}

// ONCE key ttl_ms
func onceCommand(x *keyspace.Ctx) {
	at, ok := parseTTLArgOrReply(x, x.Args[2])
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	if e := sh.Lookup(db, x.Args[1]); e != nil {
		if _, isOnce := db.Obj(e).(keyspace.OnceObj); !isOnce {
			x.W.Error(keyspace.ErrWrongType)
			return
		}
		x.W.Int(0)
		return
	}
	e := db.Add(x.Args[1], nil, keyspace.OnceObj{}, at)
	sh.LogOnce(db.ID, e.KeyView(), at)
	x.W.Int(1)
}

// TAKE key count
func takeCommand(x *keyspace.Ctx) {
	n, ok := parsePositiveOrReply(x, x.Args[2], errPositiveCount)
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	e := sh.Lookup(db, x.Args[1])
	if e == nil {
		x.W.Null()
		return
	}
	if db.Obj(e) != nil {
		x.W.Error(keyspace.ErrWrongType)
		return
	}
	cur, isInt := keyspace.ParseInt(db.Val(e))
	if !isInt {
		x.W.Error(keyspace.ErrWrongType)
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
func incrbyMaxCommand(x *keyspace.Ctx) {
	if len(x.Args) != 5 || !keyspace.EqFold(x.Args[3], "max") {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	n, ok1 := keyspace.ParseInt(x.Args[2])
	limit, ok2 := keyspace.ParseInt(x.Args[4])
	if !ok1 || !ok2 {
		x.W.Error(keyspace.ErrNotInt)
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
		x.W.Error(keyspace.ErrOverflow)
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
func setvCommand(x *keyspace.Ctx) {
	args := x.Args
	if len(args) > 4 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	var want int64
	if len(args) == 4 {
		var ok bool
		if want, ok = parsePositiveOrReply(x, args[3], errSetVVersion); !ok {
			return
		}
	}
	sh, db := x.S, x.DB
	e := sh.Lookup(db, args[1])
	if e == nil {
		if want != 0 {
			x.W.Error(errSetVNoKey)
			return
		}
		v := &keyspace.SetvObj{Version: 1, Val: keyspace.CopyBytes(args[2])}
		e = db.Add(args[1], nil, v, 0)
		sh.LogSetV(db.ID, e.KeyView(), v.Val, 1, 0)
		shardNoteChange(sh, noteSetV, e.KeyView(), 1, true)
		x.W.Int(1)
		return
	}
	switch v := db.Obj(e).(type) {
	case *keyspace.SetvObj:
		switch {
		case want == 0:
			x.W.Error(errSetVExists)
			return
		case want != v.Version:
			x.W.Error(errSetVMismatch)
			return
		case v.Version == math.MaxInt64:
			x.W.Error(errSetVOverflow)
			return
		}
		val := args[2]
		if cap(v.Val) >= len(val) && cap(v.Val) <= 2*len(val)+16 {
			v.Val = v.Val[:len(val)]
			copy(v.Val, val)
		} else {
			v.Val = keyspace.CopyBytes(val)
		}
		v.Version++
		sh.LogSetV(db.ID, e.KeyView(), v.Val, v.Version, e.ExpireAt)
		shardNoteChange(sh, noteSetV, e.KeyView(), v.Version, true)
		x.W.Int(v.Version)
	case nil:
		// A plain string has no version to match.
		if want == 0 {
			x.W.Error(errSetVExists)
		} else {
			x.W.Error(errSetVMismatch)
		}
	default:
		x.W.Error(keyspace.ErrWrongType)
	}
}
