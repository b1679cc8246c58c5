package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/list"
)

func TestListCommands(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rInt(0), "LPUSHX", "l", "a")
	expect(t, sh, rInt(0), "EXISTS", "l")
	expect(t, sh, rInt(3), "RPUSH", "l", "a", "b", "c")
	expect(t, sh, rInt(5), "LPUSH", "l", "y", "z") // z y a b c
	expect(t, sh, rInt(6), "RPUSHX", "l", "d")
	expect(t, sh, rArr(rBulk("z"), rBulk("y"), rBulk("a"), rBulk("b"), rBulk("c"), rBulk("d")), "LRANGE", "l", "0", "-1")
	expect(t, sh, rArr(rBulk("c"), rBulk("d")), "LRANGE", "l", "-2", "100")
	expect(t, sh, "*0\r\n", "LRANGE", "l", "5", "2")
	expect(t, sh, "*0\r\n", "LRANGE", "missing", "0", "-1")
	expect(t, sh, rErr(keyspace.ErrNotInt), "LRANGE", "l", "x", "1")
	expect(t, sh, rInt(6), "LLEN", "l")
	expect(t, sh, rInt(0), "LLEN", "missing")
	expect(t, sh, rBulk("a"), "LINDEX", "l", "2")
	expect(t, sh, rBulk("d"), "LINDEX", "l", "-1")
	expect(t, sh, "$-1\r\n", "LINDEX", "l", "60")
	expect(t, sh, "$-1\r\n", "LINDEX", "missing", "x")
	expect(t, sh, rErr(keyspace.ErrNotInt), "LINDEX", "l", "x")
	expect(t, sh, "+quicklist\r\n"[:0]+rBulk("quicklist"), "OBJECT", "ENCODING", "l")
	expect(t, sh, "+list\r\n", "TYPE", "l")

	expect(t, sh, "+OK\r\n", "LSET", "l", "0", "Z")
	expect(t, sh, rErr("ERR index out of range"), "LSET", "l", "10", "x")
	expect(t, sh, rErr(keyspace.ErrNoSuchKey), "LSET", "missing", "0", "x")
	expect(t, sh, rInt(7), "LINSERT", "l", "BEFORE", "a", "pre")
	expect(t, sh, rInt(8), "LINSERT", "l", "after", "a", "post")
	expect(t, sh, rInt(-1), "LINSERT", "l", "after", "nope", "x")
	expect(t, sh, rInt(0), "LINSERT", "missing", "after", "a", "x")
	expect(t, sh, rErr(keyspace.ErrSyntax), "LINSERT", "l", "middle", "a", "x")
	// Z y pre a post b c d
	expect(t, sh, rInt(3), "LPOS", "l", "a")
	expect(t, sh, "$-1\r\n", "LPOS", "l", "nope")
	expect(t, sh, "*0\r\n", "LPOS", "missing", "a", "COUNT", "0")
	run(t, sh, "RPUSH", "l", "a", "a")
	expect(t, sh, rArr(rInt(3), rInt(8), rInt(9)), "LPOS", "l", "a", "COUNT", "0")
	expect(t, sh, rArr(rInt(9), rInt(8)), "LPOS", "l", "a", "RANK", "-1", "COUNT", "2")
	expect(t, sh, rInt(8), "LPOS", "l", "a", "RANK", "2")
	expect(t, sh, "*0\r\n", "LPOS", "l", "a", "COUNT", "0", "MAXLEN", "2")
	expect(t, sh, rErr("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"), "LPOS", "l", "a", "RANK", "0")
	expect(t, sh, rErr("ERR COUNT can't be negative"), "LPOS", "l", "a", "COUNT", "-1")
	expect(t, sh, rErr("ERR MAXLEN can't be negative"), "LPOS", "l", "a", "MAXLEN", "-1")
	expect(t, sh, rErr(keyspace.ErrSyntax), "LPOS", "l", "a", "RANK")
	expect(t, sh, rInt(2), "LREM", "l", "-2", "a")
	expect(t, sh, rInt(0), "LREM", "missing", "0", "a")
	expect(t, sh, rErr(keyspace.ErrNotInt), "LREM", "l", "x", "a")
	// Z y pre a post b c d
	expect(t, sh, "+OK\r\n", "LTRIM", "l", "1", "-2")
	expect(t, sh, rArr(rBulk("y"), rBulk("pre"), rBulk("a"), rBulk("post"), rBulk("b"), rBulk("c")), "LRANGE", "l", "0", "-1")
	expect(t, sh, "+OK\r\n", "LTRIM", "missing", "0", "1")

	// Pops.
	expect(t, sh, rBulk("y"), "LPOP", "l")
	expect(t, sh, rBulk("c"), "RPOP", "l")
	expect(t, sh, rArr(rBulk("b"), rBulk("post")), "RPOP", "l", "2")
	expect(t, sh, "*0\r\n", "LPOP", "l", "0")
	expect(t, sh, rErr("ERR value is out of range, must be positive"), "LPOP", "l", "-1")
	expect(t, sh, rErr("ERR wrong number of arguments for 'lpop' command"), "LPOP", "l", "1", "2")
	expect(t, sh, "$-1\r\n", "LPOP", "missing")
	expect(t, sh, "*-1\r\n", "LPOP", "missing", "1")
	expect(t, sh, rArr(rBulk("pre"), rBulk("a")), "LPOP", "l", "10")
	expect(t, sh, rInt(0), "EXISTS", "l")

	// LMPOP.
	run(t, sh, "RPUSH", "m2", "1", "2", "3")
	expect(t, sh, rArr(rBulk("m2"), rArr(rBulk("3"), rBulk("2"))), "LMPOP", "2", "m1", "m2", "RIGHT", "COUNT", "2")
	expect(t, sh, "*-1\r\n", "LMPOP", "1", "m1", "LEFT")
	expect(t, sh, rArr(rBulk("m2"), rArr(rBulk("1"))), "LMPOP", "1", "m2", "LEFT", "COUNT", "5")
	expect(t, sh, rErr("ERR numkeys should be greater than 0"), "LMPOP", "a", "m", "LEFT")
	expect(t, sh, rErr("ERR count should be greater than 0"), "LMPOP", "1", "m", "LEFT", "COUNT", "a")
	expect(t, sh, rErr(keyspace.ErrSyntax), "LMPOP", "1", "m", "LEFT", "COUNT", "1", "COUNT", "2")
	expect(t, sh, rErr(keyspace.ErrSyntax), "LMPOP", "1", "m", "middle")

	// LMOVE / RPOPLPUSH, same key included.
	run(t, sh, "RPUSH", "s", "1", "2", "3")
	expect(t, sh, rBulk("3"), "RPOPLPUSH", "s", "d")
	expect(t, sh, rBulk("1"), "LMOVE", "s", "d", "LEFT", "RIGHT")
	expect(t, sh, rArr(rBulk("3"), rBulk("1")), "LRANGE", "d", "0", "-1")
	expect(t, sh, rBulk("3"), "LMOVE", "d", "d", "LEFT", "RIGHT")
	expect(t, sh, rArr(rBulk("1"), rBulk("3")), "LRANGE", "d", "0", "-1")
	expect(t, sh, rBulk("2"), "LMOVE", "s", "s", "LEFT", "LEFT")
	expect(t, sh, rBulk("2"), "LMOVE", "s", "d", "LEFT", "LEFT")
	expect(t, sh, rInt(0), "EXISTS", "s")
	expect(t, sh, "$-1\r\n", "LMOVE", "s", "d", "LEFT", "LEFT")
	expect(t, sh, rErr(keyspace.ErrSyntax), "LMOVE", "s", "d", "UP", "LEFT")

	// RESP3 null array.
	run(t, sh, "HELLO", "3")
	expect(t, sh, "_\r\n", "LPOP", "missing", "2")
	expect(t, sh, "_\r\n", "LMPOP", "1", "missing", "LEFT")
	run(t, sh, "HELLO", "2")

	// WRONGTYPE.
	run(t, sh, "SET", "str", "x")
	for _, c := range [][]string{{"LPUSH", "str", "a"}, {"RPUSHX", "str", "a"}, {"LPOP", "str"}, {"RPOP", "str", "2"},
		{"LLEN", "str"}, {"LINDEX", "str", "0"}, {"LRANGE", "str", "0", "1"}, {"LSET", "str", "0", "a"},
		{"LINSERT", "str", "BEFORE", "a", "b"}, {"LREM", "str", "0", "a"}, {"LTRIM", "str", "0", "1"},
		{"LPOS", "str", "a"}, {"LMOVE", "str", "d", "LEFT", "LEFT"}, {"LMOVE", "d", "str", "LEFT", "LEFT"},
		{"RPOPLPUSH", "str", "d"}, {"LMPOP", "1", "str", "LEFT"}} {
		expect(t, sh, rErr(keyspace.ErrWrongType), c...)
	}
	expect(t, sh, rErr(keyspace.ErrWrongType), "GET", "d")
}

