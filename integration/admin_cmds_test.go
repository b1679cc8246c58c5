package integration_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// BGREWRITEAOF, MODULE, LOLWUT and MEMORY MALLOC-STATS: server commands
// clients and tools send.

// infoField returns field's value in INFO section on c.
func infoField(t *testing.T, c *redis.Client, section, field string) string {
	t.Helper()
	info, err := c.Info(ctxT(t), section).Result()
	if err != nil {
		t.Fatalf("INFO %s: %v", section, err)
	}
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return ""
}

// waitInfo waits until field in INFO section reads want.
func waitInfo(t *testing.T, c *redis.Client, section, field, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := infoField(t, c, section, field)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("INFO %s: %s is %q, want %q", section, field, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBgRewriteAOF checks BGREWRITEAOF compacts the WAL as Redis's
// rewrite compacts its AOF: it starts a snapshot, the segments the
// snapshot covers are deleted, and a restart loads the data; asked while
// a snapshot runs it is scheduled and runs after it.
func TestBgRewriteAOF(t *testing.T) {
	dir := t.TempDir()
	opts := []testserver.Option{testserver.Fsync("always"), testserver.Dir(dir), testserver.Config(func(c *config.Config) {
		c.Persistence.SegmentSize = config.MinSegmentSize
	})}
	s := testserver.Start(t, opts...)
	c := s.Client(t)
	val := strings.Repeat("v", 200)
	for i := 0; i < 100; i++ { // about 20 KiB of log: several 4 KiB segments
		expect(t, c, "OK", "SET", "k"+strconv.Itoa(i), val)
	}
	before, _ := strconv.Atoi(infoField(t, c, "persistence", "wal_segments"))
	if before < 3 {
		t.Fatalf("wal_segments = %d before the rewrite, want several", before)
	}
	got, err := c.BgRewriteAOF(ctxT(t)).Result()
	if err != nil || got != "Background append only file rewriting started" {
		t.Fatalf("BGREWRITEAOF: %q, %v", got, err)
	}
	waitInfo(t, c, "persistence", "aof_rewrite_in_progress", "0")
	if st := infoField(t, c, "persistence", "rdb_last_bgsave_status"); st != "ok" {
		t.Fatalf("rdb_last_bgsave_status = %q after BGREWRITEAOF", st)
	}
	if n := infoField(t, c, "persistence", "rdb_changes_since_last_save"); n != "0" {
		t.Errorf("rdb_changes_since_last_save = %s after BGREWRITEAOF, want 0", n)
	}
	after, _ := strconv.Atoi(infoField(t, c, "persistence", "wal_segments"))
	if after >= before {
		t.Errorf("wal_segments = %d after BGREWRITEAOF, %d before: the covered segments were not deleted", after, before)
	}

	// Asked while a snapshot runs (BGSAVE just before it in the same
	// EXEC): scheduled, and the snapshot that follows covers the write
	// made after the first one began.
	pipe := c.TxPipeline()
	pipe.BgSave(ctxT(t))
	pipe.Set(ctxT(t), "late", "x", 0)
	rewrite := pipe.BgRewriteAOF(ctxT(t))
	if _, err := pipe.Exec(ctxT(t)); err != nil {
		t.Fatalf("EXEC: %v", err)
	}
	if got := rewrite.Val(); got != "Background append only file rewriting scheduled" {
		t.Errorf("BGREWRITEAOF during a snapshot: %q", got)
	}
	waitInfo(t, c, "persistence", "aof_rewrite_scheduled", "0")
	waitInfo(t, c, "persistence", "aof_rewrite_in_progress", "0")
	waitInfo(t, c, "persistence", "rdb_changes_since_last_save", "0")
	s.Stop()

	again := testserver.Start(t, opts...)
	c2 := again.Client(t)
	expect(t, c2, val, "GET", "k99")
	expect(t, c2, "x", "GET", "late")
	expect(t, c2, int64(101), "DBSIZE")

	// No WAL: nothing to rewrite.
	mem := testserver.Start(t).Client(t)
	expectErr(t, mem, "ERR persistence is disabled (persistence.wal = false)", "BGREWRITEAOF")
	expectErr(t, mem, errArity("bgrewriteaof"), "BGREWRITEAOF", "now")
}

// TestModuleCommand checks MODULE: no module is loaded and none can be;
// the refusals are Redis's replies for a load that failed and a name that
// is not loaded.
func TestModuleCommand(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, []interface{}{}, "MODULE", "LIST")
	expectErr(t, c, "ERR Error loading the extension. Please check the server logs.", "MODULE", "LOAD", "/usr/lib/redis/modules/redisbloom.so")
	expectErr(t, c, "ERR Error loading the extension. Please check the server logs.", "MODULE", "LOAD", "/m.so", "a", "b")
	loadex := c.ModuleLoadex(ctxT(t), &redis.ModuleLoadexConfig{
		Path: "/path/to/non-existent-library.so",
		Conf: map[string]interface{}{"param1": "value1"},
		Args: []interface{}{"arg1"},
	})
	if loadex.Err() == nil || loadex.Err().Error() != "ERR Error loading the extension. Please check the server logs." {
		t.Errorf("MODULE LOADEX: %v", loadex.Err())
	}
	expectErr(t, c, "ERR Error unloading module: no such module with that name", "MODULE", "UNLOAD", "bf")
	expectErr(t, c, errArity("module|load"), "MODULE", "LOAD")
	expectErr(t, c, errArity("module|unload"), "MODULE", "UNLOAD", "a", "b")
	expectErr(t, c, errArity("module|list"), "MODULE", "LIST", "x")
	expectErr(t, c, "ERR unknown subcommand 'BOGUS'. Try MODULE HELP.", "MODULE", "BOGUS")
	help, err := c.Do(ctxT(t), "MODULE", "HELP").StringSlice()
	if err != nil || len(help) == 0 || !strings.HasPrefix(help[0], "MODULE <subcommand>") {
		t.Errorf("MODULE HELP: %q, %v", help, err)
	}
	expect(t, c, "PONG", "PING")
}

// TestLolwut checks LOLWUT answers one version line in Redis's
// "<name> ver. <version>" shape, naming this server and the Redis version
// it speaks, with and without VERSION, and refuses a VERSION that is not
// an integer as Redis does.
func TestLolwut(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	want := "Ruvio ver. " + infoField(t, c, "server", "ruvio_version") + " (Redis ver. " + infoField(t, c, "server", "redis_version") + " compatible)\n"
	expect(t, c, want, "LOLWUT")
	expect(t, c, want, "LOLWUT", "VERSION", 5)
	expect(t, c, want, "LOLWUT", "VERSION", 6, 1, 2, 3)
	expect(t, c, want, "LOLWUT", 5, 6, 7, 8)
	expectErr(t, c, "ERR value is not an integer or out of range", "LOLWUT", "VERSION", "x")
	// RESP3: a verbatim string of format txt, as Redis sends it.
	rc := dialRaw(t, s.Addr())
	rc.do("HELLO", "3")
	rc.expect("="+strconv.Itoa(len(want)+4)+"\r\ntxt:"+want+"\r\n", "LOLWUT")
}

// TestMemoryMallocStats checks MEMORY MALLOC-STATS reports the Go
// runtime's allocator, with figures that move as the heap does.
func TestMemoryMallocStats(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	report, err := c.Do(ctxT(t), "MEMORY", "MALLOC-STATS").Text()
	if err != nil {
		t.Fatalf("MEMORY MALLOC-STATS: %v", err)
	}
	for _, want := range []string{"___ Begin Go runtime allocator statistics (go", "heap_alloc:", "heap_sys:", "mallocs:", "num_gc:", "arenas_mapped:", "___ End Go runtime allocator statistics ___\n"} {
		if !strings.Contains(report, want) {
			t.Errorf("MEMORY MALLOC-STATS lacks %q:\n%s", want, report)
		}
	}
	mallocs := func(r string) uint64 {
		for _, l := range strings.Split(r, "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "mallocs:" {
				n, _ := strconv.ParseUint(f[1], 10, 64)
				return n
			}
		}
		t.Fatalf("no mallocs line in %q", r)
		return 0
	}
	first := mallocs(report)
	for i := 0; i < 200; i++ {
		expect(t, c, "OK", "SET", "k"+strconv.Itoa(i), strings.Repeat("x", 100))
	}
	second, err := c.Do(ctxT(t), "MEMORY", "MALLOC-STATS").Text()
	if err != nil {
		t.Fatal(err)
	}
	if m := mallocs(second); m <= first {
		t.Errorf("mallocs did not grow: %d then %d", first, m)
	}
	expectErr(t, c, errArity("memory|malloc-stats"), "MEMORY", "MALLOC-STATS", "x")
}
