package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitRedisArgs(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`port 6379`, []string{"port", "6379"}},
		{"  save\t900  1 ", []string{"save", "900", "1"}},
		{`requirepass "a b\"c\\d\n\x41"`, []string{"requirepass", "a b\"c\\d\nA"}},
		{`requirepass 'it\'s "raw" \n'`, []string{"requirepass", `it's "raw" \n`}},
		{`save ""`, []string{"save", ""}},
		{`logfile ''`, []string{"logfile", ""}},
		{`a"b c"d`, nil}, // a closing quote must end the word
		{`x "open`, nil},
		{`x 'open`, nil},
		{`x "\xZZ"`, []string{"x", "xZZ"}},
	} {
		got, err := SplitRedisArgs(tc.line)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%q: got %q, want an error", tc.line, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
}

func TestParseRedisConfInclude(t *testing.T) {
	dir := t.TempDir()
	inc := filepath.Join(dir, "a.conf")
	if err := os.WriteFile(inc, []byte("maxclients 7\n# comment\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := []byte("PORT 1\ninclude " + filepath.Join(dir, "*.conf") + "\ntimeout 3\n")
	dirs, err := ParseRedisConf("main.conf", data, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range dirs {
		got = append(got, d.Where()+" "+d.Name+" "+strings.Join(d.Args, ","))
	}
	want := []string{"main.conf:1 port 1", inc + ":1 maxclients 7", "main.conf:3 timeout 3"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// A file including itself stops at the depth limit instead of recursing forever.
	self := filepath.Join(dir, "self.conf")
	if err := os.WriteFile(self, []byte("include "+self+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseRedisConf(self, []byte("include "+self+"\n"), os.ReadFile); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Fatalf("self include: %v", err)
	}
	if _, err := ParseRedisConf("m.conf", []byte("include "+filepath.Join(dir, "missing")+"\n"), os.ReadFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing include: %v", err)
	}
	if _, err := ParseRedisConf("m.conf", []byte("port 1\nport \"2\n"), os.ReadFile); err == nil || !strings.Contains(err.Error(), "m.conf:2: Unbalanced quotes") {
		t.Fatalf("unbalanced: %v", err)
	}
}

// applyRedis parses text as a Redis configuration file over the start values LoadRedisConf uses.
func applyRedis(t *testing.T, text string) (Config, []string, error) {
	t.Helper()
	dirs, err := ParseRedisConf("r.conf", []byte(text), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	c := Default()
	c.Persistence.Save = RedisDefaultSave
	notes, err := ApplyRedisDirectives(&c, dirs)
	return c, notes, err
}

func TestApplyRedisDirectives(t *testing.T) {
	c, notes, err := applyRedis(t, `
port 7000
port 7001
bind 10.0.0.1 -::1
maxmemory 1gb
maxmemory-policy ALLKEYS-LRU
protected-mode no
requirepass "p w"
databases 4
timeout 30
dir /tmp/x
appendonly yes
appendfsync always
save 900 1
save 60 100
loglevel warning
logfile /tmp/x.log
client-output-buffer-limit pubsub 64mb 16mb 90
slaveof 10.0.0.2 6380
masterauth sekret
notify-keyspace-events Ex
slowlog-max-len 64
lua-time-limit 100
hash-max-ziplist-entries 99
enable-debug-command yes
jemalloc-bg-thread yes
tls-port 0
user alice on >pw ~app:* +@read
slave-priority 10
replica-announce-ip 10.0.0.9
unixsocket /tmp/r.sock
unixsocketperm 770
enable-module-command yes
shutdown-on-sigterm force
`)
	if err != nil {
		t.Fatal(err)
	}
	s, p := c.Server, c.Persistence
	if s.Port != 7001 || s.Bind != "10.0.0.1 -::1" || s.ProtectedMode || s.RequirePass != "p w" || s.Databases != 4 || s.Timeout != 30 || s.EnableDebugCommand != DebugYes {
		t.Errorf("server: %+v", s)
	}
	if c.Memory.MaxMemory != GiB || c.Memory.MaxMemoryPolicy != "allkeys-lru" {
		t.Errorf("memory: %+v", c.Memory)
	}
	if p.Dir != "/tmp/x" || !p.WAL || p.Fsync != FsyncAlways || p.Save != "900 1 60 100" {
		t.Errorf("persistence: %+v", p)
	}
	if s.UnixSocket != "/tmp/r.sock" || s.UnixSocketPerm != 0o770 {
		t.Errorf("unixsocket: %q %o", s.UnixSocket, s.UnixSocketPerm)
	}
	if c.Log.Level != "warn" || c.Log.File != "/tmp/x.log" {
		t.Errorf("log: %+v", c.Log)
	}
	if o := c.Limits.ClientOutputBuffer; o.PubSub.Hard != 64*MiB || o.PubSub.Soft != 16*MiB || o.Normal.Hard != DefaultOutputBufferLimits().Normal.Hard {
		t.Errorf("obuf: %+v", o)
	}
	if r := c.Replication; r.Primary != "10.0.0.2:6380" || r.PrimaryAuth != "sekret" {
		t.Errorf("replication: %+v", r)
	}
	if len(c.ACL.Users) != 1 || c.ACL.Users[0].Name != "alice" || !c.ACL.Users[0].IsEnabled() ||
		!reflect.DeepEqual(c.ACL.Users[0].Passwords, []string{"plain:pw"}) || c.ACL.Users[0].Commands != "+@read" {
		t.Errorf("users: %+v", c.ACL.Users)
	}
	// Parameters without a TOML key reach CONFIG GET through NewLive.
	l := NewLive(c)
	for name, want := range map[string]string{
		"notify-keyspace-events": "xE", "slowlog-max-len": "64", "busy-reply-threshold": "100",
		"hash-max-listpack-entries": "99", "maxmemory": "1073741824", "save": "900 1 60 100",
		"replica-priority": "10", "replica-announce-ip": "10.0.0.9",
		"unixsocket": "/tmp/r.sock", "unixsocketperm": "770", "enable-module-command": "yes",
		"client-output-buffer-limit": "normal 268435456 0 0 slave 268435456 67108864 60 pubsub 67108864 16777216 90",
	} {
		if v, _ := l.Value(name); v != want {
			t.Errorf("CONFIG GET %s = %q, want %q", name, v, want)
		}
	}
	joined := strings.Join(notes, "\n")
	for _, w := range []string{"r.conf:26: jemalloc-bg-thread ignored",
		"r.conf:33: enable-module-command yes: accepted without effect",
		"r.conf:34: shutdown-on-sigterm force: what this server does anyway"} {
		if !strings.Contains(joined, w) {
			t.Errorf("notes lack %q:\n%s", w, joined)
		}
	}
}

func TestApplyRedisDirectivesRefused(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"tls-auth-clients maybe\n", "r.conf:1: 'tls-auth-clients': argument(s) must be one of"},
		{"cluster-announce-tls-port 7000\n", "r.conf:1: 'cluster-announce-tls-port': not supported"},
		{"\n\nrename-command FLUSHALL \"\"\n", "r.conf:3: 'rename-command': not supported"},
		{"no-such-directive 1\n", "r.conf:1: 'no-such-directive': Bad directive"},
		{"maxmemory lots\n", "r.conf:1: 'maxmemory': argument must be a memory value"},
		{"appendfsync sometimes\n", "r.conf:1: 'appendfsync': argument(s) must be one of"},
		{"protected-mode maybe\n", "r.conf:1: 'protected-mode': argument must be 'yes' or 'no'"},
		{"bind 10.0.0.1 bad!name\n", "r.conf:1: 'bind': Invalid bind address"},
		{"port 1 2\n", "r.conf:1: 'port': wrong number of arguments"},
		{"save 10\n", "r.conf:1: 'save': Invalid save parameters"},
		{"replica-priority -1\n", "r.conf:1: 'replica-priority'"},
		{"syslog-enabled yes\n", "r.conf:1: 'syslog-enabled': not supported"},
		{"shutdown-on-sigterm nosave\n", "r.conf:1: 'shutdown-on-sigterm': not supported"},
		{"enable-module-command maybe\n", "r.conf:1: 'enable-module-command': argument(s) must be one of"},
		{"unixsocketperm 800\n", "r.conf:1: 'unixsocketperm': argument must be an octal number"},
		{"user bob (+get)\n", "r.conf:1: 'user': user bob: rule"},
	} {
		if _, _, err := applyRedis(t, tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.text, err, tc.want)
		}
	}
}

// Persistence is off only where Redis's would be: appendonly no and no save points.
func TestApplyRedisDirectivesPersistence(t *testing.T) {
	for text, wal := range map[string]bool{
		"":                            true, // Redis's default save points
		"appendonly no\n":             true,
		"appendonly no\nsave \"\"\n":  false,
		"save \"\"\n":                 false,
		"save \"\"\nappendonly yes\n": true,
	} {
		c, _, err := applyRedis(t, text)
		if err != nil || c.Persistence.WAL != wal {
			t.Errorf("%q: wal %v, %v; want %v", text, c.Persistence.WAL, err, wal)
		}
	}
}

// Debian's shipped redis.conf loads, every directive mapped, ignored with a notice, or
// accepted at its default.
func TestLoadDebianRedisConf(t *testing.T) {
	c, notes, err := LoadRedisConf("testdata/debian-redis.conf", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.FileFormat != FormatRedis || c.Server.Port != 6379 || c.Server.Bind != "127.0.0.1 -::1" || c.Persistence.Dir != "/var/lib/redis" ||
		c.Log.File != "/var/log/redis/redis-server.log" || c.Server.PidFile != "/run/redis/redis-server.pid" || c.Server.Timeout != 0 {
		t.Errorf("loaded %+v", c)
	}
	joined := strings.Join(notes, "\n")
	for _, w := range []string{"daemonize yes", "jemalloc-bg-thread ignored", "rdbcompression ignored", "tcp-backlog ignored", "appendonly no"} {
		if !strings.Contains(joined, w) {
			t.Errorf("notes lack %q", w)
		}
	}
	extra, err := RedisOptionArgs([]string{"--port", "7000", "--dir", "/tmp/d", "--save", ""})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err = LoadRedisConf("testdata/debian-redis.conf", extra)
	if err != nil || c.Server.Port != 7000 || c.Persistence.Dir != "/tmp/d" || c.Persistence.Save != "" || c.Persistence.WAL {
		t.Errorf("with options: %+v, %v", c, err)
	}
	if _, err := RedisOptionArgs([]string{"stray"}); err == nil {
		t.Error("a word before any --name was accepted")
	}
}

// FuzzParseRedisConf feeds arbitrary bytes through the parser and the mapping: neither may
// panic, and an accepted file gives a configuration NewLive can take once it validates.
func FuzzParseRedisConf(f *testing.F) {
	if b, err := os.ReadFile("testdata/debian-redis.conf"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("port 1\nsave \"\"\nrequirepass 'a\\'b'\nclient-output-buffer-limit normal 1mb 1mb 1\n"))
	f.Add([]byte("x \"\\x4"))
	f.Fuzz(func(t *testing.T, data []byte) {
		noInclude := func(string) ([]byte, error) { return nil, os.ErrNotExist }
		dirs, err := ParseRedisConf("f.conf", data, noInclude)
		if err != nil {
			return
		}
		// What CONFIG REWRITE writes reads back to the same words.
		for _, d := range dirs {
			line := "x"
			for _, a := range d.Args {
				line += " " + quoteRedisArg(a)
			}
			if w, err := SplitRedisArgs(line); err != nil || len(w) != len(d.Args)+1 || len(d.Args) > 0 && !reflect.DeepEqual(w[1:], d.Args) {
				t.Fatalf("%q: written as %q, read back %q, %v", d.Args, line, w, err)
			}
		}
		c := Default()
		if _, err := ApplyRedisDirectives(&c, dirs); err != nil {
			return
		}
		if c.Validate() == nil {
			_ = NewLive(c)
		}
	})
}

// CONFIG REWRITE keeps comments and order, updates changed directives in place (dropping
// their repeats), appends new ones, and the result reads back to the same values.
func TestRewriteRedisConf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.conf")
	orig := "# top comment\nport 7000\nmaxmemory 1mb\n# keep me\nsave 900 1\nsave 60 5\nhash-max-ziplist-entries 10\ntimeout 5\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, err := LoadRedisConf(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLive(c)
	if err := l.RewriteRedisConf(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatalf("nothing changed, yet the file became\n%s", b)
	}
	if err := l.Set([][2]string{{"maxmemory", "2mb"}, {"save", "10 1"}, {"hash-max-listpack-entries", "20"},
		{"requirepass", "a \"b\""}, {"notify-keyspace-events", "KEA"}}); err != nil {
		t.Fatal(err)
	}
	if err := l.RewriteRedisConf(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "# top comment\nport 7000\nmaxmemory 2097152\n# keep me\nsave 10 1\nhash-max-listpack-entries 20\ntimeout 5\n" +
		rewriteMarker + "\nrequirepass \"a \\\"b\\\"\"\nnotify-keyspace-events AKE\n"
	if string(b) != want {
		t.Fatalf("rewritten file:\n%s\nwant:\n%s", b, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	c2, _, err := LoadRedisConf(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l2 := NewLive(c2)
	for _, name := range []string{"maxmemory", "save", "hash-max-listpack-entries", "requirepass", "notify-keyspace-events", "port", "timeout"} {
		v1, _ := l.Value(name)
		v2, _ := l2.Value(name)
		if v1 != v2 {
			t.Errorf("%s: %q after rewrite and reload, %q before", name, v2, v1)
		}
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestQuoteRedisArgRoundTrip(t *testing.T) {
	for _, v := range []string{"", "plain", "a b", `q"uote`, "it's", "back\\slash", "nl\n\x01\xff", "#hash"} {
		w, err := SplitRedisArgs("x " + quoteRedisArg(v))
		if err != nil || len(w) != 2 || w[1] != v {
			t.Errorf("%q: quoted %s, read back %q, %v", v, quoteRedisArg(v), w, err)
		}
	}
}

// Every directive docs/redis-conf.md lists is one the loader knows: none is answered
// "Bad directive" (which would mean the table and the code disagree).
func TestRedisConfDocTableKnown(t *testing.T) {
	b, err := os.ReadFile("../docs/redis-conf.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ln := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(ln, "| `") {
			continue
		}
		name := strings.SplitN(strings.TrimPrefix(ln, "| `"), "`", 2)[0]
		if name == "include" {
			continue // read by the parser, never a directive
		}
		n++
		c := Default()
		_, err := ApplyRedisDirectives(&c, []RedisDirective{{File: "d.conf", Line: 1, Name: name}})
		if err != nil && strings.Contains(err.Error(), "Bad directive") {
			t.Errorf("%s is in the table but unknown to the loader", name)
		}
		refused := strings.Contains(ln, "| refused |")
		if refused && err == nil {
			t.Errorf("%s: the table says refused, the loader accepted it", name)
		}
	}
	if n < 170 {
		t.Fatalf("only %d directives in the table", n)
	}
}

// An ignored directive is accepted whatever its value, with its notice.
func TestApplyRedisIgnoredAnyValue(t *testing.T) {
	_, notes, err := applyRedis(t, "appendfilename other.aof\nio-threads 4\ncluster-enabled no\n")
	if err != nil || len(notes) != 2 || !strings.Contains(notes[0], "r.conf:1: appendfilename ignored") {
		t.Fatalf("%q %v", notes, err)
	}
}
