package integration_test

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// These tests check that nothing of a connection outlives it: whatever it
// had sent when it closed (a SUBSCRIBE still on its way to the shard, a
// BLPOP half written), its subscriptions, waits, tracking and name are
// released, and CLIENT KILL and QUIT take effect before their reply.

// lifetimePoll bounds the wait for the release after a close, which is
// asynchronous from the client's side (as in Redis).
const lifetimePoll = 10 * time.Second

// ghostCounts is what the server still counts of closed connections.
type ghostCounts map[string]int64

func (g ghostCounts) zero() bool {
	for _, v := range g {
		if v != 0 {
			return false
		}
	}
	return true
}

// lifetimeVariants are the servers the lifetime tests run on: one shard
// and four, one where reactors run batches of idle shards inline, and
// one where each shard's port has a reactor of its own.
var lifetimeVariants = []struct {
	name   string
	shards int
	inline bool
	// perShard sets server.reactor_per_shard.
	perShard bool
}{{"1shard", 1, false, false}, {"4shards", 4, false, false}, {"1shard-inline", 1, true, false}, {"2shards-reactor-per-shard", 2, false, true}}

// lifetimeServer is a server of n shards with one checking client per
// shard, and the shard owning the {gs} hash tag.
type lifetimeServer struct {
	s     *testserver.Server
	cs    []*redis.Client
	owner int
}

func startLifetime(t *testing.T, shards int, inline, perShard bool) *lifetimeServer {
	t.Helper()
	s := testserver.Start(t, testserver.Shards(shards),
		testserver.Config(func(c *config.Config) {
			c.Server.InlineExecution = inline
			if perShard {
				c.Server.Reactors, c.Server.ReactorPerShard = 0, true
			} else {
				c.Server.Reactors, c.Server.ReactorPerShard = 2, false
			}
		}))
	ls := &lifetimeServer{s: s}
	for i := range shards {
		ls.cs = append(ls.cs, s.ClientOf(t, i))
	}
	if shards > 1 {
		_, o := ownerOf(t, ls.cs[0], "{gs}")
		ls.owner = int(o)
	}
	return ls
}

// counts reads, on every shard, what the server counts of the test's
// channels, patterns, waits, tracking clients and named connections.
func (ls *lifetimeServer) counts(t *testing.T, channels ...string) ghostCounts {
	t.Helper()
	g := ghostCounts{}
	for i, c := range ls.cs {
		args := []any{"PUBSUB", "NUMSUB"}
		for _, ch := range channels {
			args = append(args, ch)
		}
		for ch, n := range numsubReply(t, value(t, c, args...)) {
			g[fmt.Sprintf("shard %d NUMSUB %s", i, ch)] = n
		}
		g[fmt.Sprintf("shard %d NUMPAT", i)] = intValue(t, c, "PUBSUB", "NUMPAT")
		g[fmt.Sprintf("shard %d PUBLISH", i)] = intValue(t, c, "PUBLISH", channels[0], "m")
		g[fmt.Sprintf("shard %d tracking_clients", i)] = infoInt(t, c, "clients", "tracking_clients")
		if i == ls.owner {
			g["SHARDNUMSUB"] = numsubReply(t, value(t, c, "PUBSUB", "SHARDNUMSUB", "{gs}s"))["{gs}s"]
			g["SPUBLISH"] = intValue(t, c, "SPUBLISH", "{gs}s", "m")
		}
	}
	g["blocked_clients"] = infoInt(t, ls.cs[0], "clients", "blocked_clients")
	// Each shard's port lists only its own connections.
	for _, c := range ls.cs {
		list, err := c.ClientList(ctxT(t)).Result()
		if err != nil {
			t.Fatal(err)
		}
		g["CLIENT LIST ghost names"] += int64(strings.Count(list, "name=gs-"))
	}
	return g
}

// numsubReply reads a PUBSUB NUMSUB or SHARDNUMSUB reply, a map in RESP3
// and a flat array in RESP2.
func numsubReply(t *testing.T, v any) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	switch r := v.(type) {
	case map[any]any:
		for ch, n := range r {
			out[fmt.Sprint(ch)] = n.(int64)
		}
	case []any:
		for j := 0; j+1 < len(r); j += 2 {
			out[fmt.Sprint(r[j])] = r[j+1].(int64)
		}
	default:
		t.Fatalf("NUMSUB reply %#v", v)
	}
	return out
}