// TestListKeyCommands: generic key commands on lists; COPY is deep.
func TestListKeyCommands(t *testing.T) {
	sh := newTestShard(t)
	run(t, sh, "RPUSH", "l", "a", "b")
	expect(t, sh, rInt(1), "COPY", "l", "c")
	run(t, sh, "RPUSH", "c", "z")
	expect(t, sh, rInt(2), "LLEN", "l")
	expect(t, sh, "+OK\r\n", "RENAME", "c", "r")
	expect(t, sh, rInt(3), "LLEN", "r")
	_, keys := scanOnce(t, sh, "0", "TYPE", "list")
	if len(keys) != 2 {
		t.Fatalf("SCAN TYPE list: %q", keys)
	}
	if got := run(t, sh, "MEMORY", "USAGE", "l"); !strings.HasPrefix(got, ":") {
		t.Fatalf("MEMORY USAGE: %q", got)
	}
}

// TestListReplay: every list mutation writes one record whose replay gives
// the same state; reads and refused writes write nothing.
func TestListReplay(t *testing.T) {
	c := newDurReplayChecker(t)
	c.do(persistence.OpListPush, "RPUSH", "l", "a", "b", "c", "a")
	c.do(persistence.OpListPush, "LPUSH", "l", "x", "y")
	c.do(persistence.OpListPush, "LPUSHX", "l", "w")
	c.do(persistence.OpListPush, "RPUSHX", "l", "v")
	c.do(persistence.OpListPop, "LPOP", "l")
	c.do(persistence.OpListPop, "RPOP", "l", "2")
	c.do(persistence.OpListSet, "LSET", "l", "-1", "S")
	c.do(persistence.OpListInsert, "LINSERT", "l", "AFTER", "b", "ins")
	c.do(persistence.OpListInsert, "LINSERT", "l", "BEFORE", "b", "ins2")
	c.do(persistence.OpListRem, "LREM", "l", "1", "ins")
	c.do(persistence.OpListTrim, "LTRIM", "l", "1", "-1")
	c.do(persistence.OpListMove, "LMOVE", "l", "m", "LEFT", "RIGHT")
	c.do(persistence.OpListMove, "RPOPLPUSH", "l", "l")
	c.do(persistence.OpListMove, "RPOPLPUSH", "m", "m")
	c.do(persistence.OpListPop, "LMPOP", "2", "zz", "l", "LEFT", "COUNT", "100")
	if got := run(t, c.mirror, "EXISTS", "l"); got != rInt(0) {
		t.Fatalf("emptied list still in the mirror: %q", got)
	}
	c.do(persistence.OpListMove, "LMOVE", "m", "n", "RIGHT", "LEFT")
	args := []string{"RPUSH", "big"}
	for i := range 3000 {
		args = append(args, strings.Repeat("e", i%50)+strconv.Itoa(i))
	}
	c.do(persistence.OpListPush, args...)
	c.do(persistence.OpListTrim, "LTRIM", "big", "100", "-100")
	c.do(persistence.OpListRem, "LREM", "big", "0", "150")
	c.do(persistence.OpListTrim, "LTRIM", "big", "5", "1")
	n := len(c.j.recs)
	for _, cmd := range [][]string{{"LRANGE", "n", "0", "-1"}, {"LPUSHX", "nope", "a"}, {"LINSERT", "n", "BEFORE", "zz", "a"},
		{"LREM", "n", "0", "zz"}, {"LTRIM", "n", "0", "-1"}, {"LPOP", "nope"}, {"LMOVE", "nope", "n", "LEFT", "LEFT"}, {"LPOS", "n", "a"}} {
		run(t, c.src, cmd...)
	}
	if len(c.j.recs) != n {
		t.Fatalf("reads and no-op writes logged %d records", len(c.j.recs)-n)
	}
}

