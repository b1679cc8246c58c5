package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"fmt"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/set"
)

// The set family (Redis's t_set.c) on types/set. Every reply, error text
// and order of checks follows Redis 7.0; the RESP3 replies that Redis
// sends as sets (SMEMBERS, SINTER, SUNION, SDIFF, SPOP with a count) are
// sets here too. Mutations log physical records: the members added or
// removed (SPOP logs what it popped), the moved member of SMOVE, the
// whole result of a STORE.

// shardLookupSet returns the set at key for reading (nil when absent); ok is
// false after a WRONGTYPE reply.
func shardLookupSet(sh *keyspace.Shard, db *keyspace.DB, key []byte, write bool) (e *keyspace.Entry, o *keyspace.SetObj, ok bool) {
	if write {
		e = sh.Lookup(db, key)
	} else {
		e = sh.LookupRead(db, key)
	}
	if e == nil {
		return nil, nil, true
	}
	o, ok = db.Obj(e).(*keyspace.SetObj)
	return e, o, ok
}

// replyMembers writes members as a set reply (an array in RESP2).
func replyMembers(x *keyspace.Ctx, members [][]byte) {
	x.W.SetHeader(len(members))
	for _, m := range members {
		x.W.Bulk(m)
	}
}

// SADD key member [member ...]
func saddCommand(x *keyspace.Ctx) {
	sh, db := x.S, x.DB
	e, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, x.Args[1], false)
	if !ok {
		return
	}
	if e == nil {
		o = &keyspace.SetObj{}
		e = db.Add(x.Args[1], nil, o, 0)
		x.Notify(keyspace.EvNew, "new", x.Args[1])
	}
	cfg := sh.SetConfig()
	added := 0
	for _, m := range x.Args[2:] {
		if o.S.Add(cfg, m) {
			added++
		}
	}
	if added > 0 {
		sh.LogSetMembers(db.ID, persistence.OpSetAdd, e.KeyView(), x.Args[2:])
		x.Notify(keyspace.EvSet, "sadd", x.Args[1])
	}
	x.W.Int(int64(added))
}

// SREM key member [member ...]
func sremCommand(x *keyspace.Ctx) {
	sh, db := x.S, x.DB
	e, o, ok := lookupTypedOrReplyZero[*keyspace.SetObj](x, x.Args[1], false)
	if !ok {
		return
	}
	removed := 0
	for _, m := range x.Args[2:] {
		if o.S.Remove(m) {
			removed++
			if o.S.Len() == 0 {
				break
			}
		}
	}
	if removed > 0 {
		sh.LogSetMembers(db.ID, persistence.OpSetRemove, e.KeyView(), x.Args[2:])
		x.Notify(keyspace.EvSet, "srem", x.Args[1])
		if o.S.Len() == 0 {
			db.Remove(e)
			x.Notify(keyspace.EvGeneric, "del", x.Args[1])
		}
	}
	x.W.Int(int64(removed))
}

// SMOVE source destination member
func smoveCommand(x *keyspace.Ctx) {
	sh, db := x.S, x.DB
	src, dst, m := x.Args[1], x.Args[2], x.Args[3]
	se, so, sok := shardLookupSet(sh, db, src, true)
	de, do, dok := shardLookupSet(sh, db, dst, true)
	if se == nil {
		x.W.Int(0)
		return
	}
	if !sok || !dok {
		x.W.Error(keyspace.ErrWrongType)
		return
	}
	if so == do {
		if so.S.Contains(m) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
		return
	}
	if !so.S.Remove(m) {
		x.W.Int(0)
		return
	}
	// Copy the member: the source's storage may go away below.
	m = bytes.Clone(m)
	sh.LogSetMove(db.ID, string(src), string(dst), m, de == nil || !do.S.Contains(m))
	x.Notify(keyspace.EvSet, "srem", src)
	if so.S.Len() == 0 {
		db.Remove(se)
		x.Notify(keyspace.EvGeneric, "del", src)
		de = db.Find(dst)
	}
	if de == nil {
		do = &keyspace.SetObj{}
		db.Add(dst, nil, do, 0)
		x.Notify(keyspace.EvNew, "new", dst)
	}
	if do.S.Add(sh.SetConfig(), m) {
		x.Notify(keyspace.EvSet, "sadd", dst)
	}
	x.W.Int(1)
}

