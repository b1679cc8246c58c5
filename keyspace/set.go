package keyspace

import (
	"bytes"
	"fmt"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/rdb"
	"github.com/ruvio/ruvio/types/set"
)

// The set family (Redis's t_set.c) on types/set. Every reply, error text
// and order of checks follows Redis 7.0; the RESP3 replies that Redis
// sends as sets (SMEMBERS, SINTER, SUNION, SDIFF, SPOP with a count) are
// sets here too. Mutations log physical records: the members added or
// removed (SPOP logs what it popped), the moved member of SMOVE, the
// whole result of a STORE.

// kindSet is the snapshot value kind of a set (80–99 belong to this
// family's helpers).
const kindSet uint8 = 80

// setObj is the value of a set key.
type setObj struct{ s set.Set }

func (o *setObj) typeName() string { return "set" }
func (o *setObj) encoding() string { return o.s.Encoding() }
func (o *setObj) clone() any       { return &setObj{s: o.s.Clone()} }

// packTag, compact and reset make a set packable (packed.go).
func (o *setObj) packTag() byte   { return packedSet }
func (o *setObj) compact() []byte { return o.s.Compact() }
func (o *setObj) reset()          { *o = setObj{} }
func (o *setObj) memoryUsage(int64) int64 {
	return int64(o.s.MemoryUsage())
}
func (o *setObj) snapshotKind() uint8 { return kindSet }
func (o *setObj) appendSnapshot(dst []byte) []byte {
	out, err := o.s.AppendBinary(dst)
	if err != nil {
		// AppendBinary fails only for a value that cannot exist.
		panic(fmt.Sprintf("keyspace: encoding a set: %v", err))
	}
	return out
}

// setConfig is the set encoding thresholds of the running configuration:
// Redis 7.0 has only intset and hashtable.
func (sh *Shard) setConfig() set.Config {
	cfg := set.DefaultConfig
	cfg.MaxIntsetEntries = clampThreshold(sh.srv.opts.Live.SetMaxIntsetEntries())
	return cfg
}

// setValueType describes sets to the engine (value.go).
var setValueType = valueType{
	name:    "set",
	kinds:   []uint8{kindSet},
	packTag: packedSet,
	unpack: func(spare *spareObjs, b []byte) any {
		o, _ := spare.take(packedSet).(*setObj)
		if o == nil {
			o = new(setObj)
		}
		o.s = set.FromCompact(b)
		return o
	},
	decodeSnapshot: func(cfg valueConfig, _ uint8, val []byte) (any, error) {
		return decodeSet(cfg.set, val)
	},
	rdbKind: rdb.KindSet,
	fromRDB: func(cfg valueConfig, v *rdb.Value) any {
		o := &setObj{}
		for _, m := range v.Elems {
			o.s.Add(cfg.set, m)
		}
		return o
	},
}

// setReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var setReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpSetAdd, persistence.OpSetRemove, persistence.OpSetStore, persistence.OpSetMove}, apply: replaySetFamilyRecord},
}

// replaySetFamilyRecord adapts the family decoder to the replay table.
func replaySetFamilyRecord(sh *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	return sh.applySetRecord(db, r.Op, p)
}

// rdbValue is the set's plain contents, for DUMP.
func (o *setObj) rdbValue(int64) (rdb.Value, string) {
	v := rdb.Value{Kind: rdb.KindSet, Elems: make([][]byte, 0, o.s.Len())}
	o.s.Each(func(m []byte) bool {
		v.Elems = append(v.Elems, bytes.Clone(m))
		return true
	})
	return v, ""
}

// decodeSet rebuilds a set from its snapshot or STORE encoding.
func decodeSet(cfg set.Config, b []byte) (*setObj, error) {
	s, err := set.Unmarshal(cfg, b)
	if err != nil {
		return nil, fmt.Errorf("keyspace: set value: %w", err)
	}
	return &setObj{s: s}, nil
}

// lookupSet returns the set at key for reading (nil when absent); ok is
// false after a WRONGTYPE reply.
func (sh *Shard) lookupSet(db *DB, key []byte, write bool) (e *entry, o *setObj, ok bool) {
	if write {
		e = sh.lookup(db, key)
	} else {
		e = sh.lookupRead(db, key)
	}
	if e == nil {
		return nil, nil, true
	}
	o, ok = db.obj(e).(*setObj)
	return e, o, ok
}

// Logging.

