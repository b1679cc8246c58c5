// Package zset is the Redis sorted set: members ordered by (score,
// member), compact while small, a skiplist plus hash table once large,
// converting at Redis 7.0's thresholds (zset-max-listpack-entries,
// zset-max-listpack-value).
//
// The compact form is one pointer-free []byte:
//
//	uint32 little-endian number of members
//	entries (types/internal/lp): member, score, member, score, ...
//
// in ascending (score, member) order. A score entry of 8 bytes holds the
// IEEE-754 bits little-endian; a shorter one an integral score as a
// minimal little-endian two's-complement integer (none for 0), so the
// common integer scores cost two or three bytes as in a listpack. Members compare as raw bytes (memcmp,
// then length), which is Redis's lexicographic order. The large form is a
// skiplist with spans (O(log n) insert, delete, rank and seek by rank),
// written here rather than taken from a library because ranks and
// ZRANGE's walks in both directions need the spans and back links, and
// because each node carries its levels in its own allocation (48 bytes for
// three nodes in four); plus a types/internal/dict Table from member to
// node (O(1) ZSCORE, SCAN cursors, uniform random members), whose 16-byte
// entries hold only the node pointer, the hash and the chain link: the
// member and score live in the node alone. A million-member set takes
// about 82 bytes a member against Redis's 110.
//
// A set converts to the large form before an insert would take it past
// MaxListpackEntries members or when a member is longer than
// MaxListpackValue; it never converts back by itself.
//
// # Binary encoding (version 1)
//
//	byte 1 (version)
//	byte 0 = compact: the compact bytes above follow verbatim
//	byte 1 = large:   uvarint count, then in order per member
//	                  uvarint len, member, 8-byte little-endian score bits
//
// Unmarshal validates order, scores (no NaN) and uniqueness and rebuilds
// the form its Config calls for.
package zset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/ruvio/ruvio/internal/prefetch"
	"github.com/ruvio/ruvio/types/internal/dict"
	"github.com/ruvio/ruvio/types/internal/lp"
	"github.com/ruvio/ruvio/types/internal/memsize"
	"github.com/ruvio/ruvio/types/internal/pick"
	"github.com/ruvio/ruvio/types/num"
)

// Config holds the conversion thresholds.
type Config struct {
	MaxListpackEntries int // zset-max-listpack-entries
	MaxListpackValue   int // zset-max-listpack-value
}

// DefaultConfig is Redis 7.0's default.
var DefaultConfig = Config{MaxListpackEntries: 128, MaxListpackValue: 64}

// Errors with Redis's reply texts (the command layer adds "ERR ").
var (
	ErrNaN          = errors.New("resulting score is not a number (NaN)")
	ErrScoreRange   = errors.New("min or max is not a float")
	ErrLexRange     = errors.New("min or max not valid string range item")
	ErrCorrupt      = errors.New("zset: corrupt encoding")
	errInvalidFlags = errors.New("zset: invalid add flags")
)

const (
	hdr             = 4
	encodingVersion = 1
)

// AddFlags are ZADD's options (CH only changes the reply, so it is the
// command layer's business).
type AddFlags uint8

// ZADD options.
const (
	NX AddFlags = 1 << iota
	XX
	GT
	LT
	Incr
)

// AddResult says what Add did.
type AddResult uint8

// Add outcomes: Nop means NX/XX/GT/LT prevented the change (ZADD INCR
// replies nil); Unchanged means an existing member kept the same score.
const (
	Nop AddResult = iota
	Added
	Updated
	Unchanged
)

// ZSet is a Redis sorted set. The zero value is empty.
type ZSet struct {
	b  []byte
	sl *skiplist
	d  *dict.Table[*slNode] // member to its node
}

// FromCompact wraps bytes returned by Compact without copying.
func FromCompact(b []byte) ZSet { return ZSet{b: b} }

// PrefetchBucket, PrefetchEntry and PrefetchKey read ahead of a lookup
// of member in the large form (dict.Table.PrefetchBucket); the compact
// form has nothing to read.
func (z *ZSet) PrefetchBucket(member []byte) uint32 {
	if z.d == nil {
		return 0
	}
	return z.d.PrefetchBucket(member)
}

