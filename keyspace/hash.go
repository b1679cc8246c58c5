package keyspace

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/hash"
	"github.com/ruvio/ruvio/types/rdb"
)

// The hash family (HSET, HGET, HGETALL, …) on types/hash. Every mutation
// writes one physical record: HashSet with the fields and the values
// stored (HINCRBY and HINCRBYFLOAT log their result, never the
// increment), HashDel with the fields removed. A hash left empty is
// deleted, by the command and by the replay of its record alike.

// kindHash is the snapshot value kind of a hash (types/hash binary form).
const kindHash uint8 = 60

// hashObj is the value of a hash key.
type hashObj struct{ h hash.Hash }

func (o *hashObj) typeName() string { return "hash" }
func (o *hashObj) encoding() string { return o.h.Encoding() }
func (o *hashObj) clone() any       { return &hashObj{h: o.h.Clone()} }

// packTag, compact and reset make a hash packable (packed.go).
func (o *hashObj) packTag() byte   { return packedHash }
func (o *hashObj) compact() []byte { return o.h.Compact() }
func (o *hashObj) reset()          { *o = hashObj{} }

// memoryUsage is the heap the hash holds; the types measure it exactly, so
// samples is not needed.
func (o *hashObj) memoryUsage(int64) int64 { return int64(o.h.MemoryUsage()) }
func (o *hashObj) snapshotKind() uint8     { return kindHash }

// appendSnapshot appends the types/hash binary encoding. It cannot fail for
// a hash built by the commands.
func (o *hashObj) appendSnapshot(dst []byte) []byte {
	out, err := o.h.AppendBinary(dst)
	if err != nil {
		return dst
	}
	return out
}

// String is a canonical dump (fields sorted), for tests comparing states.
func (o *hashObj) String() string {
	var pairs []string
	o.h.Each(func(f, v []byte) bool {
		pairs = append(pairs, fmt.Sprintf("%q=%q", f, v))
		return true
	})
	slices.Sort(pairs)
	return "hash{" + strings.Join(pairs, " ") + "}"
}

// hashConfig is the hash encoding thresholds from the live config.
func (sh *Shard) hashConfig() hash.Config {
	n, v := sh.srv.opts.Live.HashMaxListpack()
	return hash.Config{MaxListpackEntries: int(min(n, math.MaxInt32)), MaxListpackValue: int(min(v, math.MaxInt32))}
}

// hashFor returns the hash at key for a write, creating an empty one (not
// yet in the keyspace: e is nil) when the key is absent. ok is false when
// WRONGTYPE was replied.
func hashFor(x *Ctx, key []byte) (e *entry, o *hashObj, ok bool) {
	e, o, ok = lookupTyped[*hashObj](x, key, false)
	if ok && e == nil {
		o = &hashObj{}
	}
	return e, o, ok
}

// storeHash links a hash created by hashFor into the keyspace when it was
// new (e nil).
func storeHash(x *Ctx, e *entry, key []byte, o *hashObj) {
	if e == nil {
		x.DB.add(key, nil, o, 0)
		x.notify(evNew, "new", key)
	}
}

// logHashSet writes a HashSet record of key with the field/value pairs in
// kv (alternating).
func (sh *Shard) logHashSet(db int, key []byte, kv [][]byte) {
	sh.touchKey(db, bstr(key))
	if sh.journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(len(kv)/2))
	for _, b := range kv {
		p = persistence.AppendBytes(p, b)
	}
	sh.recordScratch(db, persistence.OpHashSet, p)
}

// logHashDel writes a HashDel record of key with the removed fields.
func (sh *Shard) logHashDel(db int, key []byte, fields [][]byte) {
	sh.touchKey(db, bstr(key))
	if sh.journal == nil {
		return
	}
	p := persistence.AppendBytes(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(len(fields)))
	for _, b := range fields {
		p = persistence.AppendBytes(p, b)
	}
	sh.recordScratch(db, persistence.OpHashDel, p)
}