func (sh *Shard) logSetMembers(db int, op persistence.Opcode, key string, members [][]byte) {
	sh.touchKey(db, key)
	if sh.journal == nil {
		return
	}
	p := appendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(len(members)))
	for _, m := range members {
		p = persistence.AppendBytes(p, m)
	}
	sh.recordScratch(db, op, p)
}

func (sh *Shard) logSetStore(db int, key string, o *setObj) {
	sh.touchKey(db, key)
	if sh.journal == nil {
		return
	}
	p := appendStr(sh.scratch[:0], key)
	p = o.appendSnapshot(p)
	sh.recordScratch(db, persistence.OpSetStore, p)
}

// dstChanged is false when dst already holds member: as in Redis, the
// destination then counts as unchanged (WATCH on it is not broken).
func (sh *Shard) logSetMove(db int, src, dst string, member []byte, dstChanged bool) {
	sh.touchKey(db, src)
	if dstChanged {
		sh.touchKey(db, dst)
	}
	if sh.journal == nil {
		return
	}
	p := appendStr(sh.scratch[:0], src)
	p = appendStr(p, dst)
	p = persistence.AppendBytes(p, member)
	sh.recordScratch(db, persistence.OpSetMove, p)
}

// applySetRecord replays one set WAL record into db. The whole payload is
// checked before the set changes.
func (sh *Shard) applySetRecord(db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	cfg := sh.setConfig()
	key := p.NextBytes()
	switch op {
	case persistence.OpSetAdd, persistence.OpSetRemove:
		members := p.NextFields(p.NextCount(1))
		if err := p.End(); err != nil {
			return err
		}
		e := db.find(key)
		var o *setObj
		if e != nil {
			o, _ = db.obj(e).(*setObj)
		}
		if op == persistence.OpSetAdd && o == nil {
			o = &setObj{}
			if e != nil {
				db.setObj(e, o)
			} else {
				e = db.add(key, nil, o, 0)
			}
		}
		if o == nil {
			return nil
		}
		for members.Len() > 0 {
			if op == persistence.OpSetAdd {
				o.s.Add(cfg, members.NextBytes())
			} else {
				o.s.Remove(members.NextBytes())
			}
		}
		if o.s.Len() == 0 {
			db.remove(e)
		}
	case persistence.OpSetStore:
		if err := p.Err(); err != nil {
			return err
		}
		o, err := decodeSet(cfg, p.Rest())
		if err != nil {
			return err
		}
		storeObj(db, db.find(key), key, o)
	case persistence.OpSetMove:
		dst, m := p.NextBytes(), p.NextBytes()
		if err := p.End(); err != nil {
			return err
		}
		sh.replaySetMove(db, key, dst, m)
	}
	return nil
}

// replaySetMove moves member m from the set at src (when it is one) to the
// set at dst, creating or replacing it.
func (sh *Shard) replaySetMove(db *DB, src, dst, m []byte) {
	if e := db.find(src); e != nil {
		if o, ok := db.obj(e).(*setObj); ok {
			o.s.Remove(m)
			if o.s.Len() == 0 {
				db.remove(e)
			}
		}
	}
	e := db.find(dst)
	o, ok := (*setObj)(nil), false
	if e != nil {
		o, ok = db.obj(e).(*setObj)
	}
	if !ok {
		o = &setObj{}
		storeObj(db, e, dst, o)
	}
	o.s.Add(sh.setConfig(), m)
}

// Replies.

// replyMembers writes members as a set reply (an array in RESP2).
func replyMembers(x *Ctx, members [][]byte) {
	x.W.SetHeader(len(members))
	for _, m := range members {
		x.W.Bulk(m)
	}
}

// Commands.

// SADD key member [member ...]
func saddCommand(x *Ctx) {
	sh, db := x.S, x.DB
	e, o, ok := lookupTyped[*setObj](x, x.Args[1], false)
	if !ok {
		return
	}
	if e == nil {
		o = &setObj{}
		e = db.add(x.Args[1], nil, o, 0)
		x.notify(evNew, "new", x.Args[1])
	}
	cfg := sh.setConfig()
	added := 0
	for _, m := range x.Args[2:] {
		if o.s.Add(cfg, m) {
			added++
		}
	}
	if added > 0 {
		sh.logSetMembers(db.id, persistence.OpSetAdd, e.keyView(), x.Args[2:])
		x.notify(evSet, "sadd", x.Args[1])
	}
	x.W.Int(int64(added))
}

