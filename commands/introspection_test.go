package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"regexp"
	"strings"
	"testing"
	"time"
)

// CLIENT REPLY OFF silences every reply (its own included) until CLIENT
// REPLY ON; SKIP silences its own reply and the next command's; ON after
// SKIP cancels the skip and replies OK; RESET restores replies.
func TestClientReply(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, "", "CLIENT", "REPLY", "OFF")
	expect(t, sh, "", "PING", "pong")
	expect(t, sh, "", "GET")
	expect(t, sh, "", "NOSUCHCOMMAND")
	expect(t, sh, rOK, "CLIENT", "REPLY", "ON")
	expect(t, sh, rBulk("pong3"), "PING", "pong3")

	expect(t, sh, "", "CLIENT", "REPLY", "SKIP")
	expect(t, sh, "", "PING", "pong")
	expect(t, sh, rBulk("pong2"), "PING", "pong2")

	expect(t, sh, "", "CLIENT", "REPLY", "SKIP")
	expect(t, sh, rOK, "CLIENT", "REPLY", "ON")
	expect(t, sh, "+PONG\r\n", "PING")

	// SKIP while OFF is ignored: OFF still holds afterwards.
	expect(t, sh, "", "CLIENT", "REPLY", "OFF")
	expect(t, sh, "", "CLIENT", "REPLY", "SKIP")
	expect(t, sh, "", "PING")
	expect(t, sh, "", "PING")
	expect(t, sh, "+RESET\r\n", "RESET")
	expect(t, sh, "+PONG\r\n", "PING")

	expect(t, sh, rErr("ERR syntax error"), "CLIENT", "REPLY", "MAYBE")
	expect(t, sh, rErr("ERR wrong number of arguments for 'client|reply' command"), "CLIENT", "REPLY")
}

// connectTestClient registers a client with sh's server and makes it the
// one run executes commands for.
func connectTestClient(t *testing.T, sh *keyspace.Shard) *keyspace.Client {
	t.Helper()
	c, ok := sh.Srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", nil)
	if !ok {
		t.Fatal("not connected")
	}
	sh.Ctx.C = c
	return c
}

// runBatch runs the commands of one read, as the event loop hands them
// over, and returns the replies.
func runBatch(sh *keyspace.Shard, c *keyspace.Client, data string, cmds ...[]string) string {
	b := durNewBatch(c, nil, cmds...)
	b.Data = []byte(data)
	sh.Run(b)
	return string(b.Out.Buf)
}

