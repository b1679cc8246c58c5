package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"errors"
	"math"
	"strconv"

	"github.com/ruvio/ruvio/types/hash"
)

// The hash family (HSET, HGET, HGETALL, …) on types/hash. Every mutation
// writes one physical record: HashSet with the fields and the values
// stored (HINCRBY and HINCRBYFLOAT log their result, never the
// increment), HashDel with the fields removed. A hash left empty is
// deleted, by the command and by the replay of its record alike.

// hashFor returns the hash at key for a write, creating an empty one (not
// yet in the keyspace: e is nil) when the key is absent, after deleting
// the expired fields among fields[0], fields[step], … (liveHash). ok is
// false when WRONGTYPE was replied.
func hashFor(x *keyspace.Ctx, key []byte, fields [][]byte, step int) (e *keyspace.Entry, o *keyspace.HashObj, ok bool) {
	e, o, ok = liveHash(x, key, false, fields, step)
	if ok && e == nil {
		o = &keyspace.HashObj{}
	}
	return e, o, ok
}

// storeHash links a hash created by hashFor into the keyspace when it was
// new (e nil).
func storeHash(x *keyspace.Ctx, e *keyspace.Entry, key []byte, o *keyspace.HashObj) {
	if e == nil {
		x.DB.Add(key, nil, o, 0)
		x.Notify(keyspace.EvNew, "new", key)
	}
}

// HSET key field value [field value ...] / HMSET (replies OK)
func hsetCommand(x *keyspace.Ctx) {
	if len(x.Args)%2 != 0 {
		x.W.Error("ERR wrong number of arguments for '" + x.Cmd.Name + "' command")
		return
	}
	key := x.Args[1]
	e, o, ok := hashFor(x, key, x.Args[2:], 2)
	if !ok {
		return
	}
	cfg := x.S.HashConfig()
	added := 0
	for i := 2; i < len(x.Args); i += 2 {
		if o.Set(cfg, x.Args[i], x.Args[i+1]) {
			added++
		}
	}
	storeHash(x, e, key, o)
	x.S.LogHashSet(x.DB.ID, key, x.Args[2:])
	x.Notify(keyspace.EvHash, "hset", key)
	if x.Cmd.Name == "hmset" {
		x.W.OK()
	} else {
		x.W.Int(int64(added))
	}
}

// HSETNX key field value
func hsetnxCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	e, o, ok := hashFor(x, key, x.Args[2:3], 1)
	if !ok {
		return
	}
	if o.H.Exists(x.Args[2]) {
		x.W.Int(0)
		return
	}
	o.Set(x.S.HashConfig(), x.Args[2], x.Args[3])
	storeHash(x, e, key, o)
	x.S.LogHashSet(x.DB.ID, key, x.Args[2:4])
	x.Notify(keyspace.EvHash, "hset", key)
	x.W.Int(1)
}

// readHash returns the hash at key for a read, after deleting the
// expired fields among fields[0], fields[step], …; o is nil when the key
// is absent. ok is false when WRONGTYPE was replied.
func readHash(x *keyspace.Ctx, fields [][]byte, step int) (o *keyspace.HashObj, ok bool) {
	_, o, ok = liveHash(x, x.Args[1], true, fields, step)
	return o, ok
}

// HGET key field
func hgetCommand(x *keyspace.Ctx) {
	o, ok := readHash(x, x.Args[2:], 1)
	if !ok {
		return
	}
	if o == nil {
		x.W.Null()
		return
	}
	if v, found := hget(x, o, x.Args[2]); found {
		x.W.Bulk(v)
	} else {
		x.W.Null()
	}
}

// HMGET key field [field ...]
func hmgetCommand(x *keyspace.Ctx) {
	o, ok := readHash(x, x.Args[2:], 1)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, f := range x.Args[2:] {
		if o == nil {
			x.W.Null()
			continue
		}
		if v, found := hget(x, o, f); found {
			x.W.Bulk(v)
		} else {
			x.W.Null()
		}
	}
}

// HDEL key field [field ...]
func hdelCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	// As Redis, HDEL deletes an expired field not yet deleted like any
	// other, and counts it.
	e, o, ok := lookupTypedOrReplyZero[*keyspace.HashObj](x, key, false)
	if !ok {
		return
	}
	var removed [][]byte
	for _, f := range x.Args[2:] {
		if o.Delete(f) {
			removed = append(removed, f)
		}
	}
	if len(removed) > 0 {
		x.S.LogHashDel(x.DB.ID, key, removed)
		x.Notify(keyspace.EvHash, "hdel", key)
		if o.H.Len() == 0 {
			keyspace.RemoveEmpty(x.DB, e)
			x.Notify(keyspace.EvGeneric, "del", key)
		}
	}
	x.W.Int(int64(len(removed)))
}

