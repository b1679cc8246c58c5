package integration_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Redis Sentinel over a Ruvio primary and replica, and over redis-server
// beside it: three sentinels (redis-server --sentinel), a go-redis
// FailoverClient writing through two failovers (SIGKILL of the primary,
// then of its successor), every write acknowledged by WAIT 1 present
// afterwards, and the old primary back as a replica with the same data.

// sentinelNode is a data server the sentinels watch: Ruvio's binary or
// redis-server, restartable on its port.
type sentinelNode struct {
	port    int
	kill    func()
	restart func()
}

func (n *sentinelNode) addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

func TestSentinelFailoverLikeRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("two failovers under Sentinel, against Ruvio and redis-server")
	}
	redisServer, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server (which also runs the sentinels) is not installed")
	}
	times := map[string][2]time.Duration{}
	for _, target := range []string{"ruvio", "redis"} {
		t.Run(target, func(t *testing.T) {
			times[target] = sentinelFailovers(t, target, redisServer)
		})
	}
	for _, target := range []string{"ruvio", "redis"} {
		if d, ok := times[target]; ok {
			t.Logf("%s: first failover %v, second %v (down-after-milliseconds 2000)", target, d[0].Round(time.Millisecond), d[1].Round(time.Millisecond))
		}
	}
}

