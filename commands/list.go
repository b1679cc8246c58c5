package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"slices"
	"strings"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/list"
)

// The list family (LPUSH, LRANGE, LMOVE, …) on types/list. Every mutation
// writes one record: pushes and pops name their end and their elements or
// count; LSET, LINSERT, LREM and LTRIM log their arguments, which give the
// same result on the same state (they depend on nothing but the list);
// LMOVE logs both keys and both ends. A list left empty is deleted, by the
// command and by the replay of its record alike.
//
// The blocking variants (BLPOP and kin) are not implemented yet.

// parseWhereOrReply parses LEFT or RIGHT; it replies a syntax error otherwise.
func parseWhereOrReply(x *keyspace.Ctx, b []byte) (uint8, bool) {
	switch {
	case keyspace.EqFold(b, "left"):
		return keyspace.ListHead, true
	case keyspace.EqFold(b, "right"):
		return keyspace.ListTail, true
	}
	x.W.Error(keyspace.ErrSyntax)
	return 0, false
}

// parseNonNegativeOrReply parses a count that must be >= 0; msg is the error for
// anything else, a non-integer included, as Redis's getPositiveLong.
func parseNonNegativeOrReply(x *keyspace.Ctx, b []byte, msg string) (int64, bool) {
	n, ok := keyspace.ParseInt(b)
	if !ok || n < 0 {
		x.W.Error(msg)
		return 0, false
	}
	return n, true
}

// parseIndexOrReply parses an index or count argument (a C long).
func parseIndexOrReply(x *keyspace.Ctx, b []byte) (int64, bool) {
	n, ok := keyspace.ParseInt(b)
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
	}
	return n, ok
}

// LPUSH/RPUSH key element [element ...], LPUSHX/RPUSHX (only onto an
// existing list)
func pushCommand(x *keyspace.Ctx) {
	name := x.Cmd.Name
	where, event := keyspace.ListTail, "rpush"
	if name[0] == 'l' {
		where, event = keyspace.ListHead, "lpush"
	}
	key := x.Args[1]
	e, o, ok := lookupTypedOrReply[*keyspace.ListObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		if strings.HasSuffix(name, "x") {
			x.W.Int(0)
			return
		}
		o = &keyspace.ListObj{L: list.New(x.S.ListFill())}
		x.DB.Add(key, nil, o, 0)
		x.Notify(keyspace.EvNew, "new", key)
	}
	for _, v := range x.Args[2:] {
		o.Push(where, v)
	}
	x.S.LogListPush(x.DB.ID, key, where, x.Args[2:])
	x.Notify(keyspace.EvList, event, key)
	x.W.Int(int64(o.L.Len()))
}

// popN pops up to n elements at where from the list of e, replying each,
// logs the pops and deletes an emptied list. It returns how many it popped.
func popN(x *keyspace.Ctx, e *keyspace.Entry, o *keyspace.ListObj, key []byte, where uint8, n int64) int {
	n = min(n, int64(o.L.Len()))
	for range n {
		v, _ := o.Pop(where)
		x.W.Bulk(v)
	}
	x.S.LogListPop(x.DB.ID, key, where, int(n))
	x.Notify(keyspace.EvList, popEvent(where), key)
	if o.L.Len() == 0 {
		keyspace.RemoveEmpty(x.DB, e)
		x.Notify(keyspace.EvGeneric, "del", key)
	}
	return int(n)
}

// popEvent names the keyspace event of a pop at where.
func popEvent(where uint8) string {
	if where == keyspace.ListHead {
		return "lpop"
	}
	return "rpop"
}

