package commands

import (
	"strconv"
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
	b := &keyspace.Batch{Client: sh.Ctx.C}
	for _, c := range cmds {
		b.Argv = append(b.Argv, toArgv(c...)...)
		b.Ends = append(b.Ends, len(b.Argv))
	}
	b.Out.Proto = 2
	sh.Run(b)
	all := ""
	for _, w := range want {
		all += w
	}
	if got := string(b.Out.Buf); got != all {
		t.Fatalf("batch replies:\n got %q\nwant %q", got, all)
	}
	expect(t, sh, "+OK\r\n", "SELECT", "1")
	expect(t, sh, rBulk("db1"), "GET", "k:17")
}
