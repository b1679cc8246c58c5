package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"math"
	"strconv"

	"github.com/ruvio/ruvio/types/num"
	"github.com/ruvio/ruvio/types/zset"
)

// The sorted set family (Redis's t_zset.c) on types/zset. Replies, error
// texts and the order of checks follow Redis 7.0: scores print as %.17g
// with inf/-inf (RESP3 doubles), member/score pairs are nested arrays in
// RESP3 where Redis nests them. Mutations log physical records: the
// members and final scores written (ZADD INCR and ZINCRBY log the result,
// not the increment), the members removed (pops and range removals list
// what actually went), and the whole result of a STORE. The blocking
// BZPOPMIN, BZPOPMAX and BZMPOP wait for the blocking infrastructure of
// the list family.

// replyScored writes items as ZRANGE does: flat member, score in RESP2
// (members only without scores), [member, score] pairs in RESP3.
func replyScored(x *keyspace.Ctx, items []keyspace.Scored, withScores bool) {
	nested := pairsHeader(x, len(items), withScores)
	for _, it := range items {
		writeScored(x, it.M, it.S, withScores, nested)
	}
}

// pairsHeader writes the header of a reply of n elements that are pairs
// when pairs is set (member and score, field and value): in RESP3 an array
// of n two-element arrays (nested, the result), in RESP2 one flat array of
// 2n.
func pairsHeader(x *keyspace.Ctx, n int, pairs bool) (nested bool) {
	nested = pairs && x.W.Proto >= 3
	if pairs && !nested {
		x.W.ArrayHeader(2 * n)
	} else {
		x.W.ArrayHeader(n)
	}
	return nested
}

// writeScored writes one member of a reply begun by pairsHeader.
func writeScored(x *keyspace.Ctx, m []byte, score float64, withScores, nested bool) {
	if nested {
		x.W.ArrayHeader(2)
	}
	x.W.Bulk(m)
	if withScores {
		x.W.Double(score)
	}
}

// collect returns a callback appending copies of members to *out.
func collect(out *[]keyspace.Scored) func(m []byte, s float64) bool {
	return func(m []byte, s float64) bool {
		*out = append(*out, keyspace.Scored{M: bytes.Clone(m), S: s})
		return true
	}
}

// parseScoreOrReply parses a score or increment argument.
func parseScoreOrReply(x *keyspace.Ctx, b []byte) (float64, bool) {
	f, ok := num.ParseFloat(b)
	if !ok {
		x.W.Error(keyspace.ErrNotFloat)
	}
	return f, ok
}

const (
	errZNaN       = "ERR resulting score is not a number (NaN)"
	errZScoreArg  = "ERR min or max is not a float"
	errZLexArg    = "ERR min or max not valid string range item"
	errZNumKeys   = "ERR numkeys should be greater than 0"
	errZLimitNeg  = "ERR LIMIT can't be negative"
	errZCountZero = "ERR count should be greater than 0"
)

