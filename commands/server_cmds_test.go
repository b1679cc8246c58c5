package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/cluster"
)

// The -update flag rewrites goldens, docs/compatibility-matrix.json among
// them. Other test files of the package may define it too, so it is
// defined here only when nobody has.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files, docs/compatibility-matrix.json among them")
	}
}

// srvUpdateGoldens reports whether -update or RUVIO_UPDATE_MATRIX=1 asks for
// the matrix to be rewritten.
func srvUpdateGoldens() bool {
	if os.Getenv("RUVIO_UPDATE_MATRIX") == "1" {
		return true
	}
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// srvClock is a settable clock for the server tests.
type srvClock struct{ ms atomic.Int64 }

func (c *srvClock) now() time.Time { return time.UnixMilli(c.ms.Load()) }

// srvTestShard builds a server of n shards with a fixed clock, no
// networking and no persistence, and returns shard idx ready for srvRun.
// onShutdown, when not nil, receives SHUTDOWN requests.
func srvTestShard(t *testing.T, n, idx int, onShutdown func()) (*keyspace.Shard, *srvClock) {
	t.Helper()
	clock := newDurClock()
	opts := testOptions(t, n, clock.now)
	opts.OnShutdown = onShutdown
	sh := newTestServerOpts(t, opts).Shard(idx)
	c := attachTestClient(sh, 1, clock.now())
	sh.Ctx.Batch = &keyspace.Batch{Client: c}
	return sh, clock
}

// srvRun executes one command on sh with protocol proto and returns the
// exact reply bytes.
func srvRun(sh *keyspace.Shard, proto int, args ...string) string {
	sh.Ctx.C.Proto = proto
	sh.Ctx.W.Proto = proto
	return string(execArgv(sh, toArgv(args...)))
}

// srvExpect fails the test unless the RESP2 reply to args is want.
func srvExpect(t *testing.T, sh *keyspace.Shard, want string, args ...string) {
	t.Helper()
	if got := srvRun(sh, 2, args...); got != want {
		t.Errorf("%q:\n got %q\nwant %q", args, got, want)
	}
}

// srvExpect3 is srvExpect for RESP3.
func srvExpect3(t *testing.T, sh *keyspace.Shard, want string, args ...string) {
	t.Helper()
	if got := srvRun(sh, 3, args...); got != want {
		t.Errorf("RESP3 %q:\n got %q\nwant %q", args, got, want)
	}
}

// srvGetInfo2 is COMMAND INFO get in RESP2, in Redis 7's shape.
const srvGetInfo2 = "*10\r\n$3\r\nget\r\n:2\r\n" +
	"*2\r\n+readonly\r\n+fast\r\n" +
	":1\r\n:1\r\n:1\r\n" +
	"*3\r\n+@read\r\n+@string\r\n+@fast\r\n" +
	"*0\r\n" +
	"*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n" +
	"$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n" +
	"$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n" +
	"*0\r\n"

// srvGetInfo3 is the same in RESP3: flags, categories and tips are sets, key
// specs maps.
const srvGetInfo3 = "*10\r\n$3\r\nget\r\n:2\r\n" +
	"~2\r\n+readonly\r\n+fast\r\n" +
	":1\r\n:1\r\n:1\r\n" +
	"~3\r\n+@read\r\n+@string\r\n+@fast\r\n" +
	"~0\r\n" +
	"~1\r\n%3\r\n$5\r\nflags\r\n~2\r\n+RO\r\n+access\r\n" +
	"$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%1\r\n$5\r\nindex\r\n:1\r\n" +
	"$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n%3\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n" +
	"~0\r\n"

func TestCommandCountAndInfo(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, ":"+strconv.Itoa(len(sh.Srv.Cmds))+"\r\n", "COMMAND", "COUNT")
	srvExpect(t, sh, "*1\r\n"+srvGetInfo2, "command", "info", "GET")
	srvExpect3(t, sh, "*1\r\n"+srvGetInfo3, "COMMAND", "INFO", "get")
	srvExpect(t, sh, "*2\r\n$-1\r\n"+srvGetInfo2, "COMMAND", "INFO", "nosuch", "get")
	srvExpect3(t, sh, "*1\r\n_\r\n", "COMMAND", "INFO", "nosuch")

	// A key range to the last argument with a step: MSET.
	got := srvRun(sh, 2, "COMMAND", "INFO", "mset")
	if !strings.HasPrefix(got, "*1\r\n*10\r\n$4\r\nmset\r\n:-3\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:-1\r\n:2\r\n") ||
		!strings.Contains(got, "$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:2\r\n") {
		t.Errorf("COMMAND INFO mset: %q", got)
	}

	// A container lists its subcommands, named container|sub.
	got = srvRun(sh, 2, "COMMAND", "INFO", "config")
	for _, sub := range []string{"config|get", "config|set", "config|resetstat", "config|rewrite", "config|help"} {
		if !strings.Contains(got, rBulk(sub)) {
			t.Errorf("COMMAND INFO config lacks %s: %q", sub, got)
		}
	}
	got = srvRun(sh, 2, "COMMAND", "INFO", "CONFIG|GET")
	if !strings.HasPrefix(got, "*1\r\n*10\r\n$10\r\nconfig|get\r\n:-3\r\n*4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n") {
		t.Errorf("COMMAND INFO config|get: %q", got)
	}

	// COMMAND and COMMAND INFO without names describe every command.
	all := srvRun(sh, 2, "COMMAND")
	if !strings.HasPrefix(all, "*"+strconv.Itoa(len(sh.Srv.Cmds))+"\r\n") || !strings.Contains(all, srvGetInfo2) {
		t.Errorf("COMMAND: %.200q", all)
	}
	srvExpect(t, sh, all, "COMMAND", "INFO")
}

