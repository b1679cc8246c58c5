package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"slices"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/types/list"
	"github.com/ruvio/ruvio/types/num"
)

// SORT and SORT_RO (Redis's sort.c): the elements of a list, set or sorted
// set, ordered numerically or (ALPHA) as strings, by themselves or by the
// values of keys named after them (BY pattern, a '*' in the pattern
// standing for the element, "key->field" for a hash field), optionally
// replaced by such values (GET pattern, '#' for the element), a window
// of the result kept (LIMIT), and the result returned or stored as a
// list (STORE). A STORE writes one OpListStore record holding the whole
// list, so replay needs neither the patterns nor the keys they read.
//
// With several shards the server is a cluster, and BY and GET patterns
// could name keys of any slot: as a Redis 7.0 cluster node does, SORT
// refuses GET and any BY pattern with a '*' there. A BY pattern without
// '*' (BY nosort) only turns sorting off and is always accepted.
//
// Where Redis's result depends on its internals rather than on the data,
// this differs: elements that compare equal under ALPHA with a BY pattern
// keep their load order (stable sort), which for a set or sorted set is
// not Redis's hash-table order, nor, with LIMIT, its partial quicksort's;
// and a weight that overflows a double fails only that SORT, where Redis,
// which tests a stale errno, may go on failing later numeric sorts.

const errSortBadScore = "ERR One or more scores can't be converted into double"

// sortItem is one element being sorted with its sort key.
type sortItem struct {
	elem  []byte
	score float64
	cmp   []byte // the BY value for ALPHA with BY; nil when missing
}

// cstr returns b up to its first NUL byte, as C string functions see it.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// sortLookup returns the value a BY or GET pattern names for elem: elem
// itself for "#"; none (ok false) for a pattern without '*', a missing
// key, a key of the wrong type or a missing hash field. The bytes may
// alias the keyspace and are used before anything changes.
func sortLookup(x *keyspace.Ctx, pattern, elem []byte) (v []byte, ok bool) {
	c := cstr(pattern)
	if len(c) == 1 && c[0] == '#' {
		return elem, true
	}
	star := bytes.IndexByte(c, '*')
	if star < 0 {
		return nil, false
	}
	keyEnd := len(pattern)
	var field []byte
	if a := bytes.Index(c[star+1:], []byte("->")); a >= 0 && star+1+a+2 < len(c) {
		arrow := star + 1 + a
		field = pattern[arrow+2:]
		keyEnd = arrow
	}
	key := make([]byte, 0, star+len(elem)+keyEnd-star-1)
	key = append(key, pattern[:star]...)
	key = append(key, elem...)
	key = append(key, pattern[star+1:keyEnd]...)
	e := x.S.LookupRead(x.DB, key)
	if e == nil {
		return nil, false
	}
	if field != nil {
		h, isHash := x.DB.Obj(e).(*keyspace.HashObj)
		if !isHash || h.FieldExpired(field, x.S.NowMs) {
			return nil, false
		}
		return h.H.Get(field)
	}
	if e.IsObj() {
		return nil, false
	}
	return x.DB.Val(e), true
}

