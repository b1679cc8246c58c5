package keyspace

import (
	"math"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/acl"
)

// This file holds the generic key commands (DEL, EXISTS, TYPE, RENAME,
// COPY, MOVE, KEYS, SCAN, the expiry commands, OBJECT, ...) and the
// database commands of the server group (DBSIZE, FLUSHDB, FLUSHALL,
// SWAPDB). Every handler follows Redis 7.0: same replies, same error texts,
// same order of checks. Every mutation logs exactly one journal record.

// typeName is the TYPE of an entry: "string" for plain strings and for
// string-like values, otherwise what the value's typeName method says.
// A value type that has neither reads as "none" (a value without a type
// is a bug of its family, not something a client can create).
func typeName(db *DB, e *entry) string {
	o := db.obj(e)
	if o == nil {
		return "string"
	}
	if t, ok := o.(interface{ typeName() string }); ok {
		return t.typeName()
	}
	if _, ok := o.(stringLike); ok {
		return "string"
	}
	return "none"
}

// stringEncoding is OBJECT ENCODING of a string value, as Redis chooses
// it for a value it stores: "int" for a canonical 64-bit integer, "embstr"
// up to 44 bytes, else "raw".
// A string modified in place (APPEND, SETRANGE, SETBIT) is raw, like
// Redis's growable strings, even when its bytes read as an integer: Redis
// encodes a value as an integer only when it stores a new one.
func stringEncoding(v []byte, raw bool) string {
	if raw {
		return "raw"
	}
	if len(v) <= 20 {
		if _, ok := parseInt(v); ok {
			return "int"
		}
	}
	if len(v) <= 44 {
		return "embstr"
	}
	return "raw"
}

// encodingName is OBJECT ENCODING of an entry.
func encodingName(db *DB, e *entry) string {
	o := db.obj(e)
	if o == nil {
		return stringEncoding(db.val(e), e.kind()&flagRaw != 0)
	}
	if enc, ok := o.(interface{ encoding() string }); ok {
		return enc.encoding()
	}
	if sv, ok := o.(stringLike); ok {
		return stringEncoding(sv.stringBytes(e), false)
	}
	return "raw"
}

// multiShard reports whether the process runs more than one shard, which
// makes it look like a Redis Cluster: only database 0 exists.
func (sh *Shard) multiShard() bool { return len(sh.srv.shards) > 1 }

// parseDBIndex parses a database index the way Redis's getIntFromObject
// does: a strict integer that fits a C int. It does not check the range.
func parseDBIndex(b []byte) (int, bool) {
	n, ok := parseInt(b)
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return int(n), true
}

// DEL key [key ...] and UNLINK key [key ...]: UNLINK frees memory the same
// way DEL does, the garbage collector reclaims it in the background.
func delCommand(x *Ctx) {
	n := int64(0)
	for _, k := range x.Args[1:] {
		if x.S.deleteKey(x.DB, k) {
			n++
			x.notify(evGeneric, "del", k)
		}
	}
	x.W.Int(n)
}

// EXISTS key [key ...]: a key named twice counts twice. The keys' access
// times are left alone.
func existsCommand(x *Ctx) {
	n := int64(0)
	for _, k := range x.Args[1:] {
		if x.S.lookupReadNoTouch(x.DB, k) != nil {
			n++
		}
	}
	x.W.Int(n)
}

// TOUCH key [key ...]: the number of existing keys, whose access times
// become now.
func touchCommand(x *Ctx) {
	n := int64(0)
	for _, k := range x.Args[1:] {
		if x.S.lookupRead(x.DB, k) != nil {
			n++
		}
	}
	x.W.Int(n)
}

// TYPE key
func typeCommand(x *Ctx) {
	e := x.S.lookupReadNoTouch(x.DB, x.Args[1])
	if e == nil {
		x.W.SimpleString("none")
		return
	}
	x.W.SimpleString(typeName(x.DB, e))
}

// RENAME key newkey
func renameCommand(x *Ctx) { renameGeneric(x, false) }

// RENAMENX key newkey
func renamenxCommand(x *Ctx) { renameGeneric(x, true) }