// PrefetchEntry is the second step of the read ahead; see PrefetchBucket.
func (z *ZSet) PrefetchEntry(h uint32) int32 {
	if z.d == nil {
		return -1
	}
	return z.d.PrefetchEntry(h)
}

// PrefetchKey is the third step of the read ahead (PrefetchBucket): the
// member is read through its node, so it starts loading the node, which
// the lookup reads next.
func (z *ZSet) PrefetchKey(i int32) {
	if z.d == nil || i < 0 || int(i) >= z.d.Len() {
		return
	}
	prefetch.Line(unsafe.Pointer(*z.d.At(int(i))))
}

// Compact returns the compact bytes, or nil for the large form.
func (z *ZSet) Compact() []byte {
	if z.sl != nil {
		return nil
	}
	return z.b
}

// Encoding returns the name OBJECT ENCODING reports.
func (z *ZSet) Encoding() string {
	if z.sl != nil {
		return "skiplist"
	}
	return "listpack"
}

// Len returns the number of members (ZCARD).
func (z *ZSet) Len() int {
	if z.sl != nil {
		return z.sl.length
	}
	if len(z.b) < hdr {
		return 0
	}
	return int(binary.LittleEndian.Uint32(z.b))
}

// --- compact helpers ---

func (z *ZSet) cnext(off int) (m []byte, s float64, next int) {
	m, so := lp.Next(z.b, off)
	sb, next := lp.Next(z.b, so)
	return m, decodeScore(sb), next
}

// appendScore encodes a compact-form score: an integral score that fits
// in fewer than 8 bytes as a minimal little-endian two's-complement
// integer (0 bytes for zero), anything else as the 8 bytes of its
// IEEE-754 bits. The length tells the two apart.
func appendScore(dst []byte, s float64) []byte {
	if s == math.Trunc(s) && s >= -(1<<55) && s < 1<<55 {
		v := int64(s)
		n := 0
		for v<<(64-8*n)>>(64-8*n) != v {
			n++
		}
		for i := 0; i < n; i++ {
			dst = append(dst, byte(v>>(8*i)))
		}
		return dst
	}
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(s))
}

func decodeScore(b []byte) float64 {
	if len(b) == 8 {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	var v int64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | int64(b[i])
	}
	if n := len(b); n > 0 && n < 8 {
		v = v << (64 - 8*n) >> (64 - 8*n) // sign-extend
	}
	return float64(v)
}

func (z *ZSet) cprev(end int) int { return lp.Prev(z.b, lp.Prev(z.b, end)) }

func (z *ZSet) coffset(rank int) int {
	off := hdr
	for ; rank > 0; rank-- {
		_, _, off = z.cnext(off)
	}
	return off
}

func (z *ZSet) cfind(member []byte) (off, end, rank int, score float64) {
	rank = 0
	for off = hdr; off < len(z.b); rank++ {
		m, s, next := z.cnext(off)
		if bytes.Equal(m, member) {
			return off, next, rank, s
		}
		off = next
	}
	return -1, -1, -1, 0
}

func (z *ZSet) csetCount(n int) { binary.LittleEndian.PutUint32(z.b, uint32(n)) }

func (z *ZSet) cinsert(member []byte, score float64) {
	if len(z.b) < hdr {
		z.b = make([]byte, hdr, hdr+lp.EntrySize(len(member))+lp.EntrySize(8))
	}
	off := hdr
	for off < len(z.b) {
		m, s, next := z.cnext(off)
		if less(score, string(member), s, string(m)) {
			break
		}
		off = next
	}
	if score == 0 {
		// Redis's listpack stores scores as text, where -0 reads back as
		// 0; ZSCORE then says "0", and so do we.
		score = 0
	}
	var buf [8]byte
	sb := appendScore(buf[:0], score)
	z.b = lp.Insert(z.b, off, member)
	z.b = lp.Insert(z.b, off+lp.EntrySize(len(member)), sb)
	z.csetCount(z.Len() + 1)
}

