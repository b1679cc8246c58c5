package integration_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/internal/testserver"
)

// Replication through the real binary: a primary and a replica process on
// loopback ports, both under fsync = always.

// replConfig writes a configuration file with small WAL segments, so a
// snapshot drops the segments before it and a replica from empty needs a
// full resync.
func replConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "repl.toml")
	const body = "[persistence]\nsegment_size = \"4kb\"\nsnapshot_every = 0\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func startPrimary(t *testing.T, shards int) *testserver.Process {
	t.Helper()
	return testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Shards: shards, Fsync: "always",
		Args: []string{"--config", replConfig(t), "--fsync", "always"}})
}

func startReplica(t *testing.T, p *testserver.Process, shards int) *testserver.Process {
	t.Helper()
	return testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Shards: shards, Fsync: "always",
		Args: []string{"--config", replConfig(t), "--fsync", "always", "--replicaof", p.Addrs[0]}})
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// linkUp reports whether INFO replication of c says master_link_status:up.
func linkUp(c *redis.Client) bool {
	s, err := c.Info(context.Background(), "replication").Result()
	return err == nil && strings.Contains(s, "master_link_status:up")
}

// contents reads every key of c's database as "type:value" (with a TTL
// flag), for comparing a replica with its primary.
func contents(t *testing.T, c *redis.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	keys, err := c.Keys(ctxT(t), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		typ := c.Type(ctxT(t), k).Val()
		var v string
		switch typ {
		case "string":
			v = c.Get(ctxT(t), k).Val()
		case "hash":
			m := c.HGetAll(ctxT(t), k).Val()
			var fs []string
			for f, x := range m {
				fs = append(fs, f+"="+x)
			}
			sort.Strings(fs)
			v = strings.Join(fs, ",")
		case "list":
			v = strings.Join(c.LRange(ctxT(t), k, 0, -1).Val(), ",")
		case "set":
			ms := c.SMembers(ctxT(t), k).Val()
			sort.Strings(ms)
			v = strings.Join(ms, ",")
		case "zset":
			for _, z := range c.ZRangeWithScores(ctxT(t), k, 0, -1).Val() {
				v += fmt.Sprintf("%v:%v,", z.Member, z.Score)
			}
		case "none":
			continue // expired between KEYS and TYPE
		default:
			v = "?"
		}
		ttl := c.PTTL(ctxT(t), k).Val() > 0
		out[k] = typ + ":" + v + ":" + strconv.FormatBool(ttl)
	}
	return out
}

func sameContents(t *testing.T, primary, replica *redis.Client) {
	t.Helper()
	want, got := contents(t, primary), contents(t, replica)
	if len(want) != len(got) {
		t.Errorf("replica has %d keys, primary %d", len(got), len(want))
	}
	bad := 0
	for k, v := range want {
		if got[k] != v && bad < 10 {
			t.Errorf("key %q: replica %q, primary %q", k, got[k], v)
			bad++
		}
	}
}

// writeMix writes n rounds of every kind of record: strings, counters,
// collections, deadlines, a transaction, a script, an idempotency record.
func writeMix(t *testing.T, c *redis.Client, prefix string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("%s:%d", prefix, i)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
		}
		must(c.Set(ctxT(t), k+":s", strings.Repeat("v", i%50), 0).Err())
		must(c.Incr(ctxT(t), prefix+":ctr").Err())
		must(c.HSet(ctxT(t), k+":h", "f", i, "g", "x").Err())
		must(c.RPush(ctxT(t), prefix+":l", i).Err())
		must(c.SAdd(ctxT(t), prefix+":set", i).Err())
		must(c.ZAdd(ctxT(t), prefix+":z", redis.Z{Score: float64(i), Member: k}).Err())
		must(c.Set(ctxT(t), k+":ttl", "t", time.Hour).Err())
		if i%5 == 0 {
			must(c.Del(ctxT(t), fmt.Sprintf("%s:%d:s", prefix, i/2)).Err())
			_, err := c.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
				p.Set(ctxT(t), k+":tx1", "a", 0)
				p.Append(ctxT(t), k+":tx1", "b")
				p.LPush(ctxT(t), k+":tx2", "x", "y")
				return nil
			})
			must(err)
			must(c.Eval(ctxT(t), "redis.call('set', KEYS[1], ARGV[1]); return redis.call('incr', KEYS[2])", []string{k + ":lua", prefix + ":luactr"}, i).Err())
			must(c.Do(ctxT(t), "IDEM", k+":idem", "BEGIN", strings.Repeat("a", 64), strings.Repeat("b", 32), 3600000).Err())
		}
	}
}

