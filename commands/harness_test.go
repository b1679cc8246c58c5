package commands

// The test harness of the package: servers and shards without networking or
// persistence on a fixed clock, run/expect to execute commands
// synchronously and compare replies, RESP reply builders, and journals that
// capture the records a shard writes.

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// testNowMs is the fixed clock of the test shards.
const testNowMs = int64(1_700_000_000_000)

// testOptions are the options of a server of n shards on ports 7000…
// with the default configuration, no networking and no persistence, whose
// clock is now.
func testOptions(t testing.TB, n int, now func() time.Time) keyspace.Options {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strings.Repeat(string(rune('a'+i)), 40)
	}
	topo, err := cluster.NewTopology("127.0.0.1", 7000, n, ids)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	return keyspace.Options{Config: cfg, Live: config.NewLive(cfg), Topology: topo, Now: now, Commands: newCommandTable()}
}

// newTestServerOpts is NewServer that fails the test on error.
func newTestServerOpts(t testing.TB, opts keyspace.Options) *keyspace.Server {
	t.Helper()
	s, err := keyspace.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// attachTestClient makes a new authenticated RESP2 client with the given
// id the one sh runs commands for, and sets sh's clock to now.
func attachTestClient(sh *keyspace.Shard, id int64, now time.Time) *keyspace.Client {
	c := keyspace.NewClient(id, sh.Idx, "127.0.0.1:50000", "127.0.0.1:7000", nil, now)
	c.Authenticated = true
	sh.Ctx.C = c
	sh.Ctx.W = &codec.Writer{Proto: 2}
	sh.NowMs = now.UnixMilli()
	return c
}

// newTestServer builds a server of n shards without networking or
// persistence, with a fixed clock, and returns its first shard ready to
// run commands synchronously through run.
func newTestServer(t testing.TB, n int) *keyspace.Shard {
	t.Helper()
	now := time.UnixMilli(testNowMs)
	sh := newTestServerOpts(t, testOptions(t, n, func() time.Time { return now })).Shard(0)
	attachTestClient(sh, 1, now)
	return sh
}

// newTestShard is newTestServer with one shard: a standalone server with
// the configured databases.
func newTestShard(t *testing.T) *keyspace.Shard { return newTestServer(t, 1) }

// toArgv converts a command to argv.
func toArgv(args ...string) [][]byte {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	return argv
}

// execArgv executes argv on sh with a fresh reply buffer and returns the
// exact reply bytes, which last until the next command.
func execArgv(sh *keyspace.Shard, argv [][]byte) []byte {
	sh.Ctx.W.Reset()
	sh.Exec(&sh.Ctx, argv)
	return sh.Ctx.W.Buf
}

// run executes one command on sh and returns the exact reply bytes.
func run(t *testing.T, sh *keyspace.Shard, args ...string) string {
	t.Helper()
	return string(execArgv(sh, toArgv(args...)))
}

// expect runs a command and fails the test unless the reply is want.
func expect(t *testing.T, sh *keyspace.Shard, want string, args ...string) {
	t.Helper()
	if got := run(t, sh, args...); got != want {
		t.Errorf("%q: got %q, want %q", args, got, want)
	}
}

// RESP helpers for expected replies.
func rInt(n int64) string   { return ":" + strconv.FormatInt(n, 10) + "\r\n" }
func rBulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
func rErr(s string) string  { return "-" + s + "\r\n" }
func rArr(items ...string) string {
	return "*" + strconv.Itoa(len(items)) + "\r\n" + strings.Join(items, "")
}

const (
	rOK   = "+OK\r\n"
	rNull = "$-1\r\n"
)

// nopJournal is what the test journals share: a commit releases replies
// at once and nothing fails.
type nopJournal struct{}

func (nopJournal) Commit(interface{ Committed(error) }, int) bool { return true }
func (nopJournal) Err() error                                     { return nil }
func (nopJournal) Sequences() (last, durable uint64)              { return 0, 0 }
func (nopJournal) Tick(*keyspace.Shard)                           {}
func (nopJournal) Close() error                                   { return nil }

// recJournal captures every WAL record a shard writes (payload copied),
// numbered as the WAL would number them.
type recJournal struct {
	nopJournal
	recs []persistence.Record
	seq  uint64
}

func (j *recJournal) Append(db uint16, op persistence.Opcode, payload []byte) {
	j.seq++
	j.recs = append(j.recs, persistence.Record{Seq: j.seq, DB: db, Op: op, Payload: bytes.Clone(payload)})
}

// take returns the opcodes logged since the last call and forgets their
// records.
func (j *recJournal) take() []persistence.Opcode {
	var ops []persistence.Opcode
	for _, r := range j.recs {
		ops = append(ops, r.Op)
	}
	j.recs = j.recs[:0]
	return ops
}

// attachJournal makes a new recJournal sh's journal.
func attachJournal(sh *keyspace.Shard) *recJournal {
	j := &recJournal{}
	sh.Journal = j
	return j
}

// expectOps checks the opcodes logged since the last check.
func expectOps(t *testing.T, j *recJournal, what string, want ...persistence.Opcode) {
	t.Helper()
	got := j.take()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s logged %v, want %v", what, got, want)
	}
}
