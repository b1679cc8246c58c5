package integration_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// receive reads one message from a go-redis subscription, skipping
// subscription confirmations; each frame has its own deadline.
func receive(t *testing.T, ps *redis.PubSub) *redis.Message {
	t.Helper()
	for {
		m, err := ps.Receive(ctxT(t))
		if err != nil {
			t.Fatalf("receive: %v", err)
		}
		switch m := m.(type) {
		case *redis.Message:
			return m
		case *redis.Subscription, *redis.Pong:
		default:
			t.Fatalf("unexpected %T %v", m, m)
		}
	}
}

func TestPubSubFanOutAndPatterns(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	pub := s.Client(t)
	const n = 40
	subs := make([]*redis.PubSub, n)
	for i := range subs {
		c := s.Client(t)
		subs[i] = c.Subscribe(ctxT(t), "news")
		if _, err := subs[i].Receive(ctxT(t)); err != nil { // the confirmation
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = subs[i].Close() })
	}
	pats := []string{"n*s", "ne?s", "n[a-f]ws", "x*"}
	pc := s.Client(t)
	pps := pc.PSubscribe(ctxT(t), pats...)
	t.Cleanup(func() { _ = pps.Close() })
	for range pats {
		if _, err := pps.Receive(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
	expect(t, pub, int64(n+3), "PUBLISH", "news", "hello")
	for i, ps := range subs {
		m := receive(t, ps)
		if m.Channel != "news" || m.Payload != "hello" || m.Pattern != "" {
			t.Fatalf("subscriber %d got %+v", i, m)
		}
	}
	got := map[string]bool{}
	for range 3 {
		m := receive(t, pps)
		if m.Channel != "news" || m.Payload != "hello" {
			t.Fatalf("pattern subscriber got %+v", m)
		}
		got[m.Pattern] = true
	}
	if !got["n*s"] || !got["ne?s"] || !got["n[a-f]ws"] {
		t.Fatalf("patterns matched: %v", got)
	}
	expect(t, pub, []interface{}{"news", int64(n), "other", int64(0)}, "PUBSUB", "NUMSUB", "news", "other")
	expect(t, pub, int64(4), "PUBSUB", "NUMPAT")
	expect(t, pub, []interface{}{"news"}, "PUBSUB", "CHANNELS")
	expect(t, pub, []interface{}{}, "PUBSUB", "CHANNELS", "x*")
	expect(t, pub, int64(0), "PUBLISH", "nothing", "x")
	if cl := value(t, pub, "CLIENT", "LIST").(string); strings.Count(cl, "flags=P") != n+1 || !strings.Contains(cl, " sub=0 psub=4 ssub=0 ") {
		t.Fatalf("CLIENT LIST:\n%s", cl)
	}
}

func TestPubSubRESP2SubscribedMode(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	rc := dialRaw(t, s.Addr())
	rc.send("SUBSCRIBE", "a", "b")
	for i, ch := range []string{"a", "b"} {
		if got, want := rc.read(), "*3\r\n$9\r\nsubscribe\r\n$1\r\n"+ch+"\r\n:"+strconv.Itoa(i+1)+"\r\n"; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	rc.expect("-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n", "GET", "k")
	rc.expect("-ERR Can't execute 'client|id': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n", "CLIENT", "ID")
	rc.expect("*2\r\n$4\r\npong\r\n$0\r\n\r\n", "PING")
	rc.expect("*2\r\n$4\r\npong\r\n$2\r\nhi\r\n", "PING", "hi")
	rc.expect("*3\r\n$10\r\npsubscribe\r\n$2\r\nc*\r\n:3\r\n", "PSUBSCRIBE", "c*")
	// Shard channels are counted apart.
	rc.expect("*3\r\n$10\r\nssubscribe\r\n$1\r\ns\r\n:1\r\n", "SSUBSCRIBE", "s")
	pub := s.Client(t)
	expect(t, pub, int64(1), "PUBLISH", "cat", "meow")
	expect(t, pub, int64(1), "PUBLISH", "a", "x")
	expect(t, pub, int64(1), "SPUBLISH", "s", "y")
	if got := rc.read(); got != "*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$3\r\ncat\r\n$4\r\nmeow\r\n" {
		t.Fatalf("got %q", got)
	}
	if got := rc.read(); got != "*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nx\r\n" {
		t.Fatalf("got %q", got)
	}
	if got := rc.read(); got != "*3\r\n$8\r\nsmessage\r\n$1\r\ns\r\n$1\r\ny\r\n" {
		t.Fatalf("got %q", got)
	}
	// Unsubscribe from everything: one reply per channel, then a nil one.
	rc.send("UNSUBSCRIBE")
	seen := map[string]bool{}
	for range 2 {
		r := rc.read()
		seen[r] = true
	}
	if !seen["*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:2\r\n"] && !seen["*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:2\r\n"] {
		t.Fatalf("unsubscribe replies: %v", seen)
	}
	rc.expect("*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:1\r\n", "UNSUBSCRIBE")
	rc.expect("*3\r\n$12\r\npunsubscribe\r\n$2\r\nc*\r\n:0\r\n", "PUNSUBSCRIBE")
	rc.expect("*3\r\n$12\r\nsunsubscribe\r\n$1\r\ns\r\n:0\r\n", "SUNSUBSCRIBE", "s")
	rc.expect("*3\r\n$12\r\nsunsubscribe\r\n$-1\r\n:0\r\n", "SUNSUBSCRIBE")
	// Out of subscribed mode: ordinary commands and PING again.
	rc.expect("+PONG\r\n", "PING")
	rc.expect("$-1\r\n", "GET", "k")
}

func TestPubSubRESP3PushInterleaved(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	rc := dialRaw(t, s.Addr())
	rc.send("HELLO", "3")
	rc.read()
	rc.expect(">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n", "SUBSCRIBE", "ch")
	// Ordinary commands still work in RESP3.
	rc.expect("_\r\n", "GET", "k")
	rc.expect("+PONG\r\n", "PING")
	// Publishing to itself: the push comes before PUBLISH's reply.
	rc.send("PUBLISH", "ch", "self")
	if got := rc.read(); got != ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$4\r\nself\r\n" {
		t.Fatalf("got %q", got)
	}
	if got := rc.read(); got != ":1\r\n" {
		t.Fatalf("got %q", got)
	}
	pub := s.Client(t)
	expect(t, pub, int64(1), "PUBLISH", "ch", "other")
	if got := rc.read(); got != ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nother\r\n" {
		t.Fatalf("got %q", got)
	}
	rc.expect(">3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n", "UNSUBSCRIBE")

	// go-redis with RESP3 receives the same messages.
	c := redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: 3, DisableIdentity: true}))
	t.Cleanup(func() { _ = c.Close() })
	ps := c.Subscribe(ctxT(t), "r3")
	t.Cleanup(func() { _ = ps.Close() })
	if _, err := ps.Receive(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	expect(t, pub, int64(1), "PUBLISH", "r3", "v")
	if m := receive(t, ps); m.Channel != "r3" || m.Payload != "v" {
		t.Fatalf("got %+v", m)
	}
}

