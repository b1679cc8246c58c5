package main

import (
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// writeConfig writes a TOML file in a fresh directory and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ruvio.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sendDebugSleep sends DEBUG SLEEP secs on a new connection to addr and
// leaves it waiting for the reply; the connection closes with the test.
func sendDebugSleep(t *testing.T, addr string, secs int) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	s := strconv.Itoa(secs)
	if _, err := c.Write([]byte("*3\r\n$5\r\nDEBUG\r\n$5\r\nSLEEP\r\n$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n")); err != nil {
		t.Fatal(err)
	}
	// Let the shard pick the command up.
	time.Sleep(500 * time.Millisecond)
}

// waitExit waits up to bound for p to exit and returns how long it took.
func waitExit(t *testing.T, p *testserver.Process, bound time.Duration) time.Duration {
	t.Helper()
	begin := time.Now()
	select {
	case <-p.Exited():
		return time.Since(begin)
	case <-time.After(bound):
		t.Fatalf("ruvio still running %v after the signal\n%s", bound, p.Output())
		return 0
	}
}

// waitOutput waits until the process output contains s.
func waitOutput(t *testing.T, p *testserver.Process, s string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.Output(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output:\n%s", s, p.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A shard stuck in DEBUG SLEEP 100 does not hold the process: SIGTERM ends
// it once server.shutdown_timeout (2 s) has passed, with a log line naming
// the busy shard and what was skipped, and the other shard still writes
// its shutdown snapshot. Nothing acknowledged is lost: a restart on the
// same directory has every write.
func TestShutdownTimeoutWithShardInDebugSleep(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, "[server]\nshutdown_timeout = 2\n")
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 2, Fsync: "everysec", Args: []string{"--config", cfg}})
	ctx := context.Background()
	cc := p.ClusterClient(t)
	keys := map[string]int{}
	for i := 0; len(keys) < 2 || i < 50; i++ {
		k := "k" + strconv.Itoa(i)
		if err := cc.Set(ctx, k, i, 0).Err(); err != nil {
			t.Fatal(err)
		}
		keys[k] = i
	}
	sendDebugSleep(t, p.Addrs[0], 100)
	if err := syscall.Kill(p.Pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	took := waitExit(t, p, 30*time.Second)
	out := p.Output()
	t.Logf("exited %v after SIGTERM", took)
	for _, want := range []string{"shutdown timed out", `"busy_shards": [0]`, "snapshot written"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// ERROR lines carry no Go stack trace.
	if strings.Contains(out, "goroutine ") || strings.Contains(out, "main.run\n") {
		t.Errorf("stack trace in the output:\n%s", out)
	}

	p2 := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 2, Fsync: "everysec"})
	cc2 := p2.ClusterClient(t)
	for k, v := range keys {
		got, err := cc2.Get(ctx, k).Int()
		if err != nil || got != v {
			t.Errorf("after restart GET %s = %d, %v; want %d", k, got, err, v)
		}
	}
}

// A second SIGTERM or SIGINT during a shutdown exits at once, with a log
// line, long before the shutdown timeout (60 s here) would.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	for _, second := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(second.String(), func(t *testing.T) {
			cfg := writeConfig(t, "[server]\nshutdown_timeout = 60\n")
			p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Args: []string{"--config", cfg}})
			sendDebugSleep(t, p.Addrs[0], 100)
			if err := syscall.Kill(p.Pid(), syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			waitOutput(t, p, "shutting down")
			if err := syscall.Kill(p.Pid(), second); err != nil {
				t.Fatal(err)
			}
			took := waitExit(t, p, 30*time.Second)
			t.Logf("exited %v after the second signal", took)
			if !strings.Contains(p.Output(), "second signal: exiting at once") {
				t.Errorf("no log line for the second signal:\n%s", p.Output())
			}
		})
	}
}

// The start line names version, configuration file, fsync policy and data
// directory; INFO config_file is the file given with --config.
func TestStartLineAndConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, "[persistence]\nfsync = \"always\"\n")
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Fsync: "no", Args: []string{"--config", cfg}})
	waitOutput(t, p, "starting ruvio")
	line := ""
	for _, l := range strings.Split(p.Output(), "\n") {
		if strings.Contains(l, "starting ruvio") {
			line = l
		}
	}
	// --fsync no (given by StartBinary before --config) overrides the file.
	for _, want := range []string{`"version": "`, `"config_file": "` + cfg + `"`, `"fsync": "no"`, `"dir": "` + dir + `"`} {
		if !strings.Contains(line, want) {
			t.Errorf("start line lacks %s:\n%s", want, line)
		}
	}
	info, err := p.Client(t, 0).Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info, "config_file:"+cfg+"\r\n") {
		t.Errorf("INFO config_file is not %s:\n%s", cfg, info)
	}
	err = p.Client(t, 0).ConfigRewrite(context.Background()).Err()
	if err == nil || !strings.Contains(err.Error(), cfg) {
		t.Errorf("CONFIG REWRITE: %v", err)
	}
}