// TestListSnapshotAndWALGolden pins the list record layouts and checks the
// snapshot encoding round trip.
func TestListSnapshotAndWALGolden(t *testing.T) {
	for _, n := range []int{1, 5, 5000} {
		o := &keyspace.ListObj{L: list.New(list.DefaultFill)}
		for i := range n {
			o.L.PushBack([]byte(strconv.Itoa(i)))
		}
		_, got, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), o.SnapshotKind(), o.AppendSnapshot(nil))
		if err != nil || got.(*keyspace.ListObj).String() != o.String() {
			t.Fatalf("%d elements: %v", n, err)
		}
	}
	if _, _, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), keyspace.KindList, []byte{1, 9, 9}); err == nil {
		t.Fatal("corrupt list accepted")
	}
	if keyspace.KindList != 61 {
		t.Fatalf("kindList %d", keyspace.KindList)
	}
	sh := newTestShard(t)
	j := attachJournal(sh)
	for _, c := range [][]string{{"RPUSH", "k", "a", "b"}, {"LPOP", "k"}, {"LSET", "k", "0", "c"}, {"LINSERT", "k", "AFTER", "c", "d"},
		{"LREM", "k", "-1", "d"}, {"RPUSH", "k", "e"}, {"LTRIM", "k", "0", "-1"}, {"LTRIM", "k", "1", "1"}, {"LMOVE", "k", "j", "RIGHT", "LEFT"}} {
		run(t, sh, c...)
	}
	want := []struct {
		op  persistence.Opcode
		hex string
	}{
		{62, "016b" + "01" + "0200000000000000" + "0161" + "0162"},
		{63, "016b" + "00" + "0100000000000000"},
		{64, "016b" + "0000000000000000" + "0163"},
		{65, "016b" + "01" + "0163" + "0164"},
		{66, "016b" + "ffffffffffffffff" + "0164"},
		{62, "016b" + "01" + "0100000000000000" + "0165"},
		{67, "016b" + "0100000000000000" + "0100000000000000"},
		{68, "016b" + "016a" + "01" + "00"},
	}
	if len(j.recs) != len(want) {
		t.Fatalf("%d records, want %d", len(j.recs), len(want))
	}
	for i, w := range want {
		if j.recs[i].Op != w.op || hex.EncodeToString(j.recs[i].Payload) != w.hex {
			t.Errorf("record %d: %s %x, want %d %s", i, j.recs[i].Op, j.recs[i].Payload, w.op, w.hex)
		}
	}
}

