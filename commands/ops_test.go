package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// enable-debug-command: "yes" admits everyone, "no" nobody, "local" only
// loopback peers. Remote peers cannot be made on loopback, so the gate is
// tested on addresses.
func TestDebugAllowed(t *testing.T) {
	cases := []struct {
		setting, remote string
		want            bool
	}{
		{"yes", "192.0.2.7:5000", true},
		{"yes", "127.0.0.1:5000", true},
		{"no", "127.0.0.1:5000", false},
		{"no", "[::1]:5000", false},
		{"local", "127.0.0.1:5000", true},
		{"local", "127.0.0.2:5000", true},
		{"local", "[::1]:5000", true},
		{"local", "192.0.2.7:5000", false},
		{"local", "[2001:db8::1]:5000", false},
		{"local", "10.0.0.1:6379", false},
		{"local", "", false},
		{"local", "not an address", false},
	}
	for _, tc := range cases {
		if got := keyspace.DebugAllowed(tc.setting, tc.remote); got != tc.want {
			t.Errorf("debugAllowed(%q, %q) = %v, want %v", tc.setting, tc.remote, got, tc.want)
		}
	}
}

// DEBUG from a non-local client of a server with the default setting
// ("local") is refused with Redis's text before it runs, even before
// authentication; from a local client it runs.
func TestDebugRefusedForRemoteClient(t *testing.T) {
	sh := newTestShard(t)
	if got := sh.Srv.Opts.Live.EnableDebugCommand(); got != config.DebugLocal {
		t.Fatalf("default enable-debug-command = %q, want local", got)
	}
	expect(t, sh, "+OK\r\n", "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	c := attachTestClient(sh, 2, sh.Srv.Now())
	c.RemoteAddr = "192.0.2.7:40000"
	c.Authenticated = false
	expect(t, sh, rErr(keyspace.ErrDebugNotAllowed), "DEBUG", "SLEEP", "100")
	expect(t, sh, rErr(keyspace.ErrDebugNotAllowed), "DEBUG", "HELP")
	// Arity is checked first, as in Redis.
	expect(t, sh, rErr("ERR wrong number of arguments for 'debug' command"), "DEBUG")
	if !strings.HasPrefix(keyspace.ErrDebugNotAllowed, "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.") {
		t.Error("error text differs from Redis's")
	}
}

// used_memory_rss is the resident set the OS reports, not what the Go
// runtime reserved: after a large heap is freed and returned to the OS,
// the runtime's Sys stays 128 MiB higher while the resident set drops
// (under the race detector the resident set also holds shadow memory the
// runtime does not count), so only the OS's figure matches.
func TestUsedMemoryRSSIsResidentSet(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm")
	}
	big := make([]byte, 128<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	runtime.KeepAlive(big)
	big = nil
	runtime.GC()
	debug.FreeOSMemory()

	sh := newTestShard(t)
	got := infoInt(t, run(t, sh, "INFO", "memory"), "used_memory_rss")
	want, ok := keyspace.ResidentBytes()
	if !ok {
		t.Fatal("statm unreadable")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// The process keeps running between the two reads: allow some drift.
	if diff := got - int64(want); diff > 16<<20 || diff < -16<<20 {
		t.Fatalf("used_memory_rss = %d, resident set = %d (runtime Sys = %d)", got, want, ms.Sys)
	}
}

func TestParseStatmResident(t *testing.T) {
	if n, ok := keyspace.ParseStatmResident([]byte("12345 678 90 1 0 2 0\n"), 4096); !ok || n != 678*4096 {
		t.Errorf("got %d %v", n, ok)
	}
	for _, bad := range []string{"", "12", "1 x 2"} {
		if _, ok := keyspace.ParseStatmResident([]byte(bad), 4096); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// infoInt returns the integer value of name in an INFO reply.
func infoInt(t *testing.T, reply, name string) int64 {
	t.Helper()
	for _, line := range strings.Split(reply, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return n
		}
	}
	t.Fatalf("INFO has no %s:\n%s", name, reply)
	return 0
}

// INFO config_file reports the file the server was started with, and
// CONFIG REWRITE names it when refusing; without one, Redis's text.
func TestConfigFileInInfoAndRewrite(t *testing.T) {
	sh := newTestShard(t)
	if got := run(t, sh, "INFO", "server"); !strings.Contains(got, "\r\nconfig_file:\r\n") {
		t.Errorf("config_file without a file:\n%s", got)
	}
	expect(t, sh, rErr("ERR The server is running without a config file"), "CONFIG", "REWRITE")

	cfg := config.Default()
	cfg.File = "/etc/ruvio/config.toml"
	opts := testOptions(t, 1, sh.Srv.Clock)
	opts.Config, opts.Live = cfg, config.NewLive(cfg)
	sh = newTestServerOpts(t, opts).Shard(0)
	attachTestClient(sh, 1, sh.Srv.Now())
	if got := run(t, sh, "INFO", "server"); !strings.Contains(got, "\r\nconfig_file:/etc/ruvio/config.toml\r\n") {
		t.Errorf("config_file with a file:\n%s", got)
	}
	if got := run(t, sh, "CONFIG", "REWRITE"); !strings.HasPrefix(got, "-ERR CONFIG REWRITE is not supported: the configuration file /etc/ruvio/config.toml") {
		t.Errorf("CONFIG REWRITE: %q", got)
	}
}

func TestSnapshotWALThreshold(t *testing.T) {
	cases := []struct {
		floor    int64
		percent  int
		lastSize int64
		want     int64
	}{
		{0, 100, 1 << 30, 0},                   // size trigger off
		{256 << 20, 100, 0, 256 << 20},         // no snapshot yet: the floor
		{256 << 20, 100, 100 << 20, 256 << 20}, // small data set: the floor
		{256 << 20, 100, 4 << 30, 4 << 30},     // large data set: proportional
		{256 << 20, 50, 4 << 30, 2 << 30},
		{256 << 20, 0, 4 << 30, 256 << 20}, // percent 0: fixed interval
	}
	for _, tc := range cases {
		if got := keyspace.SnapshotWALThreshold(tc.floor, tc.percent, tc.lastSize); got != tc.want {
			t.Errorf("snapshotWALThreshold(%d, %d, %d) = %d, want %d", tc.floor, tc.percent, tc.lastSize, got, tc.want)
		}
	}
}

// snapshotWriteAmplification overwrites a data set of about 200 KB again
// and again with the given schedule, ticking as the loop does, and returns
// the bytes of snapshots written per byte of WAL written.
func snapshotWriteAmplification(t *testing.T, percent int) float64 {
	mem := persistence.NewMemFS()
	d := durOpen(t, mem, newDurClock(), 1, func(o *keyspace.DiskOptions) {
		o.SnapshotWALBytes = 4096
		o.SnapshotWALPercent = percent
	})
	sh := d.shard(0)
	j := sh.Journal.(*keyspace.WALJournal)
	val := strings.Repeat("v", 1000)
	var snapBytes int64
	lastSeq := sh.SnapStatus.LastSeq
	for round := 0; round < 5; round++ {
		for k := 0; k < 200; k++ {
			d.do(sh, "SET", "k"+strconv.Itoa(k), val)
			j.Tick(sh)
			sh.FinishSnapshotNow()
			if sh.SnapStatus.LastSeq != lastSeq {
				lastSeq = sh.SnapStatus.LastSeq
				snapBytes += sh.SnapStatus.LastSize
			}
		}
	}
	return float64(snapBytes) / float64(j.WAL.Stats().Bytes)
}

// Redis's save points schedule snapshots too: "10 3" takes one once 10
// seconds have passed since the last and at least 3 writes were logged;
// neither alone is enough. CONFIG SET save changes them at run time.
func TestSavePointTakesSnapshot(t *testing.T) {
	clock := newDurClock()
	d := durOpen(t, persistence.NewMemFS(), clock, 1, func(o *keyspace.DiskOptions) {
		o.SnapshotEvery, o.SnapshotWALBytes = 0, 0
	})
	sh := d.shard(0)
	j := sh.Journal.(*keyspace.WALJournal)
	if err := sh.Srv.Opts.Live.Set([][2]string{{"save", "10 3"}}); err != nil {
		t.Fatal(err)
	}
	tick := func() uint64 {
		j.Tick(sh)
		sh.FinishSnapshotNow()
		return sh.SnapStatus.LastSeq
	}
	start := tick()
	d.do(sh, "SET", "a", "1")
	d.do(sh, "SET", "b", "1")
	clock.ms.Add(11_000)
	if got := tick(); got != start {
		t.Fatalf("snapshot after 2 writes and 11 s with save 10 3 (sequence %d)", got)
	}
	d.do(sh, "SET", "c", "1")
	taken := tick()
	if taken == start {
		t.Fatal("no snapshot after 3 writes and 11 s with save 10 3")
	}
	for i := 0; i < 5; i++ {
		d.do(sh, "SET", "d", "1")
	}
	clock.ms.Add(5_000)
	if got := tick(); got != taken {
		t.Fatalf("snapshot only 5 s after the last one (sequence %d)", got)
	}
	if err := sh.Srv.Opts.Live.Set([][2]string{{"save", ""}}); err != nil {
		t.Fatal(err)
	}
	clock.ms.Add(60_000)
	if got := tick(); got != taken {
		t.Fatalf("snapshot with save \"\" (sequence %d)", got)
	}
}

// With the default proportional schedule, snapshots written stay within a
// small multiple of the WAL written however large the data set is
// relative to the floor; a fixed interval (percent 0) rewrites the whole
// data set every few KB of log.
func TestSnapshotScheduleProportionalToDataSet(t *testing.T) {
	prop := snapshotWriteAmplification(t, 100)
	fixed := snapshotWriteAmplification(t, 0)
	t.Logf("snapshot bytes per WAL byte: proportional %.2f, fixed interval %.2f", prop, fixed)
	if prop > 2.5 {
		t.Errorf("proportional schedule wrote %.2f snapshot bytes per WAL byte, want at most 2.5", prop)
	}
	if fixed < 10 {
		t.Errorf("fixed schedule wrote only %.2f snapshot bytes per WAL byte: the test data set is too small to tell", fixed)
	}
}

// A restart knows the size of the snapshot it loaded, so the proportional
// trigger holds across restarts too.
func TestSnapshotSizeKnownAfterRestart(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	d.do(sh, "SET", "k", strings.Repeat("v", 1000))
	if got := d.do(sh, "SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	size := sh.SnapStatus.LastSize
	if size <= 0 {
		t.Fatalf("snapshot size %d", size)
	}
	r := durOpen(t, mem.CrashClone(), clock, 1, nil)
	if got := r.shard(0).SnapStatus.LastSize; got != size {
		t.Errorf("after restart the last snapshot size is %d, want %d", got, size)
	}
}

// Each snapshot is logged once at INFO (the persistence layer's own line is
// DEBUG), with its file, keys, size and duration.
func TestSnapshotLoggedOnce(t *testing.T) {
	mem := persistence.NewMemFS()
	d := durOpen(t, mem, newDurClock(), 1, nil)
	core, logs := observer.New(zapcore.InfoLevel)
	d.srv.Log = zap.New(core)
	sh := d.shard(0)
	d.do(sh, "SET", "a", "1")
	if got := d.do(sh, "SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	n := 0
	for _, e := range logs.All() {
		if strings.Contains(e.Message, "snapshot written") {
			n++
			if f := e.ContextMap()["file"]; f != persistence.SnapshotName(0, 1) {
				t.Errorf("file = %v", f)
			}
		}
	}
	if n != 1 {
		t.Errorf("snapshot logged %d times at INFO, want once: %v", n, logs.All())
	}
}