// HSET key field value [field value ...] / HMSET (replies OK)
func hsetCommand(x *Ctx) {
	if len(x.Args)%2 != 0 {
		x.W.Error("ERR wrong number of arguments for '" + x.Cmd.Name + "' command")
		return
	}
	key := x.Args[1]
	e, o, ok := hashFor(x, key)
	if !ok {
		return
	}
	cfg := x.S.hashConfig()
	added := 0
	for i := 2; i < len(x.Args); i += 2 {
		if o.h.Set(cfg, x.Args[i], x.Args[i+1]) {
			added++
		}
	}
	storeHash(x, e, key, o)
	x.S.logHashSet(x.DB.id, key, x.Args[2:])
	x.notify(evHash, "hset", key)
	if x.Cmd.Name == "hmset" {
		x.W.OK()
	} else {
		x.W.Int(int64(added))
	}
}

// HSETNX key field value
func hsetnxCommand(x *Ctx) {
	key := x.Args[1]
	e, o, ok := hashFor(x, key)
	if !ok {
		return
	}
	if o.h.Exists(x.Args[2]) {
		x.W.Int(0)
		return
	}
	o.h.Set(x.S.hashConfig(), x.Args[2], x.Args[3])
	storeHash(x, e, key, o)
	x.S.logHashSet(x.DB.id, key, x.Args[2:4])
	x.notify(evHash, "hset", key)
	x.W.Int(1)
}

// readHash returns the hash at key for a read; o is nil when the key is
// absent. ok is false when WRONGTYPE was replied.
func readHash(x *Ctx) (o *hashObj, ok bool) {
	_, o, ok = lookupTyped[*hashObj](x, x.Args[1], true)
	return o, ok
}

// HGET key field
func hgetCommand(x *Ctx) {
	o, ok := readHash(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.Null()
		return
	}
	if v, found := o.h.Get(x.Args[2]); found {
		x.W.Bulk(v)
	} else {
		x.W.Null()
	}
}

// HMGET key field [field ...]
func hmgetCommand(x *Ctx) {
	o, ok := readHash(x)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, f := range x.Args[2:] {
		if o == nil {
			x.W.Null()
			continue
		}
		if v, found := o.h.Get(f); found {
			x.W.Bulk(v)
		} else {
			x.W.Null()
		}
	}
}

// HDEL key field [field ...]
func hdelCommand(x *Ctx) {
	key := x.Args[1]
	e, o, ok := lookupTyped[*hashObj](x, key, false)
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(0)
		return
	}
	var removed [][]byte
	for _, f := range x.Args[2:] {
		if o.h.Delete(f) {
			removed = append(removed, f)
		}
	}
	if len(removed) > 0 {
		x.S.logHashDel(x.DB.id, key, removed)
		x.notify(evHash, "hdel", key)
		if o.h.Len() == 0 {
			removeEmpty(x.DB, e)
			x.notify(evGeneric, "del", key)
		}
	}
	x.W.Int(int64(len(removed)))
}

// HLEN key
func hlenCommand(x *Ctx) {
	o, ok := readHash(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(o.h.Len()))
}

// HSTRLEN key field
func hstrlenCommand(x *Ctx) {
	o, ok := readHash(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(o.h.StrLen(x.Args[2])))
}

// HEXISTS key field
func hexistsCommand(x *Ctx) {
	o, ok := readHash(x)
	if !ok {
		return
	}
	if o != nil && o.h.Exists(x.Args[2]) {
		x.W.Int(1)
	} else {
		x.W.Int(0)
	}
}

