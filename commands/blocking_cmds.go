package commands

import (
	"github.com/ruvio/ruvio/keyspace"
)

// The blocking list and sorted-set pops. Each tries its non-blocking form
// first; with nothing to pop it parks the client (blocking.go) with a
// Serve function that performs exactly that non-blocking pop, so the log
// records and keyspace events of a served pop are those of LPOP, LMOVE,
// ZPOPMIN, ... Inside EXEC (x.NoBlock) they reply as timed out at once.

// blockedOnAt returns the T (a list or a sorted set) at key for a blocked
// client, nil when the key is absent or holds another type (the client
// then keeps waiting). Nothing is replied: a blocked client waits silently.
func blockedOnAt[T any](x *keyspace.Ctx, key []byte) (*keyspace.Entry, T) {
	var none T
	e := x.S.Lookup(x.DB, key)
	if e == nil {
		return nil, none
	}
	o, ok := x.DB.Obj(e).(T)
	if !ok {
		return nil, none
	}
	return e, o
}

// listAt is blockedOnAt for lists.
func listAt(x *keyspace.Ctx, key []byte) (*keyspace.Entry, *keyspace.ListObj) {
	return blockedOnAt[*keyspace.ListObj](x, key)
}

// zsetAt is blockedOnAt for sorted sets.
func zsetAt(x *keyspace.Ctx, key []byte) (*keyspace.Entry, *keyspace.ZsetObj) {
	return blockedOnAt[*keyspace.ZsetObj](x, key)
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

func registerBlockingPops(t keyspace.CommandTable) {
	const rw, deny, fast, noscript, blocking = keyspace.FlagWrite, keyspace.FlagDenyOOM, keyspace.FlagFast, keyspace.FlagNoScript, keyspace.FlagBlocking
	t.Add(
		&keyspace.Command{Name: "blpop", Arity: -3, Flags: rw | noscript | blocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "list", Since: "2.0.0", Summary: "Remove and get the first element in a list, or block until one is available", Complexity: "O(N) where N is the number of provided keys.", Handler: blpopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
		&keyspace.Command{Name: "brpop", Arity: -3, Flags: rw | noscript | blocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "list", Since: "2.0.0", Summary: "Remove and get the last element in a list, or block until one is available", Complexity: "O(N) where N is the number of provided keys.", Handler: blpopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
		&keyspace.Command{Name: "blmove", Arity: 6, Flags: rw | deny | noscript | blocking, FirstKey: 1, LastKey: 2, Step: 1, Group: "list", Since: "6.2.0", Summary: "Pop an element from a list, push it to another list and return it; or block until one is available", Complexity: "O(1)", Handler: blmoveCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
		&keyspace.Command{Name: "brpoplpush", Arity: 4, Flags: rw | deny | noscript | blocking, FirstKey: 1, LastKey: 2, Step: 1, Group: "list", Since: "2.2.0", Summary: "Pop an element from a list, push it to another list and return it; or block until one is available", Complexity: "O(1)", Handler: blmoveCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}},
		&keyspace.Command{Name: "blmpop", Arity: -5, Flags: rw | blocking, NumKeysAt: 2, Group: "list", Since: "7.0.0", Summary: "Pop elements from a list, or block until one is available", Complexity: "O(N+M) where N is the number of provided keys and M is the number of elements returned.", Handler: blmpopCommand, KeySpecs: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
		&keyspace.Command{Name: "bzpopmin", Arity: -3, Flags: rw | noscript | fast | blocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "sorted-set", Since: "5.0.0", Summary: "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", Complexity: "O(log(N)) with N being the number of elements in the sorted set.", Handler: bzpopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
		&keyspace.Command{Name: "bzpopmax", Arity: -3, Flags: rw | noscript | fast | blocking, FirstKey: 1, LastKey: -2, Step: 1, Group: "sorted-set", Since: "5.0.0", Summary: "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", Complexity: "O(log(N)) with N being the number of elements in the sorted set.", Handler: bzpopCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, -2, 1)}},
		&keyspace.Command{Name: "bzmpop", Arity: -5, Flags: rw | blocking, NumKeysAt: 2, Group: "sorted-set", Since: "7.0.0", Summary: "Remove and return members with scores in a sorted set or block until one is available", Complexity: "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.", Handler: bzmpopCommand, KeySpecs: []keyspace.KeySpec{{Flags: keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyDelete, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}},
	)
}
