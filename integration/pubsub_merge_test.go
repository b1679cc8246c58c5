package integration_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestEvictionNotifiesAndInvalidates: a key evicted under maxmemory is
// announced as the "evicted" keyspace event and invalidated for a client
// that tracks it, as Redis does.
func TestEvictionNotifiesAndInvalidates(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	if err := c.FlushAll(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	// volatile-ttl with w the only key that has a deadline: w is the one
	// eviction takes.
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "volatile-ttl")
	val := strings.Repeat("v", 100)
	p := c.Pipeline()
	for i := 0; i < 600; i++ {
		p.Set(ctxT(t), fmt.Sprint("keep:", i), val, 0)
	}
	p.Set(ctxT(t), "w", val, time.Hour)
	if _, err := p.Exec(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	tr := resp3(t, s.Addr())
	tr.expect("+OK\r\n", "CLIENT", "TRACKING", "ON")
	tr.expect("$100\r\n"+val+"\r\n", "GET", "w")
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "Ee")
	sub := dialRaw(t, s.Addr())
	sub.expect("*3\r\n$9\r\nsubscribe\r\n$22\r\n__keyevent@0__:evicted\r\n:1\r\n", "SUBSCRIBE", "__keyevent@0__:evicted")
	limitToTwoThirds(t, c)
	deadline := time.Now().Add(10 * time.Second)
	for c.Exists(ctxT(t), "w").Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatal("w was not evicted")
		}
		_ = c.Set(ctxT(t), "new", val, 0).Err()
	}
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory", "0")
	if got, want := sub.read(), "*3\r\n$7\r\nmessage\r\n$22\r\n__keyevent@0__:evicted\r\n$1\r\nw\r\n"; got != want {
		t.Fatalf("evicted event: got %q, want %q", got, want)
	}
	if got := tr.read(); got != inv("w") {
		t.Fatalf("invalidation: got %q", got)
	}
}

// TestACLChannelRules: channel rules govern PUBLISH, SPUBLISH, SUBSCRIBE,
// SSUBSCRIBE and PSUBSCRIBE (a pattern only by an identical rule), with
// Redis 7.0's NOPERM text; unsubscribing needs no permission.
func TestACLChannelRules(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := s.Client(t)
	expect(t, admin, "OK", "ACL", "SETUSER", "sub", "on", ">p", "resetchannels", "&news.*", "+@all")
	const noPerm = "-NOPERM this user has no permissions to access one of the channels used as arguments\r\n"
	rc := dialRaw(t, s.Addr())
	rc.expect("+OK\r\n", "AUTH", "sub", "p")
	rc.expect(":0\r\n", "PUBLISH", "news.1", "x")
	rc.expect(noPerm, "PUBLISH", "sport.1", "x")
	rc.expect(":0\r\n", "SPUBLISH", "news.1", "x")
	rc.expect(noPerm, "SPUBLISH", "sport.1", "x")
	rc.expect(noPerm, "SUBSCRIBE", "news.1", "sport.1")
	rc.expect(noPerm, "SSUBSCRIBE", "sport.1")
	rc.expect(noPerm, "PSUBSCRIBE", "news.1*")
	rc.expect("*3\r\n$10\r\npsubscribe\r\n$6\r\nnews.*\r\n:1\r\n", "PSUBSCRIBE", "news.*")
	rc.expect("*3\r\n$9\r\nsubscribe\r\n$6\r\nnews.2\r\n:2\r\n", "SUBSCRIBE", "news.2")
	rc.expect("*3\r\n$11\r\nunsubscribe\r\n$7\r\nsport.1\r\n:2\r\n", "UNSUBSCRIBE", "sport.1")
}

