package commands

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
)

// TestScriptIsOneWALRecord: the writes of a script (and of a function) are
// one Batch record, a script inside EXEC joins the transaction's record,
// and replay restores the effects without running Lua.
func TestScriptIsOneWALRecord(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	d.do(sh, "EVAL", "redis.call('SET', KEYS[1], '1'); redis.call('INCR', KEYS[1]); redis.call('SELECT', 3); redis.call('SET', 'z', 'x'); return 1", "1", "a")
	d.do(sh, "EVAL", "return redis.call('SET', 'single', '1')", "0")
	d.do(sh, "EVAL", "return redis.call('GET', 'a')", "0")
	d.do(sh, "FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('two', function(k) redis.call('SET', k[1], 'a'); return redis.call('APPEND', k[1], 'b') end)")
	d.do(sh, "FCALL", "two", "1", "f")
	d.round(sh, [][]string{{"MULTI"}, {"SET", "m", "1"}, {"EVAL", "return redis.call('INCR', 'm')", "0"}, {"EXEC"}})
	_, _, recs, _ := walRecords(t, mem)
	var ops []string
	for _, r := range recs {
		ops = append(ops, r.Op.String())
	}
	if got, want := strings.Join(ops, " "), "Batch Set Batch Batch"; got != want {
		t.Fatalf("WAL records: %s, want %s", got, want)
	}
	want := durState(sh)
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	d2 := durOpen(t, mem.CrashClone(), clock, 1, nil)
	if got := durState(d2.shard(0)); got != want {
		t.Errorf("after replay:\n%s\nwant:\n%s", got, want)
	}
}

// TestScriptUnitLimit: a write that would take a script's WAL unit past one
// record is refused (the append would fail and stop the shard's writes);
// the writes before it are kept and logged.
func TestScriptUnitLimit(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	sh.Scr.MaxUnit = 300
	body := "redis.call('SET', 'a', ARGV[1]); redis.call('SET', 'b', ARGV[1]); return redis.call('SET', 'c', ARGV[1])"
	got := d.do(sh, "EVAL", body, "0", strings.Repeat("x", 60))
	if !strings.HasPrefix(got, "-ERR the script's writes would exceed one write-ahead log record (300 bytes)") {
		t.Fatalf("EVAL over the unit limit: %q", got)
	}
	if got := d.do(sh, "EXISTS", "a", "b", "c"); got != ":2\r\n" {
		t.Fatalf("keys written before the refusal: %q", got)
	}
	if err := sh.Journal.Err(); err != nil {
		t.Fatalf("the log failed: %v", err)
	}
}

// TestScriptMemoryLimitSetting: a script's memory limit is
// ruvio-lua-memory-limit, capped by maxmemory, and none when both are 0.
func TestScriptMemoryLimitSetting(t *testing.T) {
	d := durOpen(t, persistence.NewMemFS(), newDurClock(), 1, nil)
	sh := d.shard(0)
	live := sh.Srv.Opts.Live
	for _, c := range []struct {
		limit, maxmemory string
		want             int64
	}{
		{"1gb", "0", 1 << 30},
		{"64mb", "0", 64 << 20},
		{"64mb", "16mb", 16 << 20},
		{"16mb", "64mb", 16 << 20},
		{"0", "32mb", 32 << 20},
		{"0", "0", 0},
	} {
		if err := live.Set([][2]string{{"ruvio-lua-memory-limit", c.limit}, {"maxmemory", c.maxmemory}}); err != nil {
			t.Fatal(err)
		}
		if got := sh.ScriptMemoryLimit(); got != c.want {
			t.Errorf("limit %s, maxmemory %s: %d, want %d", c.limit, c.maxmemory, got, c.want)
		}
	}
	if err := live.Set([][2]string{{"ruvio-lua-memory-limit", "64mb"}, {"maxmemory", "0"}}); err != nil {
		t.Fatal(err)
	}
	got := d.do(sh, "EVAL", "local t = {} for i = 1, 1e8 do t[i] = {} end return #t", "0")
	if !strings.HasPrefix(got, "-OOM Lua script exceeded the memory limit of scripts") {
		t.Fatalf("EVAL over the limit: %q", got)
	}
	if got := d.do(sh, "EVAL", "return 1", "0"); got != ":1\r\n" {
		t.Fatalf("EVAL after: %q", got)
	}
}
