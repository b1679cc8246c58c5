package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/persistence"
)

func TestParseBlockTimeout(t *testing.T) {
	sh := &keyspace.Shard{NowMs: 1_000_000}
	cases := []struct {
		in       string
		deadline int64
		err      string
	}{
		{"0", 0, ""},
		{"0.0", 0, ""},
		{"-0", 0, ""},
		{"-0.0001", 0, ""}, // rounds up to zero: for ever
		{"1", 1_001_000, ""},
		{"0.001", 1_000_001, ""},
		{"0.0001", 1_000_001, ""}, // rounded up to a millisecond
		{"1.5", 1_001_500, ""},
		{"1e1", 1_010_000, ""},
		{"0x10", 1_016_000, ""},
		{"9223372036854770", math.MaxInt64, ""}, // the deadline saturates
		{"-1", 0, "-ERR timeout is negative\r\n"},
		{"inf", 0, "-ERR timeout is negative\r\n"},
		{"-inf", 0, "-ERR timeout is negative\r\n"},
		{"1e300", 0, "-ERR timeout is negative\r\n"},
		{"9223372036854776", 0, "-ERR timeout is negative\r\n"},
		{"nan", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"", 0, "-ERR timeout is not a float or out of range\r\n"},
		{" 1", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"1 ", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"1_0", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"abc", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"1e5000", 0, "-ERR timeout is not a float or out of range\r\n"},
	}
	for _, tc := range cases {
		var w codec.Writer
		x := &keyspace.Ctx{S: sh, W: &w}
		d, ok := x.ParseBlockTimeoutOrReply([]byte(tc.in))
		if got := string(w.Buf); got != tc.err || ok != (tc.err == "") || d != tc.deadline {
			t.Errorf("%q: deadline %d ok %v reply %q, want %d %q", tc.in, d, ok, got, tc.deadline, tc.err)
		}
	}
}

func TestParseBlockTimeoutMs(t *testing.T) {
	sh := &keyspace.Shard{NowMs: 5000}
	for in, want := range map[string]string{"0": "", "10": "", "-1": "-ERR timeout is negative\r\n", "1.5": "-ERR timeout is not an integer or out of range\r\n"} {
		var w codec.Writer
		x := &keyspace.Ctx{S: sh, W: &w}
		_, ok := x.ParseBlockTimeoutMsOrReply([]byte(in))
		if string(w.Buf) != want || ok != (want == "") {
			t.Errorf("%q: ok %v reply %q, want %q", in, ok, w.Buf, want)
		}
	}
}

// FuzzParseBlockTimeout: any bytes give either a deadline not before now
// (or 0) and no reply, or one error reply.
func FuzzParseBlockTimeout(f *testing.F) {
	for _, s := range []string{"0", "0.1", "-0.0001", "1e300", "inf", "nan", "0x1p-2", " 1", "9223372036854775"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sh := &keyspace.Shard{NowMs: 1_700_000_000_000}
		var w codec.Writer
		x := &keyspace.Ctx{S: sh, W: &w}
		d, ok := x.ParseBlockTimeoutOrReply(b)
		if ok {
			if len(w.Buf) != 0 || d != 0 && d <= sh.NowMs {
				t.Fatalf("%q: deadline %d, reply %q", b, d, w.Buf)
			}
			return
		}
		if len(w.Buf) == 0 || w.Buf[0] != '-' {
			t.Fatalf("%q: refused without an error reply: %q", b, w.Buf)
		}
	})
}

// recordSink collects delivered batches; it cannot split a batch, so a
// client that blocks keeps its whole batch (replies before the blocked
// command included) until it is served.
type recordSink struct{ got []*keyspace.Batch }

func (s *recordSink) Deliver(b *keyspace.Batch) { s.got = append(s.got, b) }