func TestPubSubSubscriberDisconnects(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	pub := s.Client(t)
	var rcs []*rawConn
	for range 5 {
		rc := dialRaw(t, s.Addr())
		rc.send("SUBSCRIBE", "d")
		rc.read()
		rcs = append(rcs, rc)
	}
	expect(t, pub, int64(5), "PUBLISH", "d", "1")
	// Two leave mid-stream, one of them with unread messages.
	_ = rcs[0].conn.Close()
	_ = rcs[1].conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := intValue(t, pub, "PUBLISH", "d", "2")
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("PUBLISH still reaches %d subscribers", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, rc := range rcs[2:] {
		if got := rc.read(); got != "*3\r\n$7\r\nmessage\r\n$1\r\nd\r\n$1\r\n1\r\n" {
			t.Fatalf("got %q", got)
		}
	}
	expect(t, pub, []interface{}{"d", int64(3)}, "PUBSUB", "NUMSUB", "d")
}

func TestPubSubSlowSubscriberIsCutOff(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Limits.ClientOutputBuffer.PubSub.Hard = config.MiB }))
	slow := dialRaw(t, s.Addr())
	slow.send("SUBSCRIBE", "firehose")
	slow.read()
	fast := s.Client(t)
	ps := fast.Subscribe(ctxT(t), "firehose")
	if _, err := ps.Receive(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ch := ps.Channel()
		for range ch {
		}
	}()
	t.Cleanup(func() { _ = ps.Close(); wg.Wait() })
	pub := s.Client(t)
	msg := strings.Repeat("m", 16*1024)
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		pipe := pub.Pipeline()
		for range 64 {
			pipe.Publish(ctxT(t), "firehose", msg)
		}
		if _, err := pipe.Exec(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(value(t, pub, "INFO", "stats").(string), "\r\nclient_output_buffer_limit_disconnections:1\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slow subscriber was not cut off after %d MB", i+1)
		}
	}
	slow.expectClosed(10 * time.Second)
	deadline = time.Now().Add(10 * time.Second)
	for intValue(t, pub, "PUBLISH", "firehose", "x") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the cut-off subscriber is still subscribed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Classic Pub/Sub stays on the shard that accepted the connection.