// zaddGeneric is ZADD (incr: the INCR flag) and ZINCRBY (zincrby set).
func zaddGeneric(x *keyspace.Ctx, zincrby bool) {
	args := x.Args
	var flags zset.AddFlags
	ch := false
	i := 2
	if !zincrby {
	opts:
		for ; i < len(args); i++ {
			switch {
			case keyspace.EqFold(args[i], "nx"):
				flags |= zset.NX
			case keyspace.EqFold(args[i], "xx"):
				flags |= zset.XX
			case keyspace.EqFold(args[i], "gt"):
				flags |= zset.GT
			case keyspace.EqFold(args[i], "lt"):
				flags |= zset.LT
			case keyspace.EqFold(args[i], "ch"):
				ch = true
			case keyspace.EqFold(args[i], "incr"):
				flags |= zset.Incr
			default:
				break opts
			}
		}
	} else {
		flags = zset.Incr
	}
	elems := len(args) - i
	if elems%2 != 0 || elems == 0 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	incr := flags&zset.Incr != 0
	if incr && elems > 2 {
		x.W.Error("ERR INCR option supports a single increment-element pair")
		return
	}
	if flags&zset.NX != 0 && flags&zset.XX != 0 {
		x.W.Error("ERR XX and NX options at the same time are not compatible")
		return
	}
	if flags&zset.NX != 0 && flags&(zset.GT|zset.LT) != 0 || flags&zset.GT != 0 && flags&zset.LT != 0 {
		x.W.Error("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	}
	n := elems / 2
	scores := make([]float64, n)
	for k := 0; k < n; k++ {
		f, ok := parseScoreOrReply(x, args[i+2*k])
		if !ok {
			return
		}
		scores[k] = f
	}
	sh, db := x.S, x.DB
	e, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, args[1], false)
	if !ok {
		return
	}
	added, updated := 0, 0
	var final float64
	processed := false
	// The members to log; one or two (the usual ZADD) stay on the stack.
	var loggedBuf [2]keyspace.Scored
	logged := loggedBuf[:0]
	if e == nil && flags&zset.XX == 0 {
		o = &keyspace.ZsetObj{}
		e = db.Add(args[1], nil, o, 0)
	}
	if o != nil {
		cfg := sh.ZsetConfig()
		for k := 0; k < n; k++ {
			m := args[i+2*k+1]
			score, res, err := o.Z.Add(cfg, m, scores[k], flags)
			if err != nil {
				if o.Z.Len() == 0 {
					db.Remove(e)
				}
				sh.LogZAdd(db.ID, string(args[1]), logged)
				x.W.Error(errZNaN)
				return
			}
			switch res {
			case zset.Added:
				added++
				logged = append(logged, keyspace.Scored{M: m, S: score})
			case zset.Updated:
				updated++
				logged = append(logged, keyspace.Scored{M: m, S: score})
			}
			if res != zset.Nop {
				processed = true
				final = score
			}
		}
		if o.Z.Len() == 0 {
			db.Remove(e) // XX or a refused INCR on a set created above
		} else {
			sh.LogZAdd(db.ID, e.KeyView(), logged)
			if added+updated > 0 {
				ev := "zadd"
				if incr {
					ev = "zincr"
				}
				x.Notify(keyspace.EvZset, ev, args[1])
			}
		}
	}
	switch {
	case incr && processed:
		x.W.Double(final)
	case incr:
		x.W.Null()
	case ch:
		x.W.Int(int64(added + updated))
	default:
		x.W.Int(int64(added))
	}
}

func zaddCommand(x *keyspace.Ctx) { zaddGeneric(x, false) }

func zincrbyCommand(x *keyspace.Ctx) { zaddGeneric(x, true) }

// ZREM key member [member ...]
func zremCommand(x *keyspace.Ctx) {
	sh, db := x.S, x.DB
	e, o, ok := lookupTypedOrReplyZero[*keyspace.ZsetObj](x, x.Args[1], false)
	if !ok {
		return
	}
	var removed [][]byte
	for _, m := range x.Args[2:] {
		if o.Z.Remove(m) {
			removed = append(removed, m)
			if o.Z.Len() == 0 {
				break
			}
		}
	}
	sh.LogZRemove(db.ID, e.KeyView(), removed)
	if len(removed) > 0 {
		x.Notify(keyspace.EvZset, "zrem", x.Args[1])
	}
	if o.Z.Len() == 0 {
		db.Remove(e)
		x.Notify(keyspace.EvGeneric, "del", x.Args[1])
	}
	x.W.Int(int64(len(removed)))
}

// ZSCORE key member
func zscoreCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o != nil {
		if s, ok := o.Z.Score(x.Args[2]); ok {
			x.W.Double(s)
			return
		}
	}
	x.W.Null()
}

// ZMSCORE key member [member ...]
func zmscoreCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if o != nil {
			if s, ok := o.Z.Score(m); ok {
				x.W.Double(s)
				continue
			}
		}
		x.W.Null()
	}
}

// ZRANK / ZREVRANK key member
func zrankGeneric(x *keyspace.Ctx, rev bool) {
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o != nil {
		if r, ok := o.Z.Rank(x.Args[2], rev); ok {
			x.W.Int(int64(r))
			return
		}
	}
	x.W.Null()
}

func zrankCommand(x *keyspace.Ctx) { zrankGeneric(x, false) }

func zrevrankCommand(x *keyspace.Ctx) { zrankGeneric(x, true) }