// HSTRLEN key field
func hstrlenCommand(x *keyspace.Ctx) {
	_, o, ok := liveHash(x, x.Args[1], true, x.Args[2:], 1)
	if !ok {
		return
	}
	v, _ := hget(x, o, x.Args[2])
	x.W.Int(int64(len(v)))
}

// HEXISTS key field
func hexistsCommand(x *keyspace.Ctx) {
	o, ok := readHash(x, x.Args[2:], 1)
	if !ok {
		return
	}
	if hexists(x, o, x.Args[2]) {
		x.W.Int(1)
	} else {
		x.W.Int(0)
	}
}

// HKEYS key / HVALS key / HGETALL key
func hgetallCommand(x *keyspace.Ctx) {
	o, ok := readHash(x, nil, 1)
	if !ok {
		return
	}
	n, now := 0, x.S.NowMs
	if o != nil {
		// Expired fields not yet deleted are skipped, as Redis does.
		n = o.H.Len() - o.ExpiredFieldCount(now)
	}
	keys, vals := x.Cmd.Name != "hvals", x.Cmd.Name != "hkeys"
	if keys && vals {
		x.W.MapHeader(n)
	} else {
		x.W.ArrayHeader(n)
	}
	if o == nil {
		return
	}
	skip := o.ExpiredFieldCount(now) > 0
	o.H.Each(func(f, v []byte) bool {
		if skip && o.FieldExpired(f, now) {
			return true
		}
		if keys {
			x.W.Bulk(f)
		}
		if vals {
			x.W.Bulk(v)
		}
		return true
	})
}

// logHashUpdate logs the new values in kv (field, value alternating) of
// fields whose deadline the change keeps (HINCRBY, HINCRBYFLOAT): a
// HashSet, or a HashSetEx that keeps the deadlines when the hash has some.
func logHashUpdate(x *keyspace.Ctx, key []byte, o *keyspace.HashObj, kv [][]byte) {
	if o.HasFieldTTLs() {
		x.S.LogHashSetEx(x.DB.ID, key, keyspace.SetExKeepTTL, 0, kv)
		return
	}
	x.S.LogHashSet(x.DB.ID, key, kv)
}

// HINCRBY key field increment
func hincrbyCommand(x *keyspace.Ctx) {
	delta, ok := keyspace.ParseInt(x.Args[3])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	key := x.Args[1]
	e, o, ok := hashFor(x, key, x.Args[2:3], 1)
	if !ok {
		return
	}
	n, err := o.H.IncrBy(x.S.HashConfig(), x.Args[2], delta)
	if err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	storeHash(x, e, key, o)
	v, _ := o.H.Get(x.Args[2])
	logHashUpdate(x, key, o, [][]byte{x.Args[2], v})
	x.Notify(keyspace.EvHash, "hincrby", key)
	x.W.Int(n)
}

// HINCRBYFLOAT key field increment
func hincrbyfloatCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	e, o, ok := hashFor(x, key, x.Args[2:3], 1)
	if !ok {
		return
	}
	out, err := o.H.IncrByFloat(x.S.HashConfig(), nil, x.Args[2], x.Args[3])
	if err != nil {
		if errors.Is(err, hash.ErrNotValidFloat) {
			x.W.Error(keyspace.ErrNotFloat)
		} else {
			x.W.Error("ERR " + err.Error())
		}
		return
	}
	storeHash(x, e, key, o)
	logHashUpdate(x, key, o, [][]byte{x.Args[2], out})
	x.Notify(keyspace.EvHash, "hincrbyfloat", key)
	x.W.Bulk(out)
}

// randHash is readHash for HRANDFIELD, which first deletes every expired
// field, as Redis does (on a replica it reads a copy without them).
func randHash(x *keyspace.Ctx) (o *keyspace.HashObj, ok bool) {
	e, o, ok := lookupTypedOrReply[*keyspace.HashObj](x, x.Args[1], true)
	if !ok || e == nil || !o.HasFieldTTLs() {
		return o, ok
	}
	return x.S.PurgeHashFields(x.DB, e, o), true
}

