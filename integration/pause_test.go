package integration_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// blockedClients reads INFO's blocked_clients.
func blockedClients(t *testing.T, rc *rawConn) int {
	t.Helper()
	m := regexp.MustCompile(`blocked_clients:(\d+)`).FindStringSubmatch(rc.do("INFO", "clients"))
	if m == nil {
		t.Fatal("no blocked_clients in INFO")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// waitPaused waits until INFO counts n blocked clients (paused ones
// included), asked over rc.
func waitPaused(t *testing.T, rc *rawConn, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for blockedClients(t, rc) != n {
		if time.Now().After(deadline) {
			t.Fatalf("blocked_clients never reached %d", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestClientPauseErrors(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	expectErr(t, c, "ERR wrong number of arguments for 'client|pause' command", "CLIENT", "PAUSE")
	expectErr(t, c, "ERR CLIENT PAUSE mode must be WRITE or ALL", "CLIENT", "PAUSE", "100", "READ")
	expectErr(t, c, "ERR timeout is not an integer or out of range", "CLIENT", "PAUSE", "abc")
	expectErr(t, c, "ERR timeout is negative", "CLIENT", "PAUSE", "-1")
	expectErr(t, c, "ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP.", "CLIENT", "PAUSE", "1", "WRITE", "x")
	expectErr(t, c, "ERR wrong number of arguments for 'client|unpause' command", "CLIENT", "UNPAUSE", "x")
	// A zero timeout pauses nothing.
	expect(t, c, "OK", "CLIENT", "PAUSE", "0")
	expect(t, c, "OK", "SET", "k", "v")
	expect(t, c, "OK", "CLIENT", "UNPAUSE")
}

// WRITE: reads run, writes and may-replicate commands wait in order and
// run at UNPAUSE; a command refused by its checks is answered at once.
func TestClientPauseWrite(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := dialRaw(t, s.Addr())
	admin.expect("+OK\r\n", "SET", "k", "v0")
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "60000", "WRITE")
	r := dialRaw(t, s.Addr())
	r.expect("$2\r\nv0\r\n", "GET", "k")
	r.expect("+PONG\r\n", "PING")
	r.expect("-ERR wrong number of arguments for 'set' command\r\n", "SET", "k")
	// A transaction of reads runs; one with a write waits.
	r.expect("+OK\r\n", "MULTI")
	r.expect("+QUEUED\r\n", "GET", "k")
	r.expect("*1\r\n$2\r\nv0\r\n", "EXEC")
	// A script that declares no-writes runs; EVAL_RO may not publish.
	r.expect(":1\r\n", "EVAL", "#!lua flags=no-writes\nreturn 1", "0")
	if got := r.do("EVAL_RO", "return redis.call('publish','ch','m')", "0"); !strings.HasPrefix(got, "-ERR Write commands are not allowed from read-only scripts. script: ") {
		t.Fatalf("EVAL_RO publish: %q", got)
	}

	w := dialRaw(t, s.Addr())
	w.write(multibulk("SET", "k", "v1") + multibulk("GET", "k") + multibulk("INCR", "n"))
	p := dialRaw(t, s.Addr())
	p.send("PUBLISH", "ch", "m")
	e := dialRaw(t, s.Addr())
	e.send("EVAL", "return 1", "0")
	waitPaused(t, admin, 3)
	if got, err := w.tryRead(100 * time.Millisecond); err == nil {
		t.Fatalf("paused client got %q", got)
	}
	admin.expect("$2\r\nv0\r\n", "GET", "k")
	admin.expect("+OK\r\n", "CLIENT", "UNPAUSE")
	if got := w.read(); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}
	if got := w.read(); got != "$2\r\nv1\r\n" {
		t.Fatalf("GET: %q", got)
	}
	if got := w.read(); got != ":1\r\n" {
		t.Fatalf("INCR: %q", got)
	}
	if got := p.read(); got != ":0\r\n" {
		t.Fatalf("PUBLISH: %q", got)
	}
	if got := e.read(); got != ":1\r\n" {
		t.Fatalf("EVAL: %q", got)
	}
	waitPaused(t, admin, 0)
}

// ALL holds every command; the pause ends by itself at its deadline; a
// second pause only extends it.
func TestClientPauseAllTimeout(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := dialRaw(t, s.Addr())
	start := time.Now()
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "300")
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "100", "WRITE") // neither shorter nor weaker
	r := dialRaw(t, s.Addr())
	r.send("GET", "k")
	if got := r.read(); got != "$-1\r\n" {
		t.Fatalf("GET: %q", got)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("GET answered after %v, before the pause ended", d)
	}
}

// A pause stops expiry: keys past their deadline read as missing but are
// deleted (and counted) only once the pause ends. A transaction that
// pauses runs to its end first.
func TestClientPauseExpiryAndTransaction(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := dialRaw(t, s.Addr())
	expired := func() int {
		m := regexp.MustCompile(`expired_keys:(\d+)`).FindStringSubmatch(c.do("INFO", "stats"))
		n, _ := strconv.Atoi(m[1])
		return n
	}
	before := expired()
	c.expect("+OK\r\n", "MULTI")
	c.expect("+QUEUED\r\n", "SET", "a", "1", "PX", "10")
	c.expect("+QUEUED\r\n", "CLIENT", "PAUSE", "60000", "WRITE")
	c.expect("+QUEUED\r\n", "SET", "b", "1", "PX", "10")
	c.expect("*3\r\n+OK\r\n+OK\r\n+OK\r\n", "EXEC")
	time.Sleep(300 * time.Millisecond)
	c.expect("$-1\r\n", "GET", "a")
	c.expect("$-1\r\n", "GET", "b")
	if n := expired(); n != before {
		t.Fatalf("expired_keys %d while paused, want %d", n, before)
	}
	c.expect("+OK\r\n", "CLIENT", "UNPAUSE")
	c.expect("$-1\r\n", "GET", "a")
	c.expect("$-1\r\n", "GET", "b")
	if n := expired(); n != before+2 {
		t.Fatalf("expired_keys %d after unpause, want %d", n, before+2)
	}
}

// Each shard is paused on its own, as each node of a cluster is.
func TestClientPausePerShard(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(2))
	a := dialRaw(t, s.Addrs[0])
	b := dialRaw(t, s.Addrs[1])
	a.expect("+OK\r\n", "CLIENT", "PAUSE", "60000", "WRITE")
	b.expect("+OK\r\n", "SET", "a", "1") // slot 15495, shard 1
	a.expect("+OK\r\n", "CLIENT", "UNPAUSE")
}

// A paused client is parked like a blocked one: the replies before its
// held command arrive at once, CLIENT LIST shows it with flag b, INFO
// counts it with the clients blocked in BLPOP, CLIENT UNBLOCK does not
// release it; a blocked client served after the pause runs its pipeline
// on; a paused client that leaves is forgotten.
func TestClientPauseParksLikeBlocked(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := dialRaw(t, s.Addr())
	bl := dialRaw(t, s.Addr())
	bl.write(multibulk("BLPOP", "q", "0") + multibulk("SET", "after", "1"))
	waitPaused(t, admin, 1)
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "60000", "WRITE")

	w := dialRaw(t, s.Addr())
	w.expect("+OK\r\n", "CLIENT", "SETNAME", "paused")
	w.write(multibulk("PING") + multibulk("SET", "k", "v") + multibulk("GET", "k"))
	if got := w.read(); got != "+PONG\r\n" {
		t.Fatalf("reply before the held command: %q", got)
	}
	waitPaused(t, admin, 2)
	w.expectNoReply(50 * time.Millisecond)
	list := admin.do("CLIENT", "LIST")
	m := regexp.MustCompile(`id=(\d+) [^\n]* name=paused [^\n]*flags=(\w+)|id=(\d+) [^\n]*flags=(\w+) [^\n]*name=paused`).FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("no paused client in %q", list)
	}
	id, flags := m[1]+m[3], m[2]+m[4]
	if flags != "b" {
		t.Fatalf("paused client flags=%s, want b", flags)
	}
	admin.expect(":0\r\n", "CLIENT", "UNBLOCK", id)
	admin.expect(":0\r\n", "CLIENT", "UNBLOCK", id, "ERROR")
	w.expectNoReply(50 * time.Millisecond)

	gone := dialRaw(t, s.Addr())
	gone.send("DEL", "k")
	waitPaused(t, admin, 3)
	_ = gone.conn.Close()
	waitPaused(t, admin, 2)

	admin.expect("+OK\r\n", "CLIENT", "UNPAUSE")
	if got := w.read(); got != "+OK\r\n" {
		t.Fatalf("SET after the pause: %q", got)
	}
	if got := w.read(); got != "$1\r\nv\r\n" {
		t.Fatalf("GET after the pause: %q", got)
	}
	waitPaused(t, admin, 1)
	admin.expect(":1\r\n", "EXISTS", "k") // the DEL left with its client
	admin.expect(":1\r\n", "RPUSH", "q", "x")
	if got := bl.read(); got != "*2\r\n$1\r\nq\r\n$1\r\nx\r\n" {
		t.Fatalf("BLPOP: %q", got)
	}
	if got := bl.read(); got != "+OK\r\n" {
		t.Fatalf("SET after BLPOP: %q", got)
	}
	waitPaused(t, admin, 0)
}

