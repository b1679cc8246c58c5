package config

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
)

func get1(t *testing.T, l *Live, name string) string {
	t.Helper()
	r := l.Get(name)
	if len(r) != 1 {
		t.Fatalf("Get(%q) = %q, want one pair", name, r)
	}
	return r[0][1]
}

func TestLiveInitialValues(t *testing.T) {
	c := Default()
	c.Server.Shards = 3
	c.Server.RequirePass = "pw"
	c.Log.Level = "warn"
	l := NewLive(c)
	for name, want := range map[string]string{
		"port": "6379", "bind": "127.0.0.1", "databases": "16", "cluster-enabled": "yes",
		"maxclients": "10000", "timeout": "0", "requirepass": "pw", "protected-mode": "yes",
		"proto-max-bulk-len": "536870912", "client-query-buffer-limit": "1073741824",
		"client-output-buffer-limit":       "normal 268435456 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		"ruvio-client-output-buffer-limit": "268435456",
		"hz":                               "10", "active-expire-effort": "1", "loglevel": "warning",
		"appendonly": "yes", "appendfsync": "everysec", "save": "", "maxmemory": "0",
		"maxmemory-policy": "noeviction", "list-max-ziplist-size": "-2", "list-max-listpack-size": "-2",
		"set-max-intset-entries": "512", "hash-max-ziplist-entries": "512", "hash-max-ziplist-value": "64",
		"zset-max-ziplist-entries": "128", "zset-max-ziplist-value": "64", "stream-node-max-bytes": "4096",
		"stream-node-max-entries": "100", "latency-tracking": "yes", "slowlog-log-slower-than": "10000",
		"slowlog-max-len": "128", "notify-keyspace-events": "", "lua-time-limit": "5000",
		"busy-reply-threshold": "5000", "activedefrag": "no", "replica-read-only": "yes",
		"slave-read-only": "yes", "appendfilename": "appendonly.aof", "dbfilename": "dump.rdb",
		"lazyfree-lazy-user-del": "no", "lazyfree-lazy-user-flush": "no",
	} {
		if got := get1(t, l, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := get1(t, NewLive(Default()), "cluster-enabled"); got != "no" {
		t.Errorf("one shard: cluster-enabled = %q", got)
	}
	if d := get1(t, l, "dir"); d == "" || d[0] != '/' {
		t.Errorf("dir = %q, want an absolute path", d)
	}
	if l.MaxClients() != 10000 || l.Timeout() != 0 || l.ProtoMaxBulkLen() != 512*MiB ||
		l.ClientQueryBufferLimit() != GiB || l.ClientOutputBufferLimit() != 256*MiB ||
		l.RequirePass() != "pw" || !l.ProtectedMode() || !l.ActiveExpire() || l.Hz() != 10 ||
		l.ActiveExpireEffort() != 1 || l.Databases() != 16 || l.Fsync() != "everysec" ||
		l.Dir() != "data" || l.NotifyKeyspaceEvents() != "" || l.LogLevel().Level() != zapcore.WarnLevel {
		t.Error("typed getters disagree with the config")
	}
}

func TestLiveGet(t *testing.T) {
	l := NewLive(Default())
	names := func(r [][2]string) []string {
		var out []string
		for _, p := range r {
			out = append(out, p[0])
		}
		return out
	}
	cases := []struct {
		pattern string
		want    []string
	}{
		{"maxclients", []string{"maxclients"}},
		{"MAXCLIENTS", []string{"maxclients"}},
		{"lua-time-limit", []string{"lua-time-limit"}},
		{"no-such", nil},
		{"hash-max-*", []string{"hash-max-listpack-entries", "hash-max-ziplist-entries", "hash-max-listpack-value", "hash-max-ziplist-value"}},
		{"*-max-ziplist-*", []string{"list-max-ziplist-size", "hash-max-ziplist-entries", "hash-max-ziplist-value", "zset-max-ziplist-entries", "zset-max-ziplist-value"}},
		{"MAXMEMORY*", []string{"maxmemory", "maxmemory-policy", "maxmemory-samples", "maxmemory-clients"}},
		{"?z", []string{"hz"}},
		{"[a-d]ir", []string{"dir"}},
		{"[^d]ir", nil},
		{"appendf*", []string{"appendfsync", "appendfilename"}},
	}
	for _, tc := range cases {
		if got := names(l.Get(tc.pattern)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Get(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
	all := l.Get("*")
	seen := map[string]bool{}
	for _, p := range all {
		if seen[p[0]] {
			t.Errorf("Get(*) lists %s twice", p[0])
		}
		seen[p[0]] = true
	}
	hidden := 0
	for i := range params {
		if params[i].hidden {
			hidden++
		}
	}
	if len(all) != len(paramIndex)-hidden {
		t.Errorf("Get(*) has %d names, table has %d names and aliases (%d hidden)", len(all), len(paramIndex), hidden)
	}
	if got := names(l.GetMulti([]string{"hz", "h?", "maxclients", "hz"})); !reflect.DeepEqual(got, []string{"hz", "maxclients"}) {
		t.Errorf("GetMulti = %q", got)
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		want   bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abbbc", true}, {"a*c", "abcd", false},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"*b*", "abc", true}, {"**x", "x", true},
		{"[abc]x", "bx", true}, {"[abc]x", "dx", false}, {"[^abc]x", "dx", true}, {"[a-c]", "B", true},
		{"[c-a]", "b", true}, {`a\*b`, "a*b", true}, {`a\*b`, "axb", false}, {"ABC", "abc", true},
		{"h[ae]llo", "hello", true}, {"*ll*", "hello", true}, {"*o", "hello", true}, {"x*y*z", "xaaybbz", true},
		{"x*y*z", "xaaybb", false}, {"[]", "a", false}, {`[\]]`, "]", true},
	}
	for _, tc := range cases {
		if got := GlobMatch(tc.pat, tc.s); got != tc.want {
			t.Errorf("GlobMatch(%q, %q) = %v", tc.pat, tc.s, got)
		}
	}
}

// TestLiveCommitDelay: ruvio-commit-delay-max-us starts at the configured
// value, follows CONFIG SET in microseconds and refuses values out of range.
func TestLiveCommitDelay(t *testing.T) {
	c := Default()
	l := NewLive(c)
	if l.CommitDelayMax() != DefaultCommitDelayMaxUs*time.Microsecond || get1(t, l, "ruvio-commit-delay-max-us") != "100" {
		t.Fatalf("default: %v, %q", l.CommitDelayMax(), get1(t, l, "ruvio-commit-delay-max-us"))
	}
	c.Persistence.CommitDelayMaxUs = 0
	if l := NewLive(c); l.CommitDelayMax() != 0 {
		t.Fatalf("from a config of 0: %v", l.CommitDelayMax())
	}
	if err := l.Set([][2]string{{"ruvio-commit-delay-max-us", "250"}}); err != nil {
		t.Fatal(err)
	}
	if l.CommitDelayMax() != 250*time.Microsecond || get1(t, l, "ruvio-commit-delay-max-us") != "250" {
		t.Fatalf("after SET 250: %v", l.CommitDelayMax())
	}
	for _, v := range []string{"-1", "100001", "1ms"} {
		if err := l.Set([][2]string{{"ruvio-commit-delay-max-us", v}}); err == nil {
			t.Errorf("SET ruvio-commit-delay-max-us %s accepted", v)
		}
	}
	if l.CommitDelayMax() != 250*time.Microsecond {
		t.Fatalf("a refused SET changed the value: %v", l.CommitDelayMax())
	}
}

func TestLiveSet(t *testing.T) {
	l := NewLive(Default())
	if err := l.Set([][2]string{
		{"maxclients", "50"}, {"timeout", "7"}, {"requirepass", "x"}, {"protected-mode", "NO"},
		{"proto-max-bulk-len", "2mb"}, {"client-query-buffer-limit", "1GB"},
		{"ruvio-client-output-buffer-limit", "0"}, {"hz", "1000"}, {"active-expire-effort", "10"},
		{"appendfsync", "EVERYSEC"}, {"ruvio-active-expire", "no"}, {"loglevel", "debug"},
		{"list-max-ziplist-size", "16"}, {"hash-max-ziplist-value", "1k"}, {"save", ""},
		{"notify-keyspace-events", "KEA"}, {"maxmemory-policy", "NoEviction"}, {"maxmemory", "0"},
	}); err != nil {
		t.Fatal(err)
	}
	if l.MaxClients() != 50 || l.Timeout() != 7*time.Second || l.RequirePass() != "x" || l.ProtectedMode() ||
		l.ProtoMaxBulkLen() != 2*MiB || l.ClientQueryBufferLimit() != GiB || l.ClientOutputBufferLimit() != 0 ||
		l.Hz() != 500 || l.ActiveExpireEffort() != 10 || l.Fsync() != "everysec" || l.ActiveExpire() ||
		l.LogLevel().Level() != zapcore.DebugLevel || l.NotifyKeyspaceEvents() != "AKE" {
		t.Error("typed getters did not follow Set")
	}
	for name, want := range map[string]string{
		"protected-mode": "no", "proto-max-bulk-len": "2097152", "hz": "500", "appendfsync": "everysec",
		"list-max-listpack-size": "16", "hash-max-listpack-value": "1000", "notify-keyspace-events": "AKE",
		"maxmemory-policy": "noeviction", "loglevel": "debug",
	} {
		if got := get1(t, l, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestLiveSetSpecial(t *testing.T) {
	l := NewLive(Default())
	set := func(name, v string) error { return l.Set([][2]string{{name, v}}) }
	if err := set("client-output-buffer-limit", "pubsub 0 0 0"); err != nil {
		t.Fatal(err)
	}
	if err := set("client-output-buffer-limit", "replica 1mb 2k 5 normal 1 2 3"); err != nil {
		t.Fatal(err)
	}
	if got, want := get1(t, l, "client-output-buffer-limit"), "normal 1 2 3 slave 1048576 2000 5 pubsub 0 0 0"; got != want {
		t.Errorf("client-output-buffer-limit = %q, want %q", got, want)
	}
	if err := set("save", " "); err != nil {
		t.Fatal(err)
	}
	if got := get1(t, l, "save"); got != "" || l.SavePoints() != nil && len(l.SavePoints()) != 0 {
		t.Errorf("save = %q, points %v", got, l.SavePoints())
	}
	if err := set("save", "3600  1 300 100"); err != nil {
		t.Fatal(err)
	}
	if got, pts := get1(t, l, "save"), l.SavePoints(); got != "3600 1 300 100" || len(pts) != 2 || pts[1] != (SavePoint{300, 100}) {
		t.Errorf("save = %q, points %v", got, pts)
	}
	for in, want := range map[string]string{"": "", "Ex": "xE", "g$lshzxetd": "A", "AKEmn": "AKEmn", "lsKm": "lsKm"} {
		if err := set("notify-keyspace-events", in); err != nil {
			t.Fatal(err)
		}
		if got := l.NotifyKeyspaceEvents(); got != want {
			t.Errorf("notify-keyspace-events %q reads back %q, want %q", in, got, want)
		}
	}
}

func TestLiveSetErrors(t *testing.T) {
	l := NewLive(Default())
	cases := []struct {
		pairs [][2]string
		want  string
	}{
		{[][2]string{{"foo", "1"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{[][2]string{{"maxclients", "abc"}}, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer"},
		{[][2]string{{"MaxClients", "0"}}, "ERR CONFIG SET failed (possibly related to argument 'MaxClients') - argument must be between 1 and 4294967295 inclusive"},
		{[][2]string{{"maxclients", "+5"}}, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer"},
		{[][2]string{{"maxclients", "05"}}, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer"},
		{[][2]string{{"databases", "2"}}, "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config"},
		{[][2]string{{"dir", "/tmp"}}, "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"},
		{[][2]string{{"dbfilename", "dump.rdb"}}, "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config"},
		{[][2]string{{"enable-debug-command", "yes"}}, "ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config"},
		{[][2]string{{"enable-protected-configs", "yes"}}, "ERR CONFIG SET failed (possibly related to argument 'enable-protected-configs') - can't set immutable config"},
		{[][2]string{{"maxmemory", "x"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"},
		{[][2]string{{"maxmemory-policy", "lru"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"},
		{[][2]string{{"maxmemory-samples", "65"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-samples') - argument must be between 1 and 64 inclusive"},
		{[][2]string{{"cluster-enabled", "yes"}}, "ERR CONFIG SET failed (possibly related to argument 'cluster-enabled') - can't set immutable config"},
		{[][2]string{{"hz", "5"}, {"HZ", "6"}}, "ERR CONFIG SET failed (possibly related to argument 'HZ') - duplicate parameter"},
		{[][2]string{{"list-max-listpack-size", "5"}, {"list-max-ziplist-size", "6"}}, "ERR CONFIG SET failed (possibly related to argument 'list-max-ziplist-size') - duplicate parameter"},
		{[][2]string{{"protected-mode", "maybe"}}, "ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'"},
		{[][2]string{{"appendfsync", "sometimes"}}, "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must be one of the following: always, everysec, no"},
		{[][2]string{{"appendfsync", "always"}}, "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - can't set immutable config: the WAL fsync policy is chosen at start (persistence.fsync in the configuration file)"},
		{[][2]string{{"proto-max-bulk-len", "1k"}}, "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between 1048576 and 9223372036854775807 inclusive"},
		{[][2]string{{"proto-max-bulk-len", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be a memory value"},
		{[][2]string{{"active-expire-effort", "11"}}, "ERR CONFIG SET failed (possibly related to argument 'active-expire-effort') - argument must be between 1 and 10 inclusive"},
		{[][2]string{{"save", "100"}}, "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"},
		{[][2]string{{"save", "0 1"}}, "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"},
		{[][2]string{{"client-output-buffer-limit", "normal 0 0"}}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Wrong number of arguments in buffer limit configuration."},
		{[][2]string{{"client-output-buffer-limit", "master 0 0 0"}}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Invalid client class specified in buffer limit configuration."},
		{[][2]string{{"client-output-buffer-limit", "normal x 0 0"}}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{[][2]string{{"notify-keyspace-events", "Q"}}, "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'."},
		// The first problem in argument order wins.
		{[][2]string{{"databases", "1"}, {"foo", "1"}}, "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config"},
		{[][2]string{{"foo", "1"}, {"port", "1"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{[][2]string{{"hz", "x"}, {"bar", "1"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'bar'"},
	}
	before := l.Get("*")
	for _, tc := range cases {
		err := l.Set(tc.pairs)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Set(%q) = %v\nwant %s", tc.pairs, err, tc.want)
		}
	}
	if after := l.Get("*"); !reflect.DeepEqual(before, after) {
		t.Error("failed Set calls changed values")
	}
}

// A Set that fails on its last pair changes nothing, not even the pairs before it.
func TestLiveSetAllOrNothing(t *testing.T) {
	l := NewLive(Default())
	err := l.Set([][2]string{{"maxclients", "5"}, {"appendfsync", "no"}, {"hz", "50"}, {"timeout", "-1"}})
	if err == nil {
		t.Fatal("want an error")
	}
	if l.MaxClients() != 10000 || l.Fsync() != "everysec" || l.Hz() != 10 || l.Timeout() != 0 {
		t.Error("a failed Set changed a getter")
	}
	if get1(t, l, "maxclients") != "10000" || get1(t, l, "hz") != "10" {
		t.Error("a failed Set changed a value")
	}
}

func TestLiveConcurrent(t *testing.T) {
	l := NewLive(Default())
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_ = l.Set([][2]string{{"maxclients", "100"}, {"appendfsync", "no"}, {"requirepass", "p"}})
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_ = l.MaxClients() + len(l.Fsync()) + len(l.RequirePass()) + len(l.Get("*max*"))
			}
		}()
	}
	wg.Wait()
}

// appendonly cannot change while the server runs: setting its current value is accepted
// (CONFIG GET * followed by CONFIG SET of each pair round-trips), any other value is refused
// as immutable and nothing of the call is applied. bind and port change when the listener
// hook moves the listeners, and a hook's refusal fails the whole call with Redis's reason.
func TestLiveSetFixedParams(t *testing.T) {
	l := NewLive(Default())
	var moved []Listeners
	failListen := true
	l.SetListenerHook(func(ls Listeners) error {
		if failListen {
			return errors.New("busy")
		}
		moved = append(moved, ls)
		return nil
	})
	port, bind, aof := get1(t, l, "port"), get1(t, l, "bind"), get1(t, l, "appendonly")
	if err := l.Set([][2]string{{"port", port}, {"bind", bind}, {"appendonly", strings.ToUpper(aof)}, {"hz", "20"}}); err != nil {
		t.Fatalf("setting current values: %v", err)
	}
	if l.Hz() != 20 {
		t.Errorf("hz = %d, want 20", l.Hz())
	}
	err := l.Set([][2]string{{"hz", "30"}, {"port", "1"}})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs." {
		t.Errorf("port change: %v", err)
	}
	err = l.Set([][2]string{{"hz", "30"}, {"bind", "  127.0.0.1   -::1 "}})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses." {
		t.Errorf("bind change: %v", err)
	}
	if l.Hz() != 20 || get1(t, l, "port") != port || get1(t, l, "bind") != bind {
		t.Error("a refused Set changed values")
	}
	failListen = false
	if err := l.Set([][2]string{{"bind", "  127.0.0.1   -::1 "}, {"port", "7000"}, {"hz", "30"}}); err != nil {
		t.Fatal(err)
	}
	if want := []Listeners{{Bind: "127.0.0.1 -::1", Port: 7000}}; !reflect.DeepEqual(moved, want) {
		t.Errorf("hook saw %+v, want %+v", moved, want)
	}
	if got := l.Listeners(); got != moved[0] || get1(t, l, "bind") != "127.0.0.1 -::1" || l.Hz() != 30 {
		t.Errorf("Listeners() = %+v, bind %q", got, get1(t, l, "bind"))
	}
	for _, pr := range [][2]string{{"daemonize", "yes"}, {"daemonize", "no"}, {"replicaof", ""}, {"slaveof", "no one"}} {
		err := l.Set([][2]string{pr})
		want := "ERR CONFIG SET failed (possibly related to argument '" + pr[0] + "') - can't set immutable config"
		if err == nil || err.Error() != want {
			t.Errorf("Set(%q) = %v, want %s", pr, err, want)
		}
	}
}

// Every CONFIG GET * pair, set back, leaves the values unchanged (Redis's "CONFIG sanity"),
// except the immutable ones, which refuse.
func TestLiveSetRoundTrip(t *testing.T) {
	l := NewLive(Default())
	before := l.Get("*")
	for _, pr := range before {
		i, _ := lookupParam(pr[0])
		err := l.Set([][2]string{pr})
		if params[i].immutable || params[i].protected {
			if err == nil {
				t.Errorf("immutable or protected %s accepted", pr[0])
			}
			continue
		}
		if err != nil {
			t.Errorf("Set(%q): %v", pr, err)
		}
	}
	if after := l.Get("*"); !reflect.DeepEqual(before, after) {
		t.Errorf("round trip changed values:\n%v\n%v", before, after)
	}
}

func TestLiveMaxmemoryClients(t *testing.T) {
	l := NewLive(Default())
	for in, want := range map[string]string{"0": "0", "10%": "10%", "100%": "100%", "1kb": "1024", "0%": "0%"} {
		if err := l.Set([][2]string{{"maxmemory-clients", in}}); err != nil {
			t.Fatalf("Set(%q): %v", in, err)
		}
		if got := get1(t, l, "maxmemory-clients"); got != want {
			t.Errorf("maxmemory-clients %q reads back %q, want %q", in, got, want)
		}
	}
	// The set phase fails on the first bad value; nothing is applied.
	_ = l.Set([][2]string{{"timeout", "7"}})
	err := l.Set([][2]string{{"timeout", "8"}, {"maxmemory-clients", "200%"}, {"client-query-buffer-limit", "invalid"}})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - percentage argument must be less or equal to 100" {
		t.Errorf("got %v", err)
	}
	if get1(t, l, "timeout") != "7" {
		t.Error("timeout changed")
	}
	for _, in := range []string{"x%", "-1%", "%", "abc"} {
		err := l.Set([][2]string{{"maxmemory-clients", in}})
		if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - argument must be a memory or percent value" {
			t.Errorf("Set(%q) = %v", in, err)
		}
	}
}

func TestLiveHiddenAndAliasGet(t *testing.T) {
	l := NewLive(Default())
	for _, pr := range l.Get("*") {
		if pr[0] == "key-load-delay" {
			t.Error("a pattern matched a hidden parameter")
		}
	}
	if got := l.Get("key-load-delay"); len(got) != 1 || got[0] != [2]string{"key-load-delay", "0"} {
		t.Errorf("exact get of a hidden parameter: %v", got)
	}
	got := l.GetMulti([]string{"maxmemory", "maxmemory*", "bind", "*of"})
	names := map[string]int{}
	for _, pr := range got {
		names[pr[0]]++
	}
	for _, n := range []string{"maxmemory", "maxmemory-samples", "maxmemory-clients", "bind", "replicaof", "slaveof"} {
		if names[n] != 1 {
			t.Errorf("%s appears %d times in %v", n, names[n], got)
		}
	}
}
