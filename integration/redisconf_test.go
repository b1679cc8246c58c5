package integration_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Starting from a Redis configuration file: Debian's shipped redis.conf serves, with
// trailing redis-server-style options pointing it at a temporary directory and log.

// debianConf is Debian's redis.conf (redis-server 7.0.15 package), kept as test input.
const debianConf = "../config/testdata/debian-redis.conf"

func TestRedisConfDebianStarts(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "redis.log")
	pidFile := filepath.Join(dir, "redis.pid")
	// The flags before the file (port, dir, bind) win over it; the options after it are
	// directives, applied after the file as redis-server applies them.
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: []string{
		debianConf, "--logfile", logFile, "--pidfile", pidFile, "--maxmemory", "64mb",
	}})
	c := p.Client(t, 0)
	expect(t, c, "PONG", "PING")
	expect(t, c, map[interface{}]interface{}{"maxmemory": "67108864"}, "CONFIG", "GET", "maxmemory")
	expect(t, c, map[interface{}]interface{}{"databases": "16"}, "CONFIG", "GET", "databases")
	expect(t, c, map[interface{}]interface{}{"appendfsync": "always"}, "CONFIG", "GET", "appendfsync") // --fsync before the file
	expect(t, c, map[interface{}]interface{}{"save": "3600 1 300 100 60 10000"}, "CONFIG", "GET", "save")
	expect(t, c, map[interface{}]interface{}{"slowlog-max-len": "128"}, "CONFIG", "GET", "slowlog-max-len")
	expect(t, c, map[interface{}]interface{}{"hz": "10"}, "CONFIG", "GET", "hz")
	expect(t, c, map[interface{}]interface{}{"oom-score-adj": "no"}, "CONFIG", "GET", "oom-score-adj")
	abs, _ := filepath.Abs(debianConf)
	info := value(t, c, "INFO", "server").(string)
	if !strings.Contains(info, "config_file:"+abs) {
		t.Errorf("INFO server lacks config_file:%s\n%s", abs, info)
	}
	pid, err := os.ReadFile(pidFile)
	if err != nil || strings.TrimSpace(string(pid)) != strconv.Itoa(p.Pid()) {
		t.Errorf("pidfile holds %q (%v), want %d", pid, err, p.Pid())
	}
	logText, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"jemalloc-bg-thread ignored", "rdbcompression ignored", "tcp-backlog ignored",
		"aof-load-truncated ignored", "daemonize yes: this server does not fork", "keyspace ready"} {
		if !strings.Contains(string(logText), w) {
			t.Errorf("log lacks %q:\n%s", w, logText)
		}
	}
	p.Stop(t, 20*time.Second)
	if _, err := os.Stat(pidFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pidfile left after exit: %v", err)
	}
}

// runRefused runs the binary expecting a refused start and returns its output.
func runRefused(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, testserver.Binary(t), args...).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 || ctx.Err() != nil {
		t.Fatalf("expected a refused start, got %v\n%s", err, out)
	}
	return string(out)
}

