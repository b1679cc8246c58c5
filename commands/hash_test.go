package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/hash"
)

func TestHashCommands(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rInt(2), "HSET", "h", "a", "1", "b", "2")
	expect(t, sh, rInt(0), "HSET", "h", "a", "x")
	expect(t, sh, rErr("ERR wrong number of arguments for 'hset' command"), "HSET", "h", "a", "1", "b")
	expect(t, sh, "+OK\r\n", "HMSET", "h", "a", "1")
	expect(t, sh, rInt(0), "HSETNX", "h", "a", "z")
	expect(t, sh, rInt(1), "HSETNX", "h", "c", "3")
	expect(t, sh, rBulk("1"), "HGET", "h", "a")
	expect(t, sh, "$-1\r\n", "HGET", "h", "nope")
	expect(t, sh, "$-1\r\n", "HGET", "missing", "a")
	expect(t, sh, "*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n3\r\n", "HMGET", "h", "a", "x", "c")
	expect(t, sh, "*1\r\n$-1\r\n", "HMGET", "missing", "a")
	expect(t, sh, rInt(3), "HLEN", "h")
	expect(t, sh, rInt(0), "HLEN", "missing")
	expect(t, sh, rInt(1), "HSTRLEN", "h", "a")
	expect(t, sh, rInt(0), "HSTRLEN", "h", "x")
	expect(t, sh, rInt(1), "HEXISTS", "h", "a")
	expect(t, sh, rInt(0), "HEXISTS", "h", "x")
	expect(t, sh, rArr(rBulk("a"), rBulk("b"), rBulk("c")), "HKEYS", "h")
	expect(t, sh, rArr(rBulk("1"), rBulk("2"), rBulk("3")), "HVALS", "h")
	expect(t, sh, rArr(rBulk("a"), rBulk("1"), rBulk("b"), rBulk("2"), rBulk("c"), rBulk("3")), "HGETALL", "h")
	expect(t, sh, "*0\r\n", "HGETALL", "missing")
	expect(t, sh, "+hash\r\n", "TYPE", "h")
	expect(t, sh, rBulk("listpack"), "OBJECT", "ENCODING", "h")

	// Increments.
	expect(t, sh, rInt(11), "HINCRBY", "h", "a", "10")
	expect(t, sh, rInt(-5), "HINCRBY", "h", "n", "-5")
	run(t, sh, "HSET", "h", "z", "abc")
	expect(t, sh, rErr("ERR hash value is not an integer"), "HINCRBY", "h", "z", "1")
	expect(t, sh, rErr(keyspace.ErrNotInt), "HINCRBY", "h", "a", "x")
	run(t, sh, "HSET", "h", "big", "9223372036854775807")
	expect(t, sh, rErr("ERR increment or decrement would overflow"), "HINCRBY", "h", "big", "1")
	expect(t, sh, rBulk("11.5"), "HINCRBYFLOAT", "h", "a", "0.5")
	expect(t, sh, rBulk("5000"), "HINCRBYFLOAT", "h", "f", "5.0e3")
	expect(t, sh, rErr("ERR value is not a valid float"), "HINCRBYFLOAT", "h", "a", "abc")
	expect(t, sh, rErr("ERR value is NaN or Infinity"), "HINCRBYFLOAT", "h", "a", "inf")
	run(t, sh, "HSET", "h", "s", "abc")
	expect(t, sh, rErr("ERR hash value is not a float"), "HINCRBYFLOAT", "h", "s", "1")

	// Deletion: the last field deletes the key.
	run(t, sh, "HSET", "d", "a", "1", "b", "2")
	expect(t, sh, rInt(1), "HDEL", "d", "a", "a", "x")
	expect(t, sh, rInt(1), "HDEL", "d", "b")
	expect(t, sh, rInt(0), "EXISTS", "d")
	expect(t, sh, rInt(0), "HDEL", "d", "b")

	// WRONGTYPE everywhere.
	run(t, sh, "SET", "s", "x")
	for _, c := range [][]string{{"HSET", "s", "a", "1"}, {"HSETNX", "s", "a", "1"}, {"HGET", "s", "a"}, {"HMGET", "s", "a"},
		{"HDEL", "s", "a"}, {"HLEN", "s"}, {"HSTRLEN", "s", "a"}, {"HEXISTS", "s", "a"}, {"HKEYS", "s"}, {"HVALS", "s"},
		{"HGETALL", "s"}, {"HINCRBY", "s", "a", "1"}, {"HINCRBYFLOAT", "s", "a", "1"}, {"HRANDFIELD", "s"},
		{"HRANDFIELD", "s", "2"}, {"HSCAN", "s", "0"}} {
		expect(t, sh, rErr(keyspace.ErrWrongType), c...)
	}
	expect(t, sh, rErr(keyspace.ErrWrongType), "GET", "h")
}