// SREM key member [member ...]
func sremCommand(x *Ctx) {
	sh, db := x.S, x.DB
	e, o, ok := lookupTyped[*setObj](x, x.Args[1], false)
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(0)
		return
	}
	removed := 0
	for _, m := range x.Args[2:] {
		if o.s.Remove(m) {
			removed++
			if o.s.Len() == 0 {
				break
			}
		}
	}
	if removed > 0 {
		sh.logSetMembers(db.id, persistence.OpSetRemove, e.keyView(), x.Args[2:])
		x.notify(evSet, "srem", x.Args[1])
		if o.s.Len() == 0 {
			db.remove(e)
			x.notify(evGeneric, "del", x.Args[1])
		}
	}
	x.W.Int(int64(removed))
}

// SMOVE source destination member
func smoveCommand(x *Ctx) {
	sh, db := x.S, x.DB
	src, dst, m := x.Args[1], x.Args[2], x.Args[3]
	se, so, sok := sh.lookupSet(db, src, true)
	de, do, dok := sh.lookupSet(db, dst, true)
	if se == nil {
		x.W.Int(0)
		return
	}
	if !sok || !dok {
		x.W.Error(errWrongType)
		return
	}
	if so == do {
		if so.s.Contains(m) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
		return
	}
	if !so.s.Remove(m) {
		x.W.Int(0)
		return
	}
	// Copy the member: the source's storage may go away below.
	m = bytes.Clone(m)
	sh.logSetMove(db.id, string(src), string(dst), m, de == nil || !do.s.Contains(m))
	x.notify(evSet, "srem", src)
	if so.s.Len() == 0 {
		db.remove(se)
		x.notify(evGeneric, "del", src)
		de = db.find(dst)
	}
	if de == nil {
		do = &setObj{}
		db.add(dst, nil, do, 0)
		x.notify(evNew, "new", dst)
	}
	if do.s.Add(sh.setConfig(), m) {
		x.notify(evSet, "sadd", dst)
	}
	x.W.Int(1)
}