// TestReplicationSync: a replica catches up from empty with a full resync
// (the primary's log no longer starts at 1), follows live writes of every
// record kind, refuses writes, and WAIT counts it.
func TestReplicationSync(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	writeMix(t, pc, "a", 60)
	expect(t, pc, "OK", "SAVE")
	writeMix(t, pc, "b", 20)

	r := startReplica(t, p, 1)
	rc := r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
	if !strings.Contains(r.Output(), "full resync") {
		t.Errorf("the replica did not report a full resync:\n%s", r.Output())
	}
	expect(t, pc, int64(1), "WAIT", "1", "0")
	sameContents(t, pc, rc)

	// Live records, an expiry deletion and a flush of another kind.
	writeMix(t, pc, "c", 20)
	expect(t, pc, "OK", "SET", "short", "x", "PX", "50")
	waitFor(t, 5*time.Second, "the primary's expiry of short", func() bool { return pc.Exists(ctxT(t), "short").Val() == 0 })
	expect(t, pc, int64(1), "WAIT", "1", "0")
	if pd, rd := pc.DBSize(ctxT(t)).Val(), rc.DBSize(ctxT(t)).Val(); pd != rd {
		t.Errorf("DBSIZE primary %d, replica %d: the expiry deletion did not reach the replica", pd, rd)
	}
	sameContents(t, pc, rc)

	// A replica is read-only, answers WAIT with 0 and says what it is.
	expectErr(t, rc, "READONLY You can't write against a read only replica.", "SET", "x", "1")
	expectErr(t, rc, "READONLY You can't write against a read only replica.", "INCR", "a:ctr")
	if err := rc.Eval(ctxT(t), "return redis.call('set', 'x', '1')", nil).Err(); err == nil || !strings.Contains(err.Error(), "READONLY") {
		t.Errorf("EVAL writing on a replica: %v", err)
	}
	expect(t, rc, int64(0), "WAIT", "1", "0")
	role := rc.Do(ctxT(t), "ROLE").Val().([]interface{})
	if role[0] != "slave" || role[2] != int64(p.Port) || role[3] != "connected" {
		t.Errorf("replica ROLE: %v", role)
	}
	prole := pc.Do(ctxT(t), "ROLE").Val().([]interface{})
	if prole[0] != "master" || len(prole[2].([]interface{})) != 1 {
		t.Errorf("primary ROLE: %v", prole)
	} else if rep := prole[2].([]interface{})[0].([]interface{}); rep[1] != strconv.Itoa(r.Port) {
		t.Errorf("primary ROLE lists the replica as %v, want port %d", rep, r.Port)
	}
	info := pc.Info(ctxT(t), "replication").Val()
	if !strings.Contains(info, "connected_slaves:1") || !strings.Contains(info, "slave0:ip=127.0.0.1,port="+strconv.Itoa(r.Port)+",state=online") {
		t.Errorf("primary INFO replication:\n%s", info)
	}

	// Evictions reach the replica as deletions.
	expect(t, pc, "OK", "CONFIG", "SET", "maxmemory-policy", "allkeys-random")
	expect(t, pc, "OK", "CONFIG", "SET", "maxmemory", "3mb")
	for i := 0; i < 3000; i++ {
		if err := pc.Set(ctxT(t), fmt.Sprintf("big:%d", i), strings.Repeat("z", 1000), 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(pc.Info(ctxT(t), "stats").Val(), "evicted_keys:0\r") {
		expect(t, pc, int64(1), "WAIT", "1", "0")
		if pd, rd := pc.DBSize(ctxT(t)).Val(), rc.DBSize(ctxT(t)).Val(); pd != rd {
			t.Errorf("after evictions DBSIZE primary %d, replica %d", pd, rd)
		}
	} else {
		t.Errorf("nothing was evicted under maxmemory 3mb")
	}
}

// TestReplicationResume: a replica killed and restarted resumes from its
// own durable sequence (partial resync), and so does one whose primary
// was killed and restarted.
func TestReplicationResume(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	r := startReplica(t, p, 1)
	rc := r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
	writeMix(t, pc, "a", 30)
	expect(t, pc, int64(1), "WAIT", "1", "0")

	// The replica dies; the primary goes on; the replica comes back.
	r.Kill(t)
	writeMix(t, pc, "b", 30)
	r = r.Restart(t)
	rc = r.Client(t, 0)
	waitFor(t, 10*time.Second, "the restarted replica's link", func() bool { return linkUp(rc) })
	out := r.Output()
	if !strings.Contains(out, "partial resync") || strings.Contains(out, "\"after\": 0}") {
		t.Errorf("the restarted replica did not resume from its sequence:\n%s", out)
	}
	expect(t, pc, int64(1), "WAIT", "1", "0")
	sameContents(t, pc, rc)

	// The primary dies and comes back on its port; the replica follows.
	// Meanwhile a replica with replica-serve-stale-data no refuses reads.
	p.Kill(t)
	waitFor(t, 10*time.Second, "the link to go down", func() bool { return !linkUp(rc) })
	expect(t, rc, "OK", "CONFIG", "SET", "replica-serve-stale-data", "no")
	expectErr(t, rc, "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", "GET", "a:ctr")
	if !strings.Contains(rc.Info(ctxT(t), "replication").Val(), "master_link_status:down") { // INFO is allowed (stale flag)
		t.Errorf("INFO on a replica with its link down")
	}
	p = p.Restart(t)
	waitFor(t, 10*time.Second, "the link after the primary's restart", func() bool { return linkUp(rc) })
	expect(t, rc, "30", "GET", "a:ctr")
	pc = p.Client(t, 0)
	writeMix(t, pc, "c", 30)
	expect(t, pc, int64(1), "WAIT", "1", "0")
	sameContents(t, pc, rc)
}

// TestReplicationWaitSurvivesPrimaryCrash: writes that WAIT 1 0 covered
// are on the replica after the primary is killed, cycle after cycle under
// load.
func TestReplicationWaitSurvivesPrimaryCrash(t *testing.T) {
	cycles := 20
	if testing.Short() {
		cycles = 3
	}
	p := startPrimary(t, 1)
	r := startReplica(t, p, 1)
	rc := r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
	const workers = 6
	confirmed := make([]int64, workers)
	next := make([]int64, workers)
	for cycle := 0; cycle < cycles; cycle++ {
		var killed atomic.Bool
		var wg sync.WaitGroup
		var waits atomic.Int64
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := redis.NewClient(clientTimeouts(&redis.Options{Addr: p.Addrs[0], MaxRetries: -1, DisableIdentity: true}))
				defer c.Close()
				key := "w:" + strconv.Itoa(w)
				for !killed.Load() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					next[w]++
					v := next[w]
					err := c.Set(ctx, key, v, 0).Err()
					var n int64
					if err == nil {
						n, err = c.Do(ctx, "WAIT", "1", "0").Int64()
					}
					cancel()
					if err != nil {
						if !killed.Load() {
							t.Errorf("cycle %d worker %d before the kill: %v", cycle, w, err)
						}
						return
					}
					if n != 1 {
						t.Errorf("WAIT 1 0 returned %d", n)
						return
					}
					confirmed[w] = v
					waits.Add(1)
				}
			}()
		}
		// Load for 150 ms, and at least until a WAIT has returned (a slow
		// disk on a shared machine can take longer than that).
		for t0 := time.Now(); time.Since(t0) < 150*time.Millisecond || waits.Load() == 0 && time.Since(t0) < 10*time.Second; {
			time.Sleep(10 * time.Millisecond)
		}
		killed.Store(true)
		p.Kill(t)
		wg.Wait()
		if waits.Load() == 0 {
			t.Fatalf("cycle %d: no WAIT returned before the kill", cycle)
		}
		for w := 0; w < workers; w++ {
			got, err := rc.Get(ctxT(t), "w:"+strconv.Itoa(w)).Int64()
			if err != nil || got < confirmed[w] {
				t.Fatalf("cycle %d: replica has w:%d = %d (%v), but WAIT confirmed %d", cycle, w, got, err, confirmed[w])
			}
			next[w] = max(next[w], got)
		}
		p = p.Restart(t)
		waitFor(t, 10*time.Second, "the link after the primary's restart", func() bool {
			return linkUp(rc) && p.Client(t, 0).Do(ctxT(t), "WAIT", "1", "100").Val() == int64(1)
		})
	}
}

