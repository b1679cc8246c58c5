package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
)

// fakeListObj is a stand-in for a collection type: it has a type name, an
// encoding and a deep clone.
type fakeListObj struct{ items []string }

func (l *fakeListObj) TypeName() string { return "list" }
func (l *fakeListObj) Encoding() string { return "listpack" }
func (l *fakeListObj) Clone() any       { return &fakeListObj{items: append([]string(nil), l.items...)} }

// noCloneObj is a type without clone: COPY refuses it.
type noCloneObj struct{}

func (noCloneObj) TypeName() string { return "nocopy" }

// strLikeObj reads as a string without being a plain string.
type strLikeObj struct{ b []byte }

func (s *strLikeObj) StringBytes(*keyspace.Entry) []byte { return s.b }

func TestKeysDelExistsTouchUnlink(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rOK, "SET", "a", "1")
	expect(t, sh, rOK, "SET", "b", "2")
	expect(t, sh, rInt(3), "EXISTS", "a", "a", "b", "c")
	expect(t, sh, rInt(2), "TOUCH", "a", "b", "c")
	expect(t, sh, rInt(1), "DEL", "a", "a", "c")
	expect(t, sh, rInt(0), "EXISTS", "a")
	expect(t, sh, rInt(1), "UNLINK", "b", "c")
	expect(t, sh, rInt(0), "EXISTS", "b")
	expect(t, sh, rErr("ERR wrong number of arguments for 'del' command"), "DEL")
	expect(t, sh, rErr("ERR wrong number of arguments for 'exists' command"), "EXISTS")
	expect(t, sh, rErr("ERR wrong number of arguments for 'touch' command"), "TOUCH")
	expect(t, sh, rErr("ERR wrong number of arguments for 'unlink' command"), "UNLINK")

	// An expired key is gone for DEL and EXISTS.
	expect(t, sh, rOK, "SET", "e", "v", "PX", "10")
	sh.NowMs += 10
	expect(t, sh, rInt(0), "EXISTS", "e")
	expect(t, sh, rOK, "SET", "e", "v", "PX", "10")
	sh.NowMs += 10
	expect(t, sh, rInt(0), "DEL", "e")
}

func TestKeysType(t *testing.T) {
	sh := newTestShard(t)
	db := sh.DBs[0]
	expect(t, sh, rOK, "SET", "s", "v")
	db.Add([]byte("l"), nil, &fakeListObj{}, 0)
	db.Add([]byte("x"), nil, noCloneObj{}, 0)
	db.Add([]byte("v"), nil, &strLikeObj{b: []byte("12")}, 0)
	expect(t, sh, "+string\r\n", "TYPE", "s")
	expect(t, sh, "+list\r\n", "TYPE", "l")
	expect(t, sh, "+nocopy\r\n", "TYPE", "x")
	expect(t, sh, "+string\r\n", "TYPE", "v")
	expect(t, sh, "+none\r\n", "TYPE", "nope")
	expect(t, sh, rErr("ERR wrong number of arguments for 'type' command"), "TYPE", "a", "b")
}

func TestKeysRename(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rErr("ERR no such key"), "RENAME", "a", "b")
	expect(t, sh, rErr("ERR no such key"), "RENAMENX", "a", "b")
	expect(t, sh, rErr("ERR no such key"), "RENAME", "a", "a")
	expect(t, sh, rErr("ERR no such key"), "RENAMENX", "a", "a")
	expectOps(t, j, "failed RENAME")

	expect(t, sh, rOK, "SET", "a", "1", "PX", "5000")
	j.take()
	expect(t, sh, rOK, "RENAME", "a", "a")
	expect(t, sh, rInt(0), "RENAMENX", "a", "a")
	expectOps(t, j, "RENAME to itself")

	expect(t, sh, rOK, "RENAME", "a", "b")
	expectOps(t, j, "RENAME", persistence.OpRename)
	expect(t, sh, rInt(0), "EXISTS", "a")
	expect(t, sh, rBulk("1"), "GET", "b")
	expect(t, sh, rInt(5000), "PTTL", "b") // the deadline moves with the key

	// RENAME overwrites the destination, its deadline included.
	expect(t, sh, rOK, "SET", "c", "3", "EX", "100")
	expect(t, sh, rOK, "SET", "d", "4")
	expect(t, sh, rOK, "RENAME", "d", "c")
	expect(t, sh, rBulk("4"), "GET", "c")
	expect(t, sh, rInt(-1), "TTL", "c")
	expect(t, sh, rInt(2), "DBSIZE")
	expect(t, sh, rOK, "RENAME", "c", "d")

	// RENAMENX refuses an existing destination.
	expect(t, sh, rInt(0), "RENAMENX", "b", "d")
	expect(t, sh, rBulk("1"), "GET", "b")
	expect(t, sh, rInt(1), "RENAMENX", "b", "e")
	expect(t, sh, rBulk("1"), "GET", "e")
	expect(t, sh, rInt(5000), "PTTL", "e")

	// An expired source is missing; an expired destination is free.
	sh.NowMs += 5000
	expect(t, sh, rErr("ERR no such key"), "RENAME", "e", "f")
	expect(t, sh, rOK, "SET", "g", "x", "PX", "1")
	sh.NowMs++
	expect(t, sh, rInt(1), "RENAMENX", "d", "g")
	expect(t, sh, rBulk("4"), "GET", "g")

	// The expiring index follows the renamed entry.
	expect(t, sh, rOK, "SET", "h", "x", "PX", "10")
	expect(t, sh, rOK, "RENAME", "h", "i")
	if n := sh.DBs[0].Expires(); n != 1 {
		t.Errorf("expiring index has %d entries, want 1", n)
	}
	expect(t, sh, rErr("ERR wrong number of arguments for 'rename' command"), "RENAME", "a")
}