// CLIENT LIST and CLIENT INFO name the running command with its
// subcommand, and count the request being run in the caller's qbuf, as
// Redis does.
func TestClientListCommandAndQueryBuffer(t *testing.T) {
	sh := newTestShard(t)
	c := connectTestClient(t, sh)
	other, _ := sh.Srv.Connected(0, "127.0.0.1:50002", "127.0.0.1:7000", nil)
	other.NoteQueryBuffer(10, 10, 0, 0, 0) // an incomplete command waiting
	c.NoteQueryBuffer(26, 0, 0, 0, 0)

	req := "*2\r\n$6\r\nclient\r\n$4\r\nlist\r\n"
	out := runBatch(sh, c, req, []string{"client", "list"})
	lines := strings.Split(strings.TrimSuffix(out[strings.Index(out, "\n")+1:], "\r\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("CLIENT LIST: %q", out)
	}
	if !regexp.MustCompile(` qbuf=26 qbuf-free=16358 .* cmd=client\|list `).MatchString(lines[0]) {
		t.Errorf("caller's line: %q", lines[0])
	}
	if !regexp.MustCompile(` qbuf=10 qbuf-free=16374 .* cmd=NULL `).MatchString(lines[1]) {
		t.Errorf("other client's line: %q", lines[1])
	}

	out = runBatch(sh, c, "*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n", []string{"CLIENT", "INFO"})
	if !strings.Contains(out, " cmd=client|info ") || !strings.Contains(out, " qbuf=26 ") {
		t.Errorf("CLIENT INFO: %q", out)
	}
	runBatch(sh, c, "", []string{"get", "k"})
	if !strings.Contains(c.Info(sh.Srv.Now(), 0), " cmd=get ") {
		t.Errorf("cmd after GET: %q", c.Info(sh.Srv.Now(), 0))
	}
}

// The query buffer model follows Redis's: at least 16 KiB of room after a
// read, grown to fit large requests, freed after more than two idle
// seconds, shrunk to the recent peak when an active client no longer needs
// a large buffer.
func TestQueryBufferModel(t *testing.T) {
	start := time.Unix(1000, 0)
	c := keyspace.NewClient(1, 0, "a", "b", nil, start)
	sum := func() int { u, f := c.QueryBuffer(0); return u + f }
	if sum() != 0 {
		t.Errorf("fresh client: %d", sum())
	}
	c.NoteQueryBuffer(30, 0, 0, 0, 0)
	if sum() != keyspace.ProtoIOBufLen {
		t.Errorf("after a small read: %d", sum())
	}
	c.ResizeQueryBuffer(start.Add(2 * time.Second).UnixNano())
	if sum() != keyspace.ProtoIOBufLen {
		t.Errorf("idle for 2s: %d", sum())
	}
	c.ResizeQueryBuffer(start.Add(3 * time.Second).UnixNano())
	if sum() != 0 {
		t.Errorf("idle for 3s: %d", sum())
	}

	c.Touch(start.UnixNano())
	c.NoteQueryBuffer(400_040, 0, 0, 0, 0)
	if sum() != 400_040 {
		t.Errorf("after a large read: %d", sum())
	}
	// The peak of the large read keeps the buffer for one cron run.
	c.ResizeQueryBuffer(start.UnixNano())
	if sum() != 400_040 {
		t.Errorf("first cron after the large read: %d", sum())
	}
	c.NoteQueryBuffer(130, 0, 0, 0, 0)
	c.ResizeQueryBuffer(start.UnixNano())
	if sum() != keyspace.ProtoIOBufLen {
		t.Errorf("after small reads: %d", sum())
	}
	// Bytes waiting in the buffer are never dropped.
	c.NoteQueryBuffer(50_000, 50_000, 0, 0, 0)
	c.ResizeQueryBuffer(start.Add(10 * time.Second).UnixNano())
	if u, f := c.QueryBuffer(0); u != 50_000 || f != 0 {
		t.Errorf("idle with a partial request: used %d free %d", u, f)
	}
}

func TestClientKillUnknownUser(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rErr("ERR No such user 'wrong_user'"), "CLIENT", "KILL", "USER", "wrong_user")
	expect(t, sh, rInt(0), "CLIENT", "KILL", "USER", "default")
}

// TTL, TYPE, EXISTS and OBJECT leave a key's access time alone; reads,
// writes and TOUCH make it now.
func TestObjectIdletime(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rOK, "SET", "foo", "bar")
	expect(t, sh, rInt(0), "OBJECT", "IDLETIME", "foo")
	sh.NowMs += 3000
	run(t, sh, "TTL", "foo")
	run(t, sh, "PTTL", "foo")
	run(t, sh, "TYPE", "foo")
	run(t, sh, "EXISTS", "foo")
	run(t, sh, "OBJECT", "ENCODING", "foo")
	expect(t, sh, rInt(3), "OBJECT", "IDLETIME", "foo")
	if got := run(t, sh, "DEBUG", "OBJECT", "foo"); !strings.Contains(got, " lru_seconds_idle:3") {
		t.Errorf("DEBUG OBJECT: %q", got)
	}
	expect(t, sh, rInt(1), "TOUCH", "foo", "nokey")
	expect(t, sh, rInt(0), "OBJECT", "IDLETIME", "foo")
	sh.NowMs += 5000
	run(t, sh, "GET", "foo")
	expect(t, sh, rInt(0), "OBJECT", "IDLETIME", "foo")
	sh.NowMs += 5000
	run(t, sh, "APPEND", "foo", "x")
	expect(t, sh, rInt(0), "OBJECT", "IDLETIME", "foo")
	expect(t, sh, "$-1\r\n", "OBJECT", "IDLETIME", "nokey")
}

// feedConn records what a MONITOR feed sends.
type feedConn struct{ got []string }

func (f *feedConn) Close() error        { return nil }
func (f *feedConn) WriteAsync(b []byte) { f.got = append(f.got, string(b)) }