// waitZero polls counts until they are all zero, then checks they stay so.
func (ls *lifetimeServer) waitZero(t *testing.T, channels ...string) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(lifetimePoll)
	for {
		g := ls.counts(t, channels...)
		if g.zero() {
			t.Logf("released within %v", time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the server still counts closed connections: %v", lifetimePoll, nonZero(g))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if g := ls.counts(t, channels...); !g.zero() {
		t.Fatalf("counts of closed connections came back: %v", nonZero(g))
	}
}

func nonZero(g ghostCounts) map[string]int64 {
	out := map[string]int64{}
	for k, v := range g {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// writeAndClose dials addr, writes b and closes at once (with a reset when
// rst is set).
func writeAndClose(t *testing.T, addr string, b []byte, rst bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if len(b) > 0 {
		_, _ = c.Write(b)
	}
	if rst {
		_ = c.(*net.TCPConn).SetLinger(0)
	}
	_ = c.Close()
}

// TestGhostSubscriptionsAfterClose is the reproduction: connections that
// subscribe (SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE) or block (BLPOP) and close
// at once leave nothing counted, on one shard and on four.
func TestGhostSubscriptionsAfterClose(t *testing.T) {
	for _, v := range lifetimeVariants {
		t.Run(v.name, func(t *testing.T) {
			ls := startLifetime(t, v.shards, v.inline, v.perShard)
			owner := ls.s.Addrs[ls.owner]
			sub := []byte(multibulk("SUBSCRIBE", "gs:ch") + multibulk("PSUBSCRIBE", "gs:ch*") + multibulk("SSUBSCRIBE", "{gs}s"))
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Add(2)
				go func() { defer wg.Done(); writeAndClose(t, owner, sub, i%2 == 0) }()
				go func() {
					defer wg.Done()
					writeAndClose(t, owner, []byte(multibulk("BLPOP", "{gs}l", "0")), i%2 == 1)
				}()
			}
			wg.Wait()
			ls.waitZero(t, "gs:ch")
		})
	}
}

// lifetimeScripts are the commands a connection of the stress test sends
// (on the shard owning {gs}); each leaves state on the server while the
// connection lives.
var lifetimeScripts = [][]string{
	{"SUBSCRIBE", "gs:ch", "gs:ch2"},
	{"PSUBSCRIBE", "gs:ch*"},
	{"SSUBSCRIBE", "{gs}s"},
	{"BLPOP", "{gs}l", "0"},
	{"BZPOPMIN", "{gs}z", "0"},
	{"XREAD", "BLOCK", "0", "STREAMS", "{gs}x", "$"},
	{"WAIT", "1", "0"},
	{"WATCH", "{gs}w"},
	{"MULTI"},
	{"SET", "{gs}w", "v"},
	{"CLIENT", "TRACKING", "ON"},
	{"GET", "{gs}t"},
	{"CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "gs"},
	{"MONITOR"},
	{"HELLO", "3"},
	{"CLIENT", "SETNAME", "gs-x"},
	{"PING"},
}

// TestConnectionStateReleasedAtEveryClosePoint closes connections at
// random points of their commands' path (before a command is complete,
// right after it is written, while it runs, after some replies, with a
// FIN or a reset), from raw sockets and from go-redis (a PubSub closed as
// soon as it subscribed, a BLPOP cancelled by its deadline), 1,000 rounds
// and more; then nothing of them may be counted: subscriptions, waits,
// tracking and names are all released.
func TestConnectionStateReleasedAtEveryClosePoint(t *testing.T) {
	for _, v := range lifetimeVariants {
		t.Run(v.name, func(t *testing.T) {
			ls := startLifetime(t, v.shards, v.inline, v.perShard)
			owner := ls.s.Addrs[ls.owner]
			const workers, rounds = 8, 1000
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewSource(int64(w) + 1))
					for r := w; r < rounds; r += workers {
						closeAtRandomPoint(t, owner, rng)
					}
				}()
			}
			// A client library that subscribes and closes at once, and one
			// whose blocking call is cut by its deadline.
			rc := redis.NewClient(&redis.Options{Addr: owner, MaxRetries: -1, DisableIdentity: true,
				ContextTimeoutEnabled: true, PoolSize: 4,
				DialTimeout: requestTimeout, ReadTimeout: requestTimeout, WriteTimeout: requestTimeout})
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 200 {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					var ps *redis.PubSub
					switch i % 3 {
					case 0:
						ps = rc.Subscribe(ctx, "gs:ch")
					case 1:
						ps = rc.PSubscribe(ctx, "gs:ch*")
					default:
						ps = rc.SSubscribe(ctx, "{gs}s")
					}
					_ = ps.Close()
					cancel()
					ctx, cancel = context.WithTimeout(context.Background(), time.Duration(i%5)*time.Millisecond+time.Millisecond)
					_ = rc.BLPop(ctx, 0, "{gs}l").Err()
					cancel()
				}
			}()
			wg.Wait()
			_ = rc.Close()
			ls.waitZero(t, "gs:ch", "gs:ch2")
			// The server still works: a subscriber gets what is published.
			ps := ls.cs[0].Subscribe(ctxT(t), "gs:live")
			defer ps.Close()
			if _, err := ps.Receive(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			if n := intValue(t, ls.cs[0], "PUBLISH", "gs:live", "m"); n != 1 {
				t.Errorf("PUBLISH to a live subscriber: %d", n)
			}
		})
	}
}

