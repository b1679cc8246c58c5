package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSnapshotLoadUsesLiveThresholds: a collection loaded from a snapshot
// takes the encoding the live CONFIG thresholds give it, in both
// directions (a compact encoding past a lowered threshold converts; a
// large encoding within a raised one is rebuilt compact where the type
// allows it), as the same data written by commands would.
func TestSnapshotLoadUsesLiveThresholds(t *testing.T) {
	sh := newTestShard(t)
	for i := 0; i < 20; i++ {
		run(t, sh, "HSET", "h", fmt.Sprint("f", i), "v")
		run(t, sh, "ZADD", "z", fmt.Sprint(i), fmt.Sprint("m", i))
		run(t, sh, "SADD", "s", fmt.Sprint(i))
	}
	for _, k := range []string{"h", "z"} {
		expect(t, sh, rBulk("listpack"), "OBJECT", "ENCODING", k)
	}
	expect(t, sh, rBulk("intset"), "OBJECT", "ENCODING", "s")

	out := newTestShard(t)
	expect(t, out, "+OK\r\n", "CONFIG", "SET", "hash-max-listpack-entries", "8",
		"zset-max-listpack-entries", "8", "set-max-intset-entries", "8")
	copySnapshot(t, sh, out)
	for _, k := range []string{"h", "s"} {
		expect(t, out, rBulk("hashtable"), "OBJECT", "ENCODING", k)
	}
	expect(t, out, rBulk("skiplist"), "OBJECT", "ENCODING", "z")
	expect(t, out, rInt(20), "HLEN", "h")
	expect(t, out, rInt(20), "ZCARD", "z")
	expect(t, out, rInt(20), "SCARD", "s")
}

