package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/acl"
)

// typeName is the TYPE of an entry: "string" for plain strings and for
// string-like values, otherwise what the value's typeName method says.
// A value type that has neither reads as "none" (a value without a type
// is a bug of its family, not something a client can create).
func typeName(db *keyspace.DB, e *keyspace.Entry) string {
	o := db.Obj(e)
	if o == nil {
		return "string"
	}
	if t, ok := o.(interface{ TypeName() string }); ok {
		return t.TypeName()
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
		if _, ok := keyspace.ParseInt(v); ok {
			return "int"
		}
	}
	if len(v) <= 44 {
		return "embstr"
	}
	return "raw"
}

// encodingName is OBJECT ENCODING of an entry.
func encodingName(db *keyspace.DB, e *keyspace.Entry) string {
	o := db.Obj(e)
	if o == nil {
		return stringEncoding(db.Val(e), e.Kind()&keyspace.FlagRaw != 0)
	}
	if enc, ok := o.(interface{ Encoding() string }); ok {
		return enc.Encoding()
	}
	if sv, ok := o.(stringLike); ok {
		return stringEncoding(sv.StringBytes(e), false)
	}
	return "raw"
}

// parseDBIndex parses a database index the way Redis's getIntFromObject
// does: a strict integer that fits a C int. It does not check the range.
func parseDBIndex(b []byte) (int, bool) {
	n, ok := keyspace.ParseInt(b)
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return int(n), true
}

// DEL key [key ...] and UNLINK key [key ...]: UNLINK frees memory the same
// way DEL does, the garbage collector reclaims it in the background.
func delCommand(x *keyspace.Ctx) {
	n := int64(0)
	for _, k := range x.Args[1:] {
		if x.S.DeleteKey(x.DB, k) {
			n++
			x.Notify(keyspace.EvGeneric, "del", k)
		}
	}
	x.W.Int(n)
}

// EXISTS key [key ...]: a key named twice counts twice. The keys' access
// times are left alone.
func existsCommand(x *keyspace.Ctx) {
	n := int64(0)
	for _, k := range x.Args[1:] {
		if x.S.LookupReadNoTouch(x.DB, k) != nil {
			n++
		}
	}
	x.W.Int(n)
}

// TOUCH key [key ...]: the number of existing keys, whose access times
// become now.
func touchCommand(x *keyspace.Ctx) {
	n := int64(0)
	for _, k := range x.Args[1:] {
		if x.S.LookupRead(x.DB, k) != nil {
			n++
		}
	}
	x.W.Int(n)
}

// TYPE key
func typeCommand(x *keyspace.Ctx) {
	e := x.S.LookupReadNoTouch(x.DB, x.Args[1])
	if e == nil {
		x.W.SimpleString("none")
		return
	}
	x.W.SimpleString(typeName(x.DB, e))
}

// RENAME key newkey
func renameCommand(x *keyspace.Ctx) { renameGeneric(x, false) }

// RENAMENX key newkey
func renamenxCommand(x *keyspace.Ctx) { renameGeneric(x, true) }