// LPOP/RPOP key [count]
func popCommand(x *keyspace.Ctx) {
	where := keyspace.ListTail
	if x.Cmd.Name == "lpop" {
		where = keyspace.ListHead
	}
	if len(x.Args) > 3 {
		x.W.Error("ERR wrong number of arguments for '" + x.Cmd.Name + "' command")
		return
	}
	hasCount := len(x.Args) == 3
	var count int64
	if hasCount {
		var ok bool
		if count, ok = parseNonNegativeOrReply(x, x.Args[2], "ERR value is out of range, must be positive"); !ok {
			return
		}
	}
	key := x.Args[1]
	e, o, ok := lookupTypedOrReply[*keyspace.ListObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		if hasCount {
			x.W.NullArray()
		} else {
			x.W.Null()
		}
		return
	}
	if !hasCount {
		popN(x, e, o, key, where, 1)
		return
	}
	if count == 0 {
		x.W.ArrayHeader(0)
		return
	}
	x.W.ArrayHeader(int(min(count, int64(o.L.Len()))))
	popN(x, e, o, key, where, count)
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
func lmpopCommand(x *keyspace.Ctx) {
	m, ok := parseMPopOrReply(x, 1, listMPop)
	if !ok {
		return
	}
	where, _ := parseWhereOrReply(x, m.direction)
	count := m.count
	for _, key := range m.keys {
		e, o, ok := lookupTypedOrReply[*keyspace.ListObj](x, key, false)
		if !ok {
			return
		}
		if e == nil {
			continue
		}
		x.W.ArrayHeader(2)
		x.W.Bulk(key)
		x.W.ArrayHeader(int(min(count, int64(o.L.Len()))))
		popN(x, e, o, key, where, count)
		return
	}
	x.W.NullArray()
}

// readList returns the list at key for a read; o is nil when absent and
// ok false when WRONGTYPE was replied.
func readList(x *keyspace.Ctx) (o *keyspace.ListObj, ok bool) {
	_, o, ok = lookupTypedOrReply[*keyspace.ListObj](x, x.Args[1], true)
	return o, ok
}

// LINDEX key index
func lindexCommand(x *keyspace.Ctx) {
	o, ok := readList(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.Null()
		return
	}
	i, ok := parseIndexOrReply(x, x.Args[2])
	if !ok {
		return
	}
	if v, found := o.L.Index(int(i)); found {
		x.W.Bulk(v)
	} else {
		x.W.Null()
	}
}

// LRANGE key start stop
func lrangeCommand(x *keyspace.Ctx) {
	start, ok := parseIndexOrReply(x, x.Args[2])
	if !ok {
		return
	}
	stop, ok := parseIndexOrReply(x, x.Args[3])
	if !ok {
		return
	}
	o, ok := readList(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.ArrayHeader(0)
		return
	}
	lo, hi := list.Span(int(start), int(stop), o.L.Len())
	if lo > hi {
		x.W.ArrayHeader(0)
		return
	}
	x.W.ArrayHeader(hi - lo + 1)
	o.L.Range(lo, hi, func(v []byte) bool {
		x.W.Bulk(v)
		return true
	})
}

// LSET key index element
func lsetCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	e, o, ok := lookupTypedOrReply[*keyspace.ListObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		x.W.Error(keyspace.ErrNoSuchKey)
		return
	}
	i, ok := parseIndexOrReply(x, x.Args[2])
	if !ok {
		return
	}
	if !o.L.Set(int(i), x.Args[3]) {
		x.W.Error("ERR index out of range")
		return
	}
	x.S.LogListKeyI64Bytes(x.DB.ID, persistence.OpListSet, key, i, x.Args[3])
	x.Notify(keyspace.EvList, "lset", key)
	x.W.OK()
}

