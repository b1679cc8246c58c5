package commands

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/keyspace"
)

// steppingShard is a one-shard server whose clock moves step at every
// reading, so that every timed command takes a few steps.
func steppingShard(t *testing.T, step time.Duration) *keyspace.Shard {
	t.Helper()
	var ns atomic.Int64
	ns.Store(testNowMs * int64(time.Millisecond))
	now := func() time.Time { return time.Unix(0, ns.Add(int64(step))) }
	sh := newTestServerOpts(t, testOptions(t, 1, now)).Shard(0)
	attachTestClient(sh, 1, now())
	return sh
}

func TestLatencyMonitorReplies(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rArr(), "LATENCY", "LATEST")
	expect(t, sh, rArr(), "LATENCY", "HISTORY", "command")
	expect(t, sh, rErr("ERR No samples available for event 'command'"), "LATENCY", "GRAPH", "command")
	sh.Latency.Add("command", 1_700_000_000, 15)
	sh.Latency.Add("command", 1_700_000_000, 12) // same second: the worst is kept
	sh.Latency.Add("command", 1_700_000_001, 30)
	sh.Latency.Add("expire-cycle", 1_700_000_000, 11)
	expect(t, sh, rArr(
		rArr(rBulk("command"), rInt(1_700_000_001), rInt(30), rInt(30)),
		rArr(rBulk("expire-cycle"), rInt(1_700_000_000), rInt(11), rInt(11)),
	), "LATENCY", "LATEST")
	expect(t, sh, rArr(rArr(rInt(1_700_000_000), rInt(15)), rArr(rInt(1_700_000_001), rInt(30))),
		"LATENCY", "HISTORY", "COMMAND")
	graph := run(t, sh, "LATENCY", "GRAPH", "command")
	if !strings.Contains(graph, "command - high 30 ms, low 15 ms (all time high 30 ms)\n") {
		t.Errorf("LATENCY GRAPH: %q", graph)
	}
	doctor := run(t, sh, "LATENCY", "DOCTOR")
	if !strings.Contains(doctor, "1. command: 2 latency spikes (average 22ms). Worst all time event 30ms.") ||
		!strings.Contains(doctor, "2. expire-cycle: 1 latency spikes") {
		t.Errorf("LATENCY DOCTOR: %q", doctor)
	}
	expect(t, sh, rInt(1), "LATENCY", "RESET", "command", "nosuchevent")
	expect(t, sh, rInt(1), "LATENCY", "RESET")
	expect(t, sh, rArr(), "LATENCY", "LATEST")
	if got := run(t, sh, "LATENCY", "DOCTOR"); !strings.Contains(got, "disabled") {
		t.Errorf("LATENCY DOCTOR with the monitor off: %q", got)
	}
	expect(t, sh, rErr("ERR unknown subcommand 'NOPE'. Try LATENCY HELP."), "LATENCY", "NOPE")
	if got := run(t, sh, "LATENCY", "HELP"); !strings.HasPrefix(got, "*17\r\n+LATENCY <subcommand>") {
		t.Errorf("LATENCY HELP: %q", got)
	}
}

func TestLatencyMonitorRecordsCommands(t *testing.T) {
	sh := steppingShard(t, 4*time.Millisecond)
	expect(t, sh, "+OK\r\n", "CONFIG", "SET", "latency-monitor-threshold", "1")
	run(t, sh, "GET", "k")  // @fast
	run(t, sh, "KEYS", "*") // @slow
	got := run(t, sh, "LATENCY", "LATEST")
	if !strings.Contains(got, rBulk("command")) || !strings.Contains(got, rBulk("fast-command")) {
		t.Errorf("LATENCY LATEST after slow commands: %q", got)
	}
	expect(t, sh, "+OK\r\n", "CONFIG", "SET", "latency-monitor-threshold", "0")
	expect(t, sh, rInt(2), "LATENCY", "RESET")
	run(t, sh, "GET", "k")
	expect(t, sh, rArr(), "LATENCY", "LATEST")
}