// ZCOUNT key min max
func zcountCommand(x *keyspace.Ctx) {
	r, err := zset.ParseScoreRange(x.Args[2], x.Args[3])
	if err != nil {
		x.W.Error(errZScoreArg)
		return
	}
	_, o, ok := lookupTypedOrReplyZero[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Int(int64(o.Z.CountByScore(r)))
}

// ZLEXCOUNT key min max
func zlexcountCommand(x *keyspace.Ctx) {
	r, err := zset.ParseLexRange(x.Args[2], x.Args[3])
	if err != nil {
		x.W.Error(errZLexArg)
		return
	}
	_, o, ok := lookupTypedOrReplyZero[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Int(int64(o.Z.CountByLex(r)))
}

// zpopGeneric pops from the first existing sorted set among keys, as
// Redis's genericZpopCommand: count -1 is a plain single pop. emitKey and
// nested shape the reply as ZMPOP's; nilWhenEmpty replies a null array
// instead of an empty one when no key holds a sorted set.
func zpopGeneric(x *keyspace.Ctx, keys [][]byte, max bool, count int64, emitKey, nested, nilWhenEmpty bool) {
	sh, db := x.S, x.DB
	var e *keyspace.Entry
	var o *keyspace.ZsetObj
	var key []byte
	for _, k := range keys {
		var ok bool
		e, o, ok = lookupTypedOrReply[*keyspace.ZsetObj](x, k, false)
		if !ok {
			return
		}
		if e != nil {
			key = k
			break
		}
	}
	if o == nil {
		if nilWhenEmpty {
			x.W.NullArray()
		} else {
			x.W.ArrayHeader(0)
		}
		return
	}
	if count == 0 {
		x.W.ArrayHeader(0)
		return
	}
	if count == -1 {
		count = 1
	}
	var items []keyspace.Scored
	o.Z.Pop(int(min(count, int64(o.Z.Len()))), max, func(m []byte, s float64) { items = append(items, keyspace.Scored{M: m, S: s}) })
	members := make([][]byte, len(items))
	for i, it := range items {
		members[i] = it.M
	}
	sh.LogZRemove(db.ID, e.KeyView(), members)
	popEv := "zpopmin"
	if max {
		popEv = "zpopmax"
	}
	x.Notify(keyspace.EvZset, popEv, key)
	if o.Z.Len() == 0 {
		db.Remove(e)
		x.Notify(keyspace.EvGeneric, "del", key)
	}
	switch {
	case !nested && !emitKey:
		x.W.ArrayHeader(2 * len(items))
	case nested && !emitKey:
		x.W.ArrayHeader(len(items))
	case emitKey && !nested:
		// BZPOPMIN/BZPOPMAX: key, member, score.
		x.W.ArrayHeader(2*len(items) + 1)
		x.W.Bulk(key)
	case emitKey:
		x.W.ArrayHeader(2)
		x.W.Bulk(key)
		x.W.ArrayHeader(len(items))
	}
	for _, it := range items {
		if nested {
			x.W.ArrayHeader(2)
		}
		x.W.Bulk(it.M)
		x.W.Double(it.S)
	}
}

// ZPOPMIN / ZPOPMAX key [count]
func zpopMinMax(x *keyspace.Ctx, max bool) {
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	count := int64(-1)
	if len(x.Args) == 3 {
		var ok bool
		if count, ok = parseRangeLongOrReply(x, x.Args[2], 0, math.MaxInt64, errMustBePositive); !ok {
			return
		}
	}
	zpopGeneric(x, x.Args[1:2], max, count, false, x.W.Proto >= 3 && count != -1, false)
}

func zpopminCommand(x *keyspace.Ctx) { zpopMinMax(x, false) }

func zpopmaxCommand(x *keyspace.Ctx) { zpopMinMax(x, true) }

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
func zmpopCommand(x *keyspace.Ctx) {
	m, ok := parseMPopOrReply(x, 1, zsetMPop)
	if !ok {
		return
	}
	zpopGeneric(x, m.keys, keyspace.EqFold(m.direction, "max"), m.count, true, true, true)
}

// ZRANDMEMBER key [count [WITHSCORES]]
func zrandmemberCommand(x *keyspace.Ctx) {
	args := x.Args
	if len(args) >= 3 {
		l, ok := parseRangeLongOrReply(x, args[2], -math.MaxInt64, math.MaxInt64, "")
		if !ok {
			return
		}
		withScores := false
		if len(args) > 4 || len(args) == 4 && !keyspace.EqFold(args[3], "withscores") {
			x.W.Error(keyspace.ErrSyntax)
			return
		} else if len(args) == 4 {
			withScores = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				x.W.Error("ERR value is out of range")
				return
			}
		}
		_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, args[1], true)
		if !ok {
			return
		}
		if o == nil || l == 0 {
			x.W.ArrayHeader(0)
			return
		}
		n := int64(o.Z.Len())
		c := l
		if c > n {
			c = n
		}
		if c < -(1 << 31) {
			c = -(1 << 31) // an output that size could never be sent anyway
		}
		k := int(c) // elements in the reply: c <= n, or -c repeats allowed
		if c < 0 {
			k = int(-c)
		}
		nested := pairsHeader(x, k, withScores)
		// Streamed: a negative count may ask for billions of members, and
		// the loop ends once the reply is past the client's limit (and is
		// dropped).
		o.Z.Random(randSource{}, int(c), func(m []byte, s float64) bool {
			writeScored(x, m, s, withScores, nested)
			return !x.W.Full()
		})
		return
	}
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, args[1], true)
	if !ok {
		return
	}
	if o == nil {
		x.W.Null()
		return
	}
	o.Z.Random(randSource{}, 1, func(m []byte, _ float64) bool { x.W.Bulk(m); return true })
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]
func zscanCommand(x *keyspace.Ctx) {
	cursor, ok := parseScanCursor(x.Args[2])
	if !ok {
		x.W.Error("ERR invalid cursor")
		return
	}
	pat, usePat, count, ok := parseScanOptionsOrReply(x, 3)
	if !ok {
		return
	}
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	var out []keyspace.Scored
	next := uint64(0)
	if o != nil {
		next = o.Z.Scan(cursor, count, func(m []byte, s float64) {
			if !usePat || globMatch(pat, m, false) {
				out = append(out, keyspace.Scored{M: bytes.Clone(m), S: s})
			}
		})
	}
	x.W.ArrayHeader(2)
	x.W.BulkString(strconv.FormatUint(next, 10))
	x.W.ArrayHeader(2 * len(out))
	var buf []byte
	for _, it := range out {
		x.W.Bulk(it.M)
		buf = num.AppendScore(buf[:0], it.S)
		x.W.Bulk(buf)
	}
}

