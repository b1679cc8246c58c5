package integration_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// REPLICAOF as an operator types it: through redis-cli, on any shard's
// port, and against addresses that would make a loop.

const redisCLI = "/usr/bin/redis-cli"

// cli runs redis-cli against 127.0.0.1:port and returns its output.
func cli(t *testing.T, port int, args ...string) string {
	t.Helper()
	if _, err := os.Stat(redisCLI); err != nil {
		t.Skip("redis-cli not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	full := append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(port)}, args...)
	out, err := exec.CommandContext(ctx, redisCLI, full...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli -p %d %v: %v: %s", port, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// replInfo returns INFO replication of c as a map (an empty map when the
// call fails), with a deadline of its own.
func replInfo(c *redis.Client) map[string]string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := c.Info(ctx, "replication").Result()
	out := map[string]string{}
	if err != nil {
		return out
	}
	for _, l := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			out[k] = v
		}
	}
	return out
}

// getWithin reads key on c with a deadline of its own.
func getWithin(c *redis.Client, key string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Get(ctx, key).Result()
}

// keysOnShards writes one key owned by each shard of p through a cluster
// client, returning them by shard.
func keysOnShards(t *testing.T, p *testserver.Process, shards int, prefix string) []string {
	t.Helper()
	cc := p.ClusterClient(t)
	out := make([]string, shards)
	found := 0
	for i := 0; found < shards && i < 10000; i++ {
		k := prefix + strconv.Itoa(i)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := cc.Set(ctx, k, "v"+k, 0).Err()
		cancel()
		if err != nil {
			continue // another shard's key: MOVED, not followed
		}
		for s := 0; s < shards; s++ {
			if out[s] != "" {
				continue
			}
			if v, err := getWithin(p.Client(t, s), k); err == nil && v == "v"+k {
				out[s] = k
				found++
				break
			}
		}
	}
	if found < shards {
		t.Fatalf("no key found for every shard: %q", out)
	}
	return out
}

// followsEveryShard waits until every shard of r reports its link up
// with the primary's port for that shard, and holds the key written on
// the primary's counterpart.
func followsEveryShard(t *testing.T, p, r *testserver.Process, shards int, keys []string) {
	t.Helper()
	for i := 0; i < shards; i++ {
		rc := r.Client(t, i)
		waitFor(t, 15*time.Second, "the link of shard "+strconv.Itoa(i), func() bool {
			return replInfo(rc)["master_link_status"] == "up"
		})
		info := replInfo(rc)
		if got, want := info["master_port"], strconv.Itoa(p.Port+i); got != want {
			t.Errorf("shard %d: master_port %s, want %s (the primary's shard %d)", i, got, want, i)
		}
		waitFor(t, 10*time.Second, "key "+keys[i]+" on the replica's shard "+strconv.Itoa(i), func() bool {
			v, err := getWithin(rc, keys[i])
			return err == nil && v == "v"+keys[i]
		})
	}
}

// TestReplicaofOnAnyShard: REPLICAOF sent to shard i names the address of
// the primary's shard i, and every shard follows its counterpart, whether
// redis-cli talks to shard 0 or to another shard.
func TestReplicaofOnAnyShard(t *testing.T) {
	const shards = 3
	p := startPrimary(t, shards)
	keys := keysOnShards(t, p, shards, "k")
	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Shards: shards, Fsync: "always"})

	// Through shard 0, naming the primary's shard 0.
	if got := cli(t, r.Port, "REPLICAOF", "127.0.0.1", strconv.Itoa(p.Port)); got != "OK" {
		t.Fatalf("REPLICAOF on shard 0: %q", got)
	}
	followsEveryShard(t, p, r, shards, keys)
	if got := cli(t, r.Port+2, "REPLICAOF", "127.0.0.1", strconv.Itoa(p.Port+2)); got != "OK Already connected to specified master" {
		t.Errorf("the same primary named on shard 2: %q", got)
	}
	if got := cli(t, r.Port, "REPLICAOF", "NO", "ONE"); got != "OK" {
		t.Fatalf("REPLICAOF NO ONE: %q", got)
	}

	// Through shard 2, naming the primary's shard 2.
	keys2 := keysOnShards(t, p, shards, "second")
	if got := cli(t, r.Port+2, "REPLICAOF", "127.0.0.1", strconv.Itoa(p.Port+2)); got != "OK" {
		t.Fatalf("REPLICAOF on shard 2: %q", got)
	}
	followsEveryShard(t, p, r, shards, keys2)
	for i := 0; i < shards; i++ {
		if got := cli(t, r.Port+i, "ROLE"); !strings.Contains(got, strconv.Itoa(p.Port+i)+"\nconnected") {
			t.Errorf("ROLE on shard %d: %q", i, got)
		}
	}
	// A port that leaves no room for the primary's shard 0 is refused,
	// and the replica keeps following.
	if got := cli(t, r.Port+2, "REPLICAOF", "127.0.0.1", "1"); !strings.HasPrefix(got, "ERR Invalid master port") {
		t.Errorf("REPLICAOF 127.0.0.1 1 on shard 2: %q", got)
	}
	if got := replInfo(r.Client(t, 0))["master_port"]; got != strconv.Itoa(p.Port) {
		t.Errorf("after a refused REPLICAOF shard 0 follows port %s, want %d", got, p.Port)
	}
}

