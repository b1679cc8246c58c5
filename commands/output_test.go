package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/ruvio/ruvio/config"
)

func TestOutputMeter(t *testing.T) {
	var m keyspace.OutputMeter
	if p := m.Queue(100); p != 100 {
		t.Fatalf("Queue: pending %d", p)
	}
	m.Queue(50)
	// 100 bytes reach the event loop; 30 of them stay in its outbound buffer.
	m.Written(100, 30)
	if p := m.Pending(); p != 80 {
		t.Fatalf("pending %d, want 50 queued + 30 buffered", p)
	}
	m.Unqueue(50)
	m.SetBuffered(0)
	if p := m.Pending(); p != 0 {
		t.Fatalf("pending %d after everything left", p)
	}
	if p := m.RecentPeak(); p != 150 {
		t.Fatalf("peak %d, want 150", p)
	}
	// The peak survives one roll, not two.
	m.Roll()
	if p := m.RecentPeak(); p != 150 {
		t.Fatalf("peak after one roll %d", p)
	}
	m.Roll()
	if p := m.RecentPeak(); p != 0 {
		t.Fatalf("peak after two rolls %d", p)
	}
}

// Check's soft limit, on an injected clock: a client must be seen at or
// over it at every check for more than SoftSeconds; a check under it starts
// the count again; the hard limit breaks at once.
func TestOutputCheckSoftLimitTiming(t *testing.T) {
	const sec = int64(time.Second)
	lim := config.OutputLimit{Hard: 1000, Soft: 100, SoftSeconds: 2}
	var m keyspace.OutputMeter
	steps := []struct {
		now, pending int64
		want         keyspace.Breach
	}{
		{10 * sec, 50, keyspace.WithinLimits},
		{11 * sec, 150, keyspace.WithinLimits}, // first seen over: the count starts
		{12*sec + sec/2, 150, keyspace.WithinLimits},
		{13 * sec, 100, keyspace.WithinLimits}, // exactly 2 s: not more than SoftSeconds
		{13*sec + 1, 150, keyspace.OverSoft},
		{14 * sec, 99, keyspace.WithinLimits}, // under: the count is reset
		{14*sec + sec/2, 150, keyspace.WithinLimits},
		{16*sec + sec/2, 150, keyspace.WithinLimits},
		{16*sec + sec/2 + 1, 999, keyspace.OverSoft},
		{17 * sec, 1000, keyspace.OverHard}, // the hard limit, at once
		{17 * sec, 20, keyspace.WithinLimits},
		{17 * sec, 5000, keyspace.OverHard},
	}
	for i, s := range steps {
		if got := m.Check(lim, s.pending, s.now); got != s.want {
			t.Fatalf("step %d (t=%v, pending %d): %v, want %v", i, time.Duration(s.now), s.pending, got, s.want)
		}
	}

	// soft_seconds 0: over at the first later check that still sees it.
	m = keyspace.OutputMeter{}
	lim = config.OutputLimit{Soft: 100}
	for i, s := range []struct {
		now, pending int64
		want         keyspace.Breach
	}{
		{0, 100, keyspace.WithinLimits}, // a clock at 0 still starts the count
		{0, 100, keyspace.WithinLimits},
		{2, 1 << 40, keyspace.OverSoft}, // no hard limit: only the soft one breaks
	} {
		if got := m.Check(lim, s.pending, s.now); got != s.want {
			t.Fatalf("soft_seconds 0, step %d: %v, want %v", i, got, s.want)
		}
	}

	// No limits at all: nothing breaks.
	m = keyspace.OutputMeter{}
	for now := int64(0); now < 100*sec; now += sec {
		if got := m.Check(config.OutputLimit{}, 1<<50, now); got != keyspace.WithinLimits {
			t.Fatalf("no limits: %v", got)
		}
	}
}

// The limits that apply to a client are its class's: a pubsub-class
// client is cut off at the pubsub hard limit by a reply a normal client
// gets, with one log line naming the class, and counted in INFO.
func TestOutputClassSelectsLimits(t *testing.T) {
	sh, logs := observedLimitShard(t, "normal 1mb 0 0 pubsub 1000 500 1", 0)
	c := connectTestClient(t, sh)
	if c.OutputClass() != config.OutputNormal {
		t.Fatalf("a new client is in class %v", c.OutputClass())
	}
	val := strings.Repeat("v", 2000)
	if out := runBatch(sh, c, "", []string{"set", "k", val}, []string{"get", "k"}); out != rOK+rBulk(val) || c.Killed() {
		t.Fatalf("normal client: %q, killed %v", out, c.Killed())
	}

	c.SetOutputClass(config.OutputPubSub)
	if c.OutputClass() != config.OutputPubSub {
		t.Fatalf("class %v after SetOutputClass(pubsub)", c.OutputClass())
	}
	b := durNewBatch(c, nil, []string{"get", "k"}, []string{"set", "after", "1"})
	sh.Run(b)
	if !c.Killed() || len(b.Out.Buf) != 0 || !b.CloseAfter {
		t.Fatalf("pubsub client over 1000 bytes: killed %v, out %d bytes, close %v", c.Killed(), len(b.Out.Buf), b.CloseAfter)
	}
	if got := run(t, sh, "exists", "after"); got != rInt(0) {
		t.Errorf("the command after the cut-off ran: EXISTS = %q", got)
	}
	if n := infoInt(t, run(t, sh, "info", "stats"), "client_output_buffer_limit_disconnections"); n != 1 {
		t.Errorf("client_output_buffer_limit_disconnections = %d", n)
	}
	entries := logs.FilterMessage("closing client: output buffer limit reached").All()
	if len(entries) != 1 {
		t.Fatalf("%d log lines, want 1", len(entries))
	}
	f := entries[0].ContextMap()
	if f["remote"] != c.RemoteAddr || f["class"] != "pubsub" || f["limit"] != "hard" || f["limit_bytes"] != int64(1000) || f["pending"].(int64) < 2000 {
		t.Errorf("log fields %v", f)
	}

	// Back to normal: the normal limits apply again.
	c.SetOutputClass(config.OutputNormal)
	if lim := sh.Srv.Opts.Live.OutputBufferLimit(c.OutputClass()); lim.Hard != config.MiB {
		t.Errorf("normal limit %+v", lim)
	}
}

// observedLimitShard is a one-shard server with client-output-buffer-limit
// obuf and limits.max_reply_size maxReply (0: the default), at the test
// clock, whose warnings are observed.
func observedLimitShard(t *testing.T, obuf string, maxReply int64) (*keyspace.Shard, *observer.ObservedLogs) {
	t.Helper()
	now := time.UnixMilli(testNowMs)
	opts := testOptions(t, 1, func() time.Time { return now })
	opts.Config.Limits.MaxReplySize = maxReply
	if err := opts.Live.Set([][2]string{{"client-output-buffer-limit", obuf}}); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.WarnLevel)
	opts.Logger = zap.New(core)
	sh := newTestServerOpts(t, opts).Shard(0)
	sh.NowMs = testNowMs
	return sh, logs
}
