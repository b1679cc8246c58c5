package integration_test

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// TestCrossConnectionOrderReactorPerShard: with server.reactor_per_shard,
// the default, commands written on different connections of one shard
// run in the order they were written, as on a single-threaded server, on
// one shard and on each of two, but for the rare packet the kernel itself
// delivers late (below). Each round writes, without waiting for a reply:
// SUBSCRIBE on one connection, then PUBLISH on another (the message must
// reach the subscriber); BLPOP on two connections in turn, then RPUSH of
// two elements on a third (the first to block gets the first element); a
// subscriber's close, then PUBLISH (it must not be counted).
//
// Every connection has had one reply before the round: a connection
// still in the listener's queue is read only once accepted, on a
// single-threaded server too. The writes come from one goroutine locked to a thread pinned to one
// CPU: loopback packets sent from two CPUs may be delivered out of order
// by the kernel itself, which no server can see.
//
// It runs with the defaults, where replies leave as soon as their batch has
// run (direct replies, lone reads run by the reactor inline) and the
// reactors read sockets edge-triggered, and with every reply handed back
// to the reactor.
func TestCrossConnectionOrderReactorPerShard(t *testing.T) {
	for _, mode := range []struct {
		name string
		set  func(*config.Config)
	}{
		{"defaults", func(*config.Config) {}},
		{"through-reactor", func(c *config.Config) { c.Server.DirectReplies, c.Server.InlineExecution = false, false }},
	} {
		t.Run(mode.name, func(t *testing.T) { crossConnectionOrder(t, mode.set) })
	}
}

func crossConnectionOrder(t *testing.T, set func(*config.Config)) {
	for _, shards := range []int{1, 2} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			// A reactor per shard, the default.
			s := testserver.Start(t, testserver.Shards(shards), testserver.Config(set))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpus unix.CPUSet
			if err := unix.SchedGetaffinity(0, &cpus); err != nil {
				t.Fatal(err)
			}
			var one unix.CPUSet
			for cpu := 0; cpu < 1024; cpu++ {
				if cpus.IsSet(cpu) {
					one.Set(cpu)
					break
				}
			}
			if err := unix.SchedSetaffinity(0, &one); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = unix.SchedSetaffinity(0, &cpus) }()

			tags := []string{"ord"}
			if shards > 1 {
				tags = tagsPerShard(t, s.Client(t), shards)
			}
			for i, addr := range s.Addrs {
				p := dialRaw(t, addr)
				const rounds = 200
				// misses counts, per check, the rounds that came out of
				// the written order.
				var misses [3]int
				for r := range rounds {
					ch := "ord:" + strconv.Itoa(i) + ":" + strconv.Itoa(r)
					// SUBSCRIBE, then PUBLISH on another connection.
					a := dialOrdered(t, addr)
					a.write(multibulk("SUBSCRIBE", ch))
					p.write(multibulk("PUBLISH", ch, "m"))
					if got := p.read(); got != ":1\r\n" {
						if got != ":0\r\n" {
							t.Fatalf("shard %d round %d: PUBLISH: %q", i, r, got)
						}
						misses[0]++
					}
					if got := a.read(); got != arr(bulk("subscribe"), bulk(ch), ":1\r\n") {
						t.Fatalf("shard %d round %d: SUBSCRIBE: %q", i, r, got)
					}
					// A subscriber's close, then PUBLISH.
					_ = a.conn.Close()
					p.write(multibulk("PUBLISH", ch, "m"))
					if got := p.read(); got != ":0\r\n" {
						if got != ":1\r\n" {
							t.Fatalf("shard %d round %d: PUBLISH: %q", i, r, got)
						}
						misses[1]++
					}
					// Two BLPOPs in turn, then RPUSH of two elements.
					key := "{" + tags[i] + "}l" + strconv.Itoa(r)
					b1, b2 := dialOrdered(t, addr), dialOrdered(t, addr)
					b1.write(multibulk("BLPOP", key, "0"))
					b2.write(multibulk("BLPOP", key, "0"))
					p.write(multibulk("RPUSH", key, "first", "second"))
					if got := p.read(); got != ":2\r\n" {
						t.Fatalf("shard %d round %d: RPUSH: %q", i, r, got)
					}
					g1, g2 := b1.read(), b2.read()
					switch {
					case g1 == arr(bulk(key), bulk("first")) && g2 == arr(bulk(key), bulk("second")):
					case g1 == arr(bulk(key), bulk("second")) && g2 == arr(bulk(key), bulk("first")):
						misses[2]++
					default:
						t.Fatalf("shard %d round %d: BLPOPs got %q and %q", i, r, g1, g2)
					}
					_ = b1.conn.Close()
					_ = b2.conn.Close()
				}
				// A packet can still overtake another when the server's
				// reactor holds the first socket at that moment (the kernel
				// queues the packet on that socket's backlog and reports it
				// readable only when released), which no server sees: a
				// busy machine shows it now and then, on redis-server too
				// (1 to 2 % of the close-then-PUBLISH rounds). Shared
				// reactors missed 10 to 27 % of rounds here; a reactor per shard
				// must stay under 2 %.
				t.Logf("shard %d: out of order in %v of %d rounds (SUBSCRIBE/PUBLISH, close/PUBLISH, BLPOP/BLPOP)", i, misses, rounds)
				for k, m := range misses {
					if m > rounds/50 {
						t.Errorf("shard %d: check %d came out of the written order in %d of %d rounds", i, k, m, rounds)
					}
				}
			}
		})
	}
}

// dialOrdered dials addr and waits for one reply: the server has accepted
// the connection and reads it.
func dialOrdered(t *testing.T, addr string) *rawConn {
	t.Helper()
	c := dialRaw(t, addr)
	c.expect("+PONG\r\n", "PING")
	return c
}

// TestReactorPerShardPortInUse: with a reactor per shard, a shard's port
// that cannot be bound stops the start-up with the address in the error,
// and the ports already served are released.
func TestReactorPerShardPortInUse(t *testing.T) {
	port, err := testserver.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+1)))
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, testserver.Binary(t), "--config", "", "--bind", "127.0.0.1",
		"--port", strconv.Itoa(port), "--shards", "2", "--reactor-per-shard", "--dir", t.TempDir()).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 || ctx.Err() != nil {
		t.Fatalf("expected a refused start, got %v\n%s", err, out)
	}
	if want := "127.0.0.1:" + strconv.Itoa(port+1); !strings.Contains(string(out), want) {
		t.Fatalf("the refusal does not name %s:\n%s", want, out)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("shard 0's port is still held after the refused start: %v", err)
	}
	_ = ln.Close()
}