func TestRedisConfRefusesUnsupported(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(conf, []byte("port 0\n# a comment\nrename-command FLUSHALL \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{conf, "--port", strconv.Itoa(port), "--dir", dir},
		{"--redis-conf", conf, "--port", strconv.Itoa(port), "--dir", dir},
	} {
		out := runRefused(t, args...)
		if !strings.Contains(out, conf+":3: 'rename-command': not supported") {
			t.Errorf("%q: output lacks the line number:\n%s", args, out)
		}
	}
	// A trailing option is a directive too, refused as such.
	good := filepath.Join(dir, "good.conf")
	if err := os.WriteFile(good, []byte("port "+strconv.Itoa(port)+"\ndir "+dir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := runRefused(t, good, "--cluster-announce-tls-port", "6380"); !strings.Contains(out, "command line: 'cluster-announce-tls-port': not supported") {
		t.Errorf("trailing --cluster-announce-tls-port: %s", out)
	}
	// A TLS port without a certificate is refused with the reason.
	if out := runRefused(t, good, "--tls-port", "6380"); !strings.Contains(out, "TLS needs tls.cert_file and tls.key_file") {
		t.Errorf("trailing --tls-port: %s", out)
	}
	// A stray word after the file, and a positional argument that is not a .conf file,
	// are refused, never ignored.
	if out := runRefused(t, good, "stray"); !strings.Contains(out, `"stray"`) {
		t.Errorf("stray word: %s", out)
	}
	if out := runRefused(t, "--config", "", "redis.txt"); !strings.Contains(out, `unknown subcommand or argument "redis.txt"`) {
		t.Errorf("non-.conf positional: %s", out)
	}
}

func TestRedisConfRewriteRoundTrip(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "r.conf")
	orig := "# operator's comment\nmaxmemory 1mb\nslowlog-max-len 10\n# trailing comment\n"
	if err := os.WriteFile(conf, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: []string{conf}})
	c := p.Client(t, 0)
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory", "2mb", "notify-keyspace-events", "Ex")
	expect(t, c, "OK", "CONFIG", "REWRITE")
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	want := "# operator's comment\nmaxmemory 2097152\nslowlog-max-len 10\n# trailing comment\n# Generated by CONFIG REWRITE\nnotify-keyspace-events xE\n"
	if string(b) != want {
		t.Fatalf("rewritten file:\n%s\nwant:\n%s", b, want)
	}
	p.Stop(t, 20*time.Second)
	p = p.Restart(t)
	c = p.Client(t, 0)
	expect(t, c, map[interface{}]interface{}{"maxmemory": "2097152"}, "CONFIG", "GET", "maxmemory")
	expect(t, c, map[interface{}]interface{}{"notify-keyspace-events": "xE"}, "CONFIG", "GET", "notify-keyspace-events")
	expect(t, c, map[interface{}]interface{}{"slowlog-max-len": "10"}, "CONFIG", "GET", "slowlog-max-len")
}

// user directives become ACL users at start.
func TestRedisConfUserDirective(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "u.conf")
	if err := os.WriteFile(conf, []byte("user alice on >s3cret ~app:* +get +set\nuser default on nopass ~* &* +@all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: []string{conf}})
	c := p.Client(t, 0)
	expect(t, c, "OK", "AUTH", "alice", "s3cret")
	expect(t, c, "OK", "SET", "app:1", "v")
	expectErr(t, c, "NOPERM this user has no permissions to access one of the keys used as arguments", "SET", "other", "v")
	expectErr(t, c, "NOPERM this user has no permissions to run the 'del' command", "DEL", "app:1")
}

// A server started the way redis-server is started by Redis's own test suite: a file whose
// name does not end in ".conf", a Unix socket beside the port, and Redis's log format on
// standard output, where the suite looks for " PID: <pid>" and "Ready to accept connections".
func TestRedisConfUnixSocketAndRedisLog(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "ruvio.sock")
	conf := filepath.Join(dir, "redis.conf.1234.1")
	text := "always-show-logo yes\nloglevel verbose\nlogfile ''\nunixsocket " + sock + "\nunixsocketperm 700\n" +
		"enable-protected-configs yes\nenable-module-command yes\npropagation-error-behavior panic\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: []string{conf}})
	st, err := os.Stat(sock)
	if err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o700 {
		t.Fatalf("unix socket %s: %v %v", sock, st, err)
	}
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock, MaxRetries: -1, DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	expect(t, c, "PONG", "PING")
	expect(t, c, "OK", "SET", "k", "v")
	expect(t, p.Client(t, 0), "v", "GET", "k") // the socket's clients are shard 0's
	list := value(t, c, "CLIENT", "LIST").(string)
	if !strings.Contains(list, "addr="+sock+":0") {
		t.Errorf("CLIENT LIST lacks addr=%s:0:\n%s", sock, list)
	}
	expect(t, c, map[interface{}]interface{}{"unixsocket": sock}, "CONFIG", "GET", "unixsocket")
	expect(t, c, map[interface{}]interface{}{"unixsocketperm": "700"}, "CONFIG", "GET", "unixsocketperm")
	out := p.Output()
	for _, w := range []string{" PID: " + strconv.Itoa(p.Pid()), "Ready to accept connections",
		strconv.Itoa(p.Pid()) + ":M ", "enable-module-command yes: accepted without effect"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	p.Stop(t, 20*time.Second)
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after exit: %v", err)
	}
}

// A unixsocket path held by a regular file is refused at start, never replaced.
func TestRedisConfUnixSocketOverFileRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "precious")
	if err := os.WriteFile(file, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "sock.conf")
	if err := os.WriteFile(conf, []byte("unixsocket "+file+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	out := runRefused(t, conf, "--port", strconv.Itoa(port), "--dir", dir)
	if !strings.Contains(out, "exists and is not a socket") {
		t.Errorf("output: %s", out)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "data" {
		t.Errorf("file replaced: %q %v", b, err)
	}
}