func TestKeysCopy(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rInt(0), "COPY", "a", "b")
	expect(t, sh, rOK, "SET", "a", "hello", "PX", "3000")
	j.take()
	expect(t, sh, rInt(1), "COPY", "a", "b")
	expectOps(t, j, "COPY", persistence.OpCopy)
	expect(t, sh, rBulk("hello"), "GET", "b")
	expect(t, sh, rInt(3000), "PTTL", "b")

	// The copy is deep: changing the source leaves it alone.
	expect(t, sh, rInt(5), "SETRANGE", "a", "0", "J")
	expect(t, sh, rInt(7), "APPEND", "a", "!!")
	expect(t, sh, rBulk("hello"), "GET", "b")

	expect(t, sh, rInt(0), "COPY", "a", "b")
	expect(t, sh, rInt(1), "COPY", "a", "b", "REPLACE")
	expect(t, sh, rBulk("Jello!!"), "GET", "b")
	j.take()
	expect(t, sh, rErr(keyspace.ErrSameObject), "COPY", "a", "a")
	expect(t, sh, rErr(keyspace.ErrSameObject), "COPY", "a", "a", "DB", "0")
	expect(t, sh, rErr(keyspace.ErrSyntax), "COPY", "a", "b", "FOO")
	expect(t, sh, rErr(keyspace.ErrSyntax), "COPY", "a", "b", "DB")
	expect(t, sh, rErr(keyspace.ErrNotInt), "COPY", "a", "b", "DB", "x")
	expect(t, sh, rErr(keyspace.ErrNotInt), "COPY", "a", "b", "DB", "99999999999")
	expect(t, sh, rErr(keyspace.ErrDBIndex), "COPY", "a", "b", "DB", "16")
	expect(t, sh, rErr(keyspace.ErrDBIndex), "COPY", "a", "b", "DB", "-1")
	expectOps(t, j, "failed COPY")

	// To another database, and back with the same name.
	expect(t, sh, rInt(1), "COPY", "a", "a", "db", "3")
	expectOps(t, j, "COPY DB", persistence.OpCopy)
	expect(t, sh, rOK, "SELECT", "3")
	expect(t, sh, rBulk("Jello!!"), "GET", "a")
	expect(t, sh, rInt(3000), "PTTL", "a")
	expect(t, sh, rOK, "SET", "a", "other")
	expect(t, sh, rInt(0), "COPY", "a", "a", "DB", "0")
	expect(t, sh, rInt(1), "COPY", "a", "a", "REPLACE", "DB", "0")
	expect(t, sh, rOK, "SELECT", "0")
	expect(t, sh, rBulk("other"), "GET", "a")
	expect(t, sh, rInt(-1), "TTL", "a")

	// Types with clone are deep-copied; types without are refused.
	l := &fakeListObj{items: []string{"x"}}
	sh.DBs[0].Add([]byte("l"), nil, l, 0)
	expect(t, sh, rInt(1), "COPY", "l", "l2")
	e := sh.DBs[0].FindString("l2")
	if e == nil || sh.DBs[0].Obj(e) == l || len(sh.DBs[0].Obj(e).(*fakeListObj).items) != 1 {
		t.Fatalf("COPY of a list: %+v", e)
	}
	sh.DBs[0].Add([]byte("s"), nil, noCloneObj{}, 0)
	j.take()
	expect(t, sh, rErr("ERR COPY of this type is not supported"), "COPY", "s", "s2")
	expectOps(t, j, "unsupported COPY")
	expect(t, sh, rInt(0), "EXISTS", "s2")

	// An expired source copies nothing.
	expect(t, sh, rOK, "SET", "src2", "v", "PX", "10")
	sh.NowMs += 10
	expect(t, sh, rInt(0), "COPY", "src2", "c")
	expect(t, sh, rInt(0), "EXISTS", "c")
	expect(t, sh, rErr("ERR wrong number of arguments for 'copy' command"), "COPY", "a")
}