func (z *ZSet) convert() {
	n := z.Len()
	z.sl, z.d = newSkiplist(), newIndex(n)
	for off := hdr; off < len(z.b); {
		m, s, next := z.cnext(off)
		z.addNew(m, s)
		off = next
	}
	z.b = nil
}

func nodeMember(n **slNode) string { return (*n).member }

func newIndex(n int) *dict.Table[*slNode] { return dict.NewTable[*slNode](n, nodeMember) }

// addNew adds member, which is absent, to the large form.
func (z *ZSet) addNew(member []byte, score float64) {
	z.d.InsertNew(member, z.sl.insert(score, string(member)))
}

// node returns member's node in the large form, or nil.
func (z *ZSet) node(member []byte) *slNode {
	if i := z.d.Find(member); i >= 0 {
		return *z.d.At(i)
	}
	return nil
}

func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// --- point operations ---

// Score returns member's score (ZSCORE).
func (z *ZSet) Score(member []byte) (float64, bool) {
	if z.sl != nil {
		if x := z.node(member); x != nil {
			return x.score, true
		}
		return 0, false
	}
	off, _, _, s := z.cfind(member)
	return s, off >= 0
}

// Add applies ZADD's rules for one member and returns the member's score
// afterwards (for INCR's reply) and what happened. The only error is
// ErrNaN (a NaN score, or INCR producing one, as inf + -inf); flags
// combinations ZADD rejects (NX with XX, GT or LT; GT with LT) are the
// command layer's to refuse.
func (z *ZSet) Add(cfg Config, member []byte, score float64, flags AddFlags) (float64, AddResult, error) {
	if math.IsNaN(score) {
		return 0, Nop, ErrNaN
	}
	if flags&NX != 0 && flags&(XX|GT|LT) != 0 || flags&GT != 0 && flags&LT != 0 {
		return 0, Nop, errInvalidFlags
	}
	var cur float64
	var exists bool
	var x *slNode // member's node in the large form
	if z.sl != nil {
		if x = z.node(member); x != nil {
			cur, exists = x.score, true
		}
	} else {
		cur, exists = z.Score(member)
	}
	if exists {
		if flags&NX != 0 {
			return cur, Nop, nil
		}
		if flags&Incr != 0 {
			score += cur
			if math.IsNaN(score) {
				return 0, Nop, ErrNaN
			}
		}
		if flags&LT != 0 && score >= cur || flags&GT != 0 && score <= cur {
			return cur, Nop, nil
		}
		if score == cur {
			return score, Unchanged, nil
		}
		if z.sl != nil {
			z.sl.updateScore(x, score)
		} else {
			off, end, _, _ := z.cfind(member)
			z.b = lp.Delete(z.b, off, end)
			z.csetCount(z.Len() - 1)
			z.cinsert(member, score)
		}
		return score, Updated, nil
	}
	if flags&XX != 0 {
		return 0, Nop, nil
	}
	if z.sl == nil && (z.Len()+1 > cfg.MaxListpackEntries || len(member) > cfg.MaxListpackValue) {
		z.convert()
	}
	if z.sl != nil {
		z.addNew(member, score)
	} else {
		z.cinsert(member, score)
	}
	return score, Added, nil
}

// Remove deletes member and reports whether it was present (ZREM).
func (z *ZSet) Remove(member []byte) bool {
	if z.sl != nil {
		i := z.d.Find(member)
		if i < 0 {
			return false
		}
		x := *z.d.At(i)
		z.d.DeleteAt(i)
		z.sl.remove(x.score, x.member)
		return true
	}
	off, end, _, _ := z.cfind(member)
	if off < 0 {
		return false
	}
	z.b = lp.Delete(z.b, off, end)
	z.csetCount(z.Len() - 1)
	return true
}

// Rank returns member's 0-based rank, from the highest score when rev
// (ZRANK, ZREVRANK).
func (z *ZSet) Rank(member []byte, rev bool) (int, bool) {
	var r int
	if z.sl != nil {
		x := z.node(member)
		if x == nil {
			return 0, false
		}
		r = z.sl.rank(x.score, x.member) - 1
	} else {
		var off int
		off, _, r, _ = z.cfind(member)
		if off < 0 {
			return 0, false
		}
	}
	if rev {
		r = z.Len() - 1 - r
	}
	return r, true
}