// TestACLChannelLossDisconnectsSubscriber: as Redis 7.0, a change of a
// user that takes away a channel or pattern one of its clients is
// subscribed to disconnects that client; subscribers that keep all their
// channels, and clients without subscriptions, stay.
func TestACLChannelLossDisconnectsSubscriber(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(2))
	admin := s.ClientOf(t, 1)
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "on", ">p", "resetchannels", "&a", "&b", "&p*", "+@all")
	auth := func(shard int) *rawConn {
		rc := dialRaw(t, s.Addrs[shard])
		rc.expect("+OK\r\n", "AUTH", "u", "p")
		return rc
	}
	onA := auth(0)
	onA.expect("*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", "SUBSCRIBE", "a")
	onB := auth(0)
	onB.expect("*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:1\r\n", "SUBSCRIBE", "b")
	onP := auth(1)
	onP.expect("*3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:1\r\n", "PSUBSCRIBE", "p*")
	idle := auth(0)

	// Adding a rule keeps everything.
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "&c")
	onA.expect("*2\r\n$4\r\npong\r\n$0\r\n\r\n", "PING")
	// Dropping &a (resetchannels, then b, p* and c again): only a's
	// subscriber goes.
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "resetchannels", "&b", "&p*", "&c")
	onA.expectClosed(5 * time.Second)
	onB.expect("*2\r\n$4\r\npong\r\n$0\r\n\r\n", "PING")
	onP.expect("*2\r\n$4\r\npong\r\n$0\r\n\r\n", "PING")
	// A pattern is kept only by an identical rule: &p1* does not cover p*.
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "resetchannels", "&b", "&p1*")
	onP.expectClosed(5 * time.Second)
	onB.expect("*2\r\n$4\r\npong\r\n$0\r\n\r\n", "PING")
	idle.expect("+PONG\r\n", "PING")
	// The caller's own subscription: the reply, then the close.
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "+acl")
	self := auth(1)
	self.expect("*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:1\r\n", "SUBSCRIBE", "b")
	self.send("UNSUBSCRIBE")
	self.read()
	self.expect("*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:1\r\n", "SUBSCRIBE", "b")
	// In RESP2 subscribed mode ACL cannot run; use RESP3.
	self3 := dialRaw(t, s.Addrs[1])
	self3.send("HELLO", "3", "AUTH", "u", "p")
	self3.read()
	self3.expect(">3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:1\r\n", "SUBSCRIBE", "b")
	self3.expect("+OK\r\n", "ACL", "SETUSER", "u", "resetchannels")
	self3.expectClosed(5 * time.Second)
	self.expectClosed(5 * time.Second)
	onB.expectClosed(5 * time.Second)
	idle.expect("+PONG\r\n", "PING")
	// allchannels keeps every subscriber.
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "allchannels")
	all := auth(0)
	all.expect("*3\r\n$9\r\nsubscribe\r\n$1\r\nz\r\n:1\r\n", "SUBSCRIBE", "z")
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "allchannels", "-get")
	all.expect("*2\r\n$4\r\npong\r\n$0\r\n\r\n", "PING")
}

// TestTrackingCachingCoversTransaction: CLIENT CACHING YES before MULTI
// applies to the reads of the whole transaction, as in Redis.
func TestTrackingCachingCoversTransaction(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	other := s.Client(t)
	rc := resp3(t, s.Addr())
	rc.expect("+OK\r\n", "CLIENT", "TRACKING", "ON", "OPTIN")
	rc.expect("+OK\r\n", "CLIENT", "CACHING", "YES")
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("+QUEUED\r\n", "GET", "k1")
	rc.expect("+QUEUED\r\n", "GET", "k2")
	rc.expect("*2\r\n_\r\n_\r\n", "EXEC")
	// Cleared after EXEC: this read is not tracked.
	rc.expect("_\r\n", "GET", "k3")
	expect(t, other, "OK", "SET", "k3", "1")
	expect(t, other, "OK", "SET", "k2", "1")
	if got := rc.read(); got != inv("k2") {
		t.Fatalf("got %q", got)
	}
}