// sortScore parses a sort weight as strtod does in SORT: leading white
// space is skipped, the empty string is 0, and trailing bytes, NaN,
// overflow and underflow are errors.
func sortScore(b []byte) (float64, bool) {
	b = cstr(b)
	if len(b) == 0 {
		return 0, true
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	return num.ParseFloat(b[i:])
}

// sortFullKeyAccess reports whether the caller's user may read every key,
// which BY and GET patterns need since they name keys from data.
func sortFullKeyAccess(x *keyspace.Ctx) bool {
	c := x.C
	if x.S.Scr.Caller != nil && c == x.S.Scr.Lua {
		c = x.S.Scr.Caller // a script's commands run with its caller's rights
	}
	u := c.ACLUser
	if u == nil || u.Unrestricted() {
		return true
	}
	return u.CheckUnrestrictedKeys(x.S.ACLRequest(x.Cmd, x.Args), acl.Read)
}

// sortOptions are the arguments of a SORT call after the key, but for
// the GET patterns (see sortGeneric).
type sortOptions struct {
	desc, alpha bool
	dontSort    bool // BY a pattern without '*': the elements keep their order
	limitStart  int64
	limitCount  int64 // -1: no LIMIT
	storeKey    []byte
	sortBy      []byte
}

// sortGeneric is SORT (readonly false) and SORT_RO. It reads the options,
// checking them in argument order as Redis does, and hands them to
// sortRun. The GET patterns are gathered in a plain local slice here, not
// in sortOptions or a parsing function, because only there does the
// compiler keep the first of them in the stack frame: a lone GET then
// costs no allocation.
func sortGeneric(x *keyspace.Ctx, readonly bool) {
	args := x.Args
	o := sortOptions{limitCount: -1}
	var gets [][]byte
	cluster := serverClusterEnabled(x.S.Srv)
	access := -1 // unknown until a pattern needs it
	fullAccess := func() bool {
		if access < 0 {
			access = 0
			if sortFullKeyAccess(x) {
				access = 1
			}
		}
		return access == 1
	}
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case keyspace.EqFold(a, "asc"):
			o.desc = false
		case keyspace.EqFold(a, "desc"):
			o.desc = true
		case keyspace.EqFold(a, "alpha"):
			o.alpha = true
		case keyspace.EqFold(a, "limit") && left >= 2:
			var ok bool
			if o.limitStart, ok = keyspace.ParseInt(args[j+1]); !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			if o.limitCount, ok = keyspace.ParseInt(args[j+2]); !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			j += 2
		case !readonly && keyspace.EqFold(a, "store") && left >= 1:
			o.storeKey = args[j+1]
			j++
		case keyspace.EqFold(a, "by") && left >= 1:
			o.sortBy = args[j+1]
			if bytes.IndexByte(cstr(o.sortBy), '*') < 0 {
				o.dontSort = true
			} else {
				if cluster {
					x.W.Error("ERR BY option of SORT denied in Cluster mode.")
					return
				}
				if !fullAccess() {
					x.W.Error("ERR BY option of SORT denied due to insufficient ACL permissions.")
					return
				}
			}
			j++
		case keyspace.EqFold(a, "get") && left >= 1:
			if cluster {
				x.W.Error("ERR GET option of SORT denied in Cluster mode.")
				return
			}
			if !fullAccess() {
				x.W.Error("ERR GET option of SORT denied due to insufficient ACL permissions.")
				return
			}
			gets = append(gets, args[j+1])
			j++
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	sortRun(x, &o, gets)
}

// sortRun is SORT after its options: look the key up, load its elements,
// sort them and reply or store the result.
func sortRun(x *keyspace.Ctx, o *sortOptions, gets [][]byte) {
	src, ok := sortSourceOf(x, x.Args[1])
	if !ok {
		return
	}
	// A set has no order of its own: when its elements go somewhere
	// lasting (STORE, or a script's effects), sort them so the result is
	// the same everywhere.
	inScript := x.S.Scr.Caller != nil && x.C == x.S.Scr.Lua
	if o.dontSort && src.so != nil && (o.storeKey != nil || inScript) {
		o.dontSort, o.alpha, o.sortBy = false, true, nil
	}
	start, end := sortWindow(o.limitStart, o.limitCount, src.n)
	items, start, end := sortLoad(&src, o, start, end)
	if !o.dontSort && sortItems(x, items, o) {
		x.W.Error(errSortBadScore)
		return
	}
	if o.storeKey == nil {
		sortReply(x, items, start, end, gets)
		return
	}
	sortStore(x, items, start, end, gets, o.storeKey)
}

// sortSource is the collection SORT reads: at most one of lo, so and zo,
// none for a missing key, and its number of elements.
type sortSource struct {
	lo *keyspace.ListObj
	so *keyspace.SetObj
	zo *keyspace.ZsetObj
	n  int
}

// sortSourceOf looks key up for SORT, replying WRONGTYPE (false) unless
// it is missing, a list, a set or a sorted set.
func sortSourceOf(x *keyspace.Ctx, key []byte) (src sortSource, ok bool) {
	e := x.S.LookupRead(x.DB, key)
	if e == nil {
		return src, true
	}
	switch v := x.DB.Obj(e).(type) {
	case *keyspace.ListObj:
		src.lo, src.n = v, v.L.Len()
	case *keyspace.SetObj:
		src.so, src.n = v, v.S.Len()
	case *keyspace.ZsetObj:
		src.zo, src.n = v, v.Z.Len()
	default:
		x.W.Error(keyspace.ErrWrongType)
		return src, false
	}
	return src, true
}

// sortWindow clamps LIMIT to n elements: the result is the elements
// start…end of the sorted order, none when end < start.
func sortWindow(limitStart, limitCount int64, n int) (start, end int64) {
	start = min(max(limitStart, 0), int64(n))
	count := min(max(limitCount, -1), int64(n))
	end = int64(n) - 1
	if count >= 0 {
		end = start + count - 1
	}
	if start >= int64(n) {
		start, end = int64(n)-1, int64(n)-2
	}
	end = min(end, int64(n)-1)
	return start, end
}

// sortLoad copies the elements of src out of the keyspace. Lists and
// sorted sets keep their own order when nothing is sorted, and then only
// the window start…end is read, so the window returned is shifted to
// index the items loaded.
func sortLoad(src *sortSource, o *sortOptions, start, end int64) (items []sortItem, wstart, wend int64) {
	add := func(v []byte) bool {
		items = append(items, sortItem{elem: bytes.Clone(v)})
		return true
	}
	n := src.n
	window := o.dontSort && (src.lo != nil || src.zo != nil) && (start != 0 || end != int64(n)-1)
	switch {
	case src.lo != nil && o.dontSort:
		if end >= start {
			want := int(end - start + 1)
			if !window {
				want = n
			}
			if o.desc {
				hi := n - 1 - int(start)
				src.lo.L.RangeReverse(max(hi-want+1, 0), hi, add)
			} else {
				src.lo.L.Range(int(start), min(int(start)+want-1, n-1), add)
			}
			end -= start
			start = 0
		}
	case src.lo != nil:
		src.lo.L.Range(0, n-1, add)
	case src.so != nil:
		src.so.S.Each(add)
	case src.zo != nil && o.dontSort:
		want := n
		if window {
			want = int(end - start + 1)
		}
		if want > 0 {
			src.zo.Z.RangeByRank(int(start), int(start)+want-1, o.desc, func(m []byte, _ float64) bool { return add(m) })
		}
		end -= start
		start = 0
	case src.zo != nil:
		src.zo.Z.Each(func(m []byte, _ float64) bool { return add(m) })
	}
	return items, start, end
}

// sortItems gives items their sort keys (the BY values, as numbers unless
// ALPHA) and sorts them. badScore reports a weight that is not a number;
// the items are sorted all the same, as Redis does before it fails.
func sortItems(x *keyspace.Ctx, items []sortItem, o *sortOptions) (badScore bool) {
	alpha, sortBy := o.alpha, o.sortBy
	for i := range items {
		it := &items[i]
		by := it.elem
		if sortBy != nil {
			var found bool
			if by, found = sortLookup(x, sortBy, it.elem); !found {
				continue
			}
		}
		if alpha {
			if sortBy != nil {
				it.cmp = append([]byte{}, by...) // never nil: nil is "missing"
			}
			continue
		}
		f, ok := sortScore(by)
		if !ok {
			badScore = true
		}
		it.score = f
	}
	store := o.storeKey != nil
	cmp := func(a, b *sortItem) int {
		switch {
		case !alpha:
			switch {
			case a.score > b.score:
				return 1
			case a.score < b.score:
				return -1
			}
			return bytes.Compare(a.elem, b.elem)
		case sortBy != nil:
			switch {
			case a.cmp == nil && b.cmp == nil:
				return 0
			case a.cmp == nil:
				return -1
			case b.cmp == nil:
				return 1
			case store:
				return bytes.Compare(a.cmp, b.cmp)
			}
			return bytes.Compare(cstr(a.cmp), cstr(b.cmp))
		case store:
			return bytes.Compare(a.elem, b.elem)
		}
		return bytes.Compare(cstr(a.elem), cstr(b.elem))
	}
	desc := o.desc
	slices.SortStableFunc(items, func(a, b sortItem) int {
		if desc {
			return cmp(&b, &a)
		}
		return cmp(&a, &b)
	})
	return badScore
}

// sortOutLen is the number of values the rows start…end give: one per row,
// or one per GET pattern and row.
func sortOutLen(start, end int64, gets [][]byte) int {
	rows := int(end - start + 1)
	if len(gets) > 0 {
		return len(gets) * rows
	}
	return rows
}

// sortReply replies the items start…end, or the values their GET
// patterns name (null where missing).
func sortReply(x *keyspace.Ctx, items []sortItem, start, end int64, gets [][]byte) {
	x.W.ArrayHeader(sortOutLen(start, end, gets))
	for j := start; j <= end; j++ {
		elem := items[j].elem
		if len(gets) == 0 {
			x.W.Bulk(elem)
		}
		for _, g := range gets {
			if v, found := sortLookup(x, g, elem); found {
				x.W.Bulk(v)
			} else {
				x.W.Null()
			}
		}
	}
}

// sortStore stores what sortReply would reply as the list dst (an empty
// result deletes dst), logs it as one OpListStore record and replies its
// length.
func sortStore(x *keyspace.Ctx, items []sortItem, start, end int64, gets [][]byte, dst []byte) {
	outLen := sortOutLen(start, end, gets)
	sh, db := x.S, x.DB
	if outLen == 0 {
		storeEmptyResult(x, dst)
		return
	}
	out := &keyspace.ListObj{L: list.New(sh.ListFill())}
	for j := start; j <= end; j++ {
		elem := items[j].elem
		if len(gets) == 0 {
			out.L.PushBack(elem)
		}
		for _, g := range gets {
			v, _ := sortLookup(x, g, elem) // a missing value is stored as ""
			out.L.PushBack(v)
		}
	}
	keyspace.StoreObj(db, sh.Lookup(db, dst), dst, out)
	sh.LogListStore(db.ID, dst, out)
	x.Notify(keyspace.EvList, "sortstore", dst)
	x.W.Int(int64(outLen))
}

func sortCommand(x *keyspace.Ctx) { sortGeneric(x, false) }

func sortroCommand(x *keyspace.Ctx) { sortGeneric(x, true) }

// sortKeyRefs finds the keys of a SORT call as Redis's sort key finder
// does: the sorted key, and the destination of the last STORE (options
// are skipped with their arguments, so a STORE inside a pattern is not
// taken). SORT_RO has only the sorted key.
func sortKeyRefs(readonly bool) func(args [][]byte, dst []keyspace.KeyRef) []keyspace.KeyRef {
	return func(args [][]byte, dst []keyspace.KeyRef) []keyspace.KeyRef {
		if len(args) < 2 {
			return dst
		}
		dst = append(dst, keyspace.KeyRef{Pos: 1, Flags: keyspace.KeyRO | keyspace.KeyAccess})
		if readonly {
			return dst
		}
		store := -1
		for i := 2; i < len(args); i++ {
			switch {
			case keyspace.EqFold(args[i], "limit"):
				i += 2
			case keyspace.EqFold(args[i], "get"), keyspace.EqFold(args[i], "by"):
				i++
			case keyspace.EqFold(args[i], "store") && i+1 < len(args):
				store = i + 1
			}
		}
		if store > 0 {
			dst = append(dst, keyspace.KeyRef{Pos: store, Flags: keyspace.KeyOW | keyspace.KeyUpdate})
		}
		return dst
	}
}

// keyPositions adapts a key finder with flags to the positions routing
// needs.
func keyPositions(fn func(args [][]byte, dst []keyspace.KeyRef) []keyspace.KeyRef) func(args [][]byte, dst []int) []int {
	return func(args [][]byte, dst []int) []int {
		for _, k := range fn(args, nil) {
			dst = append(dst, k.Pos)
		}
		return dst
	}
}

func registerSortFamily(t keyspace.CommandTable) {
	const complexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N)."
	cats := []string{"set", "sortedset", "list", "dangerous"}
	sortCmd := &keyspace.Command{Name: "sort", Arity: -2, Flags: keyspace.FlagWrite | keyspace.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Categories: cats, Group: "generic", Since: "1.0.0",
		Summary: "Sort the elements in a list, set or sorted set", Complexity: complexity, Handler: sortCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess}, {Flags: keyspace.KeyOW | keyspace.KeyUpdate}}}
	sortCmd.GetKeys = sortKeyRefs(false)
	sortCmd.MovableKeys = keyPositions(sortCmd.GetKeys)
	sortRO := &keyspace.Command{Name: "sort_ro", Arity: -2, Flags: keyspace.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Categories: cats, Group: "generic", Since: "7.0.0",
		Summary: "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", Complexity: complexity, Handler: sortroCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), {Flags: keyspace.KeyRO | keyspace.KeyAccess}}}
	sortRO.GetKeys = sortKeyRefs(true)
	t.Add(sortCmd, sortRO)
}