func TestKeysMove(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rErr(keyspace.ErrNotInt), "MOVE", "a", "x")
	expect(t, sh, rErr(keyspace.ErrDBIndex), "MOVE", "a", "16")
	expect(t, sh, rErr(keyspace.ErrDBIndex), "MOVE", "a", "-1")
	expect(t, sh, rErr(keyspace.ErrSameObject), "MOVE", "a", "0")
	expect(t, sh, rInt(0), "MOVE", "a", "1")
	expect(t, sh, rOK, "SET", "a", "v", "EX", "100")
	j.take()
	expect(t, sh, rInt(1), "MOVE", "a", "1")
	expectOps(t, j, "MOVE", persistence.OpMove)
	expect(t, sh, rInt(0), "EXISTS", "a")
	expect(t, sh, rOK, "SELECT", "1")
	expect(t, sh, rBulk("v"), "GET", "a")
	expect(t, sh, rInt(100), "TTL", "a")
	expect(t, sh, rInt(1), "MOVE", "a", "0")
	expect(t, sh, rOK, "SET", "a", "w")
	expect(t, sh, rInt(0), "MOVE", "a", "0") // exists in the target
	expect(t, sh, rBulk("w"), "GET", "a")
	expect(t, sh, rOK, "SELECT", "0")
	expect(t, sh, rBulk("v"), "GET", "a")
	if sh.DBs[0].Expires() != 1 || sh.DBs[1].Expires() != 0 {
		t.Errorf("expiring index: db0 %d db1 %d", sh.DBs[0].Expires(), sh.DBs[1].Expires())
	}
}

func TestKeysMultiShardRefusals(t *testing.T) {
	sh := newTestServer(t, 2)
	if len(sh.DBs) != 1 {
		t.Fatalf("multi-shard mode has %d databases", len(sh.DBs))
	}
	// A key of a slot shard 0 owns.
	key := ""
	for i := 0; key == ""; i++ {
		k := "k" + strconv.Itoa(i)
		if _, owner := sh.Srv.Topology().ShardOfKey([]byte(k)); owner == 0 {
			key = k
		}
	}
	expect(t, sh, rOK, "SET", key, "v")
	expect(t, sh, rErr("ERR MOVE is not allowed in cluster mode"), "MOVE", key, "1")
	expect(t, sh, rErr("ERR SWAPDB is not allowed in cluster mode"), "SWAPDB", "0", "1")
	expect(t, sh, rErr("ERR Copying to another database is not allowed in cluster mode"), "COPY", key, key, "DB", "1")
	expect(t, sh, rErr(keyspace.ErrDBIndex), "COPY", key, key, "DB", "16")
	expect(t, sh, rErr(keyspace.ErrSameObject), "COPY", key, key, "DB", "0")
	expect(t, sh, rBulk("embstr"), "OBJECT", "ENCODING", key)
	// OBJECT's key is routed like any other key.
	other := ""
	for i := 0; other == ""; i++ {
		k := "k" + strconv.Itoa(i)
		if _, owner := sh.Srv.Topology().ShardOfKey([]byte(k)); owner == 1 {
			other = k
		}
	}
	if got := run(t, sh, "OBJECT", "ENCODING", other); !strings.HasPrefix(got, "-MOVED ") {
		t.Errorf("OBJECT ENCODING of a foreign key: %q", got)
	}
	expect(t, sh, "*2\r\n$1\r\n0\r\n*1\r\n"+rBulk(key), "SCAN", "0", "COUNT", "100")
}