func TestPubSubScopedToShard(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(2))
	rc := dialRaw(t, s.Addrs[0])
	rc.send("SUBSCRIBE", "x")
	rc.read()
	expect(t, s.ClientOf(t, 1), int64(0), "PUBLISH", "x", "elsewhere")
	expect(t, s.ClientOf(t, 1), []interface{}{"x", int64(0)}, "PUBSUB", "NUMSUB", "x")
	expect(t, s.ClientOf(t, 0), int64(1), "PUBLISH", "x", "here")
	if got := rc.read(); got != "*3\r\n$7\r\nmessage\r\n$1\r\nx\r\n$4\r\nhere\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestShardedPubSub(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(4))
	cc := s.ClusterClient(t)
	// Channels spread over the shards; go-redis finds each owner from one seed.
	var chans []string
	for i := range 8 {
		chans = append(chans, "chan:"+strconv.Itoa(i))
	}
	var pss []*redis.PubSub
	for _, ch := range chans {
		ps := cc.SSubscribe(ctxT(t), ch)
		t.Cleanup(func() { _ = ps.Close() })
		if _, err := ps.Receive(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		pss = append(pss, ps)
	}
	for i, ch := range chans {
		n, err := cc.SPublish(ctxT(t), ch, "v"+ch).Result()
		if err != nil || n != 1 {
			t.Fatalf("SPUBLISH %s: %d, %v", ch, n, err)
		}
		if m := receive(t, pss[i]); m.Channel != ch || m.Payload != "v"+ch {
			t.Fatalf("got %+v", m)
		}
	}
	// A channel of another shard's slot is MOVED; channels of two slots
	// are CROSSSLOT.
	moved, owner := 0, -1
	for i := range s.Addrs {
		c := s.ClientOf(t, i)
		err := c.Do(ctxT(t), "SPUBLISH", "chan:0", "x").Err()
		if err != nil && strings.HasPrefix(err.Error(), "MOVED ") {
			moved++
		} else {
			owner = i
			if m := receive(t, pss[0]); m.Payload != "x" {
				t.Fatalf("got %+v", m)
			}
		}
		expectErr(t, c, "CROSSSLOT Keys in request don't hash to the same slot", "SSUBSCRIBE", "chan:0", "chan:1")
	}
	if moved != 3 {
		t.Fatalf("%d shards answered MOVED, want 3", moved)
	}
	// Like a Redis Cluster node, each shard counts its own subscribers.
	cnt, err := s.ClientOf(t, owner).PubSubShardNumSub(ctxT(t), "chan:0").Result()
	if err != nil || cnt["chan:0"] != 1 {
		t.Fatalf("SHARDNUMSUB: %v %v", cnt, err)
	}
	total := 0
	for i := range s.Addrs {
		list, err := s.ClientOf(t, i).PubSubShardChannels(ctxT(t), "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		total += len(list)
	}
	if total != len(chans) {
		t.Fatalf("SHARDCHANNELS over the shards: %d, want %d", total, len(chans))
	}
}

func TestPubSubHelpAndErrors(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	expectErr(t, c, "ERR unknown subcommand 'nope'. Try PUBSUB HELP.", "PUBSUB", "nope")
	expectErr(t, c, errArity("pubsub|numpat"), "PUBSUB", "NUMPAT", "x")
	expectErr(t, c, errArity("publish"), "PUBLISH", "x")
	if h := value(t, c, "PUBSUB", "HELP").([]interface{}); len(h) < 10 {
		t.Fatalf("help: %v", h)
	}
	doc := fmt.Sprint(value(t, c, "COMMAND", "DOCS", "PUBLISH"))
	if !strings.Contains(doc, "same shard") {
		t.Fatalf("PUBLISH docs do not tell the scope: %s", doc)
	}
}

// CLIENT REPLY OFF silences replies, never Pub/Sub frames.
func TestPubSubFramesWithClientReplyOff(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	rc := dialRaw(t, s.Addr())
	rc.send("HELLO", "3")
	rc.read()
	rc.send("CLIENT", "REPLY", "OFF")
	rc.send("SUBSCRIBE", "ch")
	if got := rc.read(); got != ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n" {
		t.Fatalf("got %q", got)
	}
	rc.send("PUBLISH", "ch", "self")
	if got := rc.read(); got != ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$4\r\nself\r\n" {
		t.Fatalf("got %q", got)
	}
	expect(t, s.Client(t), int64(1), "PUBLISH", "ch", "x")
	if got := rc.read(); got != ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n" {
		t.Fatalf("got %q", got)
	}
	rc.send("UNSUBSCRIBE", "ch")
	if got := rc.read(); got != ">3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n" {
		t.Fatalf("got %q", got)
	}
	rc.expect("+OK\r\n", "CLIENT", "REPLY", "ON")
	rc.expect("+PONG\r\n", "PING")
}

// The pubsub class of client-output-buffer-limit bounds subscribers when it
// is below the normal limit, as Redis classes subscribed clients.
func TestPubSubClassOutputLimit(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	pub := s.Client(t)
	expect(t, pub, "OK", "CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 0 0")
	slow := dialRaw(t, s.Addr())
	slow.send("SUBSCRIBE", "firehose")
	slow.read()
	msg := strings.Repeat("m", 16*1024)
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		pipe := pub.Pipeline()
		for range 64 {
			pipe.Publish(ctxT(t), "firehose", msg)
		}
		if _, err := pipe.Exec(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(value(t, pub, "INFO", "stats").(string), "\r\nclient_output_buffer_limit_disconnections:1\r\n") {
			break
		}
		if i > 64 || time.Now().After(deadline) {
			t.Fatalf("the subscriber was not cut off by the pubsub class after %d MB", i+1)
		}
	}
	slow.expectClosed(10 * time.Second)
	// An ordinary client is held to the normal limit only: a 2 MB reply is fine.
	expect(t, pub, "OK", "SET", "big", strings.Repeat("b", 2<<20))
	if n := len(value(t, pub, "GET", "big").(string)); n != 2<<20 {
		t.Fatalf("GET big: %d bytes", n)
	}
}
