package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strings"
	"testing"

	"go.uber.org/zap/zaptest/observer"
)

// replyLimitShard is a one-shard server whose normal class has the hard
// limit hard ("0" for none), with its largest reply at maxReply bytes, a
// client of it, and the warnings it logs.
func replyLimitShard(t *testing.T, hard string, maxReply int64) (*keyspace.Shard, *keyspace.Client, *observer.ObservedLogs) {
	t.Helper()
	sh, logs := observedLimitShard(t, "normal "+hard+" 0 0", maxReply)
	c := connectTestClient(t, sh)
	if out := runBatch(sh, c, "", []string{"sadd", "s", "a", "b", "c"}); out != rInt(3) {
		t.Fatalf("SADD: %q", out)
	}
	return sh, c, logs
}

// A reply driven by a count is stopped while it is built, a little past
// the hard limit: the batch's buffer never grows with the count, the
// client is cut off with one log line, and the rest of the batch is not
// run.
func TestReplyStoppedAtHardLimit(t *testing.T) {
	sh, c, logs := replyLimitShard(t, "10000", 0)
	b := durNewBatch(c, nil, []string{"srandmember", "s", "-9223372036854775807"}, []string{"set", "after", "1"})
	sh.Run(b)
	if !c.Killed() || len(b.Out.Buf) != 0 || !b.CloseAfter {
		t.Fatalf("killed %v, out %d bytes, close %v", c.Killed(), len(b.Out.Buf), b.CloseAfter)
	}
	// The reply stopped at its first element past 10000 bytes.
	if n := cap(b.Out.Buf); n > 64<<10 {
		t.Errorf("the reply grew to %d bytes", n)
	}
	if b.Out.Limit != 0 {
		t.Errorf("the batch's writer keeps its limit %d after the run", b.Out.Limit)
	}
	if got := run(t, sh, "exists", "after"); got != rInt(0) {
		t.Errorf("the command after the cut-off ran: EXISTS = %q", got)
	}
	entries := logs.FilterMessage("closing client: output buffer limit reached").All()
	if len(entries) != 1 {
		t.Fatalf("%d log lines, want 1", len(entries))
	}
	f := entries[0].ContextMap()
	if f["limit"] != "hard" || f["limit_bytes"] != int64(10000) || f["class"] != "normal" {
		t.Errorf("log fields %v", f)
	}
	if p, _ := f["pending"].(int64); p < 10000 || p > 10100 {
		t.Errorf("pending %d, want a little over 10000", p)
	}
}

// Without a hard limit the largest reply (limits.max_reply_size) stops it,
// and the log line names that bound.
func TestReplyStoppedAtMaxReplySize(t *testing.T) {
	sh, c, logs := replyLimitShard(t, "0", 20000)
	if out := runBatch(sh, c, "", []string{"srandmember", "s", "-2000"}); !strings.HasPrefix(out, "*2000\r\n") || c.Killed() {
		t.Fatalf("a reply under the bound: %d bytes, killed %v", len(out), c.Killed())
	}
	b := durNewBatch(c, nil, []string{"hrandfield", "nokey", "-5"}, []string{"srandmember", "s", "-2000000000"})
	sh.Run(b)
	if !c.Killed() || len(b.Out.Buf) != 0 || !b.CloseAfter {
		t.Fatalf("killed %v, out %d bytes, close %v", c.Killed(), len(b.Out.Buf), b.CloseAfter)
	}
	entries := logs.FilterMessage("closing client: output buffer limit reached").All()
	if len(entries) != 1 {
		t.Fatalf("%d log lines, want 1", len(entries))
	}
	if f := entries[0].ContextMap(); f["limit"] != "reply" || f["limit_bytes"] != int64(20000) {
		t.Errorf("log fields %v", f)
	}
}

// A client that silenced its replies (CLIENT REPLY OFF) has nothing to
// send: its command is cut short at the limit, and it stays connected.
func TestSilencedReplyNotCutOff(t *testing.T) {
	sh, c, logs := replyLimitShard(t, "10000", 0)
	if out := runBatch(sh, c, "", []string{"client", "reply", "off"}, []string{"srandmember", "s", "-2000000000"}); out != "" || c.Killed() {
		t.Fatalf("silenced: %q, killed %v", out, c.Killed())
	}
	if out := runBatch(sh, c, "", []string{"client", "reply", "on"}, []string{"scard", "s"}); out != rOK+rInt(3) {
		t.Fatalf("after CLIENT REPLY ON: %q", out)
	}
	if n := logs.Len(); n != 0 {
		t.Errorf("%d log lines", n)
	}
}

// Running a batch under a hard limit allocates nothing on the GET/SET
// path: the writer's limit is a field set per batch.
func TestReplyLimitNoAllocs(t *testing.T) {
	sh, c, _ := replyLimitShard(t, "1mb", 0)
	b := durNewBatch(c, nil, []string{"set", "k", "v"}, []string{"get", "k"})
	b.Out.Buf = make([]byte, 0, 4096)
	sh.Run(b)
	if got := string(b.Out.Buf); got != rOK+rBulk("v") {
		t.Fatalf("replies %q", got)
	}
	if n := testing.AllocsPerRun(200, func() {
		b.Out.Buf = b.Out.Buf[:0]
		sh.Run(b)
	}); n != 0 {
		t.Errorf("%v allocations per batch", n)
	}
}