// renameGeneric moves the value and deadline of key to newkey, replacing
// newkey unless nx is set.
func renameGeneric(x *Ctx, nx bool) {
	sh, db := x.S, x.DB
	src, dst := x.Args[1], x.Args[2]
	e := sh.lookup(db, src)
	if e == nil {
		x.W.Error(errNoSuchKey)
		return
	}
	if string(src) == string(dst) {
		if nx {
			x.W.Int(0)
		} else {
			x.W.OK()
		}
		return
	}
	if d := sh.lookup(db, dst); d != nil {
		if nx {
			x.W.Int(0)
			return
		}
		db.remove(d)
	}
	sh.logRename(db.id, e.keyView(), string(dst))
	db.transfer(e, db, dst)
	// As in Redis: the key is added under its new name (new) before the
	// old name goes (rename_from, rename_to).
	x.notify(evNew, "new", dst)
	x.notify(evGeneric, "rename_from", src)
	x.notify(evGeneric, "rename_to", dst)
	if nx {
		x.W.Int(1)
	} else {
		x.W.OK()
	}
}

// cloneValue deep-copies the value of e for COPY. ok is false when the
// value's type cannot be copied.
func cloneValue(db *DB, e *entry) (val []byte, obj any, ok bool) {
	o := db.obj(e)
	if o == nil {
		return db.val(e), nil, true
	}
	c, ok := o.(interface{ clone() any })
	if !ok {
		return nil, nil, false
	}
	return nil, c.clone(), true
}