// --- walks ---

// walk calls fn from 0-based rank `from`, ascending or (rev) descending,
// until fn returns false or the set ends. Slices are valid during the
// call only.
func (z *ZSet) walk(from int, rev bool, fn func(m []byte, s float64) bool) {
	n := z.Len()
	if from < 0 || from >= n {
		return
	}
	if z.sl != nil {
		for x := z.sl.byRank(from + 1); x != nil; {
			if !fn(bytesOf(x.member), x.score) {
				return
			}
			if rev {
				x = x.backward
			} else {
				x = x.lvl(0).forward
			}
		}
		return
	}
	off := z.coffset(from)
	if !rev {
		for off < len(z.b) {
			m, s, next := z.cnext(off)
			if !fn(m, s) {
				return
			}
			off = next
		}
		return
	}
	_, _, end := z.cnext(off)
	for end > hdr {
		start := z.cprev(end)
		m, s, _ := z.cnext(start)
		if !fn(m, s) {
			return
		}
		end = start
	}
}

// firstRank returns the rank of the first member for which below is
// false (below must hold for a prefix of the order), or Len.
func (z *ZSet) firstRank(below func(m []byte, s float64) bool) int {
	if z.sl != nil {
		x := z.sl.first(func(n *slNode) bool { return below(bytesOf(n.member), n.score) })
		if x == nil {
			return z.sl.length
		}
		return z.sl.rank(x.score, x.member) - 1
	}
	r := 0
	for off := hdr; off < len(z.b); r++ {
		m, s, next := z.cnext(off)
		if !below(m, s) {
			return r
		}
		off = next
	}
	return r
}

// lastRank returns the rank of the last member for which within holds
// (within must hold for a prefix of the order), or -1.
func (z *ZSet) lastRank(within func(m []byte, s float64) bool) int {
	if z.sl != nil {
		x := z.sl.last(func(n *slNode) bool { return within(bytesOf(n.member), n.score) })
		if x == nil {
			return -1
		}
		return z.sl.rank(x.score, x.member) - 1
	}
	r := -1
	for off := hdr; off < len(z.b); {
		m, s, next := z.cnext(off)
		if !within(m, s) {
			break
		}
		r++
		off = next
	}
	return r
}

// Each calls fn for every member in ascending order until fn returns
// false.
func (z *ZSet) Each(fn func(member []byte, score float64) bool) { z.walk(0, false, fn) }

// Span normalises ZRANGE-style start/stop indexes against length n into
// inclusive ranks lo..hi; lo > hi means empty.
func Span(start, stop, n int) (lo, hi int) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, -1
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop
}

// RangeByRank calls fn for ranks lo..hi (inclusive, normalised by Span),
// counted from the lowest score, or from the highest when rev (ZRANGE
// ... REV, ZREVRANGE), until fn returns false.
func (z *ZSet) RangeByRank(lo, hi int, rev bool, fn func(member []byte, score float64) bool) {
	n := z.Len()
	if lo < 0 || hi >= n || lo > hi {
		return
	}
	left := hi - lo + 1
	from := lo
	if rev {
		from = n - 1 - lo
	}
	z.walk(from, rev, func(m []byte, s float64) bool {
		if !fn(m, s) {
			return false
		}
		left--
		return left > 0
	})
}

// ScoreRange is a score interval as ZRANGEBYSCORE reads it.
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// ParseScoreRange parses min and max ("1.5", "(1.5", "-inf", "+inf").
func ParseScoreRange(min, max []byte) (ScoreRange, error) {
	var r ScoreRange
	var ok1, ok2 bool
	r.Min, r.MinEx, ok1 = parseScoreBound(min)
	r.Max, r.MaxEx, ok2 = parseScoreBound(max)
	if !ok1 || !ok2 {
		return ScoreRange{}, ErrScoreRange
	}
	return r, nil
}

func parseScoreBound(b []byte) (float64, bool, bool) {
	ex := len(b) > 0 && b[0] == '('
	if ex {
		b = b[1:]
	}
	f, ok := num.ParseRangeFloat(b)
	return f, ex, ok
}