func TestKeysKeys(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, "*0\r\n", "KEYS", "*")
	for _, k := range []string{"hello", "hallo", "hxllo", "hllo", "heeeello", "Hello"} {
		expect(t, sh, rOK, "SET", k, "v")
	}
	expect(t, sh, rOK, "SET", "hzllo", "v", "PX", "1")
	sh.NowMs++
	cases := map[string][]string{
		"*":         {"Hello", "hallo", "heeeello", "hello", "hllo", "hxllo"},
		"h?llo":     {"hallo", "hello", "hxllo"},
		"h*llo":     {"hallo", "heeeello", "hello", "hllo", "hxllo"},
		"h[ae]llo":  {"hallo", "hello"},
		"h[^e]llo":  {"hallo", "hxllo"},
		"h[a-b]llo": {"hallo"},
		"[A-Z]*":    {"Hello"},
		"nomatch":   nil,
	}
	for pat, want := range cases {
		got := run(t, sh, "KEYS", pat)
		items := parseBulkArray(t, got)
		if fmt.Sprint(sortedStrings(items)) != fmt.Sprint(want) && !(len(items) == 0 && len(want) == 0) {
			t.Errorf("KEYS %s = %v, want %v", pat, items, want)
		}
	}
	// KEYS does not delete the expired key it skipped.
	if sh.DBs[0].Len() != 7 {
		t.Errorf("DB has %d keys, want 7", sh.DBs[0].Len())
	}
	// "*" matches the empty key name, as in Redis.
	expect(t, sh, rOK, "FLUSHDB")
	expect(t, sh, rOK, "SET", "", "v")
	expect(t, sh, rArr(rBulk("")), "KEYS", "*")
	expect(t, sh, "*2\r\n$1\r\n0\r\n"+rArr(rBulk("")), "SCAN", "0", "MATCH", "*")
	expect(t, sh, rErr("ERR wrong number of arguments for 'keys' command"), "KEYS")
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && out[k] < out[k-1]; k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out
}

func TestKeysRandomKey(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rNull, "RANDOMKEY")
	expect(t, sh, rOK, "SET", "only", "v")
	expect(t, sh, rBulk("only"), "RANDOMKEY")
	for i := 0; i < 20; i++ {
		expect(t, sh, rOK, "SET", "tmp"+strconv.Itoa(i), "v", "PX", "5")
	}
	sh.NowMs += 5
	for i := 0; i < 5; i++ {
		expect(t, sh, rBulk("only"), "RANDOMKEY")
	}
	expect(t, sh, rInt(1), "DEL", "only")
	expect(t, sh, rNull, "RANDOMKEY")
	if sh.DBs[0].Len() != 0 {
		t.Errorf("%d keys left", sh.DBs[0].Len())
	}
	expect(t, sh, rErr("ERR wrong number of arguments for 'randomkey' command"), "RANDOMKEY", "x")
}