func TestBlockParkServeResume(t *testing.T) {
	sh := newTestShard(t)
	a, _ := sh.Srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", nil)
	b, _ := sh.Srv.Connected(0, "127.0.0.1:50002", "127.0.0.1:7000", nil)
	sink := &recordSink{}
	run := func(c *keyspace.Client, cmds ...[]string) (*keyspace.Batch, bool) {
		bt := durNewBatch(c, sink, cmds...)
		kept := sh.Run(bt)
		if !kept {
			sh.Queue(bt)
		}
		if len(sh.Blk.Resume) > 0 {
			sh.ResumeBlocked()
		}
		sh.Commit()
		return bt, kept
	}
	a1, kept := run(a, []string{"PING"}, []string{"BLPOP", "q", "0"}, []string{"GET", "k"})
	if !kept || string(a1.Out.Buf) != "+PONG\r\n" || sh.Blk.N.Load() != 1 || !a.Blocked.Load() {
		t.Fatalf("after BLPOP: kept %v out %q blocked %d", kept, a1.Out.Buf, sh.Blk.N.Load())
	}
	if _, kept := run(a, []string{"INCR", "n"}); !kept {
		t.Fatal("a later batch of a blocked client ran")
	}
	if len(sink.got) != 0 {
		t.Fatalf("delivered %d batches of a blocked client", len(sink.got))
	}
	b1, _ := run(b, []string{"SET", "k", "v"}, []string{"RPUSH", "q", "x", "y"}, []string{"LLEN", "q"})
	if got := string(b1.Out.Buf); got != "+OK\r\n:2\r\n:1\r\n" {
		t.Fatalf("producer: %q (LLEN must see the served pop)", got)
	}
	if len(sink.got) != 3 || sink.got[0] != b1 || sink.got[1] != a1 {
		t.Fatalf("delivery order: %v", sink.got)
	}
	if got := string(a1.Out.Buf); got != "+PONG\r\n*2\r\n$1\r\nq\r\n$1\r\nx\r\n$1\r\nv\r\n" {
		t.Fatalf("resumed batch: %q", got)
	}
	if got := string(sink.got[2].Out.Buf); got != ":1\r\n" {
		t.Fatalf("held batch: %q", got)
	}
	if sh.Blk.N.Load() != 0 || a.Blocked.Load() || a.Blk != nil || len(sh.Blk.Waiting) != 0 {
		t.Fatal("state left behind after serving")
	}

	// A deadline: timed out on the tick, null array.
	a2, _ := run(a, []string{"BRPOP", "none", "1.5"})
	sh.NowMs += 1499
	sh.ExpireBlocked()
	if len(sh.Blk.Resume) != 0 {
		t.Fatal("timed out early")
	}
	sh.NowMs += 1
	sh.ExpireBlocked()
	sh.ResumeBlocked()
	sh.Commit()
	if got := string(a2.Out.Buf); got != "*-1\r\n" {
		t.Fatalf("timeout: %q", got)
	}

	// A disconnected client leaves nothing behind.
	run(a, []string{"BZPOPMIN", "z", "0"})
	sh.Srv.Disconnected(a)
	sh.ReapClosed()
	if sh.Blk.N.Load() != 0 || a.Blk != nil || len(sh.Blk.Waiting) != 0 || len(sh.Blk.Clients) != 0 {
		t.Fatal("a disconnected client is still blocked")
	}
	run(b, []string{"ZADD", "z", "1", "m"})
	if got := string(sink.got[len(sink.got)-1].Out.Buf); got != ":1\r\n" {
		t.Fatalf("ZADD after the waiter left: %q", got)
	}
}

// A client served while a snapshot runs writes outside any command: the
// snapshot must still hold the state at its start for every key the
// served command writes (BLMOVE's destination too), so the snapshot plus
// the WAL recovers the served move exactly once.
func TestBlockServedDuringSnapshot(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	for i := 0; i < 400; i++ {
		run(t, sh, "SET", "k"+strconv.Itoa(i), "v")
	}
	run(t, sh, "RPUSH", "dst", "old")
	waiter, _ := sh.Srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", nil)
	producer, _ := sh.Srv.Connected(0, "127.0.0.1:50002", "127.0.0.1:7000", nil)
	sink := &recordSink{}
	batch := func(c *keyspace.Client, cmds ...[]string) *keyspace.Batch {
		saved := sh.Ctx.W
		defer func() { sh.Ctx.W = saved }()
		b := durNewBatch(c, sink, cmds...)
		if !sh.Run(b) {
			sh.Queue(b)
		}
		if len(sh.Blk.Resume) > 0 {
			sh.ResumeBlocked()
		}
		return b
	}
	w := batch(waiter, []string{"BLMOVE", "q", "dst", "LEFT", "RIGHT", "0"})
	if sh.Blk.N.Load() != 1 {
		t.Fatal("BLMOVE did not block")
	}
	atStart := durState(sh)
	if got := run(t, sh, "BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	sh.SnapshotStep(1)
	if sh.Snap == nil {
		t.Fatal("snapshot finished too early for the test")
	}
	batch(producer, []string{"RPUSH", "q", "x"})
	if got := string(w.Out.Buf); got != "$1\r\nx\r\n" {
		t.Fatalf("BLMOVE reply %q", got)
	}
	sh.FinishSnapshotNow()
	sh.Commit()
	d.do(sh, "PING")
	loaded, _ := durLoadSnapshot(t, mem)
	durDiff(t, "snapshot", durState(loaded), atStart)
	c := durOpen(t, mem.CrashClone(), clock, 1, nil)
	durDiff(t, "recovery", durState(c.shard(0)), durState(sh))
	if got := run(t, c.shard(0), "LRANGE", "dst", "0", "-1"); got != rArr(rBulk("old"), rBulk("x")) {
		t.Fatalf("recovered dst %q", got)
	}
}

// A numkeys past the end of the arguments is a syntax error however large
// it is: 2+numkeys once overflowed and indexed the arguments below zero,
// which stopped the process.
func TestMPopHugeNumkeys(t *testing.T) {
	sh := newTestShard(t)
	const huge = "9223372036854775807"
	for _, cmd := range [][]string{
		{"LMPOP", huge, "k", "LEFT"},
		{"ZMPOP", huge, "k", "MIN"},
		{"BLMPOP", "0", huge, "k", "LEFT"},
		{"BZMPOP", "0", huge, "k", "MIN"},
		{"LMPOP", "2", "k", "LEFT"},
		{"ZMPOP", "9223372036854775806", "k", "MIN"},
	} {
		if got := run(t, sh, cmd...); got != "-ERR syntax error\r\n" {
			t.Errorf("%v: %q", cmd, got)
		}
	}
	expect(t, sh, "-ERR numkeys should be greater than 0\r\n", "LMPOP", "0", "k", "LEFT")
	expect(t, sh, "-ERR count should be greater than 0\r\n", "LMPOP", "1", "k", "LEFT", "COUNT", "0")
	expect(t, sh, "*-1\r\n", "ZMPOP", "1", "k", "MAX", "COUNT", "3")
}