func (r ScoreRange) gteMin(v float64) bool {
	if r.MinEx {
		return v > r.Min
	}
	return v >= r.Min
}

func (r ScoreRange) lteMax(v float64) bool {
	if r.MaxEx {
		return v < r.Max
	}
	return v <= r.Max
}

// Empty reports whether no score can fall in r.
func (r ScoreRange) Empty() bool {
	return r.Min > r.Max || r.Min == r.Max && (r.MinEx || r.MaxEx)
}

// LexBound is one end of a lexicographic range: "-" (Inf < 0), "+"
// (Inf > 0), or a value, inclusive ("[") or exclusive ("(").
type LexBound struct {
	Inf   int8
	Value []byte
	Ex    bool
}

// LexRange is a member interval as ZRANGEBYLEX reads it.
type LexRange struct{ Min, Max LexBound }

// ParseLexRange parses min and max ("[a", "(a", "-", "+"). The values
// alias the arguments.
func ParseLexRange(min, max []byte) (LexRange, error) {
	a, ok1 := parseLexBound(min)
	b, ok2 := parseLexBound(max)
	if !ok1 || !ok2 {
		return LexRange{}, ErrLexRange
	}
	return LexRange{Min: a, Max: b}, nil
}

func parseLexBound(b []byte) (LexBound, bool) {
	if len(b) == 0 {
		return LexBound{}, false
	}
	switch b[0] {
	case '+':
		return LexBound{Inf: 1, Ex: true}, len(b) == 1
	case '-':
		return LexBound{Inf: -1, Ex: true}, len(b) == 1
	case '(':
		return LexBound{Value: b[1:], Ex: true}, true
	case '[':
		return LexBound{Value: b[1:]}, true
	}
	return LexBound{}, false
}

// cmpBound compares member m with bound b: -1, 0 or 1.
func cmpBound(m []byte, b LexBound) int {
	if b.Inf != 0 {
		return -int(b.Inf)
	}
	return bytes.Compare(m, b.Value)
}

func (r LexRange) gteMin(m []byte) bool {
	c := cmpBound(m, r.Min)
	return c > 0 || c == 0 && !r.Min.Ex
}

func (r LexRange) lteMax(m []byte) bool {
	c := cmpBound(m, r.Max)
	return c < 0 || c == 0 && !r.Max.Ex
}

// Empty reports whether no member can fall in r.
func (r LexRange) Empty() bool {
	var c int
	switch {
	case r.Min.Inf != 0 || r.Max.Inf != 0:
		a, b := int(r.Min.Inf), int(r.Max.Inf)
		switch {
		case r.Min.Inf == 0:
			a = 0
		case r.Max.Inf == 0:
			b = 0
		}
		if a < b {
			c = -1
		} else if a > b {
			c = 1
		}
	default:
		c = bytes.Compare(r.Min.Value, r.Max.Value)
	}
	return c > 0 || c == 0 && (r.Min.Ex || r.Max.Ex)
}

// rangeWalk is the shared body of RangeByScore and RangeByLex.
func (z *ZSet) rangeWalk(gteMin, lteMax func(m []byte, s float64) bool, rev bool, offset, count int, fn func([]byte, float64) bool) {
	n := z.Len()
	if offset < 0 || offset > 0 && offset >= n || count == 0 {
		return
	}
	if z.sl != nil && offset == 0 {
		// Without an offset no rank is needed: one descent finds the
		// range's first node and the walk follows the links from it,
		// where going by rank would descend three times (the bound, its
		// rank, the node of that rank).
		z.sl.rangeFrom(gteMin, lteMax, rev, count, fn)
		return
	}
	var from int
	if rev {
		from = z.lastRank(lteMax) - offset
	} else {
		from = z.firstRank(func(m []byte, s float64) bool { return !gteMin(m, s) }) + offset
	}
	z.walk(from, rev, func(m []byte, s float64) bool {
		if rev && !gteMin(m, s) || !rev && !lteMax(m, s) {
			return false
		}
		if !fn(m, s) {
			return false
		}
		count--
		return count != 0
	})
}