// SISMEMBER key member
func sismemberCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o != nil && o.S.Contains(x.Args[2]) {
		x.W.Int(1)
		return
	}
	x.W.Int(0)
}

// SMISMEMBER key member [member ...]
func smismemberCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if o != nil && o.S.Contains(m) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
	}
}

// SMEMBERS key
func smembersCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o == nil {
		x.W.SetHeader(0)
		return
	}
	x.W.SetHeader(o.S.Len())
	o.S.Each(func(m []byte) bool { x.W.Bulk(m); return true })
}

// SPOP key [count]
func spopCommand(x *keyspace.Ctx) {
	sh, db := x.S, x.DB
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	withCount := len(x.Args) == 3
	count := int64(1)
	if withCount {
		var ok bool
		if count, ok = parseRangeLongOrReply(x, x.Args[2], 0, 1<<63-1, errMustBePositive); !ok {
			return
		}
	}
	e, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, x.Args[1], false)
	if !ok {
		return
	}
	if e == nil || count == 0 {
		if withCount {
			x.W.SetHeader(0)
		} else {
			x.W.Null()
		}
		return
	}
	var popped [][]byte
	o.S.Pop(randSource{}, int(min(count, int64(o.S.Len()))), func(m []byte) { popped = append(popped, m) })
	sh.LogSetMembers(db.ID, persistence.OpSetRemove, e.KeyView(), popped)
	x.Notify(keyspace.EvSet, "spop", x.Args[1])
	if o.S.Len() == 0 {
		db.Remove(e)
		x.Notify(keyspace.EvGeneric, "del", x.Args[1])
	}
	if withCount {
		replyMembers(x, popped)
		return
	}
	x.W.Bulk(popped[0])
}

// SRANDMEMBER key [count]
func srandmemberCommand(x *keyspace.Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	if len(x.Args) == 2 {
		_, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, x.Args[1], true)
		if !ok {
			return
		}
		if o == nil {
			x.W.Null()
			return
		}
		o.S.Random(randSource{}, 1, func(m []byte) bool { x.W.Bulk(m); return true })
		return
	}
	count, ok := parseRangeLongOrReply(x, x.Args[2], -(1<<63 - 1), 1<<63-1, "")
	if !ok {
		return
	}
	_, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o == nil || count == 0 {
		x.W.ArrayHeader(0)
		return
	}
	n := int64(o.S.Len())
	switch {
	case count < 0:
		x.W.ArrayHeader(int(-count))
	case count >= n:
		x.W.ArrayHeader(int(n))
	default:
		x.W.ArrayHeader(int(count))
	}
	c := count
	if c > n {
		c = n
	}
	// A negative count may ask for billions of members: the loop ends
	// once the reply is past the client's limit (and is dropped).
	o.S.Random(randSource{}, int(c), func(m []byte) bool { x.W.Bulk(m); return !x.W.Full() })
}

// setSources looks up the sets named by keys for SINTER, SUNION, SDIFF
// and their kin: a missing key is a nil set; ok is false after a
// WRONGTYPE reply.
func setSources(x *keyspace.Ctx, keys [][]byte) ([]*keyspace.SetObj, bool) {
	sets := make([]*keyspace.SetObj, len(keys))
	for i, k := range keys {
		_, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, k, true)
		if !ok {
			return nil, false
		}
		sets[i] = o
	}
	return sets, true
}

// intersect calls fn for each member of every set (stopping when fn
// returns false); any nil set makes it empty.
func intersect(sets []*keyspace.SetObj, fn func(m []byte) bool) {
	if len(sets) == 0 {
		return
	}
	small := 0
	for i, o := range sets {
		if o == nil {
			return
		}
		if o.S.Len() < sets[small].S.Len() {
			small = i
		}
	}
	sets[small].S.Each(func(m []byte) bool {
		for i, o := range sets {
			if i != small && o != sets[small] && !o.S.Contains(m) {
				return true
			}
		}
		return fn(m)
	})
}