// renameGeneric moves the value and deadline of key to newkey, replacing
// newkey unless nx is set.
func renameGeneric(x *keyspace.Ctx, nx bool) {
	sh, db := x.S, x.DB
	src, dst := x.Args[1], x.Args[2]
	e := sh.Lookup(db, src)
	if e == nil {
		x.W.Error(keyspace.ErrNoSuchKey)
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
	if d := sh.Lookup(db, dst); d != nil {
		if nx {
			x.W.Int(0)
			return
		}
		db.Remove(d)
	}
	sh.LogRename(db.ID, e.KeyView(), string(dst))
	db.Transfer(e, db, dst)
	// As in Redis: the key is added under its new name (new) before the
	// old name goes (rename_from, rename_to).
	x.Notify(keyspace.EvNew, "new", dst)
	x.Notify(keyspace.EvGeneric, "rename_from", src)
	x.Notify(keyspace.EvGeneric, "rename_to", dst)
	if nx {
		x.W.Int(1)
	} else {
		x.W.OK()
	}
}

// COPY source destination [DB destination-db] [REPLACE]
func copyCommand(x *keyspace.Ctx) {
	sh, src := x.S, x.DB
	args := x.Args
	target := src.ID
	replace := false
	for i := 3; i < len(args); i++ {
		switch {
		case keyspace.EqFold(args[i], "replace"):
			replace = true
		case keyspace.EqFold(args[i], "db") && i+1 < len(args):
			id, ok := parseDBIndex(args[i+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			if id < 0 || id >= shardConfiguredDBs(sh) {
				x.W.Error(keyspace.ErrDBIndex)
				return
			}
			target = id
			i++
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	if sh.MultiShard() && target != 0 {
		x.W.Error("ERR Copying to another database is not allowed in cluster mode")
		return
	}
	dstDB := sh.DBs[target]
	if dstDB == src && string(args[1]) == string(args[2]) {
		x.W.Error(keyspace.ErrSameObject)
		return
	}
	e := sh.LookupRead(src, args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	old := sh.Lookup(dstDB, args[2])
	if old != nil && !replace {
		x.W.Int(0)
		return
	}
	val, obj, ok := keyspace.CloneValue(src, e)
	if !ok {
		x.W.Error("ERR COPY of this type is not supported")
		return
	}
	sh.LogCopy(src.ID, e.KeyView(), string(args[2]), target, replace)
	at := e.ExpireAt
	if old != nil {
		dstDB.Remove(old)
	}
	dstDB.Add(args[2], val, obj, at)
	sh.Notify(keyspace.EvNew, "new", dstDB.ID, args[2])
	sh.Notify(keyspace.EvGeneric, "copy_to", dstDB.ID, args[2])
	x.W.Int(1)
}

// shardConfiguredDBs is the number of databases a client may name: the
// configured count, even in multi-shard mode where only database 0 is
// served (as Redis Cluster keeps its configured databases).
func shardConfiguredDBs(sh *keyspace.Shard) int {
	if n := sh.Srv.Opts.Config.Server.Databases; n > len(sh.DBs) {
		return n
	}
	return len(sh.DBs)
}

// MOVE key db
func moveCommand(x *keyspace.Ctx) {
	sh, src := x.S, x.DB
	if sh.MultiShard() {
		x.W.Error("ERR MOVE is not allowed in cluster mode")
		return
	}
	id, ok := parseDBIndex(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if id < 0 || id >= len(sh.DBs) {
		x.W.Error(keyspace.ErrDBIndex)
		return
	}
	dst := sh.DBs[id]
	if dst == src {
		x.W.Error(keyspace.ErrSameObject)
		return
	}
	e := sh.Lookup(src, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	if sh.Lookup(dst, x.Args[1]) != nil {
		x.W.Int(0)
		return
	}
	sh.LogMove(src.ID, e.KeyView(), dst.ID)
	src.Transfer(e, dst, x.Args[1])
	sh.Notify(keyspace.EvNew, "new", dst.ID, x.Args[1])
	sh.Notify(keyspace.EvGeneric, "move_from", src.ID, x.Args[1])
	sh.Notify(keyspace.EvGeneric, "move_to", dst.ID, x.Args[1])
	x.W.Int(1)
}

// KEYS pattern: keys whose deadline passed are left for the expiry cycle
// and not reported, as Redis 7.0 does.
func keysCommand(x *keyspace.Ctx) {
	pat := x.Args[1]
	all := len(pat) == 1 && pat[0] == '*'
	now := x.S.NowMs
	var keys []string
	x.DB.Each(func(e *keyspace.Entry) {
		if !e.Expired(now) && (all || globMatch(pat, e.Key(), false)) {
			keys = append(keys, e.KeyString())
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
func scanCommand(x *keyspace.Ctx) {
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
			x.W.Error(keyspace.ErrSyntax)
			return
		}
		switch {
		case keyspace.EqFold(args[i], "count"):
			n, ok := keyspace.ParseInt(args[i+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			if n < 1 {
				x.W.Error(keyspace.ErrSyntax)
				return
			}
			count = n
		case keyspace.EqFold(args[i], "match"):
			pat = args[i+1]
			usePat = !(len(pat) == 1 && pat[0] == '*')
		case keyspace.EqFold(args[i], "type"):
			typ = args[i+1]
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	sh, db := x.S, x.DB
	found := make([]*keyspace.Entry, 0, min(count, 64))
	maxIter := int64(math.MaxInt64)
	if count <= math.MaxInt64/10 {
		maxIter = count * 10
	}
	collect := func(h uint32) { found = append(found, db.EntryAt(h)) }
	for {
		cursor = db.T.Scan(cursor, collect)
		if cursor == 0 || maxIter == 0 || int64(len(found)) >= count {
			break
		}
		maxIter--
	}
	// Filter after the table walk: expiring a key may shrink the table.
	keys := found[:0]
	for _, e := range found {
		if usePat && !globMatch(pat, e.Key(), false) {
			continue
		}
		if e.Expired(sh.NowMs) {
			sh.ExpireEntry(db, e)
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
		x.W.BulkString(e.KeyView())
	}
}

// RANDOMKEY: a random live key; expired keys met on the way are deleted.
func randomkeyCommand(x *keyspace.Ctx) {
	for tries := 0; ; tries++ {
		e := x.DB.RandomEntry()
		if e == nil {
			x.W.Null()
			return
		}
		if e.Expired(x.S.NowMs) && !(x.S.Srv.IsReplica() && tries >= 100) {
			// A replica cannot delete: after 100 expired keys in a row it
			// answers with one, as Redis does.
			x.S.ExpireEntry(x.DB, e)
			continue
		}
		x.W.BulkString(e.KeyView())
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

// parseExpireFlagsOrReply parses the NX|XX|GT|LT options from args[3:]; it
// replies and returns false on error.
func parseExpireFlagsOrReply(x *keyspace.Ctx) (int, bool) {
	flags := 0
	for _, a := range x.Args[3:] {
		switch {
		case keyspace.EqFold(a, "nx"):
			flags |= expireNX
		case keyspace.EqFold(a, "xx"):
			flags |= expireXX
		case keyspace.EqFold(a, "gt"):
			flags |= expireGT
		case keyspace.EqFold(a, "lt"):
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
func expireCommand(x *keyspace.Ctx) { expireGeneric(x, x.S.NowMs, true) }

// PEXPIRE key milliseconds [NX|XX|GT|LT]
func pexpireCommand(x *keyspace.Ctx) { expireGeneric(x, x.S.NowMs, false) }

// EXPIREAT key unix-time-seconds [NX|XX|GT|LT]
func expireatCommand(x *keyspace.Ctx) { expireGeneric(x, 0, true) }

// PEXPIREAT key unix-time-milliseconds [NX|XX|GT|LT]
func pexpireatCommand(x *keyspace.Ctx) { expireGeneric(x, 0, false) }

// expireGeneric sets the deadline base+t (t in seconds when seconds is
// set). A deadline not in the future deletes the key, as Redis does.
func expireGeneric(x *keyspace.Ctx, base int64, seconds bool) {
	flags, ok := parseExpireFlagsOrReply(x)
	if !ok {
		return
	}
	when, ok := keyspace.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
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
	e := sh.Lookup(db, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	if flags != 0 {
		cur := e.ExpireAt // 0: no deadline, an infinite TTL
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
	if when <= sh.NowMs {
		sh.LogDel(db.ID, e.KeyView())
		db.Remove(e)
		x.Notify(keyspace.EvGeneric, "del", x.Args[1])
	} else {
		sh.SetDeadline(db, e, when)
		x.Notify(keyspace.EvGeneric, "expire", x.Args[1])
	}
	x.W.Int(1)
}

// ttlGeneric replies TTL, PTTL, EXPIRETIME or PEXPIRETIME: -2 for a
// missing key, -1 without a deadline; seconds are rounded to nearest.
func ttlGeneric(x *keyspace.Ctx, ms, abs bool) {
	e := x.S.LookupReadNoTouch(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(-2)
		return
	}
	if e.ExpireAt == 0 {
		x.W.Int(-1)
		return
	}
	t := e.ExpireAt
	if !abs {
		t -= x.S.NowMs
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
func ttlCommand(x *keyspace.Ctx) { ttlGeneric(x, false, false) }

// PTTL key
func pttlCommand(x *keyspace.Ctx) { ttlGeneric(x, true, false) }

// EXPIRETIME key
func expiretimeCommand(x *keyspace.Ctx) { ttlGeneric(x, false, true) }

// PEXPIRETIME key
func pexpiretimeCommand(x *keyspace.Ctx) { ttlGeneric(x, true, true) }

// PERSIST key
func persistCommand(x *keyspace.Ctx) {
	e := x.S.Lookup(x.DB, x.Args[1])
	if e == nil || e.ExpireAt == 0 {
		x.W.Int(0)
		return
	}
	x.S.SetDeadline(x.DB, e, 0)
	x.Notify(keyspace.EvGeneric, "persist", x.Args[1])
	x.W.Int(1)
}

// OBJECT subcommand [arguments]: dispatches to the subcommand after the
// checks Redis's processCommand makes for it.
func objectCommand(x *keyspace.Ctx) {
	sub := x.Cmd.Sub(x.Args[1])
	if sub == nil {
		b := make([]byte, 0, 64)
		b = append(b, "ERR unknown subcommand '"...)
		b = keyspace.AppendTruncated(b, x.Args[1], 128)
		b = append(b, "'. Try OBJECT HELP."...)
		x.W.Error(string(b))
		return
	}
	if !keyspace.ArityOK(sub.Arity, len(x.Args)) {
		x.W.Error(keyspace.ErrWrongArgs(sub.FullName()))
		return
	}
	if sub.FirstKey > 0 && x.S.MultiShard() && !x.S.CheckSlotsOrReply(x, sub, x.Args) {
		return
	}
	x.Cmd = sub
	sub.Handler(x)
}

// objectLookup finds the key of an OBJECT subcommand, replying null when
// it is missing.
func objectLookup(x *keyspace.Ctx) *keyspace.Entry {
	e := x.S.LookupReadNoTouch(x.DB, x.Args[2])
	if e == nil {
		x.W.Null()
	}
	return e
}

// OBJECT ENCODING key
func objectEncodingCommand(x *keyspace.Ctx) {
	if e := objectLookup(x); e != nil {
		x.W.BulkString(encodingName(x.DB, e))
	}
}

// OBJECT REFCOUNT key: values are never shared, so always 1.
func objectRefcountCommand(x *keyspace.Ctx) {
	if objectLookup(x) != nil {
		x.W.Int(1)
	}
}

// OBJECT IDLETIME key: seconds since the key was last accessed; under an
// LFU policy Redis's error, as Redis keeps no idle time then.
func objectIdletimeCommand(x *keyspace.Ctx) {
	if e := objectLookup(x); e != nil {
		if x.S.Srv.Opts.Live.LFU() {
			x.W.Error("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
			return
		}
		x.W.Int(x.S.IdleSeconds(e))
	}
}

// OBJECT FREQ key: the key's logarithmic access counter under an LFU
// policy; Redis's error under any other.
func objectFreqCommand(x *keyspace.Ctx) {
	if e := objectLookup(x); e != nil {
		if !x.S.Srv.Opts.Live.LFU() {
			x.W.Error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
			return
		}
		x.W.Int(int64(x.S.LFUDecayed(e)))
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
func objectHelpCommand(x *keyspace.Ctx) {
	x.W.ArrayHeader(len(objectHelp))
	for _, l := range objectHelp {
		x.W.SimpleString(l)
	}
}

// DBSIZE
func dbsizeCommand(x *keyspace.Ctx) { x.W.Int(int64(x.DB.Len())) }

// parseFlushModeOrReply accepts FLUSHDB's and FLUSHALL's optional ASYNC|SYNC;
// both free memory the same way here. It replies on error.
func parseFlushModeOrReply(x *keyspace.Ctx) bool {
	if len(x.Args) == 1 {
		return true
	}
	if len(x.Args) == 2 && (keyspace.EqFold(x.Args[1], "async") || keyspace.EqFold(x.Args[1], "sync")) {
		return true
	}
	x.W.Error(keyspace.ErrSyntax)
	return false
}

// FLUSHDB [ASYNC|SYNC]
func flushdbCommand(x *keyspace.Ctx) {
	if !parseFlushModeOrReply(x) {
		return
	}
	x.S.TouchAllInDB(x.DB.ID, nil)
	x.DB.Flush()
	x.S.LogFlushDB(x.DB.ID)
	x.W.OK()
}

// FLUSHALL [ASYNC|SYNC]: every database of this shard.
func flushallCommand(x *keyspace.Ctx) {
	if !parseFlushModeOrReply(x) {
		return
	}
	for _, db := range x.S.DBs {
		x.S.TouchAllInDB(db.ID, nil)
		db.Flush()
	}
	x.S.LogFlushAll()
	x.W.OK()
}

// SWAPDB index1 index2: swaps the two databases in O(1). Clients keep
// their database index, so they see the other data set at once.
func swapdbCommand(x *keyspace.Ctx) {
	sh := x.S
	if sh.MultiShard() {
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
	if i < 0 || j < 0 || i >= len(sh.DBs) || j >= len(sh.DBs) {
		x.W.Error(keyspace.ErrDBIndex)
		return
	}
	if i != j {
		sh.TouchAllInDB(i, sh.DBs[j])
		sh.TouchAllInDB(j, sh.DBs[i])
		sh.SwapDB(i, j)
		sh.LogSwapDB(i, j)
	}
	x.DB = sh.DBs[x.C.DB]
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
func registerKeyFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	t.Add(
		&keyspace.Command{Name: "del", Arity: -2, Flags: rw, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Deletes one or more keys.", Complexity: "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).", Handler: delCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRM|keyspace.KeyDelete, 1, -1, 1)}, Tips: []string{tipMultiShard, tipAggSum}},
		&keyspace.Command{Name: "unlink", Arity: -2, Flags: rw | fast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "4.0.0", Summary: "Asynchronously deletes one or more keys.", Complexity: "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.", Handler: delCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRM|keyspace.KeyDelete, 1, -1, 1)}, Tips: []string{tipMultiShard, tipAggSum}},
		&keyspace.Command{Name: "exists", Arity: -2, Flags: ro | fast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Determines whether one or more keys exist.", Complexity: "O(N) where N is the number of keys to check.", Handler: existsCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, -1, 1)}, Tips: []string{tipMultiShard, tipAggSum}},
		&keyspace.Command{Name: "touch", Arity: -2, Flags: ro | fast, FirstKey: 1, LastKey: -1, Step: 1, Group: "generic", Since: "3.2.1", Summary: "Returns the number of existing keys out of those specified after updating the time they were last accessed.", Complexity: "O(N) where N is the number of keys that will be touched.", Handler: touchCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, -1, 1)}, Tips: []string{tipMultiShard, tipAggSum}},
		&keyspace.Command{Name: "type", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Determines the type of value stored at a key.", Complexity: "O(1)", Handler: typeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}},
		&keyspace.Command{Name: "rename", Arity: 3, Flags: rw, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Renames a key and overwrites the destination.", Complexity: "O(1)", Handler: renameCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 2, 0, 1)}},
		&keyspace.Command{Name: "renamenx", Arity: 3, Flags: rw | fast, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Renames a key only when the target key name doesn't exist.", Complexity: "O(1)", Handler: renamenxCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1), rangeSpec(keyspace.KeyOW|keyspace.KeyInsert, 2, 0, 1)}},
		&keyspace.Command{Name: "copy", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: 2, Step: 1, Group: "generic", Since: "6.2.0", Summary: "Copies the value of a key to a new key.", Complexity: "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.", Handler: copyCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 2, 0, 1)}},
		&keyspace.Command{Name: "dump", Arity: 2, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.6.0", Summary: "Return a serialized version of the value stored at the specified key.", Complexity: "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).", Handler: dumpCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, Tips: []string{tipNondeterministic}},
		&keyspace.Command{Name: "restore", Arity: -4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Categories: []string{"keyspace", "dangerous"}, Group: "generic", Since: "2.6.0", Summary: "Create a key using the provided serialized value, previously obtained using DUMP.", Complexity: "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).", Handler: restoreCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "move", Arity: 3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Moves a key to another database.", Complexity: "O(1)", Handler: moveCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "keys", Arity: 2, Flags: ro | keyspace.FlagKeyless, Categories: []string{"keyspace", "dangerous"}, Group: "generic", Since: "1.0.0", Summary: "Returns all key names that match a pattern.", Complexity: "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.", Handler: keysCommand, Tips: []string{tipAllShards, tipNondeterministicOrder}},
		&keyspace.Command{Name: "scan", Arity: -2, Flags: ro | keyspace.FlagKeyless, Group: "generic", Since: "2.8.0", Summary: "Iterates over the key names in the database.", Complexity: "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.", Handler: scanCommand, Tips: []string{tipNondeterministic, tipSpecialRequest}},
		&keyspace.Command{Name: "randomkey", Arity: 1, Flags: ro, Group: "generic", Since: "1.0.0", Summary: "Returns a random key name from the database.", Complexity: "O(1)", Handler: randomkeyCommand, Tips: []string{tipAllShards, tipNondeterministic}},
		&keyspace.Command{Name: "expire", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Sets the expiration time of a key in seconds.", Complexity: "O(1)", Handler: expireCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "pexpire", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.6.0", Summary: "Sets the expiration time of a key in milliseconds.", Complexity: "O(1)", Handler: pexpireCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "expireat", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.2.0", Summary: "Sets the expiration time of a key to a Unix timestamp.", Complexity: "O(1)", Handler: expireatCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "pexpireat", Arity: -3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.6.0", Summary: "Sets the expiration time of a key to a Unix milliseconds timestamp.", Complexity: "O(1)", Handler: pexpireatCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "ttl", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "1.0.0", Summary: "Returns the expiration time in seconds of a key.", Complexity: "O(1)", Handler: ttlCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, Tips: []string{tipNondeterministic}},
		&keyspace.Command{Name: "pttl", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.6.0", Summary: "Returns the expiration time in milliseconds of a key.", Complexity: "O(1)", Handler: pttlCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, Tips: []string{tipNondeterministic}},
		&keyspace.Command{Name: "expiretime", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "7.0.0", Summary: "Returns the expiration time of a key as a Unix timestamp.", Complexity: "O(1)", Handler: expiretimeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "pexpiretime", Arity: 2, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "7.0.0", Summary: "Returns the expiration time of a key as a Unix milliseconds timestamp.", Complexity: "O(1)", Handler: pexpiretimeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}},
		&keyspace.Command{Name: "persist", Arity: 2, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "2.2.0", Summary: "Removes the expiration time of a key.", Complexity: "O(1)", Handler: persistCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "object", Arity: -2, Group: "generic", Since: "2.2.3", Summary: "A container for object introspection commands.", Complexity: "Depends on subcommand.", Handler: objectCommand,
			Subcommands: []*keyspace.Command{
				{Name: "encoding", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic", Since: "2.2.3", Summary: "Returns the internal encoding of a Redis object.", Complexity: "O(1)", Handler: objectEncodingCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}, Tips: []string{tipNondeterministic}},
				{Name: "freq", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic", Since: "4.0.0", Summary: "Returns the logarithmic access frequency counter of a Redis object.", Complexity: "O(1)", Handler: objectFreqCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}, Tips: []string{tipNondeterministic}},
				{Name: "help", Arity: 2, Flags: keyspace.FlagLoading | keyspace.FlagStale, Group: "generic", Since: "6.2.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: objectHelpCommand},
				{Name: "idletime", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic", Since: "2.2.3", Summary: "Returns the time since the last access to a Redis object.", Complexity: "O(1)", Handler: objectIdletimeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}, Tips: []string{tipNondeterministic}},
				{Name: "refcount", Arity: 3, Flags: ro, FirstKey: 2, LastKey: 2, Step: 1, Group: "generic", Since: "2.2.3", Summary: "Returns the reference count of a value of a key.", Complexity: "O(1)", Handler: objectRefcountCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 2, 0, 1)}, Tips: []string{tipNondeterministic}},
			}},
		&keyspace.Command{Name: "dbsize", Arity: 1, Flags: ro | fast, Categories: []string{"keyspace"}, Group: "server", Since: "1.0.0", Summary: "Returns the number of keys in the database.", Complexity: "O(1)", Handler: dbsizeCommand, Tips: []string{tipAllShards, tipAggSum}},
		&keyspace.Command{Name: "flushdb", Arity: -1, Flags: rw | keyspace.FlagKeyless, Categories: []string{"keyspace", "dangerous"}, Group: "server", Since: "1.0.0", Summary: "Remove all keys from the current database.", Complexity: "O(N) where N is the number of keys in the selected database", Handler: flushdbCommand, Tips: []string{tipAllShards, tipAllSucceeded}},
		&keyspace.Command{Name: "flushall", Arity: -1, Flags: rw | keyspace.FlagKeyless, Categories: []string{"keyspace", "dangerous"}, Group: "server", Since: "1.0.0", Summary: "Removes all keys from all databases.", Complexity: "O(N) where N is the total number of keys in all databases", Handler: flushallCommand, Tips: []string{tipAllShards, tipAllSucceeded}},
		&keyspace.Command{Name: "swapdb", Arity: 3, Flags: rw | fast | keyspace.FlagKeyless, Categories: []string{"keyspace", "dangerous"}, Group: "server", Since: "4.0.0", Summary: "Swaps two Redis databases.", Complexity: "O(N) where N is the count of clients watching or blocking on keys from both databases.", Handler: swapdbCommand},
	)
}