// TestReplicationWaitStoppedReplica: with the replica stopped (SIGSTOP)
// WAIT times out with 0 while the primary keeps serving others.
func TestReplicationWaitStoppedReplica(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	other := p.Client(t, 0)
	r := startReplica(t, p, 1)
	rc := r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
	expect(t, pc, "OK", "SET", "a", "1")
	expect(t, pc, int64(1), "WAIT", "1", "0")

	r.Signal(t, syscall.SIGSTOP)
	defer r.Signal(t, syscall.SIGCONT)
	expect(t, pc, "OK", "SET", "a", "2")
	done := make(chan int64, 1)
	start := time.Now()
	go func() { done <- pc.Do(context.Background(), "WAIT", "1", "400").Val().(int64) }()
	// Others are served while the WAIT is parked.
	for i := 0; i < 20; i++ {
		t0 := time.Now()
		if err := other.Incr(ctxT(t), "ctr").Err(); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(t0); d > 200*time.Millisecond {
			t.Errorf("INCR took %v while a WAIT was parked", d)
		}
	}
	n := <-done
	if el := time.Since(start); n != 0 || el < 400*time.Millisecond || el > 3*time.Second {
		t.Errorf("WAIT 1 400 with the replica stopped: %d after %v, want 0 after about 400ms", n, el)
	}
	// Pipelined commands behind a WAIT wait for it and keep their order.
	cmds, _ := pc.Pipelined(ctxT(t), func(pl redis.Pipeliner) error {
		pl.Do(ctxT(t), "WAIT", "1", "200")
		pl.Get(ctxT(t), "a")
		return nil
	})
	if len(cmds) != 2 || cmds[0].(*redis.Cmd).Val() != int64(0) || cmds[1].(*redis.StringCmd).Val() != "2" {
		t.Errorf("pipeline behind WAIT: %v", cmds)
	}
	r.Signal(t, syscall.SIGCONT)
	expect(t, pc, int64(1), "WAIT", "1", "0")
	if got := rc.Get(ctxT(t), "a").Val(); got != "2" {
		t.Errorf("replica a = %q after SIGCONT", got)
	}
	// min-replicas-to-write refuses writes without enough good replicas.
	expect(t, pc, "OK", "CONFIG", "SET", "min-replicas-to-write", "2")
	expectErr(t, pc, "NOREPLICAS Not enough good replicas to write.", "SET", "a", "3")
	expect(t, pc, "OK", "CONFIG", "SET", "min-replicas-to-write", "1")
	expect(t, pc, "OK", "SET", "a", "3")
}