// HRANDFIELD key [count [WITHVALUES]]
func hrandfieldCommand(x *keyspace.Ctx) {
	if len(x.Args) == 2 {
		o, ok := randHash(x)
		if !ok {
			return
		}
		if o == nil {
			x.W.Null()
			return
		}
		o.H.Random(randSource{}, 1, func(f, _ []byte) bool { x.W.Bulk(f); return true })
		return
	}
	count, ok := keyspace.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if count < -math.MaxInt64 {
		x.W.Error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		return
	}
	withValues := false
	if len(x.Args) > 4 || (len(x.Args) == 4 && !keyspace.EqFold(x.Args[3], "withvalues")) {
		x.W.Error(keyspace.ErrSyntax)
		return
	} else if len(x.Args) == 4 {
		withValues = true
		if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
			x.W.Error("ERR value is out of range")
			return
		}
	}
	o, ok := randHash(x)
	if !ok {
		return
	}
	if o == nil || count == 0 {
		x.W.ArrayHeader(0)
		return
	}
	n := count
	if n < 0 {
		n = -n
	} else {
		n = min(n, int64(o.H.Len()))
	}
	pairs := pairsHeader(x, int(n), withValues)
	// A negative count may ask for billions of fields: the loop ends once
	// the reply is past the client's limit (and is dropped).
	o.H.Random(randSource{}, int(count), func(f, v []byte) bool {
		if pairs {
			x.W.ArrayHeader(2)
		}
		x.W.Bulk(f)
		if withValues {
			x.W.Bulk(v)
		}
		return !x.W.Full()
	})
}

// HSCAN key cursor [MATCH pattern] [COUNT count]
func hscanCommand(x *keyspace.Ctx) {
	cursor, ok := parseScanCursor(x.Args[2])
	if !ok {
		x.W.Error("ERR invalid cursor")
		return
	}
	// As in Redis, the key is looked up before the options are read: a
	// missing key answers an empty scan whatever follows.
	o, ok := readHash(x, nil, 1)
	if !ok {
		return
	}
	if o == nil {
		x.W.ArrayHeader(2)
		x.W.BulkString("0")
		x.W.ArrayHeader(0)
		return
	}
	pat, usePat, count, ok := parseScanOptionsOrReply(x, 3)
	if !ok {
		return
	}
	var found [][]byte
	now := x.S.NowMs
	next := o.H.Scan(cursor, count, func(f, v []byte) {
		if usePat && !globMatch(pat, f, false) || o.FieldExpired(f, now) {
			return
		}
		found = append(found, f, v)
	})
	x.W.ArrayHeader(2)
	var tmp [20]byte
	x.W.Bulk(strconv.AppendUint(tmp[:0], next, 10))
	x.W.ArrayHeader(len(found))
	for _, b := range found {
		x.W.Bulk(b)
	}
}

func registerHashFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	t.Add(
		&keyspace.Command{Name: "hset", Arity: -4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Creates or modifies the value of a field in a hash.", Complexity: "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.", Handler: hsetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "hmset", Arity: -4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Sets the values of multiple fields.", Complexity: "O(N) where N is the number of fields being set.", Handler: hsetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "hsetnx", Arity: 4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Sets the value of a field in a hash only when the field doesn't exist.", Complexity: "O(1)", Handler: hsetnxCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "hget", Arity: 3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns the value of a field in a hash.", Complexity: "O(1)", Handler: hgetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "hmget", Arity: -3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns the values of all fields in a hash.", Complexity: "O(N) where N is the number of fields being requested.", Handler: hmgetCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "hdel", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.", Complexity: "O(N) where N is the number of fields to be removed.", Handler: hdelCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "hlen", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns the number of fields in a hash.", Complexity: "O(1)", Handler: cardCommand[*keyspace.HashObj], KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
		&keyspace.Command{Name: "hstrlen", Arity: 3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "3.2.0", Summary: "Returns the length of the value of a field.", Complexity: "O(1)", Handler: hstrlenCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
		&keyspace.Command{Name: "hexists", Arity: 3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Determines whether a field exists in a hash.", Complexity: "O(1)", Handler: hexistsCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
		&keyspace.Command{Name: "hkeys", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns all fields in a hash.", Complexity: "O(N) where N is the size of the hash.", Handler: hgetallCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, Tips: []string{tipNondeterministicOrder}},
		&keyspace.Command{Name: "hvals", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns all values in a hash.", Complexity: "O(N) where N is the size of the hash.", Handler: hgetallCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, Tips: []string{tipNondeterministicOrder}},
		&keyspace.Command{Name: "hgetall", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns all fields and values in a hash.", Complexity: "O(N) where N is the size of the hash.", Handler: hgetallCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, Tips: []string{tipNondeterministicOrder}},
		&keyspace.Command{Name: "hincrby", Arity: 4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.", Complexity: "O(1)", Handler: hincrbyCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "hincrbyfloat", Arity: 4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.6.0", Summary: "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.", Complexity: "O(1)", Handler: hincrbyfloatCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "hrandfield", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "6.2.0", Summary: "Returns one or more random fields from a hash.", Complexity: "O(N) where N is the number of fields returned", Handler: hrandfieldCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, Tips: []string{tipNondeterministic}},
		&keyspace.Command{Name: "hscan", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.8.0", Summary: "Iterates over fields and values of a hash.", Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the size of the collection.", Handler: hscanCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, Tips: []string{tipNondeterministic}},
	)
}
