package integration_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// inv is the RESP3 invalidate push for keys.
func inv(keys ...string) string {
	s := ">2\r\n$10\r\ninvalidate\r\n*" + strconv.Itoa(len(keys)) + "\r\n"
	for _, k := range keys {
		s += "$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n"
	}
	return s
}

func resp3(t *testing.T, addr string) *rawConn {
	rc := dialRaw(t, addr)
	rc.send("HELLO", "3")
	rc.read()
	return rc
}

func expectNothing(t *testing.T, rc *rawConn) {
	t.Helper()
	if r, err := rc.tryRead(100 * time.Millisecond); err == nil {
		t.Fatalf("unexpected %q", r)
	}
}

func TestTrackingDefaultModeRESP3(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	other := s.Client(t)
	rc := resp3(t, s.Addr())
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON")
	rc.expect("_\r\n", "GET", "a")
	rc.expect("*2\r\n_\r\n_\r\n", "MGET", "b", "c")
	expect(t, other, "OK", "SET", "a", "1")
	if got := rc.read(); got != inv("a") {
		t.Fatalf("got %q", got)
	}
	// Invalidated once: the key must be read again to be tracked again.
	expect(t, other, "OK", "SET", "a", "2")
	expect(t, other, int64(1), "INCR", "c")
	if got := rc.read(); got != inv("c") {
		t.Fatalf("got %q", got)
	}
	// Its own write: the reply first, then the invalidation.
	rc.expect("$1\r\n2\r\n", "GET", "a")
	rc.expect("+OK\r\n", "SET", "a", "3")
	if got := rc.read(); got != inv("a") {
		t.Fatalf("got %q", got)
	}
	// Expiry invalidates too.
	// A deadline a busy machine cannot pass between the SET and the GET.
	expect(t, other, "OK", "SET", "e", "v", "PX", "1000")
	rc.expect("$1\r\nv\r\n", "GET", "e")
	time.Sleep(1100 * time.Millisecond)
	expect(t, other, nil, "GET", "e")
	if got := rc.read(); got != inv("e") {
		t.Fatalf("expiry: got %q", got)
	}
	// FLUSHALL: a null invalidation.
	rc.expect("_\r\n", "GET", "z")
	expect(t, other, "OK", "FLUSHALL")
	if got := rc.read(); got != ">2\r\n$10\r\ninvalidate\r\n_\r\n" {
		t.Fatalf("got %q", got)
	}
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "OFF")
	rc.expect("_\r\n", "GET", "q")
	expect(t, other, "OK", "SET", "q", "1")
	expectNothing(t, rc)
}

func TestTrackingNoloop(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	other := s.Client(t)
	rc := resp3(t, s.Addr())
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "NOLOOP")
	rc.expect("_\r\n", "GET", "a")
	rc.expect("+OK\r\n", "SET", "a", "1")
	expectNothing(t, rc)
	rc.expect("$1\r\n1\r\n", "GET", "a")
	expect(t, other, "OK", "SET", "a", "2")
	if got := rc.read(); got != inv("a") {
		t.Fatalf("got %q", got)
	}
}