func TestCommandDocs(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	get := sh.Srv.Cmds["get"]
	docs := "%1\r\n$3\r\nget\r\n%5\r\n" +
		"$7\r\nsummary\r\n" + rBulk(get.Summary) +
		"$5\r\nsince\r\n$5\r\n1.0.0\r\n" +
		"$5\r\ngroup\r\n$6\r\nstring\r\n" +
		"$10\r\ncomplexity\r\n$4\r\nO(1)\r\n" +
		"$9\r\narguments\r\n*1\r\n%3\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n"
	srvExpect3(t, sh, docs, "COMMAND", "DOCS", "get", "nosuch")
	docs2 := strings.NewReplacer("%1", "*2", "%5", "*10", "%3", "*6").Replace(docs)
	srvExpect(t, sh, docs2, "COMMAND", "DOCS", "get")
	srvExpect3(t, sh, "%0\r\n", "COMMAND", "DOCS", "nosuch")

	got := srvRun(sh, 3, "COMMAND", "DOCS", "ruvio")
	want := "%1\r\n$5\r\nruvio\r\n%5\r\n"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "$11\r\nsubcommands\r\n%3\r\n$10\r\nruvio|help\r\n") ||
		!strings.Contains(got, "$11\r\nruvio|owner\r\n") {
		t.Errorf("COMMAND DOCS ruvio: %q", got)
	}
	all := srvRun(sh, 3, "COMMAND", "DOCS")
	if !strings.HasPrefix(all, "%"+strconv.Itoa(len(sh.Srv.Cmds))+"\r\n") {
		t.Errorf("COMMAND DOCS: %.100q", all)
	}
}