// destAndNumkeys returns a movableKeys function for the STORE forms:
// the destination at 1, then numkeys at 2 and the keys after it.
func destAndNumkeys(args [][]byte, dst []int) []int {
	if len(args) < 2 {
		return dst
	}
	return numkeysAt(2)(args, append(dst, 1))
}

func registerZSetFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	c := func(name string, arity int, flags keyspace.Flag, first, last, step int, since, summary, complexity string, h keyspace.HandlerFunc) *keyspace.Command {
		return &keyspace.Command{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: step, Group: "sorted-set", Since: since, Summary: summary, Complexity: complexity, Handler: h}
	}
	movable := func(cmd *keyspace.Command, fn func([][]byte, []int) []int) *keyspace.Command {
		cmd.MovableKeys = fn
		return cmd
	}
	const logN = "O(log(N)) where N is the number of elements in the sorted set."
	t.Add(
		withSpecs(c("zadd", -4, rw|deny|fast, 1, 1, 1, "1.2.0", "Add one or more members to a sorted set, or update its score if it already exists", "O(log(N)) for each item added, where N is the number of elements in the sorted set.", zaddCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}, nil),
		withSpecs(c("zincrby", 4, rw|deny|fast, 1, 1, 1, "1.2.0", "Increment the score of a member in a sorted set", logN, zincrbyCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}, nil),
		withSpecs(c("zrem", -3, rw|fast, 1, 1, 1, "1.2.0", "Remove one or more members from a sorted set", "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.", zremCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, nil),
		withSpecs(c("zcard", 2, ro|fast, 1, 1, 1, "1.2.0", "Get the number of members in a sorted set", "O(1)", cardCommand[*keyspace.ZsetObj]), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}, nil),
		withSpecs(c("zscore", 3, ro|fast, 1, 1, 1, "1.2.0", "Get the score associated with the given member in a sorted set", "O(1)", zscoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zmscore", -3, ro|fast, 1, 1, 1, "6.2.0", "Get the score associated with the given members in a sorted set", "O(N) where N is the number of members being requested.", zmscoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zrank", 3, ro|fast, 1, 1, 1, "2.0.0", "Determine the index of a member in a sorted set", "O(log(N))", zrankCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zrevrank", 3, ro|fast, 1, 1, 1, "2.0.0", "Determine the index of a member in a sorted set, with scores ordered from high to low", "O(log(N))", zrevrankCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zcount", 4, ro|fast, 1, 1, 1, "2.0.0", "Count the members in a sorted set with scores within the given values", logN, zcountCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zlexcount", 4, ro|fast, 1, 1, 1, "2.8.9", "Count the number of members in a sorted set between a given lexicographical range", logN, zlexcountCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zrange", -4, ro, 1, 1, 1, "1.2.0", "Return a range of members in a sorted set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.", zrangeCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zrangestore", -5, rw|deny, 1, 2, 1, "6.2.0", "Store a range of members from sorted set into another key", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.", zrangestoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}, nil),
		withSpecs(c("zrevrange", -4, ro, 1, 1, 1, "1.2.0", "Return a range of members in a sorted set, by index, with scores ordered from high to low", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.", zrevrangeCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zrangebyscore", -4, ro, 1, 1, 1, "1.0.5", "Return a range of members in a sorted set, by score", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", zrangebyscoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zrevrangebyscore", -4, ro, 1, 1, 1, "2.2.0", "Return a range of members in a sorted set, by score, with scores ordered from high to low", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", zrevrangebyscoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zrangebylex", -4, ro, 1, 1, 1, "2.8.9", "Return a range of members in a sorted set, by lexicographical range", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", zrangebylexCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zrevrangebylex", -4, ro, 1, 1, 1, "2.8.9", "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", zrevrangebylexCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("zremrangebyrank", 4, rw, 1, 1, 1, "2.0.0", "Remove all members in a sorted set within the given indexes", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", zremrangebyrankCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, nil),
		withSpecs(c("zremrangebyscore", 4, rw, 1, 1, 1, "1.2.0", "Remove all members in a sorted set within the given scores", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", zremrangebyscoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, nil),
		withSpecs(c("zremrangebylex", 4, rw, 1, 1, 1, "2.8.9", "Remove all members in a sorted set between the given lexicographical range", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", zremrangebylexCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, nil),
		withSpecs(c("zpopmin", -2, rw|fast, 1, 1, 1, "5.0.0", "Remove and return members with the lowest scores in a sorted set", "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.", zpopminCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}, nil),
		withSpecs(c("zpopmax", -2, rw|fast, 1, 1, 1, "5.0.0", "Remove and return members with the highest scores in a sorted set", "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.", zpopmaxCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}, nil),
		movable(withSpecs(c("zmpop", -4, rw, 0, 0, 0, "7.0.0", "Remove and return members with scores in a sorted set", "O(K) + O(N*log(M)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.", zmpopCommand), []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), numkeysAt(1)),
		withSpecs(c("zrandmember", -2, ro, 1, 1, 1, "6.2.0", "Get one or multiple random elements from a sorted set", "O(N) where N is the number of elements returned", zrandmemberCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, []string{tipNondeterministic}),
		movable(withSpecs(c("zunion", -3, ro, 0, 0, 0, "6.2.0", "Add multiple sorted sets", "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.", zunionCommand), []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), numkeysAt(1)),
		movable(withSpecs(c("zinter", -3, ro, 0, 0, 0, "6.2.0", "Intersect multiple sorted sets", "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.", zinterCommand), []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), numkeysAt(1)),
		movable(withSpecs(c("zdiff", -3, ro, 0, 0, 0, "6.2.0", "Subtract multiple sorted sets", "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.", zdiffCommand), []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), numkeysAt(1)),
		movable(withSpecs(c("zintercard", -3, ro, 0, 0, 0, "7.0.0", "Intersect multiple sorted sets and return the cardinality of the result", "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.", zintercardCommand), []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), numkeysAt(1)),
		movable(withSpecs(c("zunionstore", -4, rw|deny, 1, 1, 1, "2.0.0", "Add multiple sorted sets and store the resulting sorted set in a new key", "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.", zunionstoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), destAndNumkeys),
		movable(withSpecs(c("zinterstore", -4, rw|deny, 1, 1, 1, "2.0.0", "Intersect multiple sorted sets and store the resulting sorted set in a new key", "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.", zinterstoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), destAndNumkeys),
		movable(withSpecs(c("zdiffstore", -4, rw|deny, 1, 1, 1, "6.2.0", "Subtract multiple sorted sets and store the resulting sorted set in a new key", "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.", zdiffstoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), destAndNumkeys),
		withSpecs(c("zscan", -3, ro, 1, 1, 1, "2.8.0", "Incrementally iterate sorted sets elements and associated scores", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..", zscanCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, []string{tipNondeterministic}),
	)
}

// The blocking sorted-set pops, as the blocking list pops (list.go): the
// non-blocking form first, then a parked client whose Serve is ZPOPMIN,
// ZPOPMAX or ZMPOP.

// zsetAt is blockedOnAt for sorted sets.
func zsetAt(x *keyspace.Ctx, key []byte) (*keyspace.Entry, *keyspace.ZsetObj) {
	return blockedOnAt[*keyspace.ZsetObj](x, key)
}

// blockingZPop is BZPOPMIN, BZPOPMAX (count -1) and BZMPOP.
func blockingZPop(x *keyspace.Ctx, keys [][]byte, max bool, count int64, deadline int64) {
	multi := count != -1
	for _, key := range keys {
		e, _, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, key, false)
		if !ok {
			return
		}
		if e == nil {
			continue
		}
		zpopGeneric(x, [][]byte{key}, max, count, true, multi, multi)
		return
	}
	if x.NoBlock {
		x.W.NullArray()
		return
	}
	x.Block(keyspace.BlockSpec{
		Keys:       keys,
		DeadlineMs: deadline,
		Serve: func(x *keyspace.Ctx, key []byte) bool {
			if _, o := zsetAt(x, key); o == nil {
				return false
			}
			zpopGeneric(x, [][]byte{key}, max, count, true, multi, multi)
			return true
		},
	})
}

// BZPOPMIN key [key ...] timeout / BZPOPMAX key [key ...] timeout
func bzpopCommand(x *keyspace.Ctx) {
	deadline, ok := x.ParseBlockTimeoutOrReply(x.Args[len(x.Args)-1])
	if !ok {
		return
	}
	blockingZPop(x, x.Args[1:len(x.Args)-1], x.Cmd.Name == "bzpopmax", -1, deadline)
}

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
func bzmpopCommand(x *keyspace.Ctx) {
	m, ok := parseMPopOrReply(x, 2, zsetMPop)
	if !ok {
		return
	}
	deadline, ok := x.ParseBlockTimeoutOrReply(x.Args[1])
	if !ok {
		return
	}
	blockingZPop(x, m.keys, keyspace.EqFold(m.direction, "max"), m.count, deadline)
}

// registerZSetBlockingPops registers the blocking sorted-set pops: BZPOPMIN, BZPOPMAX and BZMPOP.
func registerZSetBlockingPops(t keyspace.CommandTable) {
	const rw, deny, fast, noscript, blocking = keyspace.FlagWrite, keyspace.FlagDenyOOM, keyspace.FlagFast, keyspace.FlagNoScript, keyspace.FlagBlocking
	t.Add(
		&keyspace.Command{Name: "bzpopmin", Arity: -3, Flags: rw | noscript | fast | blocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "sorted-set", Since: "5.0.0", Summary: "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", Complexity: "O(log(N)) with N being the number of elements in the sorted set.", Handler: bzpopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
		&keyspace.Command{Name: "bzpopmax", Arity: -3, Flags: rw | noscript | fast | blocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "sorted-set", Since: "5.0.0", Summary: "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", Complexity: "O(log(N)) with N being the number of elements in the sorted set.", Handler: bzpopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
		&keyspace.Command{Name: "bzmpop", Arity: -5, Flags: rw | blocking, NumKeysAt: 2, Group: "sorted-set", Since: "7.0.0", Summary: "Remove and return members with scores in a sorted set or block until one is available", Complexity: "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.", Handler: bzmpopCommand, KeySpecs: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	)
}