// Without --config and without ./config.toml the server starts on the
// built-in defaults and says so in its start line.
func TestStartLineWithoutConfigFile(t *testing.T) {
	bin := testserver.Binary(t)
	port, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--dir", filepath.Join(cwd, "data"))
	cmd.Dir = cwd
	var out strings.Builder
	cmd.Stderr = &out
	cmd.Stdout = &out
	done := make(chan struct{})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	deadline := time.Now().Add(20 * time.Second)
	for healthcheck([]string{"--port", strconv.Itoa(port)}, func(string) string { return "" }) != nil {
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	if !strings.Contains(out.String(), `"config_file": "none (config.toml not found; built-in defaults)"`) {
		t.Errorf("start line does not say that no file was read:\n%s", out.String())
	}
}

func TestLoadConfigNoteAndPasswordEnv(t *testing.T) {
	parse := func(args ...string) (overrides, map[string]bool) {
		o, fs, err := parseFlags(args)
		if err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		return o, set
	}
	noEnv := func(string) string { return "" }
	cwd := t.TempDir()
	t.Chdir(cwd)

	o, set := parse()
	cfg, note, err := loadConfig(o, set, noEnv)
	if err != nil || note != "config.toml not found" || cfg.File != "" {
		t.Errorf("missing default file: %q %q %v", cfg.File, note, err)
	}
	o, set = parse("--config", "other.toml")
	if _, _, err := loadConfig(o, set, noEnv); err == nil {
		t.Error("a missing explicit --config file was accepted")
	}
	o, set = parse("--config", "")
	if _, note, _ := loadConfig(o, set, noEnv); note != `--config ""` {
		t.Errorf("note for --config \"\": %q", note)
	}
	if err := os.WriteFile("config.toml", []byte("[server]\nrequirepass = \"fromfile\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, set = parse()
	cfg, note, err = loadConfig(o, set, noEnv)
	if want := filepath.Join(cwd, "config.toml"); err != nil || note != "" || cfg.File != want || cfg.Server.RequirePass != "fromfile" {
		t.Errorf("default file: %q (want %q) %q %q %v", cfg.File, want, note, cfg.Server.RequirePass, err)
	}
	env := func(k string) string {
		if k == "RUVIO_PASSWORD" {
			return "fromenv"
		}
		return ""
	}
	cfg, _, _ = loadConfig(o, set, env)
	if cfg.Server.RequirePass != "fromenv" {
		t.Errorf("RUVIO_PASSWORD did not set requirepass: %q", cfg.Server.RequirePass)
	}
}

// TestReactorFlags: a reactor per shard by default; --reactors N above 0
// asks for N shared reactors unless --reactor-per-shard is also given, and
// that pair is refused.
func TestReactorFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		reactors int
		perShard bool
		valid    bool
	}{
		{nil, 0, true, true},
		{[]string{"--reactors", "0"}, 0, true, true},
		{[]string{"--reactors", "3"}, 3, false, true},
		{[]string{"--reactor-per-shard=false"}, 0, false, true},
		{[]string{"--reactors", "3", "--reactor-per-shard"}, 3, true, false},
	} {
		o, fs, err := parseFlags(append([]string{"--config", ""}, tc.args...))
		if err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		cfg, _, err := loadConfig(o, set, func(string) string { return "" })
		if !tc.valid {
			if err == nil || !strings.Contains(err.Error(), "set server.reactor_per_shard = false for 3 shared reactors") {
				t.Errorf("%v: loadConfig = %v, want the reactors refusal", tc.args, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cfg.Server.Reactors != tc.reactors || cfg.Server.ReactorPerShard != tc.perShard {
			t.Errorf("%v: reactors %d, reactor_per_shard %v; want %d, %v", tc.args, cfg.Server.Reactors, cfg.Server.ReactorPerShard, tc.reactors, tc.perShard)
		}
	}
}

// A Redis configuration file is read from --redis-conf or a first argument ending in
// ".conf", whose trailing options are directives; flags before it and RUVIO_PASSWORD win.
func TestLoadConfigRedisConf(t *testing.T) {
	cwd := t.TempDir()
	t.Chdir(cwd)
	if err := os.WriteFile("r.conf", []byte("port 7000\nmaxclients 5\nrequirepass file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(env func(string) string, args ...string) (config.Config, []string, error) {
		o, fs, err := parseFlags(args)
		if err != nil {
			return config.Config{}, nil, err
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		cfg, _, notices, err := loadConfigNotices(o, set, env)
		return cfg, notices, err
	}
	noEnv := func(string) string { return "" }
	cfg, _, err := load(noEnv, "--port", "7100", "r.conf", "--maxclients", "9", "--jemalloc-bg-thread", "yes")
	if err != nil || cfg.Server.Port != 7100 || cfg.Server.MaxClients != 9 || cfg.FileFormat != config.FormatRedis || cfg.File != filepath.Join(cwd, "r.conf") {
		t.Errorf("positional form: %+v %v", cfg.Server, err)
	}
	pass := func(k string) string {
		if k == "RUVIO_PASSWORD" {
			return "env"
		}
		return ""
	}
	cfg, notices, err := load(pass, "--redis-conf", "r.conf")
	if err != nil || cfg.Server.Port != 7000 || cfg.Server.RequirePass != "env" || len(notices) != 0 {
		t.Errorf("--redis-conf: %+v %q %v", cfg.Server, notices, err)
	}
	for _, args := range [][]string{
		{"--config", "x.toml", "--redis-conf", "r.conf"},
		{"--redis-conf", "r.conf", "other.conf"},
		{"r.conf", "stray"},
		{"r.conf", "--no-such-directive", "1"},
		{"r.txt"},
	} {
		if _, _, err := load(noEnv, args...); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// ruvio healthcheck succeeds on PONG, authenticates with RUVIO_PASSWORD,
// and fails on a closed port or a refused PING.
func TestHealthcheck(t *testing.T) {
	noEnv := func(string) string { return "" }
	s := testserver.Start(t)
	if err := healthcheck([]string{"--port", strconv.Itoa(s.Port())}, noEnv); err != nil {
		t.Errorf("healthy server: %v", err)
	}
	sp := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.RequirePass = "pw" }))
	if err := healthcheck([]string{"--port", strconv.Itoa(sp.Port())}, noEnv); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Errorf("without the password: %v", err)
	}
	env := func(k string) string {
		if k == "RUVIO_PASSWORD" {
			return "pw"
		}
		return ""
	}
	if err := healthcheck([]string{"--port", strconv.Itoa(sp.Port())}, env); err != nil {
		t.Errorf("with RUVIO_PASSWORD: %v", err)
	}
	port, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := healthcheck([]string{"--port", strconv.Itoa(port), "--timeout", "1s"}, noEnv); err == nil {
		t.Error("closed port reported healthy")
	}
}

// runBinary runs the ruvio binary with args and returns its exit code,
// stdout and stderr.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testserver.Binary(t), args...)
	cmd.Dir = t.TempDir() // no config.toml: nothing may start from it
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("ruvio %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

// ruvio --help (and -h, and help) prints the flags and every subcommand on
// stdout and exits 0; a subcommand's --help its own flags; a mistyped
// subcommand or flag exits 1 with the reason, and starts nothing.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, errOut := runBinary(t, args...)
		if code != 0 {
			t.Errorf("ruvio %v: exit %d, stderr %q", args, code, errOut)
		}
		for _, want := range []string{"healthcheck", "import-rdb", "-replicaof", "-repair", "-config", "-shards", "-fsync"} {
			if !strings.Contains(out, want) {
				t.Errorf("ruvio %v does not list %s:\n%s", args, want, out)
			}
		}
	}
	for _, sub := range []struct{ name, flag string }{{"healthcheck", "-timeout"}, {"import-rdb", "-replace"}} {
		code, out, errOut := runBinary(t, sub.name, "--help")
		if code != 0 || !strings.Contains(out, sub.flag) {
			t.Errorf("ruvio %s --help: exit %d, stdout %q, stderr %q", sub.name, code, out, errOut)
		}
	}
	code, _, errOut := runBinary(t, "healtcheck")
	if code != 1 || !strings.Contains(errOut, `unknown subcommand or argument "healtcheck"`) {
		t.Errorf("ruvio healtcheck: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runBinary(t, "--no-such-flag")
	if code != 1 || !strings.Contains(errOut, "flag provided but not defined: -no-such-flag") {
		t.Errorf("ruvio --no-such-flag: exit %d, stderr %q", code, errOut)
	}
}