// COPY source destination [DB destination-db] [REPLACE]
func copyCommand(x *Ctx) {
	sh, src := x.S, x.DB
	args := x.Args
	target := src.id
	replace := false
	for i := 3; i < len(args); i++ {
		switch {
		case eqFold(args[i], "replace"):
			replace = true
		case eqFold(args[i], "db") && i+1 < len(args):
			id, ok := parseDBIndex(args[i+1])
			if !ok {
				x.W.Error(errNotInt)
				return
			}
			if id < 0 || id >= sh.configuredDBs() {
				x.W.Error(errDBIndex)
				return
			}
			target = id
			i++
		default:
			x.W.Error(errSyntax)
			return
		}
	}
	if sh.multiShard() && target != 0 {
		x.W.Error("ERR Copying to another database is not allowed in cluster mode")
		return
	}
	dstDB := sh.dbs[target]
	if dstDB == src && string(args[1]) == string(args[2]) {
		x.W.Error(errSameObject)
		return
	}
	e := sh.lookupRead(src, args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	old := sh.lookup(dstDB, args[2])
	if old != nil && !replace {
		x.W.Int(0)
		return
	}
	val, obj, ok := cloneValue(src, e)
	if !ok {
		x.W.Error("ERR COPY of this type is not supported")
		return
	}
	sh.logCopy(src.id, e.keyView(), string(args[2]), target, replace)
	at := e.expireAt
	if old != nil {
		dstDB.remove(old)
	}
	dstDB.add(args[2], val, obj, at)
	sh.notify(evNew, "new", dstDB.id, args[2])
	sh.notify(evGeneric, "copy_to", dstDB.id, args[2])
	x.W.Int(1)
}

// configuredDBs is the number of databases a client may name: the
// configured count, even in multi-shard mode where only database 0 is
// served (as Redis Cluster keeps its configured databases).
func (sh *Shard) configuredDBs() int {
	if n := sh.srv.opts.Config.Server.Databases; n > len(sh.dbs) {
		return n
	}
	return len(sh.dbs)
}

// MOVE key db
func moveCommand(x *Ctx) {
	sh, src := x.S, x.DB
	if sh.multiShard() {
		x.W.Error("ERR MOVE is not allowed in cluster mode")
		return
	}
	id, ok := parseDBIndex(x.Args[2])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	if id < 0 || id >= len(sh.dbs) {
		x.W.Error(errDBIndex)
		return
	}
	dst := sh.dbs[id]
	if dst == src {
		x.W.Error(errSameObject)
		return
	}
	e := sh.lookup(src, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	if sh.lookup(dst, x.Args[1]) != nil {
		x.W.Int(0)
		return
	}
	sh.logMove(src.id, e.keyView(), dst.id)
	src.transfer(e, dst, x.Args[1])
	sh.notify(evNew, "new", dst.id, x.Args[1])
	sh.notify(evGeneric, "move_from", src.id, x.Args[1])
	sh.notify(evGeneric, "move_to", dst.id, x.Args[1])
	x.W.Int(1)
}

// KEYS pattern: keys whose deadline passed are left for the expiry cycle
// and not reported, as Redis 7.0 does.
func keysCommand(x *Ctx) {
	pat := x.Args[1]
	all := len(pat) == 1 && pat[0] == '*'
	now := x.S.nowMs
	var keys []string
	x.DB.each(func(e *entry) {
		if !e.expired(now) && (all || globMatch(pat, e.key(), false)) {
			keys = append(keys, e.keyString())
		}
	})
	x.W.BulkStrings(keys)
}

// parseScanCursor parses a SCAN cursor the way Redis's strtoul-based
// parser does: an optional sign (a negative cursor wraps around), decimal
// digits, no leading space, no overflow.
func parseScanCursor(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if isSpace(b[0]) {
		return 0, false
	}
	i, neg := 0, false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		i = 1
	}
	if i == len(b) {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		v = -v
	}
	return v, true
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
func scanCommand(x *Ctx) {
	cursor, ok := parseScanCursor(x.Args[1])
	if !ok {
		x.W.Error("ERR invalid cursor")
		return
	}
	args := x.Args
	count := int64(10)
	var pat, typ []byte
	usePat := false
	for i := 2; i < len(args); i += 2 {
		if i+1 >= len(args) {
			x.W.Error(errSyntax)
			return
		}
		switch {
		case eqFold(args[i], "count"):
			n, ok := parseInt(args[i+1])
			if !ok {
				x.W.Error(errNotInt)
				return
			}
			if n < 1 {
				x.W.Error(errSyntax)
				return
			}
			count = n
		case eqFold(args[i], "match"):
			pat = args[i+1]
			usePat = !(len(pat) == 1 && pat[0] == '*')
		case eqFold(args[i], "type"):
			typ = args[i+1]
		default:
			x.W.Error(errSyntax)
			return
		}
	}
	sh, db := x.S, x.DB
	found := make([]*entry, 0, min(count, 64))
	maxIter := int64(math.MaxInt64)
	if count <= math.MaxInt64/10 {
		maxIter = count * 10
	}
	collect := func(h uint32) { found = append(found, db.entryAt(h)) }
	for {
		cursor = db.t.scan(cursor, collect)
		if cursor == 0 || maxIter == 0 || int64(len(found)) >= count {
			break
		}
		maxIter--
	}
	// Filter after the table walk: expiring a key may shrink the table.
	keys := found[:0]
	for _, e := range found {
		if usePat && !globMatch(pat, e.key(), false) {
			continue
		}
		if e.expired(sh.nowMs) {
			sh.expireEntry(db, e)
			continue
		}
		// Both sides fold: module-style names such as "MBbloom--" have
		// capitals.
		if typ != nil && !strings.EqualFold(string(typ), typeName(x.DB, e)) {
			continue
		}
		keys = append(keys, e)
	}
	x.W.ArrayHeader(2)
	var tmp [20]byte
	x.W.Bulk(strconv.AppendUint(tmp[:0], cursor, 10))
	x.W.ArrayHeader(len(keys))
	for _, e := range keys {
		x.W.BulkString(e.keyView())
	}
}

// RANDOMKEY: a random live key; expired keys met on the way are deleted.
func randomkeyCommand(x *Ctx) {
	for tries := 0; ; tries++ {
		e := x.DB.randomEntry()
		if e == nil {
			x.W.Null()
			return
		}
		if e.expired(x.S.nowMs) && !(x.S.srv.isReplica() && tries >= 100) {
			// A replica cannot delete: after 100 expired keys in a row it
			// answers with one, as Redis does.
			x.S.expireEntry(x.DB, e)
			continue
		}
		x.W.BulkString(e.keyView())
		return
	}
}

// Options of EXPIRE and friends.
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// parseExpireFlags parses the NX|XX|GT|LT options from args[3:]; it
// replies and returns false on error.
func parseExpireFlags(x *Ctx) (int, bool) {
	flags := 0
	for _, a := range x.Args[3:] {
		switch {
		case eqFold(a, "nx"):
			flags |= expireNX
		case eqFold(a, "xx"):
			flags |= expireXX
		case eqFold(a, "gt"):
			flags |= expireGT
		case eqFold(a, "lt"):
			flags |= expireLT
		default:
			x.W.Error("ERR Unsupported option " + string(a))
			return 0, false
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		x.W.Error("ERR NX and XX, GT or LT options at the same time are not compatible")
		return 0, false
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		x.W.Error("ERR GT and LT options at the same time are not compatible")
		return 0, false
	}
	return flags, true
}

// EXPIRE key seconds [NX|XX|GT|LT]
func expireCommand(x *Ctx) { expireGeneric(x, x.S.nowMs, true) }

// PEXPIRE key milliseconds [NX|XX|GT|LT]
func pexpireCommand(x *Ctx) { expireGeneric(x, x.S.nowMs, false) }

// EXPIREAT key unix-time-seconds [NX|XX|GT|LT]
func expireatCommand(x *Ctx) { expireGeneric(x, 0, true) }

// PEXPIREAT key unix-time-milliseconds [NX|XX|GT|LT]
func pexpireatCommand(x *Ctx) { expireGeneric(x, 0, false) }

// expireGeneric sets the deadline base+t (t in seconds when seconds is
// set). A deadline not in the future deletes the key, as Redis does.
func expireGeneric(x *Ctx, base int64, seconds bool) {
	flags, ok := parseExpireFlags(x)
	if !ok {
		return
	}
	when, ok := parseInt(x.Args[2])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			x.W.Error(invalidExpireError(x.Cmd.Name))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		x.W.Error(invalidExpireError(x.Cmd.Name))
		return
	}
	when += base
	sh, db := x.S, x.DB
	e := sh.lookup(db, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	if flags != 0 {
		cur := e.expireAt // 0: no deadline, an infinite TTL
		if flags&expireNX != 0 && cur != 0 {
			x.W.Int(0)
			return
		}
		if flags&expireXX != 0 && cur == 0 {
			x.W.Int(0)
			return
		}
		if flags&expireGT != 0 && (cur == 0 || when <= cur) {
			x.W.Int(0)
			return
		}
		if flags&expireLT != 0 && cur != 0 && when >= cur {
			x.W.Int(0)
			return
		}
	}
	if when <= sh.nowMs {
		sh.logDel(db.id, e.keyView())
		db.remove(e)
		x.notify(evGeneric, "del", x.Args[1])
	} else {
		sh.setDeadline(db, e, when)
		x.notify(evGeneric, "expire", x.Args[1])
	}
	x.W.Int(1)
}

// ttlGeneric replies TTL, PTTL, EXPIRETIME or PEXPIRETIME: -2 for a
// missing key, -1 without a deadline; seconds are rounded to nearest.
func ttlGeneric(x *Ctx, ms, abs bool) {
	e := x.S.lookupReadNoTouch(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(-2)
		return
	}
	if e.expireAt == 0 {
		x.W.Int(-1)
		return
	}
	t := e.expireAt
	if !abs {
		t -= x.S.nowMs
	}
	if t < 0 {
		t = 0
	}
	if !ms {
		t = (t + 500) / 1000
	}
	x.W.Int(t)
}

// TTL key
func ttlCommand(x *Ctx) { ttlGeneric(x, false, false) }

// PTTL key
func pttlCommand(x *Ctx) { ttlGeneric(x, true, false) }

// EXPIRETIME key
func expiretimeCommand(x *Ctx) { ttlGeneric(x, false, true) }

// PEXPIRETIME key
func pexpiretimeCommand(x *Ctx) { ttlGeneric(x, true, true) }

// PERSIST key
func persistCommand(x *Ctx) {
	e := x.S.lookup(x.DB, x.Args[1])
	if e == nil || e.expireAt == 0 {
		x.W.Int(0)
		return
	}
	x.S.setDeadline(x.DB, e, 0)
	x.notify(evGeneric, "persist", x.Args[1])
	x.W.Int(1)
}

// OBJECT subcommand [arguments]: dispatches to the subcommand after the
// checks Redis's processCommand makes for it.
func objectCommand(x *Ctx) {
	sub := x.Cmd.sub(x.Args[1])
	if sub == nil {
		b := make([]byte, 0, 64)
		b = append(b, "ERR unknown subcommand '"...)
		b = appendTruncated(b, x.Args[1], 128)
		b = append(b, "'. Try OBJECT HELP."...)
		x.W.Error(string(b))
		return
	}
	if !arityOK(sub.Arity, len(x.Args)) {
		x.W.Error(errWrongArgs(sub.FullName()))
		return
	}
	if sub.FirstKey > 0 && x.S.multiShard() && !x.S.checkSlots(x, sub, x.Args) {
		return
	}
	x.Cmd = sub
	sub.Handler(x)
}

// objectLookup finds the key of an OBJECT subcommand, replying null when
// it is missing.
func objectLookup(x *Ctx) *entry {
	e := x.S.lookupReadNoTouch(x.DB, x.Args[2])
	if e == nil {
		x.W.Null()
	}
	return e
}

// OBJECT ENCODING key
func objectEncodingCommand(x *Ctx) {
	if e := objectLookup(x); e != nil {
		x.W.BulkString(encodingName(x.DB, e))
	}
}

// OBJECT REFCOUNT key: values are never shared, so always 1.
func objectRefcountCommand(x *Ctx) {
	if objectLookup(x) != nil {
		x.W.Int(1)
	}
}

// OBJECT IDLETIME key: seconds since the key was last accessed; under an
// LFU policy Redis's error, as Redis keeps no idle time then.
func objectIdletimeCommand(x *Ctx) {
	if e := objectLookup(x); e != nil {
		if x.S.srv.opts.Live.LFU() {
			x.W.Error("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
			return
		}
		x.W.Int(x.S.idleSeconds(e))
	}
}

// OBJECT FREQ key: the key's logarithmic access counter under an LFU
// policy; Redis's error under any other.
func objectFreqCommand(x *Ctx) {
	if e := objectLookup(x); e != nil {
		if !x.S.srv.opts.Live.LFU() {
			x.W.Error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
			return
		}
		x.W.Int(int64(x.S.lfuDecayed(e)))
	}
}

// objectHelp is the reply of OBJECT HELP, line by line, as Redis 7.0
// prints it.
var objectHelp = [...]string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

// OBJECT HELP
func objectHelpCommand(x *Ctx) {
	x.W.ArrayHeader(len(objectHelp))
	for _, l := range objectHelp {
		x.W.SimpleString(l)
	}
}

// DBSIZE
func dbsizeCommand(x *Ctx) { x.W.Int(int64(x.DB.Len())) }

// parseFlushMode accepts FLUSHDB's and FLUSHALL's optional ASYNC|SYNC;
// both free memory the same way here. It replies on error.
func parseFlushMode(x *Ctx) bool {
	if len(x.Args) == 1 {
		return true
	}
	if len(x.Args) == 2 && (eqFold(x.Args[1], "async") || eqFold(x.Args[1], "sync")) {
		return true
	}
	x.W.Error(errSyntax)
	return false
}

// FLUSHDB [ASYNC|SYNC]
func flushdbCommand(x *Ctx) {
	if !parseFlushMode(x) {
		return
	}
	x.S.touchAllInDB(x.DB.id, nil)
	x.DB.flush()
	x.S.logFlushDB(x.DB.id)
	x.W.OK()
}

// FLUSHALL [ASYNC|SYNC]: every database of this shard.
func flushallCommand(x *Ctx) {
	if !parseFlushMode(x) {
		return
	}
	for _, db := range x.S.dbs {
		x.S.touchAllInDB(db.id, nil)
		db.flush()
	}
	x.S.logFlushAll()
	x.W.OK()
}

// SWAPDB index1 index2: swaps the two databases in O(1). Clients keep
// their database index, so they see the other data set at once.
func swapdbCommand(x *Ctx) {
	sh := x.S
	if sh.multiShard() {
		x.W.Error("ERR SWAPDB is not allowed in cluster mode")
		return
	}
	i, ok := parseDBIndex(x.Args[1])
	if !ok {
		x.W.Error("ERR invalid first DB index")
		return
	}
	j, ok := parseDBIndex(x.Args[2])
	if !ok {
		x.W.Error("ERR invalid second DB index")
		return
	}
	if i < 0 || j < 0 || i >= len(sh.dbs) || j >= len(sh.dbs) {
		x.W.Error(errDBIndex)
		return
	}
	if i != j {
		sh.touchAllInDB(i, sh.dbs[j])
		sh.touchAllInDB(j, sh.dbs[i])
		sh.swapDB(i, j)
		sh.logSwapDB(i, j)
	}
	x.DB = sh.dbs[x.C.DB]
	x.W.OK()
}

// globMatch reports whether s matches the glob pattern the way Redis's
// stringmatchlen does (* ? [abc] [^abc] [a-z] and \ escapes; nocase folds
// ASCII letters). It is shared by KEYS, SCAN and others; the matcher itself is
// acl.Match, so key patterns mean the same in KEYS and in ACL rules.
func globMatch(pattern, s []byte, nocase bool) bool {
	return acl.Match(pattern, s, nocase)
}

// registerKeyFamily adds the generic key commands and the database
// commands of the server group to t.
func registerKeyFamily(t commandTable) {
	const rw, ro, fast, deny = FlagWrite, FlagReadOnly, FlagFast, FlagDenyOOM
	t.add(
		&Command{Name: "del", Arity: -2, Flags: rw, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Deletes one or more keys.", Complexity: "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).", Handler: delCommand},
		&Command{Name: "unlink", Arity: -2, Flags: rw | fast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "4.0.0", Summary: "Asynchronously deletes one or more keys.", Complexity: "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.", Handler: delCommand},
		&Command{Name: "exists", Arity: -2, Flags: ro | fast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Determines whether one or more keys exist.", Complexity: "O(N) where N is the number of keys to check.", Handler: existsCommand},
		&Command{Name: "touch", Arity: -2, Flags: ro | fast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "3.2.1", Summary: "Returns the number of existing keys out of those specified after updating the time they were last accessed.", Complexity: "O(N) where N is the number of keys that will be touched.", Handler: touchCommand},
		&Command{Name: "type", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Determines the type of value stored at a key.", Complexity: "O(1)", Handler: typeCommand},
		&Command{Name: "rename", Arity: 3, Flags: rw, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Renames a key and overwrites the destination.", Complexity: "O(1)", Handler: renameCommand},
		&Command{Name: "renamenx", Arity: 3, Flags: rw | fast, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Renames a key only when the target key name doesn't exist.", Complexity: "O(1)", Handler: renamenxCommand},
		&Command{Name: "copy", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic", Since: "6.2.0", Summary: "Copies the value of a key to a new key.", Complexity: "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.", Handler: copyCommand},
		&Command{Name: "dump", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.6.0", Summary: "Return a serialized version of the value stored at the specified key.", Complexity: "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).", Handler: dumpCommand},
		&Command{Name: "restore", Arity: -4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Categories: []string{"keyspace", "dangerous"}, Group: "generic", Since: "2.6.0", Summary: "Create a key using the provided serialized value, previously obtained using DUMP.", Complexity: "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).", Handler: restoreCommand},
		&Command{Name: "move", Arity: 3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Moves a key to another database.", Complexity: "O(1)", Handler: moveCommand},
		&Command{Name: "keys", Arity: 2, Flags: ro | FlagKeyless, Categories: []string{"keyspace", "dangerous"}, Group: "generic", Since: "1.0.0", Summary: "Returns all key names that match a pattern.", Complexity: "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.", Handler: keysCommand},
		&Command{Name: "scan", Arity: -2, Flags: ro | FlagKeyless, Group: "generic", Since: "2.8.0", Summary: "Iterates over the key names in the database.", Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.", Handler: scanCommand},
		&Command{Name: "randomkey", Arity: 1, Flags: ro, Group: "generic", Since: "1.0.0", Summary: "Returns a random key name from the database.", Complexity: "O(1)", Handler: randomkeyCommand},
		&Command{Name: "expire", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Sets the expiration time of a key in seconds.", Complexity: "O(1)", Handler: expireCommand},
		&Command{Name: "pexpire", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.6.0", Summary: "Sets the expiration time of a key in milliseconds.", Complexity: "O(1)", Handler: pexpireCommand},
		&Command{Name: "expireat", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.2.0", Summary: "Sets the expiration time of a key to a Unix timestamp.", Complexity: "O(1)", Handler: expireatCommand},
		&Command{Name: "pexpireat", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.6.0", Summary: "Sets the expiration time of a key to a Unix milliseconds timestamp.", Complexity: "O(1)", Handler: pexpireatCommand},
		&Command{Name: "ttl", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Returns the expiration time in seconds of a key.", Complexity: "O(1)", Handler: ttlCommand},
		&Command{Name: "pttl", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.6.0", Summary: "Returns the expiration time in milliseconds of a key.", Complexity: "O(1)", Handler: pttlCommand},
		&Command{Name: "expiretime", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "7.0.0", Summary: "Returns the expiration time of a key as a Unix timestamp.", Complexity: "O(1)", Handler: expiretimeCommand},
		&Command{Name: "pexpiretime", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "7.0.0", Summary: "Returns the expiration time of a key as a Unix milliseconds timestamp.", Complexity: "O(1)", Handler: pexpiretimeCommand},
		&Command{Name: "persist", Arity: 2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.2.0", Summary: "Removes the expiration time of a key.", Complexity: "O(1)", Handler: persistCommand},
		&Command{Name: "object", Arity: -2, Group: "generic", Since: "2.2.3", Summary: "A container for object introspection commands.", Complexity: "Depends on subcommand.", Handler: objectCommand,
			Subcommands: []*Command{
				{Name: "encoding", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic", Since: "2.2.3", Summary: "Returns the internal encoding of a Redis object.", Complexity: "O(1)", Handler: objectEncodingCommand},
				{Name: "freq", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic", Since: "4.0.0", Summary: "Returns the logarithmic access frequency counter of a Redis object.", Complexity: "O(1)", Handler: objectFreqCommand},
				{Name: "help", Arity: 2, Flags: FlagLoading | FlagStale, Group: "generic", Since: "6.2.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: objectHelpCommand},
				{Name: "idletime", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic", Since: "2.2.3", Summary: "Returns the time since the last access to a Redis object.", Complexity: "O(1)", Handler: objectIdletimeCommand},
				{Name: "refcount", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic", Since: "2.2.3", Summary: "Returns the reference count of a value of a key.", Complexity: "O(1)", Handler: objectRefcountCommand},
			}},
		&Command{Name: "dbsize", Arity: 1, Flags: ro | fast, Categories: []string{"keyspace"}, Group: "server", Since: "1.0.0", Summary: "Returns the number of keys in the database.", Complexity: "O(1)", Handler: dbsizeCommand},
		&Command{Name: "flushdb", Arity: -1, Flags: rw | FlagKeyless, Categories: []string{"keyspace", "dangerous"}, Group: "server", Since: "1.0.0", Summary: "Remove all keys from the current database.", Complexity: "O(N) where N is the number of keys in the selected database", Handler: flushdbCommand},
		&Command{Name: "flushall", Arity: -1, Flags: rw | FlagKeyless, Categories: []string{"keyspace", "dangerous"}, Group: "server", Since: "1.0.0", Summary: "Removes all keys from all databases.", Complexity: "O(N) where N is the total number of keys in all databases", Handler: flushallCommand},
		&Command{Name: "swapdb", Arity: 3, Flags: rw | fast | FlagKeyless, Categories: []string{"keyspace", "dangerous"}, Group: "server", Since: "4.0.0", Summary: "Swaps two Redis databases.", Complexity: "O(N) where N is the count of clients watching or blocking on keys from both databases.", Handler: swapdbCommand},
	)
}