func TestCommandListGetKeysHelp(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, "*3\r\n$6\r\nmemory\r\n$12\r\nmemory|purge\r\n$12\r\nmemory|usage\r\n", "COMMAND", "LIST", "FILTERBY", "PATTERN", "MEM*[ye]")
	// "[a-]" is the range ']'..'a' followed by an unclosed set, as Redis reads it:
	// "*[a-]ro" lists every command ending in r, o, ], ^, _, ` or a.
	if got := srvRun(sh, 2, "COMMAND", "LIST", "FILTERBY", "PATTERN", "*[a-]ro"); !strings.Contains(got, rBulk("info")) || !strings.Contains(got, rBulk("decr")) || strings.Contains(got, rBulk("get")) {
		t.Errorf("COMMAND LIST FILTERBY PATTERN *[a-]ro: %.200q", got)
	}
	srvExpect(t, sh, "*0\r\n", "COMMAND", "LIST", "FILTERBY", "MODULE", "json")
	srvExpect(t, sh, "*0\r\n", "COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch")
	got := srvRun(sh, 2, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "STRING")
	if !strings.Contains(got, rBulk("get")) || strings.Contains(got, rBulk("ping")) {
		t.Errorf("COMMAND LIST FILTERBY ACLCAT string: %q", got)
	}
	all := srvRun(sh, 2, "COMMAND", "LIST")
	if !strings.Contains(all, rBulk("config|get")) || !strings.Contains(all, rBulk("info")) {
		t.Errorf("COMMAND LIST: %q", all)
	}
	srvExpect(t, sh, "-ERR syntax error\r\n", "COMMAND", "LIST", "FILTERBY", "PATTERN")
	srvExpect(t, sh, "-ERR syntax error\r\n", "COMMAND", "LIST", "FILTERBY", "NAME", "x")

	srvExpect(t, sh, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2")
	srvExpect(t, sh, "*1\r\n$1\r\nk\r\n", "COMMAND", "GETKEYS", "memory", "usage", "k")
	// SET overwrites its key unread unless GET asks for the old value.
	srvExpect(t, sh, "*1\r\n*2\r\n$1\r\nk\r\n*2\r\n+OW\r\n+update\r\n", "COMMAND", "GETKEYSANDFLAGS", "set", "k", "v")
	srvExpect(t, sh, "*1\r\n*2\r\n$1\r\nk\r\n*3\r\n+RW\r\n+access\r\n+update\r\n", "COMMAND", "GETKEYSANDFLAGS", "set", "k", "v", "get")
	srvExpect(t, sh, "*2\r\n*2\r\n$1\r\na\r\n*2\r\n+RO\r\n+access\r\n*2\r\n$1\r\nb\r\n*2\r\n+OW\r\n+update\r\n", "COMMAND", "GETKEYSANDFLAGS", "copy", "a", "b")
	srvExpect(t, sh, "*1\r\n*2\r\n$1\r\nk\r\n*2\r\n+RM\r\n+delete\r\n", "COMMAND", "GETKEYSANDFLAGS", "del", "k")
	srvExpect(t, sh, "-ERR Invalid command specified\r\n", "COMMAND", "GETKEYS", "nosuch", "k")
	srvExpect(t, sh, "-ERR The command has no key arguments\r\n", "COMMAND", "GETKEYS", "ping", "x")
	srvExpect(t, sh, "-ERR Invalid number of arguments specified for command\r\n", "COMMAND", "GETKEYS", "get", "a", "b")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'command|getkeys' command\r\n", "COMMAND", "GETKEYS")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'command|getkeys' command\r\n", "COMMAND", "GETKEYS", "get")
	srvExpect(t, sh, "-ERR unknown subcommand 'nosuch'. Try COMMAND HELP.\r\n", "COMMAND", "nosuch")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'command|count' command\r\n", "COMMAND", "COUNT", "x")

	help := srvRun(sh, 2, "COMMAND", "HELP")
	if !strings.HasPrefix(help, "*21\r\n+COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+(no subcommand)\r\n") ||
		!strings.HasSuffix(help, "+HELP\r\n+    Prints this help.\r\n") {
		t.Errorf("COMMAND HELP: %q", help)
	}
}

// srvInfoText returns the text of an INFO reply in RESP2.
func srvInfoText(t *testing.T, sh *keyspace.Shard, args ...string) string {
	t.Helper()
	got := srvRun(sh, 2, append([]string{"INFO"}, args...)...)
	head, body, ok := strings.Cut(got, "\r\n")
	if !ok || head != "$"+strconv.Itoa(len(body)-2) || !strings.HasSuffix(body, "\r\n") {
		t.Fatalf("INFO %q: not a bulk string: %q", args, got)
	}
	return strings.TrimSuffix(body, "\r\n")
}

// srvInfoHeaders lists the section headers of an INFO text.
func srvInfoHeaders(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\r\n") {
		if strings.HasPrefix(l, "# ") {
			out = append(out, l[2:])
		}
	}
	return out
}