// RangeByScore calls fn for members with scores in r, ascending (or
// descending when rev), skipping offset of them and stopping after count
// (count < 0: no limit), as ZRANGEBYSCORE / ZREVRANGEBYSCORE with LIMIT.
// A negative offset yields nothing, as in Redis. r is always min..max:
// ZREVRANGEBYSCORE's arguments come max first and the caller swaps them.
func (z *ZSet) RangeByScore(r ScoreRange, rev bool, offset, count int, fn func(member []byte, score float64) bool) {
	if r.Empty() {
		return
	}
	z.rangeWalk(func(_ []byte, s float64) bool { return r.gteMin(s) }, func(_ []byte, s float64) bool { return r.lteMax(s) }, rev, offset, count, fn)
}

// RangeByLex is RangeByScore for ZRANGEBYLEX: members compared as bytes
// (meaningful when all scores are equal, as Redis documents).
func (z *ZSet) RangeByLex(r LexRange, rev bool, offset, count int, fn func(member []byte, score float64) bool) {
	if r.Empty() {
		return
	}
	z.rangeWalk(func(m []byte, _ float64) bool { return r.gteMin(m) }, func(m []byte, _ float64) bool { return r.lteMax(m) }, rev, offset, count, fn)
}

// rankBounds returns the inclusive rank interval of members between the
// two predicates.
func (z *ZSet) rankBounds(gteMin, lteMax func(m []byte, s float64) bool) (int, int) {
	lo := z.firstRank(func(m []byte, s float64) bool { return !gteMin(m, s) })
	hi := z.lastRank(lteMax)
	return lo, hi
}

func (z *ZSet) scoreBounds(r ScoreRange) (int, int) {
	if r.Empty() {
		return 0, -1
	}
	return z.rankBounds(func(_ []byte, s float64) bool { return r.gteMin(s) }, func(_ []byte, s float64) bool { return r.lteMax(s) })
}

func (z *ZSet) lexBounds(r LexRange) (int, int) {
	if r.Empty() {
		return 0, -1
	}
	return z.rankBounds(func(m []byte, _ float64) bool { return r.gteMin(m) }, func(m []byte, _ float64) bool { return r.lteMax(m) })
}

// CountByScore returns how many scores fall in r (ZCOUNT); O(log n) for
// the large form.
func (z *ZSet) CountByScore(r ScoreRange) int {
	lo, hi := z.scoreBounds(r)
	return max(hi-lo+1, 0)
}

// CountByLex returns how many members fall in r (ZLEXCOUNT).
func (z *ZSet) CountByLex(r LexRange) int {
	lo, hi := z.lexBounds(r)
	return max(hi-lo+1, 0)
}

// RemoveRangeByRank removes ranks lo..hi (inclusive, ascending, as Span
// gives them) and returns how many it removed (ZREMRANGEBYRANK).
func (z *ZSet) RemoveRangeByRank(lo, hi int) int {
	n := z.Len()
	if lo < 0 {
		lo = 0
	}
	if hi >= n {
		hi = n - 1
	}
	if lo > hi {
		return 0
	}
	k := hi - lo + 1
	if z.sl == nil {
		off := z.coffset(lo)
		end := off
		for i := 0; i < k; i++ {
			_, _, end = z.cnext(end)
		}
		z.b = lp.Delete(z.b, off, end)
		z.csetCount(n - k)
		return k
	}
	x := z.sl.byRank(lo + 1)
	for i := 0; i < k; i++ {
		next := x.lvl(0).forward
		z.d.Delete(bytesOf(x.member))
		z.sl.remove(x.score, x.member)
		x = next
	}
	return k
}

// RemoveRangeByScore removes members with scores in r (ZREMRANGEBYSCORE).
func (z *ZSet) RemoveRangeByScore(r ScoreRange) int { return z.RemoveRangeByRank(z.scoreBounds(r)) }

// RemoveRangeByLex removes members in r (ZREMRANGEBYLEX).
func (z *ZSet) RemoveRangeByLex(r LexRange) int { return z.RemoveRangeByRank(z.lexBounds(r)) }