// WAIT and CLIENT PAUSE share the parking: a WAIT held by PAUSE ALL parks
// in WAIT once the pause ends; a WAIT that times out during a pause
// replies, and the client's next command is then held by the pause.
func TestClientPauseWithWait(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := dialRaw(t, s.Addr())
	w := dialRaw(t, s.Addr())
	id := strings.TrimSuffix(strings.TrimPrefix(w.do("CLIENT", "ID"), ":"), "\r\n")

	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "200", "ALL")
	w.send("WAIT", "1", "0")
	// INFO waits for the pause too; then the WAIT waits for a replica.
	waitPaused(t, admin, 1)
	w.expectNoReply(50 * time.Millisecond)
	admin.expect(":1\r\n", "CLIENT", "UNBLOCK", id)
	if got := w.read(); got != ":0\r\n" {
		t.Fatalf("WAIT after UNBLOCK: %q", got)
	}

	w.write(multibulk("WAIT", "1", "100") + multibulk("PING"))
	waitPaused(t, admin, 1)
	start := time.Now()
	admin.expect("+OK\r\n", "CLIENT", "PAUSE", "400", "ALL")
	if got := w.read(); got != ":0\r\n" {
		t.Fatalf("WAIT timing out during the pause: %q", got)
	}
	if d := time.Since(start); d > 350*time.Millisecond {
		t.Fatalf("WAIT's timeout waited for the pause (%v)", d)
	}
	if got := w.read(); got != "+PONG\r\n" {
		t.Fatalf("PING after the pause: %q", got)
	}
	if d := time.Since(start); d < 350*time.Millisecond {
		t.Fatalf("PING answered after %v, during the pause", d)
	}
}