func TestHashRandfieldAndScan(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, "$-1\r\n", "HRANDFIELD", "missing")
	expect(t, sh, "*0\r\n", "HRANDFIELD", "missing", "3")
	run(t, sh, "HSET", "h", "a", "1", "b", "2", "c", "3")
	expect(t, sh, "*0\r\n", "HRANDFIELD", "h", "0")
	expect(t, sh, rErr(keyspace.ErrSyntax), "HRANDFIELD", "h", "1", "foo")
	expect(t, sh, rErr(keyspace.ErrSyntax), "HRANDFIELD", "h", "1", "withvalues", "x")
	expect(t, sh, rErr("ERR value is out of range"), "HRANDFIELD", "h", "-9223372036854770000", "withvalues")
	expect(t, sh, rErr(keyspace.ErrNotInt), "HRANDFIELD", "h", "x")
	if got := parseBulkArray(t, run(t, sh, "HRANDFIELD", "h", "10")); len(got) != 3 {
		t.Fatalf("HRANDFIELD 10: %q", got)
	}
	if got := parseBulkArray(t, run(t, sh, "HRANDFIELD", "h", "-7", "WITHVALUES")); len(got) != 14 {
		t.Fatalf("HRANDFIELD -7 WITHVALUES: %q", got)
	}
	one := run(t, sh, "HRANDFIELD", "h")
	if one != rBulk("a") && one != rBulk("b") && one != rBulk("c") {
		t.Fatalf("HRANDFIELD: %q", one)
	}
	// RESP3: WITHVALUES pairs are arrays; HGETALL is a map.
	run(t, sh, "HELLO", "3")
	if got := run(t, sh, "HRANDFIELD", "h", "1", "WITHVALUES"); !strings.HasPrefix(got, "*1\r\n*2\r\n") {
		t.Fatalf("RESP3 HRANDFIELD WITHVALUES: %q", got)
	}
	expect(t, sh, "%3\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n", "HGETALL", "h")
	run(t, sh, "HELLO", "2")

	expect(t, sh, "*2\r\n$1\r\n0\r\n*0\r\n", "HSCAN", "missing", "0", "COUNT", "0")
	expect(t, sh, rErr("ERR invalid cursor"), "HSCAN", "h", "x")
	expect(t, sh, rErr(keyspace.ErrSyntax), "HSCAN", "h", "0", "COUNT", "0")
	expect(t, sh, rErr(keyspace.ErrSyntax), "HSCAN", "h", "0", "FOO", "1")
	expect(t, sh, "*2\r\n$1\r\n0\r\n"+rArr(rBulk("b"), rBulk("2")), "HSCAN", "h", "0", "MATCH", "b")

	// A large hash (table form) scans completely.
	args := []string{"HSET", "big"}
	for i := range 1000 {
		args = append(args, "f"+strconv.Itoa(i), strconv.Itoa(i))
	}
	run(t, sh, args...)
	expect(t, sh, rBulk("hashtable"), "OBJECT", "ENCODING", "big")
	seen := map[string]bool{}
	cursor := "0"
	for {
		var items []string
		cursor, items = hscanOnce(t, sh, "big", cursor, "COUNT", "50")
		for i := 0; i < len(items); i += 2 {
			seen[items[i]] = true
		}
		if cursor == "0" {
			break
		}
	}
	if len(seen) != 1000 {
		t.Fatalf("HSCAN saw %d fields, want 1000", len(seen))
	}
}