// Pop removes up to count members with the lowest scores (or highest when
// max) and calls fn for each in pop order (ZPOPMIN, ZPOPMAX). The member
// slices are copies the caller may keep.
func (z *ZSet) Pop(count int, max bool, fn func(member []byte, score float64)) {
	n := z.Len()
	if count <= 0 || n == 0 {
		return
	}
	if count > n {
		count = n
	}
	type pair struct {
		m []byte
		s float64
	}
	out := make([]pair, 0, count)
	from := 0
	if max {
		from = n - 1
	}
	z.walk(from, max, func(m []byte, s float64) bool {
		out = append(out, pair{bytes.Clone(m), s})
		return len(out) < count
	})
	if max {
		z.RemoveRangeByRank(n-count, n-1)
	} else {
		z.RemoveRangeByRank(0, count-1)
	}
	for _, p := range out {
		fn(p.m, p.s)
	}
}

// Random calls fn for random members as ZRANDMEMBER count defines them:
// count > 0 gives min(count, Len) distinct members (all of them, in
// order, when count >= Len); count < 0 gives -count members that may
// repeat. fn returns false to stop early (a reply that has grown too
// large). Slices are valid during the call only.
func (z *ZSet) Random(src rand.Source, count int, fn func(member []byte, score float64) bool) {
	n := z.Len()
	if n == 0 || count == 0 {
		return
	}
	if count >= n {
		z.Each(fn)
		return
	}
	if count > 0 {
		idx := pick.Distinct(nil, src, n, count)
		z.eachAt(len(idx), func(k int) int { return idx[k] }, fn)
		return
	}
	// count < 0: draw and emit one member at a time, so that memory does
	// not grow with the count.
	z.eachAt(-count, func(int) int { return pick.Intn(src, n) }, fn)
}

// eachAt calls fn for k members, the one at position at(i) for i from 0
// to k-1, until fn returns false.
func (z *ZSet) eachAt(k int, at func(i int) int, fn func(member []byte, score float64) bool) {
	if z.sl != nil {
		for i := 0; i < k; i++ {
			x := *z.d.At(at(i))
			if !fn(bytesOf(x.member), x.score) {
				return
			}
		}
		return
	}
	offs := make([]int, 0, z.Len())
	for off := hdr; off < len(z.b); {
		offs = append(offs, off)
		_, _, off = z.cnext(off)
	}
	for i := 0; i < k; i++ {
		m, s, _ := z.cnext(offs[at(i)])
		if !fn(m, s) {
			return
		}
	}
}

// Scan visits members from cursor as ZSCAN does: the compact form returns
// everything with cursor 0; the large form visits hash buckets until count
// members were seen or count*10 buckets were walked and returns the next
// cursor (0 when done).
func (z *ZSet) Scan(cursor uint64, count int, fn func(member []byte, score float64)) uint64 {
	if z.sl == nil {
		z.Each(func(m []byte, s float64) bool { fn(m, s); return true })
		return 0
	}
	if count < 1 {
		count = 1
	}
	seen, steps := 0, count*10
	for {
		cursor = z.d.Scan(cursor, func(i int) { x := *z.d.At(i); fn(bytesOf(x.member), x.score); seen++ })
		steps--
		if cursor == 0 || seen >= count || steps == 0 {
			return cursor
		}
	}
}

// MemoryUsage returns the heap bytes held by the sorted set, its own
// header included, each allocation rounded to Go's size classes.
func (z *ZSet) MemoryUsage() int {
	n := int(unsafe.Sizeof(*z))
	if z.sl == nil {
		return n + memsize.NoScan(cap(z.b))
	}
	// The skiplist counts the member strings; the table points at nodes.
	n += memsize.Alloc(int(unsafe.Sizeof(*z.sl))) + z.d.MemoryUsage() + z.sl.memory()
	return n
}

// Clone returns an independent copy of z (for COPY and snapshots).
func (z *ZSet) Clone() ZSet {
	if z.sl == nil {
		return ZSet{b: append([]byte(nil), z.b...)}
	}
	c := ZSet{sl: newSkiplist(), d: newIndex(z.sl.length)}
	for x := z.sl.header.lvl(0).forward; x != nil; x = x.lvl(0).forward {
		c.addNew(bytesOf(x.member), x.score)
	}
	return c
}