// linkStaysDown checks for a while that no shard of the processes reports
// its link up or connected.
func linkStaysDown(t *testing.T, procs []*testserver.Process, shards int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, pr := range procs {
			for i := 0; i < shards; i++ {
				c := pr.Client(t, i)
				if info := replInfo(c); info["master_link_status"] != "down" {
					t.Fatalf("port %d: master_link_status %q, want down (%v)", pr.Port+i, info["master_link_status"], info)
				}
				if got := cli(t, pr.Port+i, "ROLE"); strings.Contains(got, "connected") {
					t.Fatalf("port %d: ROLE %q", pr.Port+i, got)
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReplicaofSelf: a server told to replicate from its own address
// never reports the link up, and its log says why.
func TestReplicaofSelf(t *testing.T) {
	const shards = 2
	s := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Shards: shards, Fsync: "always"})
	if got := cli(t, s.Port+1, "REPLICAOF", "127.0.0.1", strconv.Itoa(s.Port+1)); got != "OK" {
		t.Fatalf("REPLICAOF itself: %q", got)
	}
	waitFor(t, 10*time.Second, "the loop in the log", func() bool {
		return strings.Contains(s.Output(), "replication loop")
	})
	linkStaysDown(t, []*testserver.Process{s}, shards, 2*time.Second)
	// Promoted again, it takes writes.
	if got := cli(t, s.Port, "REPLICAOF", "NO", "ONE"); got != "OK" {
		t.Fatalf("REPLICAOF NO ONE: %q", got)
	}
	if got := cli(t, s.Port, "-c", "SET", "x", "1"); got != "OK" {
		t.Errorf("SET after REPLICAOF NO ONE: %q", got)
	}
}

// TestReplicaofMutual: a primary told to replicate from its own replica
// makes a loop; neither side reports its link up, and the log says why.
func TestReplicaofMutual(t *testing.T) {
	const shards = 2
	a := startPrimary(t, shards)
	b := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Shards: shards, Fsync: "always"})
	if got := cli(t, b.Port, "REPLICAOF", "127.0.0.1", strconv.Itoa(a.Port)); got != "OK" {
		t.Fatalf("REPLICAOF on b: %q", got)
	}
	for i := 0; i < shards; i++ {
		bc := b.Client(t, i)
		waitFor(t, 15*time.Second, "b's link of shard "+strconv.Itoa(i), func() bool {
			return replInfo(bc)["master_link_status"] == "up"
		})
	}
	if got := cli(t, a.Port+1, "REPLICAOF", "127.0.0.1", strconv.Itoa(b.Port+1)); got != "OK" {
		t.Fatalf("REPLICAOF on a: %q", got)
	}
	waitFor(t, 10*time.Second, "the loop in a's log", func() bool {
		return strings.Contains(a.Output(), "replication loop")
	})
	for i := 0; i < shards; i++ {
		bc := b.Client(t, i)
		waitFor(t, 10*time.Second, "b's link of shard "+strconv.Itoa(i)+" down", func() bool {
			return replInfo(bc)["master_link_status"] == "down"
		})
	}
	linkStaysDown(t, []*testserver.Process{a, b}, shards, 2*time.Second)
	// Breaking the loop on one side lets the other follow it again.
	if got := cli(t, a.Port, "REPLICAOF", "NO", "ONE"); got != "OK" {
		t.Fatalf("REPLICAOF NO ONE on a: %q", got)
	}
	if got := cli(t, a.Port, "-c", "SET", "after", "1"); got != "OK" {
		t.Fatalf("SET on a: %q", got)
	}
	for i := 0; i < shards; i++ {
		bc := b.Client(t, i)
		waitFor(t, 15*time.Second, "b's link of shard "+strconv.Itoa(i)+" up again", func() bool {
			return replInfo(bc)["master_link_status"] == "up"
		})
	}
}