func TestInfoSections(t *testing.T) {
	sh, clock := srvTestShard(t, 1, 0, nil)
	def := srvInfoText(t, sh)
	want := []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Errorstats", "Cluster", "Keyspace"}
	if got := srvInfoHeaders(def); !slices.Equal(got, want) {
		t.Errorf("INFO sections: %q, want %q", got, want)
	}
	if !strings.HasPrefix(def, "# Server\r\nredis_version:7.0.15\r\n") || !strings.Contains(def, "\r\n\r\n# Clients\r\n") ||
		!strings.HasSuffix(def, "# Cluster\r\ncluster_enabled:0\r\n\r\n# Keyspace\r\n") {
		t.Errorf("INFO layout: %q", def)
	}
	for _, line := range []string{"redis_mode:standalone", "tcp_port:7000", "uptime_in_seconds:0", "hz:10", "run_id:" + sh.Srv.RunID(),
		"ruvio_version:" + keyspace.Version, "io_threads_active:0", "config_file:", "maxclients:10000", "blocked_clients:0",
		"tracking_clients:0", "maxmemory:0", "maxmemory_policy:noeviction", "loading:0", "aof_enabled:0",
		"rdb_bgsave_in_progress:0", "role:master", "connected_slaves:0", "master_repl_offset:0", "evicted_keys:0",
		"rdb_last_save_time:1700000000"} {
		if !strings.Contains(def, "\r\n"+line+"\r\n") {
			t.Errorf("INFO lacks %q", line)
		}
	}
	if got := srvInfoHeaders(srvInfoText(t, sh, "default")); !slices.Equal(got, want) {
		t.Errorf("INFO default sections: %q", got)
	}
	all := srvInfoHeaders(srvInfoText(t, sh, "ALL"))
	if len(all) != len(infoSections) {
		t.Errorf("INFO all sections: %q", all)
	}
	if got := srvInfoHeaders(srvInfoText(t, sh, "cpu", "SERVER")); !slices.Equal(got, []string{"Server", "CPU"}) {
		t.Errorf("INFO cpu server: %q", got)
	}
	srvExpect(t, sh, "$0\r\n\r\n", "INFO", "nosuch")
	srvExpect(t, sh, rBulk("# Cluster\r\ncluster_enabled:0\r\n"), "INFO", "cluster")
	srvExpect3(t, sh, "=34\r\ntxt:# Cluster\r\ncluster_enabled:0\r\n\r\n", "INFO", "cluster")

	// Keyspace: one line per non-empty database of this shard.
	srvExpect(t, sh, rBulk("# Keyspace\r\n"), "INFO", "keyspace")
	srvRun(sh, 2, "SET", "a", "1")
	srvRun(sh, 2, "SET", "b", "2", "PX", "5000")
	srvRun(sh, 2, "SELECT", "3")
	srvRun(sh, 2, "SET", "c", "3")
	srvExpect(t, sh, rBulk("# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=0\r\ndb3:keys=1,expires=0,avg_ttl=0\r\n"), "INFO", "keyspace")

	// Uptime follows the server clock; stats count commands.
	clock.ms.Add(2 * 86400 * 1000)
	srv := srvInfoText(t, sh, "server")
	if !strings.Contains(srv, "\r\nuptime_in_seconds:172800\r\nuptime_in_days:2\r\n") {
		t.Errorf("INFO server uptime: %q", srv)
	}
	stats := srvInfoText(t, sh, "stats")
	if !strings.Contains(stats, "\r\ntotal_commands_processed:") || !strings.Contains(stats, "\r\nkeyspace_hits:0\r\n") {
		t.Errorf("INFO stats: %q", stats)
	}
	mem := srvInfoText(t, sh, "memory")
	if !strings.Contains(mem, "\r\nused_memory:") || strings.Contains(mem, "used_memory:0\r\n") {
		t.Errorf("INFO memory: %q", mem)
	}
}

func TestInfoCluster(t *testing.T) {
	sh, _ := srvTestShard(t, 2, 1, nil)
	text := srvInfoText(t, sh, "server", "cluster")
	for _, line := range []string{"redis_mode:cluster", "tcp_port:7001", "cluster_enabled:1", "ruvio_shard:1", "ruvio_shards:2"} {
		if !strings.Contains(text, line+"\r\n") {
			t.Errorf("INFO on shard 1 of 2 lacks %q: %q", line, text)
		}
	}
}

