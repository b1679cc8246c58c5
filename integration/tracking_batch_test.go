package integration_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// A transaction's changes reach a BCAST client when it ends: one message
// per prefix, keys in byte order, keys of no prefix left out.
func TestTrackingBcastTransactionOneMessagePerPrefix(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	rc := resp3(t, s.Addr())
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "b:", "PREFIX", "a:")
	w := dialRaw(t, s.Addr())
	w.expect("+OK\r\n", "MULTI")
	for _, k := range []string{"b:2", "a:2", "a:1", "b:1", "c:1", "a:1"} {
		w.expect("+QUEUED\r\n", "INCR", k)
	}
	w.expect("*6\r\n:1\r\n:1\r\n:1\r\n:1\r\n:1\r\n:2\r\n", "EXEC")
	if got := rc.read(); got != inv("a:1", "a:2") {
		t.Fatalf("first message %q", got)
	}
	if got := rc.read(); got != inv("b:1", "b:2") {
		t.Fatalf("second message %q", got)
	}
	expectNothing(t, rc)

	// A script's writes likewise.
	w.expect("$-1\r\n", "EVAL", "redis.call('set', KEYS[1], 1); redis.call('set', KEYS[2], 1); redis.call('set', 'c:9', 1)", "2", "a:9", "a:8")
	if got := rc.read(); got != inv("a:8", "a:9") {
		t.Fatalf("script %q", got)
	}
	expectNothing(t, rc)

	// NOLOOP leaves out the keys the client changed last itself.
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "OFF")
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP")
	rc.expect("+OK\r\n", "SET", "mine", "1")
	expectNothing(t, rc)
	w.expect("+OK\r\n", "MULTI")
	w.expect("+QUEUED\r\n", "SET", "x", "1")
	w.expect("+QUEUED\r\n", "SET", "y", "1")
	w.expect("*2\r\n+OK\r\n+OK\r\n", "EXEC")
	if got := rc.read(); got != inv("x", "y") {
		t.Fatalf("noloop %q", got)
	}
}

// Invalidations for the client running a transaction come after the EXEC
// reply, one message per key, never inside the array.
func TestTrackingTransactionOwnInvalidationsAfterReply(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	rc := resp3(t, s.Addr())
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON")
	rc.expect("+OK\r\n", "MSET", "a", "1", "b", "2")
	rc.expect("*2\r\n$1\r\n1\r\n$1\r\n2\r\n", "MGET", "a", "b")
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("+QUEUED\r\n", "INCR", "a")
	rc.expect("+QUEUED\r\n", "INCR", "b")
	rc.expect("+QUEUED\r\n", "GET", "a")
	rc.expect("*3\r\n:2\r\n:3\r\n$1\r\n2\r\n", "EXEC")
	if got := rc.read(); got != inv("a") {
		t.Fatalf("first %q", got)
	}
	if got := rc.read(); got != inv("b") {
		t.Fatalf("second %q", got)
	}
	expectNothing(t, rc)
	// The GET inside the transaction tracks a again.
	w := dialRaw(t, s.Addr())
	w.expect("+OK\r\n", "SET", "a", "9")
	if got := rc.read(); got != inv("a") {
		t.Fatalf("re-tracked %q", got)
	}

	// FLUSHDB inside MULTI: the null invalidation follows the reply.
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("+QUEUED\r\n", "FLUSHDB")
	rc.expect("*1\r\n+OK\r\n", "EXEC")
	if got := rc.read(); got != ">2\r\n$10\r\ninvalidate\r\n_\r\n" {
		t.Fatalf("flush %q", got)
	}
}

// A script that runs a read makes the caller track the keys the script
// declares; one that reads nothing tracks none. NOLOOP covers the
// script's own writes.
func TestTrackingScripts(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	rc := resp3(t, s.Addr())
	w := dialRaw(t, s.Addr())
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON")
	rc.expect("_\r\n", "EVAL", "redis.call('set', 'k3', 'bar')", "2", "k1", "k2")
	rc.expect("_\r\n", "EVAL_RO", "redis.call('ping')", "2", "k1", "k2")
	w.expect("+OK\r\n", "MSET", "k1", "1", "k2", "1")
	expectNothing(t, rc)
	rc.expect("_\r\n", "EVAL", "redis.call('get', 'k3')", "2", "k1", "k2")
	w.expect("+OK\r\n", "MSET", "k2", "2", "k1", "2")
	if got := rc.read(); got != inv("k2") {
		t.Fatalf("first %q", got)
	}
	if got := rc.read(); got != inv("k1") {
		t.Fatalf("second %q", got)
	}
	rc.expect("_\r\n", "EVAL_RO", "redis.call('get', 'k3')", "1", "k1")
	w.expect("+OK\r\n", "SET", "k1", "3")
	if got := rc.read(); got != inv("k1") {
		t.Fatalf("eval_ro %q", got)
	}

	n := resp3(t, s.Addr())
	n.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "NOLOOP")
	n.expect("$1\r\n3\r\n", "GET", "k1")
	n.expect("+OK\r\n", "EVAL", "return redis.call('set', KEYS[1], '4')", "1", "k1")
	n.expect("$1\r\n4\r\n", "GET", "k1")
	expectNothing(t, n)
}

// CLIENT LIST shows tracking clients (t, B for BCAST, R for a broken
// redirect) and their redirect target.
func TestTrackingClientListFlags(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.UniversalClient(t)
	target := dialRaw(t, s.Addr())
	id := strings.TrimSuffix(strings.TrimPrefix(target.do("CLIENT", "ID"), ":"), "\r\n")
	rc := dialRaw(t, s.Addr())
	flags := func() string {
		t.Helper()
		line := rc.do("CLIENT", "INFO")
		m := regexp.MustCompile(` flags=(\S*) .* redir=(\S*) `).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("CLIENT INFO %q", line)
		}
		return m[1] + " " + m[2]
	}
	if got := flags(); got != "N -1" {
		t.Fatalf("off: %q", got)
	}
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "REDIRECT", id)
	if got := flags(); got != "t "+id {
		t.Fatalf("on: %q", got)
	}
	rc.expect("$-1\r\n", "GET", "k")
	_ = target.conn.Close()
	for i := 0; i < 100 && strings.Contains(c.ClientList(context.Background()).Val(), "id="+id+" "); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	expect(t, c, "OK", "SET", "k", "1")
	rc.do("PING")
	if got := flags(); got != "tR "+id {
		t.Fatalf("broken: %q", got)
	}
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "OFF")
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "BCAST")
	if got := flags(); got != "tB 0" {
		t.Fatalf("bcast: %q", got)
	}
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "OFF")
	if got := flags(); got != "N -1" {
		t.Fatalf("off again: %q", got)
	}
}