// MONITOR sends every command but admin ones to the monitoring client in
// Redis's format until RESET or disconnection; CLIENT LIST flags it O.
func TestMonitor(t *testing.T) {
	sh := newTestShard(t)
	feed := &feedConn{}
	mon, _ := sh.Srv.Connected(0, "127.0.0.1:50009", "127.0.0.1:7000", feed)
	user := connectTestClient(t, sh)

	sh.Ctx.C = mon
	expect(t, sh, rOK, "MONITOR")
	expect(t, sh, "", "MONITOR")
	if !strings.Contains(mon.Info(sh.Srv.Now(), 0), " flags=O ") {
		t.Errorf("monitor's CLIENT LIST line: %q", mon.Info(sh.Srv.Now(), 0))
	}
	sh.Ctx.C = user
	run(t, sh, "SELECT", "9")
	run(t, sh, "set", "foo", "a \"b\"\r\n\x01\\")
	run(t, sh, "CONFIG", "GET", "hz")
	run(t, sh, "CLIENT", "ID")
	want := []string{
		`+1700000000.000000 [9 127.0.0.1:50001] "SELECT" "9"` + "\r\n",
		`+1700000000.000000 [9 127.0.0.1:50001] "set" "foo" "a \"b\"\r\n\x01\\"` + "\r\n",
		`+1700000000.000000 [9 127.0.0.1:50001] "CLIENT" "ID"` + "\r\n",
	}
	if strings.Join(feed.got, "") != strings.Join(want, "") {
		t.Errorf("feed:\n%q\nwant\n%q", feed.got, want)
	}

	sh.Ctx.C = mon
	expect(t, sh, "+RESET\r\n", "RESET")
	if strings.Contains(mon.Info(sh.Srv.Now(), 0), " flags=O ") {
		t.Error("RESET left MONITOR mode on")
	}
	sh.Ctx.C = user
	feed.got = nil
	run(t, sh, "PING")
	if len(feed.got) != 0 {
		t.Errorf("fed after RESET: %q", feed.got)
	}

	sh.Ctx.C = mon
	expect(t, sh, rOK, "MONITOR")
	sh.Srv.Disconnected(mon)
	sh.Ctx.C = user
	run(t, sh, "PING")
	if len(feed.got) != 0 || sh.Srv.Monitors.Count.Load() != 0 {
		t.Errorf("fed after disconnection: %q", feed.got)
	}
}

// MONITOR never shows a password: AUTH's arguments and HELLO's AUTH user
// and password read "(redacted)", as in Redis; the rest of HELLO shows.
func TestMonitorRedactsSecrets(t *testing.T) {
	sh := newTestShard(t)
	feed := &feedConn{}
	mon, _ := sh.Srv.Connected(0, "127.0.0.1:50009", "127.0.0.1:7000", feed)
	user := connectTestClient(t, sh)

	sh.Ctx.C = mon
	expect(t, sh, rOK, "MONITOR")
	sh.Ctx.C = user
	run(t, sh, "AUTH", "s3cret")
	run(t, sh, "auth", "alice", "s3cret")
	run(t, sh, "HELLO", "2", "AUTH", "default", "s3cret", "SETNAME", "app")
	run(t, sh, "HELLO", "2", "SETNAME", "AUTH")
	want := []string{
		`+1700000000.000000 [0 127.0.0.1:50001] "AUTH" "(redacted)"` + "\r\n",
		`+1700000000.000000 [0 127.0.0.1:50001] "auth" "(redacted)" "(redacted)"` + "\r\n",
		`+1700000000.000000 [0 127.0.0.1:50001] "HELLO" "2" "AUTH" "(redacted)" "(redacted)" "SETNAME" "app"` + "\r\n",
		`+1700000000.000000 [0 127.0.0.1:50001] "HELLO" "2" "SETNAME" "AUTH"` + "\r\n",
	}
	if got := strings.Join(feed.got, ""); got != strings.Join(want, "") {
		t.Errorf("feed:\n%q\nwant\n%q", feed.got, want)
	}
	if strings.Contains(strings.Join(feed.got, ""), "s3cret") {
		t.Error("a password reached the MONITOR feed")
	}
}