func TestBytesToHuman(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{{0, "0B"}, {1023, "1023B"}, {1024, "1.00K"}, {1536, "1.50K"}, {3 << 20, "3.00M"}, {5 << 30, "5.00G"}, {3 << 50, "3.00P"}, {1 << 60, "1152921504606846976B"}} {
		if got := bytesToHuman(c.n); got != c.want {
			t.Errorf("bytesToHuman(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestConfigCommand(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n", "CONFIG", "GET", "maxclients")
	srvExpect3(t, sh, "%1\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n", "CONFIG", "GET", "maxclients")
	srvExpect(t, sh, "*0\r\n", "CONFIG", "GET", "nosuch")
	srvExpect(t, sh, "*4\r\n$2\r\nhz\r\n$2\r\n10\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n", "config", "get", "hz", "maxclients", "hz")

	srvExpect(t, sh, "+OK\r\n", "CONFIG", "SET", "hz", "20", "maxclients", "50")
	srvExpect(t, sh, "*2\r\n$2\r\nhz\r\n$2\r\n20\r\n", "CONFIG", "GET", "hz")
	if got := sh.Srv.Opts.Live.MaxClients(); got != 50 {
		t.Errorf("maxclients after CONFIG SET: %d", got)
	}
	srvExpect(t, sh, "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n", "CONFIG", "SET", "nosuch", "1")
	srvExpect(t, sh, "-ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config\r\n", "CONFIG", "SET", "databases", "3")
	srvExpect(t, sh, "-ERR syntax error\r\n", "CONFIG", "SET", "hz", "1", "maxclients")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'config|set' command\r\n", "CONFIG", "SET", "hz")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'config|get' command\r\n", "CONFIG", "GET")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'config' command\r\n", "CONFIG")
	srvExpect(t, sh, "-ERR unknown subcommand 'foo'. Try CONFIG HELP.\r\n", "CONFIG", "foo")
	srvExpect(t, sh, "-ERR The server is running without a config file\r\n", "CONFIG", "REWRITE")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'config|help' command\r\n", "CONFIG", "HELP", "x")
	help := srvRun(sh, 2, "CONFIG", "HELP")
	if !strings.HasPrefix(help, "*11\r\n+CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+GET <pattern>\r\n") {
		t.Errorf("CONFIG HELP: %q", help)
	}

	srvRun(sh, 2, "GET", "missing")
	if !strings.Contains(srvInfoText(t, sh, "stats"), "\r\nkeyspace_misses:1\r\n") {
		t.Errorf("keyspace_misses not counted")
	}
	srvExpect(t, sh, "+OK\r\n", "CONFIG", "RESETSTAT")
	stats := srvInfoText(t, sh, "stats")
	if !strings.Contains(stats, "\r\nkeyspace_misses:0\r\n") || !strings.Contains(stats, "\r\ntotal_commands_processed:1\r\n") {
		t.Errorf("INFO stats after RESETSTAT: %q", stats)
	}
}

func TestDebugCommand(t *testing.T) {
	sh, clock := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "SLEEP", "0")
	clock.ms.Add(1500)
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "sleep", "0.001")
	if sh.NowMs != clock.ms.Load() {
		t.Errorf("DEBUG SLEEP did not refresh the shard clock: %d, want %d", sh.NowMs, clock.ms.Load())
	}
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	if sh.ActiveExpireOn.Load() {
		t.Error("DEBUG SET-ACTIVE-EXPIRE 0 left active expiry on")
	}
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	if !sh.ActiveExpireOn.Load() {
		t.Error("DEBUG SET-ACTIVE-EXPIRE 1 left active expiry off")
	}
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "LOG", "hello")
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "CHANGE-REPL-ID")
	srvExpect(t, sh, "-ERR unknown subcommand or wrong number of arguments for 'JMAP'. Try DEBUG HELP.\r\n", "DEBUG", "JMAP")
	srvExpect(t, sh, "-ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG HELP.\r\n", "DEBUG", "sleep")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'debug' command\r\n", "DEBUG")
	srvExpect(t, sh, "-ERR no such key\r\n", "DEBUG", "OBJECT", "missing")
	srvRun(sh, 2, "SET", "k", "12345")
	srvExpect(t, sh, "+Value at:0x0 refcount:1 encoding:"+encodingName(sh.DBs[0], sh.DBs[0].FindString("k"))+" serializedlength:3 lru:0 lru_seconds_idle:0\r\n", "DEBUG", "OBJECT", "k")
	if help := srvRun(sh, 2, "DEBUG", "HELP"); !strings.HasPrefix(help, "*24\r\n+DEBUG <subcommand>") {
		t.Errorf("DEBUG HELP: %q", help)
	}
}