// TestReplicaofNoOne: a promoted replica keeps its data and takes writes;
// REPLICAOF at run time makes a primary a replica.
func TestReplicaofNoOne(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	writeMix(t, pc, "a", 20)
	// A process started as a primary becomes a replica at run time.
	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always"})
	rc := r.Client(t, 0)
	expect(t, rc, "OK", "SET", "mine", "1")
	expect(t, rc, "OK", "REPLICAOF", "127.0.0.1", strconv.Itoa(p.Port))
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
	expect(t, pc, int64(1), "WAIT", "1", "0")
	sameContents(t, pc, rc) // its own key went: the primary's history replaced it
	expect(t, rc, "OK Already connected to specified master", "REPLICAOF", "127.0.0.1", strconv.Itoa(p.Port))

	expect(t, rc, "OK", "REPLICAOF", "NO", "ONE")
	expect(t, rc, "OK", "SET", "after", "1")
	if got := rc.Get(ctxT(t), "a:ctr").Val(); got != "20" {
		t.Errorf("promoted replica a:ctr = %q", got)
	}
	if role := rc.Do(ctxT(t), "ROLE").Val().([]interface{}); role[0] != "master" {
		t.Errorf("ROLE after REPLICAOF NO ONE: %v", role)
	}
	expect(t, rc, "OK", "SLAVEOF", "NO", "ONE")
	expectErr(t, rc, "ERR Invalid master port", "REPLICAOF", "127.0.0.1", "x")
	// The promoted process survives a restart with its data.
	r.Stop(t, 20*time.Second)
	r = r.Restart(t)
	rc = r.Client(t, 0)
	expect(t, rc, "1", "GET", "after")
	expect(t, rc, "20", "GET", "a:ctr")
}