// startSentinelData starts a primary (replicaOf 0) or a replica of
// replicaOf.
func startSentinelData(t *testing.T, target, redisServer string, replicaOf int) *sentinelNode {
	t.Helper()
	dir := t.TempDir()
	if target == "ruvio" {
		cfg := testserver.BinaryConfig{Dir: dir, Fsync: "always"}
		if replicaOf != 0 {
			cfg.Args = []string{"--replicaof", "127.0.0.1:" + strconv.Itoa(replicaOf)}
		}
		p := testserver.StartBinary(t, cfg)
		n := &sentinelNode{port: p.Port}
		n.kill = func() { p.Kill(t) }
		n.restart = func() {
			// Back on its port as it was configured; Sentinel makes it a
			// replica of its successor.
			p = p.Restart(t)
		}
		return n
	}
	port, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--protected-mode", "no"}
	if replicaOf != 0 {
		args = append(args, "--replicaof", "127.0.0.1", strconv.Itoa(replicaOf))
	}
	n := &sentinelNode{port: port}
	var cmd *exec.Cmd
	start := func() {
		cmd = exec.Command(redisServer, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		c := cmd
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		waitPong(t, n.addr())
	}
	start()
	n.kill = func() { _ = cmd.Process.Signal(syscall.SIGKILL); _ = cmd.Wait() }
	n.restart = start
	return n
}

func waitPong(t *testing.T, addr string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer PING: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startSentinels starts three sentinels watching the primary at port.
func startSentinels(t *testing.T, redisServer string, primary int) []string {
	t.Helper()
	var addrs []string
	for range 3 {
		port, err := testserver.FreePorts(1)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor mymaster 127.0.0.1 %d 2\n"+
			"sentinel down-after-milliseconds mymaster 2000\nsentinel failover-timeout mymaster 10000\n"+
			"sentinel parallel-syncs mymaster 1\n", port, dir, primary)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(redisServer, conf, "--sentinel")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		addr := "127.0.0.1:" + strconv.Itoa(port)
		waitPong(t, addr)
		addrs = append(addrs, addr)
	}
	return addrs
}

// sentinelPrimary is the primary the first sentinel names.
func sentinelPrimary(t *testing.T, sentinel string) string {
	t.Helper()
	s := redis.NewSentinelClient(&redis.Options{Addr: sentinel, MaxRetries: -1, DisableIdentity: true})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	a, err := s.GetMasterAddrByName(ctx, "mymaster").Result()
	if err != nil || len(a) != 2 {
		return ""
	}
	return a[0] + ":" + a[1]
}

// sentinelWriter writes k0, k1, ... through the failover client; a write
// WAIT 1 acknowledged is remembered as acknowledged, and lastOKAt is when
// the last SET succeeded.
type sentinelWriter struct {
	mu       sync.Mutex
	acked    map[string]string
	lastOKAt time.Time
	// lastOKSent is when that SET was sent: one sent before a kill may
	// succeed after it.
	lastOKSent time.Time
	stop       chan struct{}
	done       chan struct{}
}

func startSentinelWriter(c *redis.Client) *sentinelWriter {
	w := &sentinelWriter{acked: map[string]string{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			k, v := "k"+strconv.Itoa(i), "v"+strconv.Itoa(i)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			sent := time.Now()
			err := c.Set(ctx, k, v, 0).Err()
			cancel()
			if err != nil {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			w.mu.Lock()
			w.lastOKAt, w.lastOKSent = time.Now(), sent
			w.mu.Unlock()
			ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
			n, err := c.Wait(ctx, 1, time.Second).Result()
			cancel()
			w.mu.Lock()
			if err == nil && n >= 1 {
				w.acked[k] = v
			}
			w.mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return w
}

// lastOK is when the last successful SET returned and when it was sent.
func (w *sentinelWriter) lastOK() (at, sent time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastOKAt, w.lastOKSent
}

func (w *sentinelWriter) finish() map[string]string {
	close(w.stop)
	<-w.done
	return w.acked
}

// waitWriteAfter waits until a SET sent after t0 succeeded and returns how
// long after t0 it did.
func waitWriteAfter(t *testing.T, w *sentinelWriter, t0 time.Time) time.Duration {
	t.Helper()
	for {
		if at, sent := w.lastOK(); sent.After(t0) {
			return at.Sub(t0)
		}
		if time.Since(t0) > 60*time.Second {
			t.Fatalf("no write acknowledged within 60 s of the kill")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitRole waits until the server at addr has role ("master"/"slave") and,
// for a replica, a link up to primary.
func waitRole(t *testing.T, addr, role, primary string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		info, err := c.Info(ctx, "replication").Result()
		cancel()
		ok := err == nil && strings.Contains(info, "role:"+role+"\r\n")
		if ok && role == "slave" {
			_, port, _ := strings.Cut(primary, ":")
			ok = strings.Contains(info, "master_port:"+port+"\r\n") && strings.Contains(info, "master_link_status:up")
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not %s (of %s) within 60 s: %q %v", addr, role, primary, info, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// dumpAll reads every key and value of the server at addr.
func dumpAll(t *testing.T, addr string, readonly bool) map[string]string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	out := map[string]string{}
	var cursor uint64
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		keys, next, err := c.Scan(ctx, cursor, "*", 1000).Result()
		cancel()
		if err != nil {
			t.Fatalf("SCAN on %s: %v", addr, err)
		}
		for _, k := range keys {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			v, err := c.Get(ctx, k).Result()
			cancel()
			if err != nil {
				t.Fatalf("GET %s on %s: %v", k, addr, err)
			}
			out[k] = v
		}
		if cursor = next; cursor == 0 {
			return out
		}
	}
}

func sentinelFailovers(t *testing.T, target, redisServer string) [2]time.Duration {
	primary := startSentinelData(t, target, redisServer, 0)
	replica := startSentinelData(t, target, redisServer, primary.port)
	waitRole(t, replica.addr(), "slave", primary.addr())
	sentinels := startSentinels(t, redisServer, primary.port)
	fc := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName: "mymaster", SentinelAddrs: sentinels, MaxRetries: -1,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second, DisableIdentity: true,
	})
	t.Cleanup(func() { _ = fc.Close() })
	// The sentinels know the replica before the first kill.
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := redis.NewSentinelClient(&redis.Options{Addr: sentinels[0], MaxRetries: -1, DisableIdentity: true})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		reps, err := s.Replicas(ctx, "mymaster").Result()
		cancel()
		_ = s.Close()
		if err == nil && len(reps) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sentinels do not see the replica: %v %v", reps, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	var times [2]time.Duration
	old, next := primary, replica
	for round := range 2 {
		w := startSentinelWriter(fc)
		time.Sleep(time.Second)
		old.kill()
		killed := time.Now()
		times[round] = waitWriteAfter(t, w, killed)
		// Every sentinel names the new primary soon: the one that ran the
		// failover at once, the others from its hello messages.
		for _, sn := range sentinels {
			named := time.Now().Add(15 * time.Second)
			for got := sentinelPrimary(t, sn); got != next.addr(); got = sentinelPrimary(t, sn) {
				if time.Now().After(named) {
					t.Fatalf("round %d: sentinel %s names %s the primary, want %s", round, sn, got, next.addr())
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		time.Sleep(500 * time.Millisecond)
		acked := w.finish()
		if len(acked) == 0 {
			t.Fatalf("round %d: no write was acknowledged by WAIT 1", round)
		}
		have := dumpAll(t, next.addr(), false)
		var lost []string
		for k, v := range acked {
			if have[k] != v {
				lost = append(lost, k)
			}
		}
		if len(lost) > 0 {
			sort.Strings(lost)
			t.Fatalf("round %d: %d writes acknowledged by WAIT 1 are missing on the new primary: %v", round, len(lost), lost)
		}
		// The old primary comes back and Sentinel turns it into a replica
		// of its successor, with the same data.
		old.restart()
		waitRole(t, old.addr(), "slave", next.addr())
		nc := redis.NewClient(&redis.Options{Addr: next.addr(), MaxRetries: -1, DisableIdentity: true})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		n, err := nc.Wait(ctx, 1, 5*time.Second).Result()
		cancel()
		_ = nc.Close()
		if err != nil || n < 1 {
			t.Fatalf("round %d: WAIT 1 on the new primary = %d, %v", round, n, err)
		}
		want, got := dumpAll(t, next.addr(), false), dumpAll(t, old.addr(), true)
		if len(want) != len(got) {
			t.Fatalf("round %d: the rejoined replica has %d keys, the primary %d", round, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("round %d: key %s is %q on the rejoined replica, %q on the primary", round, k, got[k], v)
			}
		}
		old, next = next, old
	}
	return times
}