// TestLMPOPKeysAreRouted: LMPOP's keys follow its numkeys argument, so a
// shard that owns none of them answers MOVED, and keys of two slots
// answer CROSSSLOT.
func TestLMPOPKeysAreRouted(t *testing.T) {
	sh := newTestServer(t, 4)
	expect(t, sh, rErr(keyspace.ErrCrossSlot), "LMPOP", "2", "{a}x", "{b}y", "LEFT")
	cmd := sh.Srv.Cmds.Lookup([]byte("lmpop"))
	got := cmd.KeyIndexes(toArgv("LMPOP", "2", "k1", "k2", "LEFT", "COUNT", "3"), nil)
	if len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Fatalf("key indexes %v", got)
	}
	if got := cmd.KeyIndexes(toArgv("LMPOP", "x", "k1", "LEFT"), nil); len(got) != 0 {
		t.Fatalf("key indexes with a bad numkeys: %v", got)
	}
}

// TestListEncodingMatchesGolden pins the list encoding the persistence
// package's golden OpListStore record holds.
func TestListEncodingMatchesGolden(t *testing.T) {
	o := &keyspace.ListObj{L: list.New(list.DefaultFill)}
	o.L.PushBack([]byte("a"))
	o.L.PushBack([]byte("b"))
	if got, want := o.AppendSnapshot(nil), []byte{1, 1, 2, 6, 1, 'a', 2, 1, 'b', 2}; !bytes.Equal(got, want) {
		t.Fatalf("list encoding %v, want %v", got, want)
	}
}