func TestLatencyHistogram(t *testing.T) {
	sh := steppingShard(t, 3*time.Microsecond)
	for range 5 {
		run(t, sh, "GET", "k")
	}
	run(t, sh, "CONFIG", "GET", "maxmemory")
	h := &sh.CmdStats.ByID[sh.Srv.Cmds["get"].ID].Hist
	if h.Count() != 5 {
		t.Fatalf("GET histogram holds %d calls, want 5", h.Count())
	}
	// The one bucket GET's calls fell in, as LATENCY HISTOGRAM writes it.
	var up int64
	for i, c := range h {
		if c != 0 {
			up = keyspace.LatencyBucketUpperUs(i)
		}
	}
	expect(t, sh, "*2\r\n"+rBulk("get")+rArr(rBulk("calls"), rInt(5), rBulk("histogram_usec"), rArr(rInt(up), rInt(5))),
		"LATENCY", "HISTOGRAM", "GET", "nosuchcommand")
	// A container names its subcommands.
	if got := run(t, sh, "LATENCY", "HISTOGRAM", "config"); !strings.HasPrefix(got, "*2\r\n"+rBulk("config|get")) {
		t.Errorf("LATENCY HISTOGRAM config: %q", got)
	}
	// RESP3: maps.
	sh.Ctx.W = &codec.Writer{Proto: 3}
	sh.Ctx.C.Proto = 3
	want := "%1\r\n" + rBulk("get") + "%2\r\n" + rBulk("calls") + rInt(5) + rBulk("histogram_usec") + "%1\r\n" + rInt(up) + rInt(5)
	expect(t, sh, want, "LATENCY", "HISTOGRAM", "get")
	sh.Ctx.W = &codec.Writer{Proto: 2}
	sh.Ctx.C.Proto = 2

	info := run(t, sh, "INFO", "latencystats")
	if !strings.Contains(info, "latency_percentiles_usec_get:p50=") || !strings.Contains(info, ",p99.9=") {
		t.Errorf("INFO latencystats: %q", info)
	}
	expect(t, sh, "+OK\r\n", "CONFIG", "SET", "latency-tracking-info-percentiles", "50 100")
	if info := run(t, sh, "INFO", "latencystats"); !strings.Contains(info, "latency_percentiles_usec_get:p50=") || !strings.Contains(info, ",p100=") {
		t.Errorf("INFO latencystats with 50 100: %q", info)
	}
	if got := run(t, sh, "CONFIG", "SET", "latency-tracking-info-percentiles", "101"); !strings.HasPrefix(got, "-ERR") {
		t.Errorf("a percentile over 100 accepted: %q", got)
	}
	expect(t, sh, "+OK\r\n", "CONFIG", "SET", "latency-tracking", "no")
	run(t, sh, "GET", "k")
	if h.Count() != 5 {
		t.Errorf("latency-tracking no: GET histogram holds %d calls, want 5", h.Count())
	}
	if info := run(t, sh, "INFO", "latencystats"); strings.Contains(info, "latency_percentiles") {
		t.Errorf("INFO latencystats with latency-tracking no: %q", info)
	}
	expect(t, sh, "+OK\r\n", "CONFIG", "RESETSTAT")
	if h.Count() != 0 {
		t.Errorf("CONFIG RESETSTAT left %d calls in GET's histogram", h.Count())
	}
}

func TestLatencyHistPercentile(t *testing.T) {
	var h keyspace.LatencyHist
	if h.PercentileUs(50) != 0 {
		t.Error("empty histogram: percentile not 0")
	}
	h[1] = 90 // under 2µs
	h[4] = 10 // under 16µs
	for _, c := range []struct {
		p    float64
		want int64
	}{{0, 2}, {50, 2}, {90, 2}, {91, 16}, {99, 16}, {100, 16}} {
		if got := h.PercentileUs(c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
}