// HKEYS key / HVALS key / HGETALL key
func hgetallCommand(x *Ctx) {
	o, ok := readHash(x)
	if !ok {
		return
	}
	n := 0
	if o != nil {
		n = o.h.Len()
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
	o.h.Each(func(f, v []byte) bool {
		if keys {
			x.W.Bulk(f)
		}
		if vals {
			x.W.Bulk(v)
		}
		return true
	})
}

// HINCRBY key field increment
func hincrbyCommand(x *Ctx) {
	delta, ok := parseInt(x.Args[3])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	key := x.Args[1]
	e, o, ok := hashFor(x, key)
	if !ok {
		return
	}
	n, err := o.h.IncrBy(x.S.hashConfig(), x.Args[2], delta)
	if err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	storeHash(x, e, key, o)
	v, _ := o.h.Get(x.Args[2])
	x.S.logHashSet(x.DB.id, key, [][]byte{x.Args[2], v})
	x.notify(evHash, "hincrby", key)
	x.W.Int(n)
}

// HINCRBYFLOAT key field increment
func hincrbyfloatCommand(x *Ctx) {
	key := x.Args[1]
	e, o, ok := hashFor(x, key)
	if !ok {
		return
	}
	out, err := o.h.IncrByFloat(x.S.hashConfig(), nil, x.Args[2], x.Args[3])
	if err != nil {
		if errors.Is(err, hash.ErrNotValidFloat) {
			x.W.Error(errNotFloat)
		} else {
			x.W.Error("ERR " + err.Error())
		}
		return
	}
	storeHash(x, e, key, o)
	x.S.logHashSet(x.DB.id, key, [][]byte{x.Args[2], out})
	x.notify(evHash, "hincrbyfloat", key)
	x.W.Bulk(out)
}

// HRANDFIELD key [count [WITHVALUES]]
func hrandfieldCommand(x *Ctx) {
	if len(x.Args) == 2 {
		o, ok := readHash(x)
		if !ok {
			return
		}
		if o == nil {
			x.W.Null()
			return
		}
		o.h.Random(randSource{}, 1, func(f, _ []byte) bool { x.W.Bulk(f); return true })
		return
	}
	count, ok := parseInt(x.Args[2])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	if count < -math.MaxInt64 {
		x.W.Error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		return
	}
	withValues := false
	if len(x.Args) > 4 || (len(x.Args) == 4 && !eqFold(x.Args[3], "withvalues")) {
		x.W.Error(errSyntax)
		return
	} else if len(x.Args) == 4 {
		withValues = true
		if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
			x.W.Error("ERR value is out of range")
			return
		}
	}
	o, ok := readHash(x)
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
		n = min(n, int64(o.h.Len()))
	}
	pairs := pairsHeader(x, int(n), withValues)
	// A negative count may ask for billions of fields: the loop ends once
	// the reply is past the client's limit (and is dropped).
	o.h.Random(randSource{}, int(count), func(f, v []byte) bool {
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
func hscanCommand(x *Ctx) {
	cursor, ok := parseScanCursor(x.Args[2])
	if !ok {
		x.W.Error("ERR invalid cursor")
		return
	}
	// As in Redis, the key is looked up before the options are read: a
	// missing key answers an empty scan whatever follows.
	o, ok := readHash(x)
	if !ok {
		return
	}
	if o == nil {
		x.W.ArrayHeader(2)
		x.W.BulkString("0")
		x.W.ArrayHeader(0)
		return
	}
	pat, usePat, count, ok := parseScanOptions(x, 3)
	if !ok {
		return
	}
	var found [][]byte
	next := o.h.Scan(cursor, count, func(f, v []byte) {
		if usePat && !globMatch(pat, f, false) {
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

// applyHashRecord replays a HashSet or HashDel record into db. The whole
// payload is checked before the hash changes.
func applyHashRecord(sh *Shard, db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	per := uint64(1)
	if op == persistence.OpHashSet {
		per = 2
	}
	key, n := p.NextBytes(), p.NextCount(int(per))
	fields := p.NextFields(n * per)
	if err := p.End(); err != nil {
		return err
	}
	e := db.find(key)
	var o *hashObj
	if e != nil {
		var isHash bool
		if o, isHash = db.obj(e).(*hashObj); !isHash {
			if op == persistence.OpHashDel {
				return fmt.Errorf("%s on a key that is not a hash", op)
			}
			o = &hashObj{}
			db.setObj(e, o)
		}
	} else {
		if op == persistence.OpHashDel {
			return fmt.Errorf("%s on a missing key", op)
		}
		o = &hashObj{}
		e = db.add(key, nil, o, 0)
	}
	cfg := sh.hashConfig()
	for fields.Len() > 0 {
		if op == persistence.OpHashDel {
			o.h.Delete(fields.NextBytes())
			continue
		}
		f, v := fields.NextBytes(), fields.NextBytes()
		o.h.Set(cfg, f, v)
	}
	if o.h.Len() == 0 {
		removeEmpty(db, e)
	}
	return nil
}

// hashValueType describes hashes to the engine (value.go).
var hashValueType = valueType{
	name:    "hash",
	kinds:   []uint8{kindHash},
	packTag: packedHash,
	unpack: func(spare *spareObjs, b []byte) any {
		o, _ := spare.take(packedHash).(*hashObj)
		if o == nil {
			o = new(hashObj)
		}
		o.h = hash.FromCompact(b)
		return o
	},
	decodeSnapshot: func(cfg valueConfig, _ uint8, val []byte) (any, error) {
		return decodeHashValue(cfg.hash, val)
	},
	rdbKind: rdb.KindHash,
	fromRDB: func(cfg valueConfig, v *rdb.Value) any {
		o := &hashObj{}
		for i := 0; i+1 < len(v.Pairs); i += 2 {
			o.h.Set(cfg.hash, v.Pairs[i], v.Pairs[i+1])
		}
		return o
	},
}

// hashReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var hashReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpHashSet, persistence.OpHashDel}, apply: replayHashRecord},
}

// replayHashRecord adapts the family decoder to the replay table.
func replayHashRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	return applyHashRecord(sh, db, r.Op, p)
}

// rdbValue is the hash's plain contents, for DUMP.
func (o *hashObj) rdbValue(int64) (rdb.Value, string) {
	v := rdb.Value{Kind: rdb.KindHash, Pairs: make([][]byte, 0, 2*o.h.Len())}
	o.h.Each(func(f, val []byte) bool {
		v.Pairs = append(v.Pairs, bytes.Clone(f), bytes.Clone(val))
		return true
	})
	return v, ""
}

// decodeHashValue rebuilds a hash from its snapshot encoding.
func decodeHashValue(cfg hash.Config, val []byte) (any, error) {
	h, err := hash.Unmarshal(cfg, val)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", persistence.ErrCorrupt, err)
	}
	if h.Len() == 0 {
		return nil, fmt.Errorf("%w: empty hash", persistence.ErrCorrupt)
	}
	return &hashObj{h: h}, nil
}

func registerHashFamily(t commandTable) {
	const rw, ro, fast, deny = FlagWrite, FlagReadOnly, FlagFast, FlagDenyOOM
	t.add(
		&Command{Name: "hset", Arity: -4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Creates or modifies the value of a field in a hash.", Complexity: "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.", Handler: hsetCommand},
		&Command{Name: "hmset", Arity: -4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Sets the values of multiple fields.", Complexity: "O(N) where N is the number of fields being set.", Handler: hsetCommand},
		&Command{Name: "hsetnx", Arity: 4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Sets the value of a field in a hash only when the field doesn't exist.", Complexity: "O(1)", Handler: hsetnxCommand},
		&Command{Name: "hget", Arity: 3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns the value of a field in a hash.", Complexity: "O(1)", Handler: hgetCommand},
		&Command{Name: "hmget", Arity: -3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns the values of all fields in a hash.", Complexity: "O(N) where N is the number of fields being requested.", Handler: hmgetCommand},
		&Command{Name: "hdel", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.", Complexity: "O(N) where N is the number of fields to be removed.", Handler: hdelCommand},
		&Command{Name: "hlen", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns the number of fields in a hash.", Complexity: "O(1)", Handler: hlenCommand},
		&Command{Name: "hstrlen", Arity: 3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "3.2.0", Summary: "Returns the length of the value of a field.", Complexity: "O(1)", Handler: hstrlenCommand},
		&Command{Name: "hexists", Arity: 3, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Determines whether a field exists in a hash.", Complexity: "O(1)", Handler: hexistsCommand},
		&Command{Name: "hkeys", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns all fields in a hash.", Complexity: "O(N) where N is the size of the hash.", Handler: hgetallCommand},
		&Command{Name: "hvals", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns all values in a hash.", Complexity: "O(N) where N is the size of the hash.", Handler: hgetallCommand},
		&Command{Name: "hgetall", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Returns all fields and values in a hash.", Complexity: "O(N) where N is the size of the hash.", Handler: hgetallCommand},
		&Command{Name: "hincrby", Arity: 4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.0.0", Summary: "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.", Complexity: "O(1)", Handler: hincrbyCommand},
		&Command{Name: "hincrbyfloat", Arity: 4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.6.0", Summary: "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.", Complexity: "O(1)", Handler: hincrbyfloatCommand},
		&Command{Name: "hrandfield", Arity: -2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "6.2.0", Summary: "Returns one or more random fields from a hash.", Complexity: "O(N) where N is the number of fields returned", Handler: hrandfieldCommand},
		&Command{Name: "hscan", Arity: -3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "2.8.0", Summary: "Iterates over fields and values of a hash.", Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the size of the collection.", Handler: hscanCommand},
	)
}