// LINSERT key BEFORE|AFTER pivot element
func linsertCommand(x *keyspace.Ctx) {
	var after bool
	switch {
	case keyspace.EqFold(x.Args[2], "after"):
		after = true
	case keyspace.EqFold(x.Args[2], "before"):
	default:
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	key := x.Args[1]
	_, o, ok := lookupTypedOrReplyZero[*keyspace.ListObj](x, key, false)
	if !ok {
		return
	}
	n := o.L.Insert(x.Args[3], x.Args[4], after)
	if n >= 0 {
		x.S.LogListInsert(x.DB.ID, key, after, x.Args[3], x.Args[4])
		x.Notify(keyspace.EvList, "linsert", key)
	}
	x.W.Int(int64(n))
}

// LREM key count element
func lremCommand(x *keyspace.Ctx) {
	count, ok := parseIndexOrReply(x, x.Args[2])
	if !ok {
		return
	}
	key := x.Args[1]
	e, o, ok := lookupTypedOrReplyZero[*keyspace.ListObj](x, key, false)
	if !ok {
		return
	}
	n := o.L.Remove(x.Args[3], int(count))
	if n > 0 {
		x.S.LogListKeyI64Bytes(x.DB.ID, persistence.OpListRem, key, count, x.Args[3])
		x.Notify(keyspace.EvList, "lrem", key)
		if o.L.Len() == 0 {
			keyspace.RemoveEmpty(x.DB, e)
			x.Notify(keyspace.EvGeneric, "del", key)
		}
	}
	x.W.Int(int64(n))
}

// LTRIM key start stop
func ltrimCommand(x *keyspace.Ctx) {
	start, ok := parseIndexOrReply(x, x.Args[2])
	if !ok {
		return
	}
	stop, ok := parseIndexOrReply(x, x.Args[3])
	if !ok {
		return
	}
	key := x.Args[1]
	e, o, ok := lookupTypedOrReply[*keyspace.ListObj](x, key, false)
	if !ok {
		return
	}
	if e != nil {
		before := o.L.Len()
		o.L.Trim(int(start), int(stop))
		if o.L.Len() != before {
			x.S.LogListTrim(x.DB.ID, key, start, stop)
		}
		// Redis announces ltrim on an existing list even when nothing was cut.
		x.Notify(keyspace.EvList, "ltrim", key)
		if o.L.Len() == 0 {
			keyspace.RemoveEmpty(x.DB, e)
			x.Notify(keyspace.EvGeneric, "del", key)
		}
	}
	x.W.OK()
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
func lposCommand(x *keyspace.Ctx) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	args := x.Args
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case keyspace.EqFold(args[j], "rank") && more:
			j++
			n, ok := parseIndexOrReply(x, args[j])
			if !ok {
				return
			}
			if n == 0 {
				x.W.Error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			rank = n
		case keyspace.EqFold(args[j], "count") && more:
			j++
			n, ok := parseNonNegativeOrReply(x, args[j], "ERR COUNT can't be negative")
			if !ok {
				return
			}
			count = n
		case keyspace.EqFold(args[j], "maxlen") && more:
			j++
			n, ok := parseNonNegativeOrReply(x, args[j], "ERR MAXLEN can't be negative")
			if !ok {
				return
			}
			maxlen = n
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	if rank == math.MinInt64 {
		// Its negation does not fit: no list is that long.
		rank = math.MinInt64 + 1
	}
	o, ok := readList(x)
	if !ok {
		return
	}
	if o == nil {
		if count != -1 {
			x.W.ArrayHeader(0)
		} else {
			x.W.Null()
		}
		return
	}
	want := int(count)
	if count == -1 {
		want = 1
	}
	pos := o.L.Pos(nil, x.Args[2], int(rank), want, int(maxlen))
	if count == -1 {
		if len(pos) == 0 {
			x.W.Null()
		} else {
			x.W.Int(int64(pos[0]))
		}
		return
	}
	x.W.ArrayHeader(len(pos))
	for _, p := range pos {
		x.W.Int(int64(p))
	}
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT / RPOPLPUSH source
// destination
func lmoveCommand(x *keyspace.Ctx) {
	from, to := keyspace.ListTail, keyspace.ListHead
	if x.Cmd.Name == "lmove" {
		var ok bool
		if from, ok = parseWhereOrReply(x, x.Args[3]); !ok {
			return
		}
		if to, ok = parseWhereOrReply(x, x.Args[4]); !ok {
			return
		}
	}
	lmoveDo(x, x.Args[1], x.Args[2], from, to)
}

// lmoveDo moves one element from the list at src (from) to the list at
// dstKey (to), replying the element, null when src is absent, WRONGTYPE
// when either is not a list.
func lmoveDo(x *keyspace.Ctx, src, dstKey []byte, from, to uint8) {
	se, so, ok := lookupTypedOrReply[*keyspace.ListObj](x, src, false)
	if !ok {
		return
	}
	if se == nil {
		x.W.Null()
		return
	}
	de, do, ok := lookupTypedOrReply[*keyspace.ListObj](x, dstKey, false)
	if !ok {
		return
	}
	v, _ := so.Pop(from)
	v = slices.Clone(v)
	if de == nil {
		if string(src) == string(dstKey) {
			do = so
		} else {
			do = &keyspace.ListObj{L: list.New(x.S.ListFill())}
			x.DB.Add(dstKey, nil, do, 0)
			x.Notify(keyspace.EvNew, "new", dstKey)
		}
	}
	do.Push(to, v)
	x.S.LogListMove(x.DB.ID, src, dstKey, from, to)
	pushEv := "rpush"
	if to == keyspace.ListHead {
		pushEv = "lpush"
	}
	x.Notify(keyspace.EvList, pushEv, dstKey)
	x.Notify(keyspace.EvList, popEvent(from), src)
	if so.L.Len() == 0 {
		// The entry pointer may be stale after an insertion: find it again.
		if e := x.DB.Find(src); e != nil {
			keyspace.RemoveEmpty(x.DB, e)
			x.Notify(keyspace.EvGeneric, "del", src)
		}
	}
	x.W.Bulk(v)
}

func registerListFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	t.Add(
		&keyspace.Command{Name: "lpush", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Prepends one or more elements to a list. Creates the key if it doesn't exist.", Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", Handler: pushCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "rpush", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Appends one or more elements to a list. Creates the key if it doesn't exist.", Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", Handler: pushCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "lpushx", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "2.2.0", Summary: "Prepends one or more elements to a list only when the list exists.", Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", Handler: pushCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "rpushx", Arity: -3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "2.2.0", Summary: "Appends an element to a list only when the list exists.", Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", Handler: pushCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "lpop", Arity: -2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.", Complexity: "O(N) where N is the number of elements returned", Handler: popCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "rpop", Arity: -2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns and removes the last elements of a list. Deletes the list if the last element was popped.", Complexity: "O(N) where N is the number of elements returned", Handler: popCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "lmpop", Arity: -4, Flags: rw, NumKeysAt: 1, Group: "list", Since: "7.0.0", Summary: "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.", Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.", Handler: lmpopCommand, KeySpecs: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
		&keyspace.Command{Name: "llen", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns the length of a list.", Complexity: "O(1)", Handler: cardCommand[*keyspace.ListObj], KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
		&keyspace.Command{Name: "lindex", Arity: 3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns an element from a list by its index.", Complexity: "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).", Handler: lindexCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "lrange", Arity: 4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Returns a range of elements from a list.", Complexity: "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.", Handler: lrangeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "lset", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Sets the value of an element in a list by its index.", Complexity: "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).", Handler: lsetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "linsert", Arity: 5, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "2.2.0", Summary: "Inserts an element before or after another element in a list.", Complexity: "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).", Handler: linsertCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "lrem", Arity: 4, Flags: rw, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Removes elements from a list. Deletes the list if the last element was removed.", Complexity: "O(N+M) where N is the length of the list and M is the number of elements removed.", Handler: lremCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "ltrim", Arity: 4, Flags: rw, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "1.0.0", Summary: "Removes elements from both ends a list. Deletes the list if all elements were trimmed.", Complexity: "O(N) where N is the number of elements to be removed by the operation.", Handler: ltrimCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "lpos", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "list", Since: "6.0.6", Summary: "Returns the index of matching elements in a list.", Complexity: "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.", Handler: lposCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "lmove", Arity: 5, Flags: rw | deny, FirstKey: 1, LastKey: 2, Step: 1, Group: "list", Since: "6.2.0", Summary: "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.", Complexity: "O(1)", Handler: lmoveCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
		&keyspace.Command{Name: "rpoplpush", Arity: 3, Flags: rw | deny, FirstKey: 1, LastKey: 2, Step: 1, Group: "list", Since: "1.2.0", Summary: "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.", Complexity: "O(1)", Handler: lmoveCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
	)
}

// The blocking list pops. Each tries its non-blocking form first; with
// nothing to pop it parks the client (the engine's blocking facility) with
// a Serve function that performs exactly that non-blocking pop, so the log
// records and keyspace events of a served pop are those of LPOP or LMOVE.
// Inside EXEC (x.NoBlock) they reply as timed out at once.

// listAt is blockedOnAt for lists.
func listAt(x *keyspace.Ctx, key []byte) (*keyspace.Entry, *keyspace.ListObj) {
	return blockedOnAt[*keyspace.ListObj](x, key)
}

// popListReply pops from the list of e as BLPOP (count < 0: key and one
// element) or BLMPOP (key and an array of up to count elements) replies.
func popListReply(x *keyspace.Ctx, e *keyspace.Entry, o *keyspace.ListObj, key []byte, where uint8, count int64) {
	x.W.ArrayHeader(2)
	x.W.Bulk(key)
	if count < 0 {
		popN(x, e, o, key, where, 1)
		return
	}
	x.W.ArrayHeader(int(min(count, int64(o.L.Len()))))
	popN(x, e, o, key, where, count)
}

// blockingListPop is BLPOP, BRPOP (count -1) and BLMPOP: keys in order,
// the first non-empty list is popped, WRONGTYPE on the first key of
// another type; else the client blocks on all keys.
func blockingListPop(x *keyspace.Ctx, keys [][]byte, where uint8, count int64, deadline int64) {
	for _, key := range keys {
		e, o, ok := lookupTypedOrReply[*keyspace.ListObj](x, key, false)
		if !ok {
			return
		}
		if e == nil {
			continue
		}
		popListReply(x, e, o, key, where, count)
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
			e, o := listAt(x, key)
			if o == nil {
				return false
			}
			popListReply(x, e, o, key, where, count)
			return true
		},
	})
}

// BLPOP key [key ...] timeout / BRPOP key [key ...] timeout
func blpopCommand(x *keyspace.Ctx) {
	where := keyspace.ListHead
	if x.Cmd.Name == "brpop" {
		where = keyspace.ListTail
	}
	deadline, ok := x.ParseBlockTimeoutOrReply(x.Args[len(x.Args)-1])
	if !ok {
		return
	}
	blockingListPop(x, x.Args[1:len(x.Args)-1], where, -1, deadline)
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
func blmpopCommand(x *keyspace.Ctx) {
	m, ok := parseMPopOrReply(x, 2, listMPop)
	if !ok {
		return
	}
	where, _ := parseWhereOrReply(x, m.direction)
	deadline, ok := x.ParseBlockTimeoutOrReply(x.Args[1])
	if !ok {
		return
	}
	blockingListPop(x, m.keys, where, m.count, deadline)
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout /
// BRPOPLPUSH source destination timeout
func blmoveCommand(x *keyspace.Ctx) {
	from, to := keyspace.ListTail, keyspace.ListHead
	if x.Cmd.Name == "blmove" {
		var ok bool
		if from, ok = parseWhereOrReply(x, x.Args[3]); !ok {
			return
		}
		if to, ok = parseWhereOrReply(x, x.Args[4]); !ok {
			return
		}
	}
	deadline, ok := x.ParseBlockTimeoutOrReply(x.Args[len(x.Args)-1])
	if !ok {
		return
	}
	src, dst := x.Args[1], x.Args[2]
	e, _, ok := lookupTypedOrReply[*keyspace.ListObj](x, src, false)
	if !ok {
		return
	}
	if e != nil {
		lmoveDo(x, src, dst, from, to)
		return
	}
	if x.NoBlock {
		x.W.Null()
		return
	}
	x.Block(keyspace.BlockSpec{
		Keys:       x.Args[1:2],
		DeadlineMs: deadline,
		Serve: func(x *keyspace.Ctx, key []byte) bool {
			if _, o := listAt(x, key); o == nil {
				return false
			}
			// A destination of another type is replied WRONGTYPE and
			// the client unblocked, the element left in place.
			lmoveDo(x, key, dst, from, to)
			return true
		},
	})
}

// registerListBlockingPops registers the blocking list pops: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH and BLMPOP.
func registerListBlockingPops(t keyspace.CommandTable) {
	const rw, deny, fast, noscript, blocking = keyspace.FlagWrite, keyspace.FlagDenyOOM, keyspace.FlagFast, keyspace.FlagNoScript, keyspace.FlagBlocking
	t.Add(
		&keyspace.Command{Name: "blpop", Arity: -3, Flags: rw | noscript | blocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "list", Since: "2.0.0", Summary: "Remove and get the first element in a list, or block until one is available", Complexity: "O(N) where N is the number of provided keys.", Handler: blpopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
		&keyspace.Command{Name: "brpop", Arity: -3, Flags: rw | noscript | blocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "list", Since: "2.0.0", Summary: "Remove and get the last element in a list, or block until one is available", Complexity: "O(N) where N is the number of provided keys.", Handler: blpopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
		&keyspace.Command{Name: "blmove", Arity: 6, Flags: rw | deny | noscript | blocking, FirstKey: 1, LastKey: 2, Step: 1, Group: "list", Since: "6.2.0", Summary: "Pop an element from a list, push it to another list and return it; or block until one is available", Complexity: "O(1)", Handler: blmoveCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
		&keyspace.Command{Name: "brpoplpush", Arity: 4, Flags: rw | deny | noscript | blocking, FirstKey: 1, LastKey: 2, Step: 1, Group: "list", Since: "2.2.0", Summary: "Pop an element from a list, push it to another list and return it; or block until one is available", Complexity: "O(1)", Handler: blmoveCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
		&keyspace.Command{Name: "blmpop", Arity: -5, Flags: rw | blocking, NumKeysAt: 2, Group: "list", Since: "7.0.0", Summary: "Pop elements from a list, or block until one is available", Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.", Handler: blmpopCommand, KeySpecs: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	)
}