func TestKeysExpireCommands(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	now := sh.NowMs
	expect(t, sh, rInt(0), "EXPIRE", "a", "10")
	expect(t, sh, rOK, "SET", "a", "v")
	j.take()
	expect(t, sh, rInt(1), "EXPIRE", "a", "10")
	expectOps(t, j, "EXPIRE", persistence.OpExpire)
	expect(t, sh, rInt(now+10000), "PEXPIRETIME", "a")
	expect(t, sh, rInt(1), "PEXPIRE", "a", "2500")
	expect(t, sh, rInt(now+2500), "PEXPIRETIME", "a")
	expect(t, sh, rInt(1), "EXPIREAT", "a", strconv.FormatInt(now/1000+100, 10))
	expect(t, sh, rInt(now+100000), "PEXPIRETIME", "a")
	expect(t, sh, rInt(1), "PEXPIREAT", "a", strconv.FormatInt(now+1234, 10))
	expect(t, sh, rInt(now+1234), "PEXPIRETIME", "a")
	expect(t, sh, rInt(now/1000+1), "EXPIRETIME", "a")

	// Options.
	expect(t, sh, rInt(0), "EXPIRE", "a", "100", "NX")
	expect(t, sh, rInt(1), "EXPIRE", "a", "100", "XX")
	expect(t, sh, rInt(0), "EXPIRE", "a", "50", "GT")
	expect(t, sh, rInt(0), "EXPIRE", "a", "100", "GT")
	expect(t, sh, rInt(1), "EXPIRE", "a", "200", "gt")
	expect(t, sh, rInt(0), "EXPIRE", "a", "300", "LT")
	expect(t, sh, rInt(0), "EXPIRE", "a", "200", "LT")
	expect(t, sh, rInt(1), "EXPIRE", "a", "150", "lt")
	expect(t, sh, rInt(1), "EXPIRE", "a", "160", "XX", "GT")
	expect(t, sh, rInt(160), "TTL", "a")
	expect(t, sh, rOK, "SET", "p", "v")
	expect(t, sh, rInt(0), "EXPIRE", "p", "100", "XX")
	expect(t, sh, rInt(0), "EXPIRE", "p", "100", "GT") // no TTL is infinite
	expect(t, sh, rInt(1), "EXPIRE", "p", "100", "LT")
	expect(t, sh, rInt(1), "PERSIST", "p")
	expect(t, sh, rInt(1), "EXPIRE", "p", "100", "NX")
	j.take()

	// Errors change nothing and log nothing.
	expect(t, sh, rErr("ERR NX and XX, GT or LT options at the same time are not compatible"), "EXPIRE", "a", "1", "NX", "XX")
	expect(t, sh, rErr("ERR NX and XX, GT or LT options at the same time are not compatible"), "EXPIRE", "a", "1", "NX", "GT")
	expect(t, sh, rErr("ERR NX and XX, GT or LT options at the same time are not compatible"), "EXPIRE", "a", "1", "LT", "NX")
	expect(t, sh, rErr("ERR GT and LT options at the same time are not compatible"), "EXPIRE", "a", "1", "GT", "LT")
	expect(t, sh, rErr("ERR Unsupported option foo"), "EXPIRE", "a", "1", "foo")
	expect(t, sh, rErr("ERR Unsupported option Bar"), "PEXPIRE", "a", "1", "NX", "Bar")
	expect(t, sh, rErr("ERR Unsupported option x"), "EXPIRE", "a", "notanumber", "x") // options first
	expect(t, sh, rErr(keyspace.ErrNotInt), "EXPIRE", "a", "1.5")
	expect(t, sh, rErr(keyspace.ErrNotInt), "EXPIRE", "a", "")
	expect(t, sh, rErr(keyspace.ErrNotInt), "EXPIRE", "a", "99999999999999999999")
	expect(t, sh, rErr("ERR invalid expire time in 'expire' command"), "EXPIRE", "a", "9223372036854775807")
	expect(t, sh, rErr("ERR invalid expire time in 'expire' command"), "EXPIRE", "a", "-9223372036854775807")
	expect(t, sh, rErr("ERR invalid expire time in 'expireat' command"), "EXPIREAT", "a", "9223372036854776")
	expect(t, sh, rErr("ERR invalid expire time in 'pexpire' command"), "PEXPIRE", "a", "9223372036854775807")
	expect(t, sh, rErr("ERR invalid expire time in 'expire' command"), "EXPIRE", "nokey", "9223372036854775807")
	expect(t, sh, rErr("ERR wrong number of arguments for 'expire' command"), "EXPIRE", "a")
	expectOps(t, j, "failed EXPIRE")
	expect(t, sh, rInt(160), "TTL", "a")
	// PEXPIREAT accepts the largest deadline.
	expect(t, sh, rInt(1), "PEXPIREAT", "a", "9223372036854775807")
	expect(t, sh, rInt(9223372036854775807), "PEXPIRETIME", "a")

	// A deadline that is not in the future deletes the key, logged as a
	// deletion.
	j.take()
	expect(t, sh, rInt(1), "EXPIRE", "a", "0")
	expectOps(t, j, "EXPIRE 0", persistence.OpDel)
	expect(t, sh, rInt(0), "EXISTS", "a")
	expect(t, sh, rOK, "SET", "a", "v")
	expect(t, sh, rInt(1), "EXPIRE", "a", "-5")
	expect(t, sh, rInt(0), "EXISTS", "a")
	expect(t, sh, rOK, "SET", "a", "v")
	expect(t, sh, rInt(1), "PEXPIREAT", "a", strconv.FormatInt(now, 10))
	expect(t, sh, rInt(0), "EXISTS", "a")
	expect(t, sh, rOK, "SET", "a", "v")
	expect(t, sh, rInt(1), "EXPIREAT", "a", "0")
	expect(t, sh, rInt(0), "EXISTS", "a")
	expect(t, sh, rOK, "SET", "a", "v")
	expect(t, sh, rInt(1), "PEXPIRE", "a", "1")
	expect(t, sh, rInt(1), "EXISTS", "a")
	// LT with a negative deadline on a key without TTL deletes it.
	expect(t, sh, rOK, "SET", "b", "v")
	expect(t, sh, rInt(1), "EXPIRE", "b", "-1", "LT")
	expect(t, sh, rInt(0), "EXISTS", "b")
	if sh.DBs[0].Expires() != countExpiring(sh.DBs[0]) {
		t.Error("expiring index out of step")
	}
}

// countExpiring counts the keys of db that have a deadline.
func countExpiring(db *keyspace.DB) int {
	n := 0
	db.Each(func(e *keyspace.Entry) {
		if e.ExpireAt != 0 {
			n++
		}
	})
	return n
}

