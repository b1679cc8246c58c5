package commands

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/keyspace"
)

// TestBatchOnLargeTable runs pipelined batches on a database whose index
// is large enough for the shard to read the batch's keys ahead
// (keyspace.warmKeys): the replies are exactly those of the commands run
// one by one, whatever the arguments after the command name are (keys,
// present or not, no keys at all, a SELECT that changes the database
// half-way).
func TestBatchOnLargeTable(t *testing.T) {
	sh := newTestShard(t)
	const keys = 40000
	for i := 0; i < keys; i++ {
		expect(t, sh, "+OK\r\n", "SET", "k:"+strconv.Itoa(i), strconv.Itoa(i))
	}
	cmds := [][]string{
		{"GET", "k:17"},
		{"SET", "k:99", "new"},
		{"GET", "k:99"},
		{"GET", "absent"},
		{"PING"},
		{"INCR", "k:123"},
		{"ECHO", "k:5"},
		{"EXISTS", "k:39999", "k:40000"},
		{"SELECT", "1"},
		{"GET", "k:17"},
		{"SET", "k:17", "db1"},
		{"SELECT", "0"},
		{"GET", "k:17"},
		{"DEL", "k:1", "k:2"},
		{"GET", "k:1"},
	}
	want := []string{
		rBulk("17"), "+OK\r\n", rBulk("new"), "$-1\r\n", "+PONG\r\n", rInt(124), rBulk("k:5"),
		rInt(1), "+OK\r\n", "$-1\r\n", "+OK\r\n", "+OK\r\n", rBulk("17"), rInt(2), "$-1\r\n",
	}
	expectBatch(t, sh, cmds, want)
	expect(t, sh, "+OK\r\n", "SELECT", "1")
	expect(t, sh, rBulk("db1"), "GET", "k:17")
}

// TestBatchOnLargeCollections runs pipelined batches on a large hash, set
// and sorted set (their members are read ahead of the commands): the
// replies are exactly those of the commands run one by one. Among 40,000
// strings the index is read ahead too, and a collection's key whose home
// slot another key took is probed for.
func TestBatchOnLargeCollections(t *testing.T) {
	for _, strs := range []int{0, 40000} {
		t.Run(strconv.Itoa(strs)+" strings", func(t *testing.T) { testBatchOnLargeCollections(t, strs) })
	}
}

func testBatchOnLargeCollections(t *testing.T, strs int) {
	sh := newTestShard(t)
	for i := 0; i < strs; i++ {
		expect(t, sh, "+OK\r\n", "SET", "str:"+strconv.Itoa(i), "v")
	}
	for i := 0; i < 2000; i++ {
		n := strconv.Itoa(i)
		expect(t, sh, rInt(1), "HSET", "h", "f"+n, n)
		expect(t, sh, rInt(1), "SADD", "s", "m"+n)
		expect(t, sh, rInt(1), "ZADD", "z", n, "m"+n)
	}
	cmds := [][]string{
		{"HGET", "h", "f7"},
		{"HSET", "h", "f7", "x", "f9999", "y"},
		{"HGET", "h", "f9999"},
		{"SISMEMBER", "s", "m3"},
		{"SISMEMBER", "s", "absent"},
		{"ZSCORE", "z", "m42"},
		{"ZADD", "z", "5", "m42"},
		{"ZINCRBY", "z", "1", "m42"},
		{"SET", "h2", "v"},
		{"HGET", "h2", "f"},
		{"SADD", "h", "m"},
		{"ZADD", "z", "XX", "CH", "7", "m1"},
	}
	want := []string{
		rBulk("7"), rInt(1), rBulk("y"), rInt(1), rInt(0), rBulk("42"), rInt(0), rBulk("6"), "+OK\r\n",
		rErr("WRONGTYPE Operation against a key holding the wrong kind of value"),
		rErr("WRONGTYPE Operation against a key holding the wrong kind of value"), rInt(1),
	}
	expectBatch(t, sh, cmds, want)
}

// expectBatch runs cmds as one batch on sh and fails the test unless the
// replies are want, in order.
func expectBatch(t *testing.T, sh *keyspace.Shard, cmds [][]string, want []string) {
	t.Helper()
	if got, all := runBatch(sh, sh.Ctx.C, "", cmds...), strings.Join(want, ""); got != all {
		t.Fatalf("batch replies:\n got %q\nwant %q", got, all)
	}
}