func TestTrackingRedirectRESP2(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	other := s.Client(t)
	sub := dialRaw(t, s.Addr())
	id := strings.TrimSuffix(strings.TrimPrefix(sub.do("CLIENT", "ID"), ":"), "\r\n")
	sub.send("SUBSCRIBE", "__redis__:invalidate")
	sub.read()
	tr := dialRaw(t, s.Addr())
	tr.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "REDIRECT", id)
	tr.expect(":"+id+"\r\n", "CLIENT", "GETREDIR")
	tr.expect("$-1\r\n", "GET", "k")
	expect(t, other, "OK", "SET", "k", "v")
	if got, want := sub.read(), "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nk\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	expectNothing(t, tr)
	tr.expect("-ERR The client ID you want redirect to does not exist\r\n", "CLIENT", "TRACKING", "ON", "REDIRECT", "999999")
	// The target leaves: the redirect is broken.
	_ = sub.conn.Close()
	time.Sleep(50 * time.Millisecond)
	tr.expect("$1\r\nv\r\n", "GET", "k")
	expect(t, other, "OK", "SET", "k", "w")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(tr.do("CLIENT", "TRACKINGINFO"), "broken_redirect") {
		if time.Now().After(deadline) {
			t.Fatal("broken_redirect not reported")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTrackingRedirectAcrossShardsRefused(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(2))
	a := dialRaw(t, s.Addrs[0])
	id := strings.TrimSuffix(strings.TrimPrefix(a.do("CLIENT", "ID"), ":"), "\r\n")
	b := dialRaw(t, s.Addrs[1])
	b.expect("-ERR The client ID you want redirect to is connected to another shard; redirect to a client of the same port\r\n", "CLIENT", "TRACKING", "ON", "REDIRECT", id)
}

func TestTrackingBcastPrefixes(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	other := s.Client(t)
	rc := resp3(t, s.Addr())
	rc.expect("-ERR PREFIX option requires BCAST mode to be enabled\r\n", "CLIENT", "TRACKING", "ON", "PREFIX", "a")
	rc.expect("-ERR Prefix 'user:' overlaps with another provided prefix 'user:1'. Prefixes for a single client must not overlap.\r\n",
		"CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:", "PREFIX", "user:1")
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:", "PREFIX", "job:")
	// Keys never read are announced when they match a prefix.
	expect(t, other, "OK", "SET", "user:1", "x")
	if got := rc.read(); got != inv("user:1") {
		t.Fatalf("got %q", got)
	}
	expect(t, other, "OK", "SET", "other", "x")
	expect(t, other, "OK", "MSET", "job:1", "a", "job:2", "b")
	if got := rc.read(); got != inv("job:1", "job:2") {
		t.Fatalf("got %q", got)
	}
	info := rc.do("CLIENT", "TRACKINGINFO")
	if !strings.Contains(info, "$5\r\nbcast\r\n") || !strings.Contains(info, "$4\r\njob:\r\n$5\r\nuser:\r\n") {
		t.Fatalf("TRACKINGINFO %q", info)
	}
	rc.expect("-ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.\r\n", "CLIENT", "TRACKING", "ON")
}

func TestTrackingOptinOptout(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	other := s.Client(t)
	in := resp3(t, s.Addr())
	in.expect("-ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled\r\n", "CLIENT", "CACHING", "YES")
	in.expect("-ERR You can't specify both OPTIN mode and OPTOUT mode\r\n", "CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT")
	in.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "OPTIN")
	in.expect("-ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.\r\n", "CLIENT", "CACHING", "NO")
	in.expect("_\r\n", "GET", "k1")
	in.expect("+OK\r\n", "CLIENT", "CACHING", "YES")
	in.expect("_\r\n", "GET", "k2")
	in.expect("_\r\n", "GET", "k3") // CACHING YES covered only the next command
	expect(t, other, "OK", "MSET", "k1", "1", "k2", "2", "k3", "3")
	if got := in.read(); got != inv("k2") {
		t.Fatalf("optin: got %q", got)
	}
	expectNothing(t, in)

	out := resp3(t, s.Addr())
	out.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "OPTOUT")
	out.expect("+OK\r\n", "CLIENT", "CACHING", "NO")
	out.expect("$1\r\n1\r\n", "GET", "k1")
	out.expect("$1\r\n2\r\n", "GET", "k2")
	expect(t, other, "OK", "MSET", "k1", "x", "k2", "y")
	if got := out.read(); got != inv("k2") {
		t.Fatalf("optout: got %q", got)
	}
	info := out.do("CLIENT", "TRACKINGINFO")
	if info != "%3\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$6\r\noptout\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n" {
		t.Fatalf("TRACKINGINFO %q", info)
	}
	out.expect(":0\r\n", "CLIENT", "GETREDIR")
	out.expect("+OK\r\n", "CLIENT", "TRACKING", "OFF")
	out.expect(":-1\r\n", "CLIENT", "GETREDIR")
}