// copySnapshot loads every entry of from into to through the snapshot
// encoding, as recovery does.
func copySnapshot(t *testing.T, from, to *keyspace.Shard) {
	t.Helper()
	for i, db := range from.DBs {
		db.Each(func(e *keyspace.Entry) {
			kind, val := keyspace.KindString, db.Val(e)
			if sv, ok := db.Obj(e).(keyspace.SnapshotValue); ok {
				kind, val = sv.SnapshotKind(), sv.AppendSnapshot(nil)
			}
			if err := to.LoadSnapshotEntry(uint16(i), kind, []byte(e.KeyView()), val, e.ExpireAt); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// recountMem is what a database's running figure must be: every entry's
// slot and side value, objects measured afresh.
func recountMem(db *keyspace.DB) int64 {
	var n int64
	db.Each(func(e *keyspace.Entry) {
		n += db.Size(e)
		if e.IsObj() {
			n += keyspace.ObjectSize(db.A.Objs[e.Vlen()]) - db.A.ObjAcct.Accounted(e.Vlen())
		}
	})
	return n
}

// checkMem fails unless every database's running figure equals a recount.
func checkMem(t *testing.T, sh *keyspace.Shard, what string) {
	t.Helper()
	if n := len(sh.Arena.ObjAcct.Dirty); n != 0 {
		t.Fatalf("%s: %d objects left unsettled", what, n)
	}
	for _, db := range sh.DBs {
		if want := recountMem(db); db.Mem != want {
			t.Fatalf("%s: db %d accounts %d bytes, a recount gives %d", what, db.ID, db.Mem, want)
		}
	}
}

// TestCollectionAccountingExact runs random writes of every collection
// type (growth, shrinking, encoding conversions both ways through CONFIG
// SET thresholds, deletes, expiry, STORE variants, RENAME, MOVE, COPY,
// SWAPDB, FLUSHDB) and checks after each command that the running figure
// of every database equals a recount; then that replaying the log and
// loading a snapshot give exact figures too.
func TestCollectionAccountingExact(t *testing.T) {
	sh, j := kjShard(t)
	rng := uint64(99)
	rnd := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	key := func(prefix string) string { return fmt.Sprint(prefix, rnd(4)) }
	val := func() string { return strings.Repeat(string(rune('a'+rnd(3))), 1+rnd(90)) }
	num := func() string { return fmt.Sprint(rnd(3000)) }
	errs := map[string]int{}
	for i := 0; i < 6000; i++ {
		var c []string
		switch rnd(36) {
		case 34:
			h, s, z := key("h"), key("s"), key("z")
			c = [][]string{{"HGETALL", h}, {"SMEMBERS", s}, {"ZRANGE", z, "0", "-1", "WITHSCORES"}, {"TYPE", h},
				{"OBJECT", "ENCODING", z}, {"SRANDMEMBER", s, "-5"}, {"HRANDFIELD", h, "3"}, {"ZRANDMEMBER", z, "2"}}[rnd(8)]
		case 35:
			c = []string{"SUNION", key("s"), key("s"), key("s")}
		case 0, 1:
			c = []string{"HSET", key("h"), "f" + num(), val(), "g" + num(), val()}
		case 2:
			c = []string{"HDEL", key("h"), "f" + num(), "g" + num()}
		case 3:
			c = []string{"HINCRBYFLOAT", key("h"), "n", "1.5"}
		case 4, 5:
			c = []string{"RPUSH", key("l"), val(), val(), val()}
		case 6:
			c = []string{"LPUSH", key("l"), val()}
		case 7:
			c = []string{"LPOP", key("l"), fmt.Sprint(1 + rnd(5))}
		case 8:
			c = []string{"LSET", key("l"), fmt.Sprint(rnd(10)), strings.Repeat("x", rnd(9000))}
		case 9:
			c = []string{"LTRIM", key("l"), fmt.Sprint(rnd(5)), fmt.Sprint(-1 - rnd(5))}
		case 10, 11:
			c = []string{"SADD", key("s"), num(), num(), num()}
		case 12:
			c = []string{"SADD", key("s"), "m" + num()}
		case 13:
			c = []string{"SREM", key("s"), num(), num()}
		case 14:
			c = []string{"SPOP", key("s"), fmt.Sprint(1 + rnd(3))}
		case 15, 16:
			c = []string{"ZADD", key("z"), num(), "m" + num(), num(), val()}
		case 17:
			c = []string{"ZREM", key("z"), "m" + num()}
		case 18:
			c = []string{"ZREMRANGEBYRANK", key("z"), "0", fmt.Sprint(rnd(4))}
		case 19:
			c = []string{"ZINCRBY", key("z"), "2", "m" + num()}
		case 20:
			c = []string{"BF.MADD", key("b"), val(), val(), num()}
		case 21:
			c = []string{"DEL", key([]string{"h", "l", "s", "z", "b"}[rnd(5)])}
		case 22:
			c = []string{"PEXPIRE", key([]string{"h", "l", "s", "z"}[rnd(4)]), fmt.Sprint(1 + rnd(50))}
		case 23:
			kjAt(sh, int64(i)*10)
			c = []string{"EXISTS", key("h"), key("l"), key("s"), key("z")}
		case 24:
			c = []string{"SINTERSTORE", key("s"), key("s"), key("s")}
		case 25:
			c = []string{"ZUNIONSTORE", key("z"), "2", key("z"), key("z")}
		case 26:
			c = []string{"LMOVE", key("l"), key("l"), "LEFT", "RIGHT"}
		case 27:
			c = []string{"SMOVE", key("s"), key("s"), num()}
		case 28:
			k := []string{"h", "l", "s", "z", "b"}[rnd(5)]
			c = []string{"RENAME", key(k), key(k)}
		case 29:
			k := []string{"h", "l", "s", "z", "b"}[rnd(5)]
			c = []string{"COPY", key(k), key(k), "DB", fmt.Sprint(rnd(2)), "REPLACE"}
		case 30:
			c = []string{"MOVE", key([]string{"h", "l", "s", "z", "b"}[rnd(5)]), fmt.Sprint(rnd(2))}
		case 31:
			c = []string{"SWAPDB", "0", "1"}
		case 32:
			if rnd(20) == 0 {
				c = []string{"FLUSHDB"}
			} else {
				c = []string{"SELECT", fmt.Sprint(rnd(2))}
			}
		case 33:
			n := fmt.Sprint(rnd(2) * 200)
			c = []string{"CONFIG", "SET", "hash-max-listpack-entries", fmt.Sprint(4 + rnd(200)), "zset-max-listpack-entries", n,
				"set-max-intset-entries", fmt.Sprint(4 + rnd(600)), "list-max-listpack-size", fmt.Sprint(rnd(6) - 5 + rnd(2)*(8+rnd(100)))}
		}
		if r := run(t, sh, c...); strings.HasPrefix(r, "-") {
			errs[c[0]+" "+r]++
		}
		checkMem(t, sh, fmt.Sprintf("command %d %q", i, c))
	}
	if len(j.recs) == 0 {
		t.Fatal("no records")
	}
	for e, n := range errs {
		// Only errors the random arguments make likely.
		if n > 200 || !strings.Contains(e, "no such key") && !strings.Contains(e, "out of range") && !strings.Contains(e, "objects are the same") {
			t.Errorf("%d times %q", n, e)
		}
	}
	replayed := newTestShard(t)
	durApply(t, replayed, j.recs)
	checkMem(t, replayed, "replay")
	loaded := newTestShard(t)
	copySnapshot(t, sh, loaded)
	sh.SettleMem()
	checkMem(t, loaded, "snapshot load")
	// The data is the same whichever way it was built, packed or not.
	state := func(x *keyspace.Shard) string { return collectionState(t, x, sh.NowMs) }
	want := state(sh)
	for _, typ := range []string{"hash", "set", "zset", "list"} {
		if !strings.Contains(want, " "+typ+" ") {
			t.Fatalf("the workload left no %s:\n%s", typ, want)
		}
	}
	for name, other := range map[string]*keyspace.Shard{"replay": replayed, "snapshot load": loaded} {
		if got := state(other); got != want {
			a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
			for i := 0; i < len(a) && i < len(b); i++ {
				if a[i] != b[i] {
					t.Errorf("%s differs from the live shard (%d, %d lines); first difference:\n%.300s\n%.300s", name, len(a), len(b), a[i], b[i])
					break
				}
			}
		}
		other.SettleMem()
	}
	sh.SettleMem()
	checkMem(t, sh, "after the comparison")
	var total int64
	for _, db := range sh.DBs {
		total += db.Mem
	}
	if total < 10000 {
		t.Fatalf("the workload left only %d bytes", total)
	}
}

// TestSmallCollectionsPacked: between commands a small hash, set or
// sorted set lives in its entry's slot (no Go object), a large one stays
// an object, and every command sees the same data either way.
func TestSmallCollectionsPacked(t *testing.T) {
	sh := newTestShard(t)
	db := sh.DBs[0]
	kindOf := func(key string) uint8 {
		t.Helper()
		e := db.FindString(key)
		if e == nil {
			t.Fatalf("%s is missing", key)
		}
		return e.Kind() & keyspace.KindMask
	}
	run(t, sh, "HSET", "h", "a", "1", "b", "2")
	run(t, sh, "SADD", "s", "1", "2", "3")
	run(t, sh, "SADD", "t", "x", "y")
	run(t, sh, "ZADD", "z", "1", "a", "2", "b")
	run(t, sh, "RPUSH", "l", "a")
	for _, k := range []string{"h", "s", "z"} {
		if got := kindOf(k); got != keyspace.KindPacked {
			t.Errorf("%s: kind %d, want packed", k, got)
		}
	}
	if kindOf("l") != keyspace.KindObj || kindOf("t") != keyspace.KindObj {
		t.Error("a list or a set of strings (a table in Redis 7.0) is packed")
	}
	expect(t, sh, rBulk("2"), "HGET", "h", "b")
	expect(t, sh, rInt(1), "SISMEMBER", "s", "3")
	expect(t, sh, rBulk("intset"), "OBJECT", "ENCODING", "s")
	expect(t, sh, rBulk("2"), "ZSCORE", "z", "b")
	expect(t, sh, "+hash\r\n", "TYPE", "h")
	// Growth past maxPacked keeps an object; the data is the same.
	for i := 0; i < 100; i++ {
		run(t, sh, "HSET", "h", fmt.Sprint("field", i), strings.Repeat("v", 40))
	}
	if kindOf("h") != keyspace.KindObj {
		t.Error("a hash of over maxPacked bytes is packed")
	}
	expect(t, sh, rInt(102), "HLEN", "h")
	for i := 0; i < 100; i++ {
		run(t, sh, "HDEL", "h", fmt.Sprint("field", i))
	}
	if kindOf("h") != keyspace.KindPacked {
		t.Error("a hash back under maxPacked is not packed again")
	}
	expect(t, sh, rBulk("1"), "HGET", "h", "a")
	// RENAME, MOVE and COPY keep it packed, with a short or a long key.
	expect(t, sh, "+OK\r\n", "RENAME", "z", "z2")
	long := strings.Repeat("k", keyspace.MaxSmall)
	expect(t, sh, "+OK\r\n", "RENAME", "s", long)
	expect(t, sh, rInt(1), "COPY", "z2", "z3")
	expect(t, sh, rInt(1), "MOVE", "z3", "1")
	if kindOf("z2") != keyspace.KindPacked || kindOf(long) != keyspace.KindObj {
		t.Error("RENAME: wrong kinds")
	}
	expect(t, sh, rInt(3), "SCARD", long)
	expect(t, sh, rBulk("2"), "ZSCORE", "z2", "b")
	checkMem(t, sh, "end")
	if n := len(sh.Arena.Objs) - len(sh.Arena.ObjFree); n != 3 {
		t.Errorf("%d objects live, want 3: the list, the set of strings and the long-keyed set", n)
	}
}

// collectionState is a canonical dump of databases 0 and 1 of sh as the
// commands read them: each live key's type and contents (members of sets
// and hashes sorted, as their order depends on the encoding), sorted.
func collectionState(t *testing.T, sh *keyspace.Shard, now int64) string {
	t.Helper()
	var keys [2][]string
	for i := range keys {
		sh.DBs[i].Each(func(e *keyspace.Entry) {
			if !e.Expired(now) {
				keys[i] = append(keys[i], e.KeyString())
			}
		})
	}
	clock := sh.NowMs
	sh.NowMs = now
	defer func() { sh.NowMs = clock }()
	var lines []string
	for i := range keys {
		run(t, sh, "SELECT", fmt.Sprint(i))
		for _, k := range keys[i] {
			typ := strings.TrimSpace(strings.TrimPrefix(run(t, sh, "TYPE", k), "+"))
			var reply string
			switch typ {
			case "hash":
				reply = run(t, sh, "HGETALL", k)
			case "set":
				reply = run(t, sh, "SMEMBERS", k)
			case "zset":
				reply = run(t, sh, "ZRANGE", k, "0", "-1", "WITHSCORES")
			case "list":
				reply = run(t, sh, "LRANGE", k, "0", "-1")
			default:
				continue
			}
			var items []string
			for _, l := range strings.Split(reply, "\r\n") {
				if l != "" && l[0] != '*' && l[0] != '$' {
					items = append(items, l)
				}
			}
			if typ == "hash" {
				var pairs []string
				for j := 0; j+1 < len(items); j += 2 {
					pairs = append(pairs, items[j]+"="+items[j+1])
				}
				items = pairs
			}
			if typ == "hash" || typ == "set" {
				slices.Sort(items)
			}
			lines = append(lines, fmt.Sprintf("db%d %q %s %s", i, k, typ, strings.Join(items, ",")))
		}
	}
	run(t, sh, "SELECT", "0")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