func TestKeysTTLBoundaries(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rInt(-2), "TTL", "a")
	expect(t, sh, rInt(-2), "PTTL", "a")
	expect(t, sh, rInt(-2), "EXPIRETIME", "a")
	expect(t, sh, rInt(-2), "PEXPIRETIME", "a")
	expect(t, sh, rOK, "SET", "a", "v")
	expect(t, sh, rInt(-1), "TTL", "a")
	expect(t, sh, rInt(-1), "PTTL", "a")
	expect(t, sh, rInt(-1), "EXPIRETIME", "a")
	expect(t, sh, rInt(-1), "PEXPIRETIME", "a")
	expect(t, sh, rInt(1), "PEXPIRE", "a", "2000")
	expect(t, sh, rInt(2), "TTL", "a")
	steps := []struct {
		advance   int64
		ttl, pttl int64
	}{
		{499, 2, 1501}, // 1501 ms rounds to 2 s
		{1, 2, 1500},   // 1500 rounds up
		{1, 1, 1499},
		{999, 1, 500},
		{1, 0, 499},
		{498, 0, 1},
	}
	for _, s := range steps {
		sh.NowMs += s.advance
		expect(t, sh, rInt(s.ttl), "TTL", "a")
		expect(t, sh, rInt(s.pttl), "PTTL", "a")
	}
	sh.NowMs++ // the deadline itself: expired
	expect(t, sh, rInt(-2), "PTTL", "a")
	expect(t, sh, rNull, "GET", "a")

	// EXPIRETIME rounds the same way.
	expect(t, sh, rOK, "SET", "b", "v")
	expect(t, sh, rInt(1), "PEXPIREAT", "b", "1800000000499")
	expect(t, sh, rInt(1800000000), "EXPIRETIME", "b")
	expect(t, sh, rInt(1), "PEXPIREAT", "b", "1800000000500")
	expect(t, sh, rInt(1800000001), "EXPIRETIME", "b")
	expect(t, sh, rErr("ERR wrong number of arguments for 'ttl' command"), "TTL")
}

func TestKeysPersist(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rInt(0), "PERSIST", "a")
	expect(t, sh, rOK, "SET", "a", "v")
	j.take()
	expect(t, sh, rInt(0), "PERSIST", "a")
	expectOps(t, j, "PERSIST without TTL")
	expect(t, sh, rInt(1), "EXPIRE", "a", "10")
	j.take()
	expect(t, sh, rInt(1), "PERSIST", "a")
	expectOps(t, j, "PERSIST", persistence.OpExpire)
	expect(t, sh, rInt(-1), "TTL", "a")
	if sh.DBs[0].Expires() != 0 {
		t.Error("PERSIST left the key in the expiring index")
	}
	sh.NowMs += 1 << 30
	expect(t, sh, rBulk("v"), "GET", "a")
}

func TestKeysObject(t *testing.T) {
	sh := newTestShard(t)
	long := strings.Repeat("x", 45)
	set := map[string]string{
		"i1": "12345", "i2": "-9223372036854775808", "i3": "9223372036854775807",
		"e1": "012", "e2": "9223372036854775808", "e3": "1.5", "e4": strings.Repeat("x", 44), "e5": "",
		"r1": long,
	}
	for k, v := range set {
		expect(t, sh, rOK, "SET", k, v)
	}
	for k := range set {
		want := map[byte]string{'i': "int", 'e': "embstr", 'r': "raw"}[k[0]]
		expect(t, sh, rBulk(want), "OBJECT", "ENCODING", k)
	}
	sh.DBs[0].Add([]byte("l"), nil, &fakeListObj{}, 0)
	sh.DBs[0].Add([]byte("v"), nil, &strLikeObj{b: []byte("42")}, 0)
	expect(t, sh, rBulk("listpack"), "OBJECT", "ENCODING", "l")
	expect(t, sh, rBulk("int"), "OBJECT", "encoding", "v")
	expect(t, sh, rNull, "OBJECT", "ENCODING", "missing")
	expect(t, sh, rInt(1), "OBJECT", "REFCOUNT", "i1")
	expect(t, sh, rNull, "OBJECT", "REFCOUNT", "missing")
	expect(t, sh, rInt(0), "OBJECT", "IDLETIME", "i1")
	expect(t, sh, rNull, "OBJECT", "IDLETIME", "missing")
	expect(t, sh, rErr("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."), "OBJECT", "FREQ", "i1")
	expect(t, sh, rNull, "OBJECT", "FREQ", "missing")
	expect(t, sh, rErr("ERR unknown subcommand 'foo'. Try OBJECT HELP."), "OBJECT", "foo", "x")
	expect(t, sh, rErr("ERR unknown subcommand 'foo'. Try OBJECT HELP."), "OBJECT", "foo")
	expect(t, sh, rErr("ERR wrong number of arguments for 'object|encoding' command"), "OBJECT", "ENCODING")
	expect(t, sh, rErr("ERR wrong number of arguments for 'object|encoding' command"), "OBJECT", "ENCODING", "a", "b")
	expect(t, sh, rErr("ERR wrong number of arguments for 'object|help' command"), "OBJECT", "HELP", "x")
	expect(t, sh, rErr("ERR wrong number of arguments for 'object' command"), "OBJECT")
	help := run(t, sh, "OBJECT", "HELP")
	if !strings.HasPrefix(help, "*15\r\n+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+ENCODING <key>\r\n") ||
		!strings.HasSuffix(help, "+HELP\r\n+    Prints this help.\r\n") {
		t.Errorf("OBJECT HELP: %q", help)
	}
	// An expired key is missing.
	expect(t, sh, rOK, "SET", "t", "v", "PX", "1")
	sh.NowMs++
	expect(t, sh, rNull, "OBJECT", "ENCODING", "t")
}

