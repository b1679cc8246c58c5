package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"

	"github.com/ruvio/ruvio/types/zset"
)

// ZRANGE and its kin (ZRANGESTORE, ZREVRANGE, ZRANGEBYSCORE, ZRANGEBYLEX
// and their reverse forms) on one generic range reader, the STORE result
// the set operations share, and the range removals (ZREMRANGEBYRANK,
// ZREMRANGEBYSCORE, ZREMRANGEBYLEX). The family's file comment is in
// zset.go.

// Range kinds and directions of zrangeGeneric (auto: ZRANGE's options
// decide).
const (
	rangeAuto = iota
	rangeRank
	rangeScore
	rangeLex
)

const (
	dirAuto = iota
	dirForward
	dirReverse
)

// clampInt converts an int64 to int for rank arithmetic.
func clampInt(v int64) int {
	if v > math.MaxInt32*4 {
		return math.MaxInt32 * 4
	}
	if v < -math.MaxInt32*4 {
		return -math.MaxInt32 * 4
	}
	return int(v)
}

// zrangeGeneric is ZRANGE, ZRANGESTORE and the legacy range commands:
// the source key is x.Args[at], min and max follow, then options; dst is
// the destination of ZRANGESTORE (nil otherwise).
func zrangeGeneric(x *keyspace.Ctx, at int, dst []byte, rtype, dir int) {
	args := x.Args
	store := dst != nil
	withScores := false
	offset, limit := int64(0), int64(-1)
	for j := at + 3; j < len(args); j++ {
		left := len(args) - j - 1
		switch {
		case !store && keyspace.EqFold(args[j], "withscores"):
			withScores = true
		case keyspace.EqFold(args[j], "limit") && left >= 2:
			var ok bool
			if offset, ok = keyspace.ParseInt(args[j+1]); !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			if limit, ok = keyspace.ParseInt(args[j+2]); !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			j += 2
		case dir == dirAuto && keyspace.EqFold(args[j], "rev"):
			dir = dirReverse
		case rtype == rangeAuto && keyspace.EqFold(args[j], "bylex"):
			rtype = rangeLex
		case rtype == rangeAuto && keyspace.EqFold(args[j], "byscore"):
			rtype = rangeScore
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	if dir == dirAuto {
		dir = dirForward
	}
	if rtype == rangeAuto {
		rtype = rangeRank
	}
	if limit != -1 && rtype == rangeRank {
		x.W.Error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return
	}
	if withScores && rtype == rangeLex {
		x.W.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
		return
	}
	rev := dir == dirReverse
	minArg, maxArg := args[at+1], args[at+2]
	if rev && rtype != rangeRank {
		minArg, maxArg = maxArg, minArg
	}
	var start, stop int64
	var sr zset.ScoreRange
	var lr zset.LexRange
	switch rtype {
	case rangeRank:
		var ok bool
		if start, ok = keyspace.ParseInt(minArg); !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
		if stop, ok = keyspace.ParseInt(maxArg); !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
	case rangeScore:
		var err error
		if sr, err = zset.ParseScoreRange(minArg, maxArg); err != nil {
			x.W.Error(errZScoreArg)
			return
		}
	case rangeLex:
		var err error
		if lr, err = zset.ParseLexRange(minArg, maxArg); err != nil {
			x.W.Error(errZLexArg)
			return
		}
	}
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, args[at], true)
	if !ok {
		return
	}
	var items []keyspace.Scored
	if o != nil {
		switch rtype {
		case rangeRank:
			lo, hi := zset.Span(clampInt(start), clampInt(stop), o.Z.Len())
			o.Z.RangeByRank(lo, hi, rev, collect(&items))
		case rangeScore:
			o.Z.RangeByScore(sr, rev, clampInt(offset), clampInt(limit), collect(&items))
		case rangeLex:
			o.Z.RangeByLex(lr, rev, clampInt(offset), clampInt(limit), collect(&items))
		}
	}
	if store {
		zstoreResult(x, dst, buildZSet(x.S.ZsetConfig(), items))
		return
	}
	replyScored(x, items, withScores)
}

// buildZSet makes a sorted set of items.
func buildZSet(cfg zset.Config, items []keyspace.Scored) *keyspace.ZsetObj {
	o := &keyspace.ZsetObj{}
	for _, it := range items {
		_, _, _ = o.Z.Add(cfg, it.M, it.S, 0) // scores come from sorted sets: never NaN
	}
	return o
}

// zstoreResult stores o at dst for the STORE commands and replies its
// size; an empty result deletes dst.
func zstoreResult(x *keyspace.Ctx, dst []byte, o *keyspace.ZsetObj) {
	sh, db := x.S, x.DB
	if o.Z.Len() == 0 {
		storeEmptyResult(x, dst)
		return
	}
	e := sh.Lookup(db, dst)
	keyspace.StoreObj(db, e, dst, o)
	sh.LogZStore(db.ID, string(dst), o)
	x.Notify(keyspace.EvZset, x.Cmd.Name, dst)
	x.W.Int(int64(o.Z.Len()))
}

func zrangeCommand(x *keyspace.Ctx) { zrangeGeneric(x, 1, nil, rangeAuto, dirAuto) }

func zrangestoreCommand(x *keyspace.Ctx) { zrangeGeneric(x, 2, x.Args[1], rangeAuto, dirAuto) }

func zrevrangeCommand(x *keyspace.Ctx) { zrangeGeneric(x, 1, nil, rangeRank, dirReverse) }

func zrangebyscoreCommand(x *keyspace.Ctx) {
	zrangeGeneric(x, 1, nil, rangeScore, dirForward)
}

func zrevrangebyscoreCommand(x *keyspace.Ctx) {
	zrangeGeneric(x, 1, nil, rangeScore, dirReverse)
}

func zrangebylexCommand(x *keyspace.Ctx) { zrangeGeneric(x, 1, nil, rangeLex, dirForward) }

func zrevrangebylexCommand(x *keyspace.Ctx) { zrangeGeneric(x, 1, nil, rangeLex, dirReverse) }

// zremrangeGeneric is ZREMRANGEBYRANK, ZREMRANGEBYSCORE and
// ZREMRANGEBYLEX.
func zremrangeGeneric(x *keyspace.Ctx, rtype int) {
	var start, stop int64
	var sr zset.ScoreRange
	var lr zset.LexRange
	switch rtype {
	case rangeRank:
		var ok bool
		if start, ok = keyspace.ParseInt(x.Args[2]); !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
		if stop, ok = keyspace.ParseInt(x.Args[3]); !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
	case rangeScore:
		var err error
		if sr, err = zset.ParseScoreRange(x.Args[2], x.Args[3]); err != nil {
			x.W.Error(errZScoreArg)
			return
		}
	case rangeLex:
		var err error
		if lr, err = zset.ParseLexRange(x.Args[2], x.Args[3]); err != nil {
			x.W.Error(errZLexArg)
			return
		}
	}
	sh, db := x.S, x.DB
	e, o, ok := lookupTypedOrReplyZero[*keyspace.ZsetObj](x, x.Args[1], false)
	if !ok {
		return
	}
	var items []keyspace.Scored
	switch rtype {
	case rangeRank:
		lo, hi := zset.Span(clampInt(start), clampInt(stop), o.Z.Len())
		o.Z.RangeByRank(lo, hi, false, collect(&items))
	case rangeScore:
		o.Z.RangeByScore(sr, false, 0, -1, collect(&items))
	case rangeLex:
		o.Z.RangeByLex(lr, false, 0, -1, collect(&items))
	}
	if len(items) == 0 {
		x.W.Int(0)
		return
	}
	members := make([][]byte, len(items))
	for i, it := range items {
		members[i] = it.M
		o.Z.Remove(it.M)
	}
	sh.LogZRemove(db.ID, e.KeyView(), members)
	x.Notify(keyspace.EvZset, x.Cmd.Name, x.Args[1])
	if o.Z.Len() == 0 {
		db.Remove(e)
		x.Notify(keyspace.EvGeneric, "del", x.Args[1])
	}
	x.W.Int(int64(len(items)))
}

func zremrangebyrankCommand(x *keyspace.Ctx) { zremrangeGeneric(x, rangeRank) }

func zremrangebyscoreCommand(x *keyspace.Ctx) { zremrangeGeneric(x, rangeScore) }

func zremrangebylexCommand(x *keyspace.Ctx) { zremrangeGeneric(x, rangeLex) }