// Shrink reallocates the compact form to its length (rounded to Go's
// size class), dropping the slack growth left; call it after building a
// value in bulk. The large form is left alone.
func (z *ZSet) Shrink() {
	if z.sl == nil && cap(z.b) > len(z.b) {
		z.b = append([]byte(nil), z.b...)
	}
}

// MarshalBinary encodes z in the version 1 format of the package comment.
func (z *ZSet) MarshalBinary() ([]byte, error) { return z.AppendBinary(nil) }

// AppendBinary appends z's encoding to dst.
func (z *ZSet) AppendBinary(dst []byte) ([]byte, error) {
	dst = append(dst, encodingVersion)
	if z.sl == nil {
		dst = append(dst, 0)
		if len(z.b) < hdr {
			return append(dst, 0, 0, 0, 0), nil
		}
		return append(dst, z.b...), nil
	}
	dst = append(dst, 1)
	dst = binary.AppendUvarint(dst, uint64(z.sl.length))
	for x := z.sl.header.lvl(0).forward; x != nil; x = x.lvl(0).forward {
		dst = binary.AppendUvarint(dst, uint64(len(x.member)))
		dst = append(dst, x.member...)
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x.score))
	}
	return dst, nil
}

// Unmarshal decodes a sorted set written by MarshalBinary into the form
// cfg calls for.
func Unmarshal(cfg Config, b []byte) (ZSet, error) {
	if len(b) < 2 || b[0] != encodingVersion {
		return ZSet{}, fmt.Errorf("%w: unknown version", ErrCorrupt)
	}
	type pair struct {
		m []byte
		s float64
	}
	var pairs []pair
	switch b[1] {
	case 0:
		body := b[2:]
		if len(body) < hdr {
			return ZSet{}, fmt.Errorf("%w: short compact form", ErrCorrupt)
		}
		n, ok := lp.Check(body[hdr:])
		if !ok || n%2 != 0 || n/2 != int(binary.LittleEndian.Uint32(body)) {
			return ZSet{}, fmt.Errorf("%w: compact entries", ErrCorrupt)
		}
		for off := hdr; off < len(body); {
			m, so := lp.Next(body, off)
			sb, next := lp.Next(body, so)
			if len(sb) > 8 {
				return ZSet{}, fmt.Errorf("%w: score size", ErrCorrupt)
			}
			pairs = append(pairs, pair{m, decodeScore(sb)})
			off = next
		}
	case 1:
		r := b[2:]
		cnt, k := binary.Uvarint(r)
		if k <= 0 || cnt > uint64(len(r)) {
			return ZSet{}, fmt.Errorf("%w: member count", ErrCorrupt)
		}
		r = r[k:]
		for i := uint64(0); i < cnt; i++ {
			l, k := binary.Uvarint(r)
			if k <= 0 || l > uint64(len(r)-k) || len(r)-k-int(l) < 8 {
				return ZSet{}, fmt.Errorf("%w: member %d", ErrCorrupt, i)
			}
			m := r[k : k+int(l)]
			s := math.Float64frombits(binary.LittleEndian.Uint64(r[k+int(l):]))
			pairs = append(pairs, pair{m, s})
			r = r[k+int(l)+8:]
		}
		if len(r) != 0 {
			return ZSet{}, fmt.Errorf("%w: trailing bytes", ErrCorrupt)
		}
	default:
		return ZSet{}, fmt.Errorf("%w: unknown form %d", ErrCorrupt, b[1])
	}
	var z ZSet
	for i, p := range pairs {
		if math.IsNaN(p.s) {
			return ZSet{}, fmt.Errorf("%w: NaN score", ErrCorrupt)
		}
		if i > 0 && !less(pairs[i-1].s, string(pairs[i-1].m), p.s, string(p.m)) {
			return ZSet{}, fmt.Errorf("%w: order", ErrCorrupt)
		}
		if _, res, _ := z.Add(cfg, p.m, p.s, 0); res != Added {
			return ZSet{}, fmt.Errorf("%w: duplicate member", ErrCorrupt)
		}
	}
	return z, nil
}