func TestRuvioCommand(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, "*4\r\n$5\r\nruvio\r\n"+rBulk(keyspace.Version)+"$6\r\nshards\r\n:1\r\n", "RUVIO")
	srvExpect3(t, sh, "%2\r\n$5\r\nruvio\r\n"+rBulk(keyspace.Version)+"$6\r\nshards\r\n:1\r\n", "ruvio")
	slot := strconv.Itoa(int(cluster.KeySlot([]byte("foo"))))
	srvExpect(t, sh, "*6\r\n$4\r\nslot\r\n:"+slot+"\r\n$5\r\nshard\r\n:0\r\n$7\r\naddress\r\n$14\r\n127.0.0.1:7000\r\n", "RUVIO", "OWNER", "foo")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'ruvio|owner' command\r\n", "RUVIO", "OWNER")
	srvExpect(t, sh, "-ERR unknown subcommand 'nope'. Try RUVIO HELP.\r\n", "RUVIO", "nope")
	if help := srvRun(sh, 2, "RUVIO", "HELP"); !strings.HasPrefix(help, "*10\r\n+RUVIO <subcommand>") {
		t.Errorf("RUVIO HELP: %q", help)
	}

	// With two shards any shard answers for any key.
	sh2, _ := srvTestShard(t, 2, 0, nil)
	srvExpect(t, sh2, "*4\r\n$5\r\nruvio\r\n"+rBulk(keyspace.Version)+"$6\r\nshards\r\n:2\r\n", "RUVIO")
	srvExpect3(t, sh2, "%3\r\n$4\r\nslot\r\n:"+slot+"\r\n$5\r\nshard\r\n:1\r\n$7\r\naddress\r\n$14\r\n127.0.0.1:7001\r\n", "RUVIO", "OWNER", "foo")
}

func TestWaitCommand(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, ":0\r\n", "WAIT", "0", "0")
	// WAIT 1 t parks the client until a replica acknowledges or t passes:
	// integration/replication_test.go runs it against real replicas.
	srvExpect(t, sh, "-ERR value is not an integer or out of range\r\n", "WAIT", "x", "0")
	srvExpect(t, sh, "-ERR timeout is not an integer or out of range\r\n", "WAIT", "0", "1.5")
	srvExpect(t, sh, "-ERR timeout is negative\r\n", "WAIT", "0", "-1")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'wait' command\r\n", "WAIT", "0")
}

func TestMemoryDiagnosis(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name                                    string
		used, peak, processUsed, rss, maxmemory int64
		want                                    []string
	}{
		{"empty", 1 * mb, 1 * mb, 1 * mb, 8 * mb, 0, []string{"very little memory"}},
		{"healthy", 50 * mb, 60 * mb, 50 * mb, 60 * mb, 0, []string{"No memory problem"}},
		{"peak", 50 * mb, 100 * mb, 50 * mb, 60 * mb, 0, []string{"Peak memory", "104857600"}},
		{"fragmentation", 50 * mb, 50 * mb, 50 * mb, 100 * mb, 0, []string{"High fragmentation", "2.00 times"}},
		{"maxmemory", 95 * mb, 95 * mb, 95 * mb, 100 * mb, 100 * mb, []string{"Near maxmemory"}},
	} {
		got := memoryDiagnosis(c.used, c.peak, c.processUsed, c.rss, c.maxmemory)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: report lacks %q:\n%s", c.name, w, got)
			}
		}
	}
}