// closeAtRandomPoint sends a random pipeline of lifetimeScripts, cut at a
// random byte, waits a random moment or reads a few replies, and closes.
func closeAtRandomPoint(t *testing.T, addr string, rng *rand.Rand) {
	var b strings.Builder
	for range 1 + rng.Intn(4) {
		b.WriteString(multibulk(lifetimeScripts[rng.Intn(len(lifetimeScripts))]...))
	}
	input := b.String()
	if rng.Intn(3) == 0 {
		input = input[:rng.Intn(len(input)+1)]
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Errorf("dial %s: %v", addr, err)
		return
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if rng.Intn(4) == 0 && len(input) > 1 {
		// In two writes: a command may be complete only in the second.
		cut := rng.Intn(len(input))
		_, _ = c.Write([]byte(input[:cut]))
		time.Sleep(time.Duration(rng.Intn(200)) * time.Microsecond)
		input = input[cut:]
	}
	_, _ = c.Write([]byte(input))
	switch rng.Intn(4) {
	case 0: // at once
	case 1:
		time.Sleep(time.Duration(rng.Intn(2000)) * time.Microsecond)
	case 2:
		// Some reply bytes: the commands ran, or some did.
		_ = c.SetReadDeadline(time.Now().Add(time.Duration(1+rng.Intn(3)) * time.Millisecond))
		buf := make([]byte, 1+rng.Intn(64))
		_, _ = c.Read(buf)
	default:
		time.Sleep(100 * time.Microsecond)
	}
	if rng.Intn(2) == 0 {
		_ = c.(*net.TCPConn).SetLinger(0)
	}
}

// TestClientKillTakesEffectAtOnce: CLIENT KILL ID, followed by CLIENT
// LIST, PUBSUB NUMSUB, NUMPAT, PUBLISH and INFO in the same write (and
// inside MULTI), never shows the victim: it is gone before the KILL's
// reply. The victim subscribes or blocks, on the killer's shard or
// another.
func TestClientKillTakesEffectAtOnce(t *testing.T) {
	for _, v := range lifetimeVariants {
		t.Run(v.name, func(t *testing.T) {
			ls := startLifetime(t, v.shards, v.inline, v.perShard)
			killer := dialRaw(t, ls.s.Addrs[0])
			for round := range 200 {
				vShard := round % v.shards
				if round%4 == 3 {
					vShard = ls.owner
				}
				v := dialRaw(t, ls.s.Addrs[vShard])
				id := strings.TrimSuffix(strings.TrimPrefix(v.do("CLIENT", "ID"), ":"), "\r\n")
				blocking := round%2 == 1 && vShard == ls.owner
				if blocking {
					v.send("BLPOP", "{gs}l", "0")
					waitClientBlocked(t, ls.cs[vShard], id) // CLIENT LIST is per shard
				} else {
					v.expectReplies(multibulk("SUBSCRIBE", "gs:k")+multibulk("PSUBSCRIBE", "gs:k*"),
						arr(bulk("subscribe"), bulk("gs:k"), ":1\r\n"), arr(bulk("psubscribe"), bulk("gs:k*"), ":2\r\n"))
				}
				inMulti := round%3 == 2
				var in strings.Builder
				if inMulti {
					in.WriteString(multibulk("MULTI"))
				}
				for _, cmd := range [][]string{
					{"CLIENT", "KILL", "ID", id}, {"CLIENT", "LIST"},
					{"PUBSUB", "NUMSUB", "gs:k"}, {"PUBSUB", "NUMPAT"}, {"PUBLISH", "gs:k", "m"},
					{"INFO", "clients"},
				} {
					in.WriteString(multibulk(cmd...))
				}
				if inMulti {
					in.WriteString(multibulk("EXEC"))
				}
				killer.write(in.String())
				var replies []string
				if inMulti {
					killer.read() // +OK
					for range 6 {
						killer.read() // +QUEUED
					}
					all := killer.read()
					replies = []string{all}
				} else {
					for range 6 {
						replies = append(replies, killer.read())
					}
				}
				all := strings.Join(replies, "")
				if !strings.Contains(all, ":1\r\n") {
					t.Fatalf("round %d: CLIENT KILL did not kill: %q", round, all)
				}
				if strings.Contains(all, "id="+id+" ") {
					t.Fatalf("round %d (multi %v, victim on shard %d): CLIENT LIST after CLIENT KILL lists the victim: %q", round, inMulti, vShard, all)
				}
				if !strings.Contains(all, "blocked_clients:0\r\n") {
					t.Fatalf("round %d (multi %v): blocked_clients after CLIENT KILL: %q", round, inMulti, all)
				}
				if vShard == 0 {
					// PUBSUB and PUBLISH are of the killer's shard.
					if !strings.Contains(all, arr(bulk("gs:k"), ":0\r\n")) || strings.Count(all, ":0\r\n") < 3 {
						t.Fatalf("round %d (multi %v): NUMSUB, NUMPAT, PUBLISH after CLIENT KILL: %q", round, inMulti, all)
					}
				}
				v.expectClosed(5 * time.Second)
			}
		})
	}
}

// waitClientBlocked waits until the client with id is blocked (CLIENT LIST flag b).
func waitClientBlocked(t *testing.T, c *redis.Client, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		line, err := c.Do(ctxT(t), "CLIENT", "LIST", "ID", id).Text()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, " flags=b ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("client %s not blocked: %q", id, line)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestQuitReleasesBeforeReply: once a subscriber has QUIT's reply, a
// PUBLISH on its shard no longer counts it and CLIENT LIST no longer
// lists it.
func TestQuitReleasesBeforeReply(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	for round := range 200 {
		v := dialRaw(t, s.Addr())
		v.expectReplies(multibulk("CLIENT", "SETNAME", "gs-quit")+multibulk("SUBSCRIBE", "gs:q")+multibulk("QUIT"),
			"+OK\r\n", arr(bulk("subscribe"), bulk("gs:q"), ":1\r\n"), "+OK\r\n")
		if n := intValue(t, c, "PUBLISH", "gs:q", "m"); n != 0 {
			t.Fatalf("round %d: PUBLISH after the subscriber's QUIT reply counts %d", round, n)
		}
		if list := value(t, c, "CLIENT", "LIST").(string); strings.Contains(list, "name=gs-quit") {
			t.Fatalf("round %d: CLIENT LIST after QUIT's reply lists the client: %q", round, list)
		}
		v.expectClosed(5 * time.Second)
	}
}

// TestOutputCutReleasesAtOnce: a subscriber cut off for its output buffer
// limit is not counted by the next PUBLISH.
func TestOutputCutReleasesAtOnce(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "CONFIG", "SET", "client-output-buffer-limit", "pubsub 4096 0 0")
	big := strings.Repeat("x", 8192)
	for round := range 50 {
		v := dialRaw(t, s.Addr())
		v.expectReplies(multibulk("SUBSCRIBE", "gs:o"), arr(bulk("subscribe"), bulk("gs:o"), ":1\r\n"))
		if n := intValue(t, c, "PUBLISH", "gs:o", big); n != 1 {
			t.Fatalf("round %d: PUBLISH to the subscriber: %d", round, n)
		}
		if n := intValue(t, c, "PUBLISH", "gs:o", "m"); n != 0 {
			t.Fatalf("round %d: PUBLISH after the subscriber was cut off counts %d", round, n)
		}
		v.expectClosed(5 * time.Second)
	}
}