func TestKeysDBSizeFlush(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rInt(0), "DBSIZE")
	expect(t, sh, rOK, "SET", "a", "1")
	expect(t, sh, rOK, "SET", "b", "2", "EX", "10")
	expect(t, sh, rInt(2), "DBSIZE")
	expect(t, sh, rOK, "SELECT", "5")
	expect(t, sh, rOK, "SET", "c", "3", "EX", "10")
	expect(t, sh, rInt(1), "DBSIZE")
	j.take()
	expect(t, sh, rErr(keyspace.ErrSyntax), "FLUSHDB", "LAZY")
	expect(t, sh, rErr(keyspace.ErrSyntax), "FLUSHDB", "ASYNC", "SYNC")
	expect(t, sh, rErr(keyspace.ErrSyntax), "FLUSHALL", "now")
	expectOps(t, j, "failed FLUSH")
	expect(t, sh, rOK, "FLUSHDB")
	expectOps(t, j, "FLUSHDB", persistence.OpFlushDB)
	expect(t, sh, rInt(0), "DBSIZE")
	expect(t, sh, rOK, "SELECT", "0")
	expect(t, sh, rInt(2), "DBSIZE")
	expect(t, sh, rOK, "SELECT", "5")
	expect(t, sh, rOK, "SET", "c", "3")
	expect(t, sh, rOK, "FLUSHDB", "async")
	expect(t, sh, rOK, "SET", "c", "3")
	expect(t, sh, rOK, "FLUSHDB", "SYNC")
	expect(t, sh, rOK, "SET", "c", "3")
	j.take()
	expect(t, sh, rOK, "FLUSHALL", "ASYNC")
	expectOps(t, j, "FLUSHALL", persistence.OpFlushAll)
	for i, db := range sh.DBs {
		if db.Len() != 0 || db.Expires() != 0 {
			t.Errorf("db %d not empty after FLUSHALL", i)
		}
	}
	expect(t, sh, rOK, "FLUSHALL")
	expect(t, sh, rErr("ERR wrong number of arguments for 'dbsize' command"), "DBSIZE", "x")
}

func TestKeysSwapDB(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rOK, "SET", "a", "in0", "EX", "100")
	expect(t, sh, rOK, "SELECT", "2")
	expect(t, sh, rOK, "SET", "b", "in2")
	j.take()
	expect(t, sh, rErr("ERR invalid first DB index"), "SWAPDB", "x", "1")
	expect(t, sh, rErr("ERR invalid second DB index"), "SWAPDB", "0", "x")
	expect(t, sh, rErr("ERR invalid first DB index"), "SWAPDB", "1.0", "x")
	expect(t, sh, rErr("ERR invalid first DB index"), "SWAPDB", "4294967296", "1")
	expect(t, sh, rErr(keyspace.ErrDBIndex), "SWAPDB", "0", "16")
	expect(t, sh, rErr(keyspace.ErrDBIndex), "SWAPDB", "-1", "0")
	expect(t, sh, rErr("ERR wrong number of arguments for 'swapdb' command"), "SWAPDB", "0")
	expectOps(t, j, "failed SWAPDB")

	expect(t, sh, rOK, "SWAPDB", "0", "2")
	expectOps(t, j, "SWAPDB", persistence.OpSwapDB)
	// The client stays on index 2 and now sees database 0's data.
	expect(t, sh, rBulk("in0"), "GET", "a")
	expect(t, sh, rInt(100), "TTL", "a")
	expect(t, sh, rNull, "GET", "b")
	expect(t, sh, rOK, "SELECT", "0")
	expect(t, sh, rBulk("in2"), "GET", "b")
	for i, db := range sh.DBs {
		if db.ID != i {
			t.Fatalf("dbs[%d].id = %d", i, db.ID)
		}
	}
	// Writes after the swap are logged with the new index.
	j.take()
	expect(t, sh, rInt(1), "DEL", "b")
	if len(j.recs) != 1 || j.recs[0].DB != 0 {
		t.Errorf("DEL logged %v, want one record for db 0", j.recs)
	}
	j.take()
	expect(t, sh, rOK, "SWAPDB", "3", "3")
	expectOps(t, j, "SWAPDB to itself")
	expect(t, sh, rOK, "SWAPDB", "2", "0")
	expect(t, sh, rBulk("in0"), "GET", "a")
}

