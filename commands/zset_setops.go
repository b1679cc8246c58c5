package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"

	"github.com/ruvio/ruvio/types/num"
	"github.com/ruvio/ruvio/types/zset"
)

// The set operations of the family: ZUNION, ZINTER, ZDIFF, their STORE
// forms and ZINTERCARD, over sorted sets and plain sets (every score 1).
// The family's file comment is in zset.go.

// zsrc is one input of ZUNION, ZINTER, ZDIFF and their kin: a sorted
// set, a plain set (every score 1) or nothing.
type zsrc struct {
	z *keyspace.ZsetObj
	s *keyspace.SetObj
	w float64
}

func (src *zsrc) Size() int {
	switch {
	case src.z != nil:
		return src.z.Z.Len()
	case src.s != nil:
		return src.s.S.Len()
	}
	return 0
}

func (src *zsrc) Each(fn func(m []byte, s float64) bool) {
	switch {
	case src.z != nil:
		src.z.Z.Each(fn)
	case src.s != nil:
		src.s.S.Each(func(m []byte) bool { return fn(m, 1) })
	}
}

func (src *zsrc) Find(m []byte) (float64, bool) {
	switch {
	case src.z != nil:
		return src.z.Z.Score(m)
	case src.s != nil:
		return 1, src.s.S.Contains(m)
	}
	return 0, false
}

func (src *zsrc) same(o *zsrc) bool {
	return src.z != nil && src.z == o.z || src.s != nil && src.s == o.s
}

const (
	aggrSum = iota
	aggrMin
	aggrMax
)

func aggregate(target *float64, v float64, aggr int) {
	switch aggr {
	case aggrSum:
		*target += v
		if math.IsNaN(*target) {
			*target = 0 // inf + -inf, by Redis's convention
		}
	case aggrMin:
		*target = min(*target, v)
	case aggrMax:
		*target = max(*target, v)
	}
}

// Set operations.
const (
	opUnion = iota
	opInter
	opDiff
)

// zsetOpOptions are the options of ZUNION, ZINTER, ZDIFF and their kin
// but for WEIGHTS, which go into the sources.
type zsetOpOptions struct {
	aggr       int
	withScores bool
	limit      int64 // ZINTERCARD's LIMIT, 0 for none
}