// TestReplicationShards: each shard of a replica follows the same shard
// of its primary; a different shard count is refused with a clear error.
func TestReplicationShards(t *testing.T) {
	p := startPrimary(t, 2)
	r := startReplica(t, p, 2)
	cc := p.ClusterClient(t)
	for i := 0; i < 200; i++ {
		if err := cc.Set(ctxT(t), "k"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 2; i++ {
		rc := r.Client(t, i)
		waitFor(t, 10*time.Second, "the link of shard "+strconv.Itoa(i), func() bool { return linkUp(rc) })
		expect(t, p.Client(t, i), int64(1), "WAIT", "1", "0")
		sameContents(t, p.Client(t, i), rc)
	}
	// CLUSTER SHARDS and NODES list each shard's replica.
	pc := p.Client(t, 0)
	shards := pc.ClusterShards(ctxT(t)).Val()
	if len(shards) != 2 {
		t.Fatalf("CLUSTER SHARDS: %v", shards)
	}
	for i, s := range shards {
		if len(s.Nodes) != 2 || s.Nodes[1].Role != "replica" || s.Nodes[1].Port != int64(r.Port+i) || s.Nodes[1].ReplicationOffset != s.Nodes[0].ReplicationOffset {
			t.Errorf("CLUSTER SHARDS shard %d: %+v", i, s.Nodes)
		}
	}
	nodes := pc.ClusterNodes(ctxT(t)).Val()
	for i := 0; i < 2; i++ {
		// The bus port is 0 when port+10000 is not a port: ephemeral test
		// ports above 55535 have none.
		bus := cluster.Node{Port: r.Port + i}.BusPort()
		if !strings.Contains(nodes, "127.0.0.1:"+strconv.Itoa(r.Port+i)+"@"+strconv.Itoa(bus)+" slave ") {
			t.Errorf("CLUSTER NODES has no replica line for shard %d (replica port %d):\n%s\nshards %+v", i, r.Port, nodes, shards)
		}
	}
	bad := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Shards: 1, Fsync: "always",
		Args: []string{"--replicaof", p.Addrs[0]}})
	waitFor(t, 10*time.Second, "the refusal in the log", func() bool {
		return strings.Contains(bad.Output(), "shard count mismatch: the replica has 1 shards and this primary 2")
	})
}