// TestHashEncodingThresholds: the CONFIG thresholds choose the encoding.
func TestHashEncodingThresholds(t *testing.T) {
	sh := newTestShard(t)
	run(t, sh, "CONFIG", "SET", "hash-max-ziplist-entries", "2")
	run(t, sh, "HSET", "h", "a", "1", "b", "2")
	expect(t, sh, rBulk("listpack"), "OBJECT", "ENCODING", "h")
	run(t, sh, "HSET", "h", "c", "3")
	expect(t, sh, rBulk("hashtable"), "OBJECT", "ENCODING", "h")
	run(t, sh, "CONFIG", "SET", "hash-max-listpack-value", "4")
	run(t, sh, "HSET", "v", "a", "12345")
	expect(t, sh, rBulk("hashtable"), "OBJECT", "ENCODING", "v")
}

// TestHashKeyCommands: the generic key commands work on hashes, and COPY
// is deep.
func TestHashKeyCommands(t *testing.T) {
	sh := newTestShard(t)
	run(t, sh, "HSET", "h", "a", "1")
	expect(t, sh, rInt(1), "COPY", "h", "c")
	run(t, sh, "HSET", "c", "a", "2")
	expect(t, sh, rBulk("1"), "HGET", "h", "a")
	expect(t, sh, "+OK\r\n", "RENAME", "c", "r")
	expect(t, sh, rBulk("2"), "HGET", "r", "a")
	expect(t, sh, rInt(1), "MOVE", "r", "3")
	expect(t, sh, rInt(1), "EXPIRE", "h", "100")
	if got := run(t, sh, "MEMORY", "USAGE", "h"); !strings.HasPrefix(got, ":") {
		t.Fatalf("MEMORY USAGE: %q", got)
	}
	_, keys := scanOnce(t, sh, "0", "TYPE", "hash")
	if len(keys) != 1 || keys[0] != "h" {
		t.Fatalf("SCAN TYPE hash: %q", keys)
	}
	expect(t, sh, rInt(1), "DEL", "h")
}

// TestHashReplay: every hash mutation writes one record whose replay
// gives the same state, including a hash emptied and deleted.
func TestHashReplay(t *testing.T) {
	c := newDurReplayChecker(t)
	c.do(persistence.OpHashSet, "HSET", "h", "a", "1", "b", "2")
	c.do(persistence.OpHashSet, "HMSET", "h", "a", "x")
	c.do(persistence.OpHashSet, "HSETNX", "h", "c", "3")
	c.do(persistence.OpHashSet, "HINCRBY", "h", "n", "7")
	c.do(persistence.OpHashSet, "HINCRBYFLOAT", "h", "f", "0.1")
	c.do(persistence.OpHashSet, "HINCRBYFLOAT", "h", "f", "1e2")
	c.do(persistence.OpHashDel, "HDEL", "h", "a", "zz")
	c.do(persistence.OpExpire, "EXPIRE", "h", "100")
	c.do(persistence.OpHashDel, "HDEL", "h", "b", "c", "n", "f")
	if got := run(t, c.mirror, "EXISTS", "h"); got != rInt(0) {
		t.Fatalf("emptied hash still in the mirror: %q", got)
	}
	args := []string{"HSET", "big"}
	for i := range 600 {
		args = append(args, "f"+strconv.Itoa(i), strings.Repeat("v", i%80))
	}
	c.do(persistence.OpHashSet, args...)
	c.do(persistence.OpCopy, "COPY", "big", "big2")
	c.do(persistence.OpHashDel, "HDEL", "big2", "f1")
	n := len(c.j.recs)
	for _, cmd := range [][]string{{"HGET", "big", "f1"}, {"HSETNX", "big", "f1", "x"}, {"HDEL", "big", "nope"}, {"HINCRBY", "big", "f2", "1"}} {
		run(t, c.src, cmd...)
	}
	if len(c.j.recs) != n {
		t.Fatalf("reads and refused writes logged %d records", len(c.j.recs)-n)
	}
}