// zsetOpGeneric is ZUNION, ZINTER, ZDIFF, their STORE forms and
// ZINTERCARD: numkeys sits at args[nk]; dst is the STORE destination.
// The checks go as Redis's: numkeys, the keys' types, then the options.
func zsetOpGeneric(x *keyspace.Ctx, dst []byte, nk int, op int, cardOnly bool) {
	args := x.Args
	setnum, ok := keyspace.ParseInt(args[nk])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if setnum < 1 {
		x.W.Error("ERR at least 1 input key is needed for '" + x.Cmd.FullName() + "' command")
		return
	}
	if setnum > int64(len(args)-nk-1) {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	// Made here, where it does not escape, so that a small one can stay
	// in the stack frame.
	srcs := make([]zsrc, setnum)
	if !zsetOpSources(x, srcs, nk+1) {
		return
	}
	var o zsetOpOptions
	if !zsetOpParseOptions(x, srcs, nk+1+len(srcs), dst, op, cardOnly, &o) {
		return
	}
	cfg := x.S.ZsetConfig()
	out := &keyspace.ZsetObj{}
	card := int64(0)
	switch op {
	case opInter:
		card = zsetInter(srcs, o.aggr, cardOnly, o.limit, cfg, out)
	case opUnion:
		zsetUnion(srcs, o.aggr, cfg, out)
	case opDiff:
		zsetDiff(srcs, cfg, out)
	}
	switch {
	case cardOnly:
		x.W.Int(card)
	case dst != nil:
		zstoreResult(x, dst, out)
	default:
		var items []keyspace.Scored
		out.Z.Each(collect(&items))
		replyScored(x, items, o.withScores)
	}
}

// zsetOpSources fills srcs with the keys from args[first:], weight 1,
// replying WRONGTYPE (false) for a key that is neither a sorted set nor a
// set.
func zsetOpSources(x *keyspace.Ctx, srcs []zsrc, first int) bool {
	for i := range srcs {
		srcs[i].w = 1
		if e := x.S.LookupRead(x.DB, x.Args[first+i]); e != nil {
			switch v := x.DB.Obj(e).(type) {
			case *keyspace.ZsetObj:
				srcs[i].z = v
			case *keyspace.SetObj:
				srcs[i].s = v
			default:
				x.W.Error(keyspace.ErrWrongType)
				return false
			}
		}
	}
	return true
}

// zsetOpParseOptions reads the options from args[j:] into o and the
// WEIGHTS into srcs, replying the first error (false).
func zsetOpParseOptions(x *keyspace.Ctx, srcs []zsrc, j int, dst []byte, op int, cardOnly bool, o *zsetOpOptions) bool {
	args := x.Args
	for j < len(args) {
		remaining := len(args) - j
		switch {
		case op != opDiff && !cardOnly && remaining >= len(srcs)+1 && keyspace.EqFold(args[j], "weights"):
			j++
			for i := range srcs {
				w, ok := num.ParseFloat(args[j])
				if !ok {
					x.W.Error("ERR weight value is not a float")
					return false
				}
				srcs[i].w = w
				j++
			}
		case op != opDiff && !cardOnly && remaining >= 2 && keyspace.EqFold(args[j], "aggregate"):
			switch {
			case keyspace.EqFold(args[j+1], "sum"):
				o.aggr = aggrSum
			case keyspace.EqFold(args[j+1], "min"):
				o.aggr = aggrMin
			case keyspace.EqFold(args[j+1], "max"):
				o.aggr = aggrMax
			default:
				x.W.Error(keyspace.ErrSyntax)
				return false
			}
			j += 2
		case dst == nil && !cardOnly && keyspace.EqFold(args[j], "withscores"):
			o.withScores = true
			j++
		case cardOnly && remaining >= 2 && keyspace.EqFold(args[j], "limit"):
			var ok bool
			if o.limit, ok = parseRangeLongOrReply(x, args[j+1], 0, math.MaxInt64, errZLimitNeg); !ok {
				return false
			}
			j += 2
		default:
			x.W.Error(keyspace.ErrSyntax)
			return false
		}
	}
	return true
}

// weighted is a score times its weight, NaN (0 times infinity) as 0.
func weighted(s, w float64) float64 {
	v := s * w
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// zsetInter adds to out the members of every source, aggregated, walking
// the smallest source. With cardOnly it only counts them, up to limit
// (0: all), and returns the count.
func zsetInter(srcs []zsrc, aggr int, cardOnly bool, limit int64, cfg zset.Config, out *keyspace.ZsetObj) (card int64) {
	small := 0
	for i := range srcs {
		if srcs[i].Size() < srcs[small].Size() {
			small = i
		}
	}
	if srcs[small].Size() == 0 {
		return 0
	}
	first := &srcs[small]
	first.Each(func(m []byte, s float64) bool {
		score := weighted(s, first.w)
		for i := range srcs {
			if i == small {
				continue
			}
			v, found := s, true
			if !srcs[i].same(first) {
				v, found = srcs[i].Find(m)
			}
			if !found {
				return true
			}
			aggregate(&score, weighted(v, srcs[i].w), aggr)
		}
		if cardOnly {
			card++
			return limit == 0 || card < limit
		}
		_, _, _ = out.Z.Add(cfg, m, score, 0)
		return true
	})
	return card
}

// zsetUnion adds to out the members of any source, aggregated, in the
// order they are first met.
func zsetUnion(srcs []zsrc, aggr int, cfg zset.Config, out *keyspace.ZsetObj) {
	acc := map[string]float64{}
	var order []string
	for i := range srcs {
		srcs[i].Each(func(m []byte, s float64) bool {
			v := weighted(s, srcs[i].w)
			if cur, ok := acc[string(m)]; ok {
				aggregate(&cur, v, aggr)
				acc[string(m)] = cur
			} else {
				acc[string(m)] = v
				order = append(order, string(m))
			}
			return true
		})
	}
	for _, m := range order {
		_, _, _ = out.Z.Add(cfg, []byte(m), acc[m], 0)
	}
}

// zsetDiff adds to out the members of the first source that no other
// has, with their scores; a source repeating the first leaves nothing.
func zsetDiff(srcs []zsrc, cfg zset.Config, out *keyspace.ZsetObj) {
	srcs[0].Each(func(m []byte, s float64) bool {
		for i := 1; i < len(srcs); i++ {
			if srcs[i].same(&srcs[0]) {
				return true
			}
			if _, found := srcs[i].Find(m); found {
				return true
			}
		}
		_, _, _ = out.Z.Add(cfg, m, s, 0)
		return true
	})
}

func zunionCommand(x *keyspace.Ctx) { zsetOpGeneric(x, nil, 1, opUnion, false) }

func zinterCommand(x *keyspace.Ctx) { zsetOpGeneric(x, nil, 1, opInter, false) }

func zdiffCommand(x *keyspace.Ctx) { zsetOpGeneric(x, nil, 1, opDiff, false) }

func zunionstoreCommand(x *keyspace.Ctx) { zsetOpGeneric(x, x.Args[1], 2, opUnion, false) }

func zinterstoreCommand(x *keyspace.Ctx) { zsetOpGeneric(x, x.Args[1], 2, opInter, false) }

func zdiffstoreCommand(x *keyspace.Ctx) { zsetOpGeneric(x, x.Args[1], 2, opDiff, false) }

func zintercardCommand(x *keyspace.Ctx) { zsetOpGeneric(x, nil, 1, opInter, true) }