func TestKeysCommandTable(t *testing.T) {
	sh := newTestShard(t)
	cmds := sh.Srv.Cmds
	for name, group := range map[string]string{
		"del": "generic", "unlink": "generic", "exists": "generic", "type": "generic", "rename": "generic",
		"renamenx": "generic", "copy": "generic", "move": "generic", "touch": "generic", "keys": "generic",
		"scan": "generic", "randomkey": "generic", "expire": "generic", "pexpire": "generic",
		"expireat": "generic", "pexpireat": "generic", "ttl": "generic", "pttl": "generic",
		"expiretime": "generic", "pexpiretime": "generic", "persist": "generic", "object": "generic",
		"dbsize": "server", "flushdb": "server", "flushall": "server", "swapdb": "server",
	} {
		c := cmds[name]
		if c == nil {
			t.Errorf("%s is not registered", name)
			continue
		}
		if c.Group != group || c.Since == "" || c.Summary == "" || c.Complexity == "" || c.Handler == nil {
			t.Errorf("%s: incomplete entry %+v", name, c)
		}
		if c.Flags&(keyspace.FlagWrite|keyspace.FlagReadOnly) == 0 && name != "object" {
			t.Errorf("%s has neither write nor readonly", name)
		}
	}
	if c := cmds["rename"]; c.FirstKey != 1 || c.LastKey != 2 || c.Step != 1 {
		t.Errorf("rename key positions %d %d %d", c.FirstKey, c.LastKey, c.Step)
	}
	for _, sc := range cmds["object"].Subcommands {
		if sc.FullName() != "object|"+sc.Name {
			t.Errorf("subcommand %s has no parent", sc.Name)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		nocase bool
		want   bool
	}{
		{"*", "", false, false}, // Redis 7.0's stringmatchlen quirk; KEYS and SCAN special-case "*"
		{"*", "anything", false, true},
		{"", "", false, true},
		{"a*", "a", false, true},
		{"a**", "a", false, true},
		{"", "a", false, false},
		{"a", "", false, false},
		{"**", "x", false, true},
		{"a*", "a", false, true},
		{"a*b", "ab", false, true},
		{"a*b", "axxxb", false, true},
		{"a*b", "axxxbc", false, false},
		{"*b*", "abc", false, true},
		{"a**b***", "ab", false, true},
		{"a*", "", false, false},
		{"?", "", false, false},
		{"?", "a", false, true},
		{"??", "a", false, false},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-c]llo", "hbllo", false, true},
		{"h[a-c]llo", "hdllo", false, false},
		{"h[c-a]llo", "hbllo", false, true}, // reversed range
		// Range bounds compare as signed chars, as in redis-server 7.0.15 (checked with KEYS).
		{"[a-\xff]", "b", false, false},
		{"[\x01-\x80]", "\x80", false, true},
		{"[\x01-\x80]", "b", false, false},
		{"[a-]", "-", false, false}, // as in Redis, "a-]" is the range ']'..'a' and the class is unterminated
		{"[\\]]", "]", false, true},
		{"[\\-]", "-", false, true},
		{"[]", "a", false, false},
		{"[abc", "c", false, true}, // unterminated class ends with the pattern
		{"[abc", "cd", false, false},
		{"[^", "x", false, true},
		{"\\*", "*", false, true},
		{"\\*", "a", false, false},
		{"\\?", "?", false, true},
		{"a\\", "a\\", false, true},
		{"\\", "\\", false, true},
		{"HELLO", "hello", false, false},
		{"HELLO", "hello", true, true},
		{"h[A-C]llo", "hbllo", true, true},
		{"h[a-c]llo", "hBllo", true, true},
		{"h[B]llo", "hbllo", true, true},
		{"[\\B]", "b", true, false}, // escapes compare exactly
		{"*.example.*", "www.example.com", false, true},
		{"maxmemory*", "maxmemory-policy", false, true},
		{"a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", strings.Repeat("a", 100), false, false},
	}
	for _, c := range cases {
		if got := globMatch([]byte(c.pat), []byte(c.s), c.nocase); got != c.want {
			t.Errorf("globMatch(%q, %q, %v) = %v, want %v", c.pat, c.s, c.nocase, got, c.want)
		}
	}
	// A pathological pattern finishes quickly thanks to the early stop.
	pat := []byte(strings.Repeat("*a", 50) + "b")
	if globMatch(pat, []byte(strings.Repeat("a", 5000)), false) {
		t.Error("pathological pattern matched")
	}
	// Deep nesting is bounded.
	if globMatch([]byte(strings.Repeat("*x", 2000)), []byte(strings.Repeat("x", 2000)), false) {
		t.Error("nesting over the limit should not match")
	}
}