func TestMemoryCommand(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvRun(sh, 2, "SET", "key", "value")
	// A 3-byte key with a 5-byte value: one allocation of header, key and
	// value rounded up to its size class, plus its 8-byte index slot.
	want := strconv.Itoa(keyspace.ClassSize(keyspace.SizeClass(keyspace.EntryHeader+3+5)) + 8)
	srvExpect(t, sh, ":"+want+"\r\n", "MEMORY", "USAGE", "key")
	srvExpect(t, sh, ":"+want+"\r\n", "MEMORY", "USAGE", "key", "SAMPLES", "0")
	srvExpect(t, sh, "$-1\r\n", "MEMORY", "USAGE", "missing")
	srvExpect(t, sh, "+OK\r\n", "MEMORY", "PURGE")
	srvExpect3(t, sh, "_\r\n", "MEMORY", "USAGE", "missing")
	srvExpect(t, sh, "-ERR syntax error\r\n", "MEMORY", "USAGE", "key", "SAMPLES", "-1")
	srvExpect(t, sh, "-ERR syntax error\r\n", "MEMORY", "USAGE", "key", "SAMPLES")
	srvExpect(t, sh, "-ERR value is not an integer or out of range\r\n", "MEMORY", "USAGE", "key", "SAMPLES", "x")
	srvExpect(t, sh, "$105\r\nThis instance is empty or uses very little memory (under 5 MB): there is not enough for a diagnosis yet.\n\r\n", "MEMORY", "doctor")
	srvExpect(t, sh, "-ERR unknown subcommand 'nosuch'. Try MEMORY HELP.\r\n", "MEMORY", "nosuch")

	// With two shards a key of another shard is redirected.
	sh2, _ := srvTestShard(t, 2, 0, nil)
	slot := strconv.Itoa(int(cluster.KeySlot([]byte("foo"))))
	srvExpect(t, sh2, "-MOVED "+slot+" 127.0.0.1:7001\r\n", "MEMORY", "USAGE", "foo")
}

func TestShutdownCommand(t *testing.T) {
	called := make(chan struct{}, 1)
	sh, _ := srvTestShard(t, 1, 0, func() { called <- struct{}{} })
	srvExpect(t, sh, "-ERR syntax error\r\n", "SHUTDOWN", "SAVE", "NOSAVE")
	srvExpect(t, sh, "-ERR syntax error\r\n", "SHUTDOWN", "ABORT", "NOW")
	srvExpect(t, sh, "-ERR syntax error\r\n", "SHUTDOWN", "later")
	srvExpect(t, sh, "-ERR No shutdown in progress.\r\n", "SHUTDOWN", "ABORT")
	if sh.Ctx.Batch.CloseAfter {
		t.Fatal("a refused SHUTDOWN closed the connection")
	}
	srvExpect(t, sh, "", "SHUTDOWN", "NOSAVE", "NOW")
	if !sh.Ctx.Batch.CloseAfter {
		t.Error("SHUTDOWN did not close the caller's connection")
	}
	select {
	case <-called:
	case <-time.After(5 * time.Second):
		t.Fatal("SHUTDOWN did not call OnShutdown")
	}
}

// TestCompatibilityMatrixFresh fails when docs/compatibility-matrix.json
// is not what the command table generates. Run with -update (or
// RUVIO_UPDATE_MATRIX=1), or go generate ./commands, to rewrite it.
func TestCompatibilityMatrixFresh(t *testing.T) {
	want, err := CompatibilityMatrix()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(want, []byte("}\n")) {
		t.Errorf("matrix does not end in a newline")
	}
	path := filepath.Join("..", filepath.FromSlash(MatrixPath))
	if srvUpdateGoldens() {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it with RUVIO_UPDATE_MATRIX=1 go test ./commands -run TestCompatibilityMatrixFresh)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: regenerate it with go generate ./commands or RUVIO_UPDATE_MATRIX=1 go test ./commands -run TestCompatibilityMatrixFresh", MatrixPath)
	}
}

func TestCompatibilityMatrixCoversTable(t *testing.T) {
	data, err := CompatibilityMatrix()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range newCommandTable() {
		if !bytes.Contains(data, []byte(`"name": "`+name+`"`)) {
			t.Errorf("matrix lacks %s", name)
		}
		for _, sc := range c.Subcommands {
			if !bytes.Contains(data, []byte(`"name": "`+sc.FullName()+`"`)) {
				t.Errorf("matrix lacks %s", sc.FullName())
			}
		}
	}
}

// Every HELP reply ends as Redis 7.0's addReplyHelp ends it.
func TestHelpRepliesEndLikeRedis(t *testing.T) {
	sh := newTestShard(t)
	for _, cmd := range [][]string{{"CLIENT", "HELP"}, {"PUBSUB", "HELP"}, {"COMMAND", "HELP"}, {"OBJECT", "HELP"}, {"XINFO", "HELP"}, {"XGROUP", "HELP"}, {"CONFIG", "HELP"}} {
		got := run(t, sh, cmd...)
		if !strings.HasSuffix(got, "+HELP\r\n+    Prints this help.\r\n") {
			t.Errorf("%v ends with %q", cmd, got[max(0, len(got)-60):])
		}
	}
}