// SINTER key [key ...]
func sinterCommand(x *keyspace.Ctx) {
	sets, ok := setSources(x, x.Args[1:])
	if !ok {
		return
	}
	var out [][]byte
	intersect(sets, func(m []byte) bool { out = append(out, bytes.Clone(m)); return true })
	replyMembers(x, out)
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
func sintercardCommand(x *keyspace.Ctx) {
	numkeys, ok := parseRangeLongOrReply(x, x.Args[1], 1, 1<<63-1, "ERR numkeys should be greater than 0")
	if !ok {
		return
	}
	if numkeys > int64(len(x.Args)-2) {
		x.W.Error("ERR Number of keys can't be greater than number of args")
		return
	}
	limit := int64(0)
	for j := 2 + int(numkeys); j < len(x.Args); j++ {
		if keyspace.EqFold(x.Args[j], "limit") && j+1 < len(x.Args) {
			j++
			if limit, ok = parseRangeLongOrReply(x, x.Args[j], 0, 1<<63-1, "ERR LIMIT can't be negative"); !ok {
				return
			}
			continue
		}
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	sets, ok := setSources(x, x.Args[2:2+numkeys])
	if !ok {
		return
	}
	n := int64(0)
	intersect(sets, func([]byte) bool {
		n++
		return limit == 0 || n < limit
	})
	x.W.Int(n)
}

// union calls fn once for each member of any set.
func union(cfg set.Config, sets []*keyspace.SetObj) *keyspace.SetObj {
	out := &keyspace.SetObj{}
	for _, o := range sets {
		if o == nil {
			continue
		}
		o.S.Each(func(m []byte) bool { out.S.Add(cfg, m); return true })
	}
	return out
}

// difference is the members of the first set in none of the others.
func difference(cfg set.Config, sets []*keyspace.SetObj) *keyspace.SetObj {
	out := &keyspace.SetObj{}
	if sets[0] == nil {
		return out
	}
	sets[0].S.Each(func(m []byte) bool {
		for _, o := range sets[1:] {
			if o != nil && (o == sets[0] || o.S.Contains(m)) {
				return true
			}
		}
		out.S.Add(cfg, m)
		return true
	})
	return out
}

// setAlgebra runs SINTER/SUNION/SDIFF (op 'i', 'u', 'd') over keys and
// returns the result; ok is false after a WRONGTYPE reply.
func setAlgebra(x *keyspace.Ctx, op byte, keys [][]byte) (*keyspace.SetObj, bool) {
	sets, ok := setSources(x, keys)
	if !ok {
		return nil, false
	}
	cfg := x.S.SetConfig()
	switch op {
	case 'u':
		return union(cfg, sets), true
	case 'd':
		return difference(cfg, sets), true
	}
	out := &keyspace.SetObj{}
	intersect(sets, func(m []byte) bool { out.S.Add(cfg, m); return true })
	return out, true
}

func setAlgebraCommand(x *keyspace.Ctx, op byte) {
	o, ok := setAlgebra(x, op, x.Args[1:])
	if !ok {
		return
	}
	x.W.SetHeader(o.S.Len())
	o.S.Each(func(m []byte) bool { x.W.Bulk(m); return true })
}

// setStoreCommand is SINTERSTORE, SUNIONSTORE and SDIFFSTORE: the result
// replaces the destination (any type, its deadline dropped); an empty
// result deletes it.
func setStoreCommand(x *keyspace.Ctx, op byte) {
	sh, db := x.S, x.DB
	o, ok := setAlgebra(x, op, x.Args[2:])
	if !ok {
		return
	}
	dst := x.Args[1]
	if o.S.Len() == 0 {
		storeEmptyResult(x, dst)
		return
	}
	e := sh.Lookup(db, dst)
	keyspace.StoreObj(db, e, dst, o)
	sh.LogSetStore(db.ID, string(dst), o)
	x.Notify(keyspace.EvSet, x.Cmd.Name, dst)
	x.W.Int(int64(o.S.Len()))
}

func sunionCommand(x *keyspace.Ctx) { setAlgebraCommand(x, 'u') }

func sdiffCommand(x *keyspace.Ctx) { setAlgebraCommand(x, 'd') }

func sinterstoreCommand(x *keyspace.Ctx) { setStoreCommand(x, 'i') }

func sunionstoreCommand(x *keyspace.Ctx) { setStoreCommand(x, 'u') }

func sdiffstoreCommand(x *keyspace.Ctx) { setStoreCommand(x, 'd') }

// SSCAN key cursor [MATCH pattern] [COUNT count]
func sscanCommand(x *keyspace.Ctx) {
	cursor, ok := parseScanCursor(x.Args[2])
	if !ok {
		x.W.Error("ERR invalid cursor")
		return
	}
	pat, usePat, count, ok := parseScanOptionsOrReply(x, 3)
	if !ok {
		return
	}
	_, o, ok := lookupTypedOrReply[*keyspace.SetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	var out [][]byte
	next := uint64(0)
	if o != nil {
		next = o.S.Scan(cursor, count, func(m []byte) {
			if !usePat || globMatch(pat, m, false) {
				out = append(out, bytes.Clone(m))
			}
		})
	}
	x.W.ArrayHeader(2)
	x.W.BulkString(fmt.Sprint(next))
	x.W.ArrayHeader(len(out))
	for _, m := range out {
		x.W.Bulk(m)
	}
}

func registerSetFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	c := func(name string, arity int, flags keyspace.Flag, first, last, step int, summary, complexity string, h keyspace.HandlerFunc) *keyspace.Command {
		return &keyspace.Command{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: step, Group: "set", Since: "1.0.0", Summary: summary, Complexity: complexity, Handler: h}
	}
	// since sets the Redis version a command first appeared in, where it is
	// not the family's 1.0.0.
	since := func(cmd *keyspace.Command, v string) *keyspace.Command { cmd.Since = v; return cmd }
	sintercard := since(withSpecs(c("sintercard", -3, ro, 0, 0, 0, "Intersect multiple sets and return the cardinality of the result", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", sintercardCommand), []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Index: 1, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, nil), "7.0.0")
	sintercard.MovableKeys = numkeysAt(1)
	t.Add(
		sintercard,
		withSpecs(c("sadd", -3, rw|deny|fast, 1, 1, 1, "Add one or more members to a set", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", saddCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}, nil),
		withSpecs(c("srem", -3, rw|fast, 1, 1, 1, "Remove one or more members from a set", "O(N) where N is the number of members to be removed.", sremCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, nil),
		withSpecs(c("smove", 4, rw|fast, 1, 2, 1, "Move a member from one set to another", "O(1)", smoveCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}, nil),
		withSpecs(c("sismember", 3, ro|fast, 1, 1, 1, "Determine if a given value is a member of a set", "O(1)", sismemberCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}, nil),
		since(withSpecs(c("smismember", -3, ro|fast, 1, 1, 1, "Returns the membership associated with the given elements for a set", "O(N) where N is the number of elements being checked for membership", smismemberCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil), "6.2.0"),
		withSpecs(c("scard", 2, ro|fast, 1, 1, 1, "Get the number of members in a set", "O(1)", cardCommand[*keyspace.SetObj]), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}, nil),
		withSpecs(c("smembers", 2, ro, 1, 1, 1, "Get all the members in a set", "O(N) where N is the set cardinality.", smembersCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, []string{tipNondeterministicOrder}),
		withSpecs(c("spop", -2, rw|fast, 1, 1, 1, "Remove and return one or multiple random members from a set", "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.", spopCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}, []string{tipNondeterministic}),
		withSpecs(c("srandmember", -2, ro, 1, 1, 1, "Get one or multiple random members from a set", "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.", srandmemberCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, []string{tipNondeterministic}),
		withSpecs(c("sinter", -2, ro, 1, -1, 1, "Intersect multiple sets", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", sinterCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, -1, 1)}, []string{tipNondeterministicOrder}),
		withSpecs(c("sinterstore", -3, rw|deny, 1, -1, 1, "Intersect multiple sets and store the resulting set in a key", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", sinterstoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, -1, 1)}, nil),
		withSpecs(c("sunion", -2, ro, 1, -1, 1, "Add multiple sets", "O(N) where N is the total number of elements in all given sets.", sunionCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, -1, 1)}, []string{tipNondeterministicOrder}),
		withSpecs(c("sunionstore", -3, rw|deny, 1, -1, 1, "Add multiple sets and store the resulting set in a key", "O(N) where N is the total number of elements in all given sets.", sunionstoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, -1, 1)}, nil),
		withSpecs(c("sdiff", -2, ro, 1, -1, 1, "Subtract multiple sets", "O(N) where N is the total number of elements in all given sets.", sdiffCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, -1, 1)}, []string{tipNondeterministicOrder}),
		withSpecs(c("sdiffstore", -3, rw|deny, 1, -1, 1, "Subtract multiple sets and store the resulting set in a key", "O(N) where N is the total number of elements in all given sets.", sdiffstoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, -1, 1)}, nil),
		since(withSpecs(c("sscan", -3, ro, 1, 1, 1, "Incrementally iterate Set elements", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.", sscanCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, []string{tipNondeterministic}), "2.8.0"),
	)
}