// SISMEMBER key member
func sismemberCommand(x *Ctx) {
	_, o, ok := lookupTyped[*setObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o != nil && o.s.Contains(x.Args[2]) {
		x.W.Int(1)
		return
	}
	x.W.Int(0)
}

// SMISMEMBER key member [member ...]
func smismemberCommand(x *Ctx) {
	_, o, ok := lookupTyped[*setObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if o != nil && o.s.Contains(m) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
	}
}

// SCARD key
func scardCommand(x *Ctx) {
	_, o, ok := lookupTyped[*setObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(o.s.Len()))
}

// SMEMBERS key
func smembersCommand(x *Ctx) {
	_, o, ok := lookupTyped[*setObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o == nil {
		x.W.SetHeader(0)
		return
	}
	x.W.SetHeader(o.s.Len())
	o.s.Each(func(m []byte) bool { x.W.Bulk(m); return true })
}

// SPOP key [count]
func spopCommand(x *Ctx) {
	sh, db := x.S, x.DB
	if len(x.Args) > 3 {
		x.W.Error(errSyntax)
		return
	}
	withCount := len(x.Args) == 3
	count := int64(1)
	if withCount {
		var ok bool
		if count, ok = parseRangeLong(x, x.Args[2], 0, 1<<63-1, errMustBePositive); !ok {
			return
		}
	}
	e, o, ok := lookupTyped[*setObj](x, x.Args[1], false)
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
	o.s.Pop(randSource{}, int(min(count, int64(o.s.Len()))), func(m []byte) { popped = append(popped, m) })
	sh.logSetMembers(db.id, persistence.OpSetRemove, e.keyView(), popped)
	x.notify(evSet, "spop", x.Args[1])
	if o.s.Len() == 0 {
		db.remove(e)
		x.notify(evGeneric, "del", x.Args[1])
	}
	if withCount {
		replyMembers(x, popped)
		return
	}
	x.W.Bulk(popped[0])
}

// SRANDMEMBER key [count]
func srandmemberCommand(x *Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(errSyntax)
		return
	}
	if len(x.Args) == 2 {
		_, o, ok := lookupTyped[*setObj](x, x.Args[1], true)
		if !ok {
			return
		}
		if o == nil {
			x.W.Null()
			return
		}
		o.s.Random(randSource{}, 1, func(m []byte) bool { x.W.Bulk(m); return true })
		return
	}
	count, ok := parseRangeLong(x, x.Args[2], -(1<<63 - 1), 1<<63-1, "")
	if !ok {
		return
	}
	_, o, ok := lookupTyped[*setObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o == nil || count == 0 {
		x.W.ArrayHeader(0)
		return
	}
	n := int64(o.s.Len())
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
	o.s.Random(randSource{}, int(c), func(m []byte) bool { x.W.Bulk(m); return !x.W.Full() })
}

// setSources looks up the sets named by keys for SINTER, SUNION, SDIFF
// and their kin: a missing key is a nil set; ok is false after a
// WRONGTYPE reply.
func setSources(x *Ctx, keys [][]byte) ([]*setObj, bool) {
	sets := make([]*setObj, len(keys))
	for i, k := range keys {
		_, o, ok := lookupTyped[*setObj](x, k, true)
		if !ok {
			return nil, false
		}
		sets[i] = o
	}
	return sets, true
}

// intersect calls fn for each member of every set (stopping when fn
// returns false); any nil set makes it empty.
func intersect(sets []*setObj, fn func(m []byte) bool) {
	if len(sets) == 0 {
		return
	}
	small := 0
	for i, o := range sets {
		if o == nil {
			return
		}
		if o.s.Len() < sets[small].s.Len() {
			small = i
		}
	}
	sets[small].s.Each(func(m []byte) bool {
		for i, o := range sets {
			if i != small && o != sets[small] && !o.s.Contains(m) {
				return true
			}
		}
		return fn(m)
	})
}

// SINTER key [key ...]
func sinterCommand(x *Ctx) {
	sets, ok := setSources(x, x.Args[1:])
	if !ok {
		return
	}
	var out [][]byte
	intersect(sets, func(m []byte) bool { out = append(out, bytes.Clone(m)); return true })
	replyMembers(x, out)
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
func sintercardCommand(x *Ctx) {
	numkeys, ok := parseRangeLong(x, x.Args[1], 1, 1<<63-1, "ERR numkeys should be greater than 0")
	if !ok {
		return
	}
	if numkeys > int64(len(x.Args)-2) {
		x.W.Error("ERR Number of keys can't be greater than number of args")
		return
	}
	limit := int64(0)
	for j := 2 + int(numkeys); j < len(x.Args); j++ {
		if eqFold(x.Args[j], "limit") && j+1 < len(x.Args) {
			j++
			if limit, ok = parseRangeLong(x, x.Args[j], 0, 1<<63-1, "ERR LIMIT can't be negative"); !ok {
				return
			}
			continue
		}
		x.W.Error(errSyntax)
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
func union(cfg set.Config, sets []*setObj) *setObj {
	out := &setObj{}
	for _, o := range sets {
		if o == nil {
			continue
		}
		o.s.Each(func(m []byte) bool { out.s.Add(cfg, m); return true })
	}
	return out
}

// difference is the members of the first set in none of the others.
func difference(cfg set.Config, sets []*setObj) *setObj {
	out := &setObj{}
	if sets[0] == nil {
		return out
	}
	sets[0].s.Each(func(m []byte) bool {
		for _, o := range sets[1:] {
			if o != nil && (o == sets[0] || o.s.Contains(m)) {
				return true
			}
		}
		out.s.Add(cfg, m)
		return true
	})
	return out
}

// setAlgebra runs SINTER/SUNION/SDIFF (op 'i', 'u', 'd') over keys and
// returns the result; ok is false after a WRONGTYPE reply.
func setAlgebra(x *Ctx, op byte, keys [][]byte) (*setObj, bool) {
	sets, ok := setSources(x, keys)
	if !ok {
		return nil, false
	}
	cfg := x.S.setConfig()
	switch op {
	case 'u':
		return union(cfg, sets), true
	case 'd':
		return difference(cfg, sets), true
	}
	out := &setObj{}
	intersect(sets, func(m []byte) bool { out.s.Add(cfg, m); return true })
	return out, true
}

func setAlgebraCommand(x *Ctx, op byte) {
	o, ok := setAlgebra(x, op, x.Args[1:])
	if !ok {
		return
	}
	x.W.SetHeader(o.s.Len())
	o.s.Each(func(m []byte) bool { x.W.Bulk(m); return true })
}

// setStoreCommand is SINTERSTORE, SUNIONSTORE and SDIFFSTORE: the result
// replaces the destination (any type, its deadline dropped); an empty
// result deletes it.
func setStoreCommand(x *Ctx, op byte) {
	sh, db := x.S, x.DB
	o, ok := setAlgebra(x, op, x.Args[2:])
	if !ok {
		return
	}
	dst := x.Args[1]
	e := sh.lookup(db, dst)
	if o.s.Len() == 0 {
		if e != nil {
			sh.logDel(db.id, e.keyView())
			db.remove(e)
			x.notify(evGeneric, "del", dst)
		}
		x.W.Int(0)
		return
	}
	storeObj(db, e, dst, o)
	sh.logSetStore(db.id, string(dst), o)
	x.notify(evSet, x.Cmd.Name, dst)
	x.W.Int(int64(o.s.Len()))
}

func sunionCommand(x *Ctx)      { setAlgebraCommand(x, 'u') }
func sdiffCommand(x *Ctx)       { setAlgebraCommand(x, 'd') }
func sinterstoreCommand(x *Ctx) { setStoreCommand(x, 'i') }
func sunionstoreCommand(x *Ctx) { setStoreCommand(x, 'u') }
func sdiffstoreCommand(x *Ctx)  { setStoreCommand(x, 'd') }

// SSCAN key cursor [MATCH pattern] [COUNT count]
func sscanCommand(x *Ctx) {
	cursor, ok := parseScanCursor(x.Args[2])
	if !ok {
		x.W.Error("ERR invalid cursor")
		return
	}
	pat, usePat, count, ok := parseScanOptions(x, 3)
	if !ok {
		return
	}
	_, o, ok := lookupTyped[*setObj](x, x.Args[1], true)
	if !ok {
		return
	}
	var out [][]byte
	next := uint64(0)
	if o != nil {
		next = o.s.Scan(cursor, count, func(m []byte) {
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

func registerSetFamily(t commandTable) {
	const rw, ro, fast, deny = FlagWrite, FlagReadOnly, FlagFast, FlagDenyOOM
	c := func(name string, arity int, flags Flag, first, last, step int, summary, complexity string, h HandlerFunc) *Command {
		return &Command{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: step, Group: "set", Since: "1.0.0", Summary: summary, Complexity: complexity, Handler: h}
	}
	// since sets the Redis version a command first appeared in, where it is
	// not the family's 1.0.0.
	since := func(cmd *Command, v string) *Command { cmd.Since = v; return cmd }
	sintercard := since(c("sintercard", -3, ro, 0, 0, 0, "Intersect multiple sets and return the cardinality of the result", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", sintercardCommand), "7.0.0")
	sintercard.movableKeys = numkeysAt(1)
	t.add(
		sintercard,
		c("sadd", -3, rw|deny|fast, 1, 1, 1, "Add one or more members to a set", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", saddCommand),
		c("srem", -3, rw|fast, 1, 1, 1, "Remove one or more members from a set", "O(N) where N is the number of members to be removed.", sremCommand),
		c("smove", 4, rw|fast, 1, 2, 1, "Move a member from one set to another", "O(1)", smoveCommand),
		c("sismember", 3, ro|fast, 1, 1, 1, "Determine if a given value is a member of a set", "O(1)", sismemberCommand),
		since(c("smismember", -3, ro|fast, 1, 1, 1, "Returns the membership associated with the given elements for a set", "O(N) where N is the number of elements being checked for membership", smismemberCommand), "6.2.0"),
		c("scard", 2, ro|fast, 1, 1, 1, "Get the number of members in a set", "O(1)", scardCommand),
		c("smembers", 2, ro, 1, 1, 1, "Get all the members in a set", "O(N) where N is the set cardinality.", smembersCommand),
		c("spop", -2, rw|fast, 1, 1, 1, "Remove and return one or multiple random members from a set", "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.", spopCommand),
		c("srandmember", -2, ro, 1, 1, 1, "Get one or multiple random members from a set", "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.", srandmemberCommand),
		c("sinter", -2, ro, 1, -1, 1, "Intersect multiple sets", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", sinterCommand),
		c("sinterstore", -3, rw|deny, 1, -1, 1, "Intersect multiple sets and store the resulting set in a key", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", sinterstoreCommand),
		c("sunion", -2, ro, 1, -1, 1, "Add multiple sets", "O(N) where N is the total number of elements in all given sets.", sunionCommand),
		c("sunionstore", -3, rw|deny, 1, -1, 1, "Add multiple sets and store the resulting set in a key", "O(N) where N is the total number of elements in all given sets.", sunionstoreCommand),
		c("sdiff", -2, ro, 1, -1, 1, "Subtract multiple sets", "O(N) where N is the total number of elements in all given sets.", sdiffCommand),
		c("sdiffstore", -3, rw|deny, 1, -1, 1, "Subtract multiple sets and store the resulting set in a key", "O(N) where N is the total number of elements in all given sets.", sdiffstoreCommand),
		since(c("sscan", -3, ro, 1, 1, 1, "Incrementally iterate Set elements", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.", sscanCommand), "2.8.0"),
	)
}