// TestHashSnapshotEncoding: both encodings round-trip through the
// snapshot value encoding; corrupt bytes are refused.
func TestHashSnapshotEncoding(t *testing.T) {
	for _, n := range []int{1, 3, 700} {
		o := &keyspace.HashObj{}
		for i := range n {
			o.H.Set(hash.DefaultConfig, []byte("f"+strconv.Itoa(i)), []byte(strconv.Itoa(i*i)))
		}
		_, got, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), o.SnapshotKind(), o.AppendSnapshot(nil))
		if err != nil {
			t.Fatalf("%d fields: %v", n, err)
		}
		if g := got.(*keyspace.HashObj); g.String() != o.String() || g.Encoding() != o.Encoding() {
			t.Fatalf("%d fields: got %s (%s), want %s (%s)", n, g, g.Encoding(), o, o.Encoding())
		}
	}
	if _, _, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), keyspace.KindHash, []byte{1, 2, 3}); err == nil {
		t.Fatal("corrupt hash encoding accepted")
	}
	empty := &keyspace.HashObj{}
	if _, _, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), keyspace.KindHash, empty.AppendSnapshot(nil)); err == nil {
		t.Fatal("empty hash accepted")
	}
}

// hscanOnce runs one HSCAN call and returns the next cursor and the
// fields and values.
func hscanOnce(t *testing.T, sh *keyspace.Shard, key string, args ...string) (string, []string) {
	t.Helper()
	got := run(t, sh, append([]string{"HSCAN", key}, args...)...)
	if !strings.HasPrefix(got, "*2\r\n") {
		t.Fatalf("HSCAN %v: %q", args, got)
	}
	cur, rest := parseArray(t, "*1\r\n"+got[4:])
	items, rest := parseArray(t, rest)
	if rest != "" {
		t.Fatalf("trailing bytes %q", rest)
	}
	return cur[0], items
}

// TestHashWALGolden pins the payload layouts of HashSet (60) and HashDel
// (61) and the snapshot encoding of kind 60: a change of these bytes is a
// format change.
func TestHashWALGolden(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	run(t, sh, "HSET", "k", "f", "v", "g", "w")
	run(t, sh, "HDEL", "k", "f", "nope")
	if len(j.recs) != 2 {
		t.Fatalf("%d records", len(j.recs))
	}
	const (
		set = "016b" + "0200000000000000" + "0166" + "0176" + "0167" + "0177"
		del = "016b" + "0100000000000000" + "0166"
	)
	for i, want := range []string{set, del} {
		if got := hex.EncodeToString(j.recs[i].Payload); got != want {
			t.Errorf("record %d (%s): %s, want %s", i, j.recs[i].Op, got, want)
		}
	}
	if j.recs[0].Op != 60 || j.recs[1].Op != 61 || keyspace.KindHash != 60 {
		t.Fatalf("opcodes %d %d, kind %d", j.recs[0].Op, j.recs[1].Op, keyspace.KindHash)
	}
	o := &keyspace.HashObj{}
	o.H.Set(hash.DefaultConfig, []byte("g"), []byte("w"))
	if got := hex.EncodeToString(o.AppendSnapshot(nil)); !strings.HasPrefix(got, "0100") {
		t.Fatalf("snapshot encoding %s: want version 1, compact form", got)
	}
}