// TestReplicationDatabases: records of other databases, SWAPDB, FLUSHDB,
// FLUSHALL and the native key jobs reach the replica as they are.
func TestReplicationDatabases(t *testing.T) {
	p := startPrimary(t, 1)
	r := startReplica(t, p, 1)
	rc0 := r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc0) })
	db := func(proc *testserver.Process, n int) *redis.Client {
		c := redis.NewClient(clientTimeouts(&redis.Options{Addr: proc.Addrs[0], DB: n, MaxRetries: -1, DisableIdentity: true}))
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	p0, p3, p5 := db(p, 0), db(p, 3), db(p, 5)
	writeMix(t, p3, "three", 10)
	writeMix(t, p5, "five", 10)
	expect(t, p0, "OK", "SWAPDB", "0", "3")
	expect(t, p5, "OK", "FLUSHDB")
	expect(t, p0, "OK", "SET", "after-swap", "1")
	if err := p0.Do(ctxT(t), "LEASE", "lease", "60000").Err(); err != nil {
		t.Fatal(err)
	}
	if err := p0.Do(ctxT(t), "SETV", "sv", "x").Err(); err != nil {
		t.Fatalf("SETV: %v", err)
	}
	expect(t, p0, int64(1), "WAIT", "1", "0")
	for _, n := range []int{0, 3, 5} {
		sameContents(t, db(p, n), db(r, n))
	}
	if got, want := db(r, 0).Type(ctxT(t), "lease").Val(), p0.Type(ctxT(t), "lease").Val(); got != want {
		t.Errorf("lease on the replica: %q, primary %q", got, want)
	}
	expect(t, p0, "OK", "FLUSHALL")
	expect(t, p0, int64(1), "WAIT", "1", "0")
	for _, n := range []int{0, 3, 5} {
		if k := db(r, n).DBSize(ctxT(t)).Val(); k != 0 {
			t.Errorf("replica database %d has %d keys after FLUSHALL", n, k)
		}
	}
}

// TestReplicationAuth: a replica authenticates with primaryauth when the
// primary has a password; a wrong one is refused and logged.
func TestReplicationAuth(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	expect(t, pc, "OK", "SET", "a", "1")
	expect(t, pc, "OK", "CONFIG", "SET", "requirepass", "s3cret")
	cfg := func(pass string) string {
		path := filepath.Join(t.TempDir(), "replica.toml")
		body := "[replication]\nprimary = \"" + p.Addrs[0] + "\"\nprimaryauth = \"" + pass + "\"\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always", Args: []string{"--config", cfg("s3cret"), "--fsync", "always"}})
	rc := r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
	expect(t, rc, "1", "GET", "a")
	bad := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always", Args: []string{"--config", cfg("wrong"), "--fsync", "always"}})
	waitFor(t, 10*time.Second, "the refusal in the log", func() bool { return strings.Contains(bad.Output(), "Unable to AUTH to MASTER") })
	if linkUp(bad.Client(t, 0)) {
		t.Errorf("a replica with a wrong password is linked")
	}
}

// TestReplicationWaitReplicaFsync: a replica acknowledges only what its own
// log has fsynced. Under everysec that follows its periodic fsync; under
// no, whose log never syncs by itself, the replica syncs for its
// acknowledgements, so WAIT on the primary still returns (within about
// a second or two) and means the replica's disk.
func TestReplicationWaitReplicaFsync(t *testing.T) {
	for _, policy := range []string{"everysec", "no"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			p := startPrimary(t, 1)
			pc := p.Client(t, 0)
			r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Shards: 1, Fsync: policy,
				Args: []string{"--fsync", policy, "--replicaof", p.Addrs[0]}})
			rc := r.Client(t, 0)
			waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
			for i := 0; i < 3; i++ {
				expect(t, pc, "OK", "SET", "k", strconv.Itoa(i))
				start := time.Now()
				expect(t, pc, int64(1), "WAIT", "1", "10000")
				if el := time.Since(start); el > 5*time.Second {
					t.Fatalf("WAIT 1 with a replica under fsync %s took %v", policy, el)
				}
				if got := rc.Get(ctxT(t), "k").Val(); got != strconv.Itoa(i) {
					t.Fatalf("replica k = %q after WAIT, want %d", got, i)
				}
			}
		})
	}
}
