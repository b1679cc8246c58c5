package integration_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/ruvio/ruvio/internal/testserver"
)

// A cluster across hosts on one machine: each member binds its own
// loopback address (127.0.0.x), as on hosts of their own, with a control
// plane port beside its client port. The multi-host fault runs with
// network partitions are cmd/clusterfault's; these tests check what a
// client sees: the topology, MOVED, failover after SIGKILL, the fencing of
// a primary stopped past its lease, and a former primary's return as a
// replica.

// clusterMember is one member process of a test cluster.
type clusterMember struct {
	name    string
	host    string
	port    int
	control int
	dir     string
	proc    *testserver.Process
}

func (m *clusterMember) addr() string { return net.JoinHostPort(m.host, strconv.Itoa(m.port)) }

// startClusterAcrossHosts starts n members with replicas replicas per group
// and waits until every member reports cluster_state:ok.
func startClusterAcrossHosts(t *testing.T, n, replicas int, extra ...string) []*clusterMember {
	t.Helper()
	var ms []*clusterMember
	var seeds []string
	base := 11 + int(time.Now().UnixNano()%200) // a loopback /24 of its own per run
	for i := range n {
		// Up to three shards' ports, then the control port.
		port, err := testserver.FreePorts(4)
		if err != nil {
			t.Fatal(err)
		}
		m := &clusterMember{
			name:    fmt.Sprintf("m%d", i),
			host:    fmt.Sprintf("127.0.%d.%d", base%250+1, i+1),
			port:    port,
			control: port + 3,
			dir:     t.TempDir(),
		}
		ms = append(ms, m)
		seeds = append(seeds, fmt.Sprintf("%s=%s:%d", m.name, m.host, m.control))
	}
	for _, m := range ms {
		args := []string{
			"--cluster-name", m.name,
			"--cluster-members", strings.Join(seeds, ","),
		}
		args = append(args, extra...)
		m.proc = startMember(t, m, replicas, args)
	}
	waitClusterOK(t, ms, 40*time.Second)
	waitPrimariesLeased(t, ms)
	return ms
}

// waitPrimariesLeased writes a key of every slot range until each write
// succeeds: cluster_state:ok says every slot has a primary, not yet that
// every primary's first heartbeat has brought it a write lease.
func waitPrimariesLeased(t *testing.T, ms []*clusterMember) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: ms[0].addr(), MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	//lint:ignore SA1019 CLUSTER SLOTS is what most cluster clients still read
	slots, err := c.ClusterSlots(ctxT(t)).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slots {
		pc := redis.NewClient(&redis.Options{Addr: s.Nodes[0].Addr, MaxRetries: -1, DisableIdentity: true})
		key := ""
		for i := 0; key == ""; i++ {
			k := "lease-probe-" + strconv.Itoa(i)
			if slot, err := c.ClusterKeySlot(ctxT(t), k).Result(); err == nil && int64(s.Start) <= slot && slot <= int64(s.End) {
				key = k
			}
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			err := pc.Set(ctxT(t), key, "1", 0).Err()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the primary at %s takes no write within 30 s: %v\n%s", s.Nodes[0].Addr, err, clusterOutputs(ms))
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = pc.Close()
	}
}

func startMember(t *testing.T, m *clusterMember, replicas int, args []string) *testserver.Process {
	t.Helper()
	cfgArgs := append([]string{}, args...)
	return testserver.StartBinary(t, testserver.BinaryConfig{
		Dir:  m.dir,
		Host: m.host,
		Port: m.port,
		Args: append(cfgArgs, "--cluster-control-port", strconv.Itoa(m.control), "--cluster-replicas", strconv.Itoa(replicas), "--cluster-node-timeout-ms", "2000"),
	})
}

// waitClusterOK polls CLUSTER INFO on every running member until each says
// cluster_state:ok.
func waitClusterOK(t *testing.T, ms []*clusterMember, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for _, m := range ms {
		if m.proc == nil {
			continue
		}
		c := redis.NewClient(&redis.Options{Addr: m.addr(), MaxRetries: -1, DisableIdentity: true})
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			info, err := c.ClusterInfo(ctx).Result()
			cancel()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				_ = c.Close()
				t.Fatalf("member %s: cluster not ok within %v: %q %v\n--- output ---\n%s", m.name, within, info, err, m.proc.Output())
			}
			time.Sleep(100 * time.Millisecond)
		}
		_ = c.Close()
	}
}

func clusterClientOf(t *testing.T, ms []*clusterMember) *redis.ClusterClient {
	var addrs []string
	for _, m := range ms {
		addrs = append(addrs, m.addr())
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: addrs, MaxRedirects: 8, DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
		DisableIdentity: true,
		// go-redis reloads the slot map on MOVED, else only every minute by
		// default: a dead primary's slots would wait that long.
		ClusterStateReloadInterval: 500 * time.Millisecond,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// primaryOf returns the member whose node CLUSTER NODES names as the
// master of the slot of key, as member m sees it.
func primaryOf(t *testing.T, ms []*clusterMember, via *clusterMember, key string) *clusterMember {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: via.addr(), MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	slot, err := c.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 CLUSTER SLOTS is what most cluster clients still read
	slots, err := c.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) {
			for _, m := range ms {
				if m.addr() == s.Nodes[0].Addr {
					return m
				}
			}
		}
	}
	t.Fatalf("no primary for slot %d in %v", slot, slots)
	return nil
}

func TestClusterAcrossHostsTopologyAndMoved(t *testing.T) {
	ms := startClusterAcrossHosts(t, 4, 1)
	c := redis.NewClient(&redis.Options{Addr: ms[0].addr(), MaxRetries: -1, DisableIdentity: true})
	defer c.Close()

	// Two groups of a primary and a replica, on different hosts, the
	// slots split in two.
	//lint:ignore SA1019 CLUSTER SLOTS is what most cluster clients still read
	slots, err := c.ClusterSlots(ctxT(t)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(slots) != 2 || slots[0].Start != 0 || slots[0].End != 8191 || slots[1].Start != 8192 || slots[1].End != 16383 {
		t.Fatalf("CLUSTER SLOTS = %+v", slots)
	}
	for _, s := range slots {
		if len(s.Nodes) != 2 {
			t.Fatalf("range %d-%d: nodes %+v, want a primary and a replica", s.Start, s.End, s.Nodes)
		}
		ph, _, _ := net.SplitHostPort(s.Nodes[0].Addr)
		rh, _, _ := net.SplitHostPort(s.Nodes[1].Addr)
		if ph == rh {
			t.Fatalf("range %d-%d: primary and replica on one host %s", s.Start, s.End, ph)
		}
	}
	nodes, err := c.ClusterNodes(ctxT(t)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(nodes, "\n"); n != 4 || strings.Count(nodes, "myself,") != 1 || strings.Count(nodes, " slave ") != 2 {
		t.Fatalf("CLUSTER NODES =\n%s", nodes)
	}
	shards, err := c.ClusterShards(ctxT(t)).Result()
	if err != nil || len(shards) != 2 || len(shards[0].Nodes) != 2 {
		t.Fatalf("CLUSTER SHARDS = %+v, %v", shards, err)
	}
	id, err := c.Do(ctxT(t), "CLUSTER", "MYSHARDID").Text()
	if err != nil || len(id) != 40 {
		t.Fatalf("CLUSTER MYSHARDID = %q, %v", id, err)
	}

	// A key of the other group is MOVED to its primary's address.
	key := ""
	for i := 0; ; i++ {
		key = "k" + strconv.Itoa(i)
		if primaryOf(t, ms, ms[0], key) != ms[0] && primaryOf(t, ms, ms[0], key).addr() != "" {
			break
		}
	}
	owner := primaryOf(t, ms, ms[0], key)
	err = c.Set(ctxT(t), key, "v", 0).Err()
	slot := c.ClusterKeySlot(ctxT(t), key).Val()
	if want := fmt.Sprintf("MOVED %d %s", slot, owner.addr()); err == nil || err.Error() != want {
		t.Fatalf("SET on another group's member = %v, want %s", err, want)
	}

	// Through a cluster client: written on the primary, read on the
	// replica with READONLY once replicated.
	cc := clusterClientOf(t, ms)
	if err := cc.Set(ctxT(t), key, "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := cc.Get(ctxT(t), key).Result(); err != nil || got != "v1" {
		t.Fatalf("GET = %q, %v", got, err)
	}
	var replica *clusterMember
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) {
			for _, m := range ms {
				if m.addr() == s.Nodes[1].Addr {
					replica = m
				}
			}
		}
	}
	rc := redis.NewClient(&redis.Options{Addr: replica.addr(), MaxRetries: -1, DisableIdentity: true})
	defer rc.Close()
	if err := rc.Get(ctxT(t), key).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED ") {
		t.Fatalf("GET on a replica without READONLY = %v, want MOVED", err)
	}
	conn := rc.Conn()
	defer conn.Close()
	if err := conn.ReadOnly(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := conn.Get(ctxT(t), key).Result()
		if err == nil && got == "v1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("READONLY GET on the replica = %q, %v", got, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := conn.Set(ctxT(t), key, "v2", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED ") {
		t.Fatalf("SET on a READONLY replica = %v, want MOVED", err)
	}
	if err := c.Do(ctxT(t), "REPLICAOF", "NO", "ONE").Err(); err == nil || err.Error() != "ERR REPLICAOF not allowed in cluster mode." {
		t.Fatalf("REPLICAOF in a cluster = %v", err)
	}

	// rueidis finds the cluster from one member and routes every key.
	ro := rueidis.ClientOption{InitAddress: []string{ms[3].addr()}, DisableCache: true}
	ro.Dialer.Timeout = 2 * time.Second
	ro.ConnWriteTimeout = 2 * time.Second
	rc2, err := rueidis.NewClient(ro)
	if err != nil {
		t.Fatalf("rueidis.NewClient: %v", err)
	}
	defer rc2.Close()
	if m := rc2.Mode(); m != rueidis.ClientModeCluster {
		t.Fatalf("rueidis mode %v, want cluster", m)
	}
	for i := range 50 {
		k := "rk" + strconv.Itoa(i)
		if err := rc2.Do(ctxT(t), rc2.B().Set().Key(k).Value(k).Build()).Error(); err != nil {
			t.Fatalf("rueidis SET %s: %v", k, err)
		}
		if got, err := cc.Get(ctxT(t), k).Result(); err != nil || got != k {
			t.Fatalf("go-redis GET %s after rueidis SET = %q, %v", k, got, err)
		}
	}

	// redis-cli -c follows MOVED across hosts.
	if _, err := exec.LookPath("redis-cli"); err == nil {
		host, port, _ := net.SplitHostPort(ms[0].addr())
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		out, err := exec.CommandContext(cctx, "redis-cli", "-c", "-h", host, "-p", port, "SET", key, "cli").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "OK" {
			t.Fatalf("redis-cli -c SET = %q, %v", out, err)
		}
		if got, err := cc.Get(ctxT(t), key).Result(); err != nil || got != "cli" {
			t.Fatalf("GET after redis-cli -c SET = %q, %v", got, err)
		}
	}
}

func TestClusterAcrossHostsFailoverAfterKill(t *testing.T) {
	ms := startClusterAcrossHosts(t, 4, 1)
	cc := clusterClientOf(t, ms)
	const keys = 200
	for i := range keys {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := cc.Set(ctx, "key:"+strconv.Itoa(i), "v"+strconv.Itoa(i), 0).Err()
		cancel()
		if err != nil {
			t.Fatalf("SET key:%d: %v", i, err)
		}
	}
	// Asynchronous replication: WAIT makes sure the replicas have them.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		n, err := c.Wait(ctx, 1, 5*time.Second).Result()
		if err == nil && n < 1 {
			err = fmt.Errorf("WAIT 1 = %d", n)
		}
		return err
	})
	cancel()
	if err != nil {
		t.Fatal(err)
	}

	victim := primaryOf(t, ms, ms[0], "key:0")
	var other *clusterMember
	for _, m := range ms {
		if m != victim {
			other = m
			break
		}
	}
	victim.proc.Kill(t)
	killed := time.Now()
	// The first write acknowledged by the new primary.
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := cc.Set(ctx, "key:0", "after", 0).Err()
		cancel()
		if err == nil {
			break
		}
		if time.Since(killed) > 30*time.Second {
			t.Fatalf("no failover within 30 s: %v\n%s", err, clusterOutputs(ms))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("failover: first acknowledged write %v after SIGKILL of the primary (node timeout 2 s)", time.Since(killed).Round(time.Millisecond))
	if p := primaryOf(t, ms, other, "key:0"); p == victim {
		t.Fatalf("the killed member is still the primary")
	}
	for i := 1; i < keys; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got, err := cc.Get(ctx, "key:"+strconv.Itoa(i)).Result()
		cancel()
		if err != nil || got != "v"+strconv.Itoa(i) {
			t.Fatalf("after failover GET key:%d = %q, %v", i, got, err)
		}
	}

	// The former primary comes back as a replica of its successor and
	// resynchronises.
	victim.proc = victim.proc.Restart(t)
	vc := redis.NewClient(&redis.Options{Addr: victim.addr(), MaxRetries: -1, DisableIdentity: true})
	defer vc.Close()
	conn := vc.Conn()
	defer conn.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		nodes, _ := conn.ClusterNodes(ctx).Result()
		_ = conn.ReadOnly(ctx).Err()
		got, gerr := conn.Get(ctx, "key:0").Result()
		cancel()
		if strings.Contains(nodes, "myself,slave ") && gerr == nil && got == "after" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the former primary did not rejoin as a replica: nodes\n%s\nGET key:0 = %q, %v\n--- output ---\n%s", nodes, got, gerr, victim.proc.Output())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestClusterAcrossHostsFencesAStoppedPrimary(t *testing.T) {
	ms := startClusterAcrossHosts(t, 4, 1)
	victim := primaryOf(t, ms, ms[0], "fence")
	vc := redis.NewClient(&redis.Options{Addr: victim.addr(), MaxRetries: -1, DisableIdentity: true, ReadTimeout: 5 * time.Second})
	defer vc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if err := vc.Set(ctx, "fence", "before", 0).Err(); err != nil {
		t.Fatal(err)
	}
	cancel()

	// Stopped past its lease, the primary's group fails over; resumed, it
	// must not take a write before it learns it is no longer the primary.
	victim.proc.Signal(t, syscall.SIGSTOP)
	cc := clusterClientOf(t, ms)
	stopped := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := cc.Set(ctx, "fence", "new", 0).Err()
		cancel()
		if err == nil {
			break
		}
		if time.Since(stopped) > 30*time.Second {
			victim.proc.Signal(t, syscall.SIGCONT)
			t.Fatalf("no failover within 30 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("failover after SIGSTOP: %v", time.Since(stopped).Round(time.Millisecond))
	victim.proc.Signal(t, syscall.SIGCONT)
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := vc.Set(ctx, "fence", "stale", 0).Err()
	if err == nil {
		t.Fatal("a primary resumed after its failover took a write")
	}
	if !strings.HasPrefix(err.Error(), "CLUSTERDOWN ") && !strings.HasPrefix(err.Error(), "MOVED ") {
		t.Fatalf("SET on the resumed former primary = %v, want CLUSTERDOWN or MOVED", err)
	}
	if got, err := cc.Get(ctx, "fence").Result(); err != nil || got != "new" {
		t.Fatalf("GET fence = %q, %v", got, err)
	}
}

// clusterOutputs is the tail of every member's output, for a failure.
func clusterOutputs(ms []*clusterMember) string {
	var b strings.Builder
	for _, m := range ms {
		out := m.proc.Output()
		if len(out) > 4000 {
			out = out[len(out)-4000:]
		}
		fmt.Fprintf(&b, "--- %s (%s) ---\n%s\n", m.name, m.addr(), out)
	}
	return b.String()
}

func TestClusterAcrossHostsClusterSubcommandsAndManualFailover(t *testing.T) {
	ms := startClusterAcrossHosts(t, 4, 1)
	primary := primaryOf(t, ms, ms[0], "manual")
	pc := redis.NewClient(&redis.Options{Addr: primary.addr(), MaxRetries: -1, DisableIdentity: true})
	defer pc.Close()
	myID, err := pc.ClusterMyID(ctxT(t)).Result()
	if err != nil {
		t.Fatal(err)
	}
	// The primary's replica, from CLUSTER REPLICAS.
	lines, err := pc.Do(ctxT(t), "CLUSTER", "REPLICAS", myID).StringSlice()
	if err != nil || len(lines) != 1 || !strings.Contains(lines[0], " slave "+myID+" ") {
		t.Fatalf("CLUSTER REPLICAS = %q, %v", lines, err)
	}
	var replica *clusterMember
	for _, m := range ms {
		if strings.Contains(lines[0], " "+m.addr()+"@") {
			replica = m
		}
	}
	if replica == nil {
		t.Fatalf("no member at the replica's address in %q", lines[0])
	}
	if n, err := pc.Do(ctxT(t), "CLUSTER", "COUNT-FAILURE-REPORTS", myID).Int(); err != nil || n != 0 {
		t.Fatalf("CLUSTER COUNT-FAILURE-REPORTS = %d, %v", n, err)
	}
	for _, args := range [][]any{{"CLUSTER", "REPLICAS", "nosuch"}, {"CLUSTER", "COUNT-FAILURE-REPORTS", "nosuch"}, {"CLUSTER", "FORGET", "nosuch"}} {
		if err := pc.Do(ctxT(t), args...).Err(); err == nil || err.Error() != "ERR Unknown node nosuch" {
			t.Fatalf("%v = %v, want Unknown node", args, err)
		}
	}
	if links, err := pc.Do(ctxT(t), "CLUSTER", "LINKS").Slice(); err != nil || len(links) != 0 {
		t.Fatalf("CLUSTER LINKS = %v, %v", links, err)
	}
	if err := pc.Do(ctxT(t), "CLUSTER", "MEET", "127.0.0.1", "1").Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR CLUSTER MEET is not how this cluster changes") {
		t.Fatalf("CLUSTER MEET = %v", err)
	}
	if err := pc.Do(ctxT(t), "CLUSTER", "FAILOVER").Err(); err == nil || err.Error() != "ERR You should send CLUSTER FAILOVER to a replica" {
		t.Fatalf("CLUSTER FAILOVER on a primary = %v", err)
	}

	// CLUSTER FAILOVER on the replica: the primary is fenced, the replica
	// promoted once the lease has ended, and the old primary follows it.
	rc := redis.NewClient(&redis.Options{Addr: replica.addr(), MaxRetries: -1, DisableIdentity: true})
	defer rc.Close()
	if err := pc.Set(ctxT(t), "manual", "before", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Do(ctxT(t), "CLUSTER", "FAILOVER").Err(); err != nil {
		t.Fatalf("CLUSTER FAILOVER on the replica: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		role, err := rc.Do(ctxT(t), "ROLE").Slice()
		if err == nil && len(role) > 0 && role[0] == "master" {
			if err := rc.Set(ctxT(t), "manual", "after", 0).Err(); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica was not promoted: ROLE %v, %v\n%s", role, err, clusterOutputs(ms))
		}
		time.Sleep(100 * time.Millisecond)
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		role, err := pc.Do(ctxT(t), "ROLE").Slice()
		if err == nil && len(role) > 0 && role[0] == "slave" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the former primary is not a replica: ROLE %v, %v", role, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got, err := rc.Get(ctxT(t), "manual").Result(); err != nil || got != "after" {
		t.Fatalf("GET manual on the new primary = %q, %v", got, err)
	}
}

// TestClusterAcrossHostsConfigSetPort: CONFIG SET port on a primary moves
// its listener, and the control plane carries the new address to every
// member: CLUSTER SLOTS elsewhere names it, MOVED sends clients there, and
// the group's replica follows the primary to it.
func TestClusterAcrossHostsConfigSetPort(t *testing.T) {
	ms := startClusterAcrossHosts(t, 4, 1)
	key := "moving-primary"
	p := primaryOf(t, ms, ms[0], key)
	newPort, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	pc := redis.NewClient(&redis.Options{Addr: p.addr(), MaxRetries: -1, DisableIdentity: true})
	if err := pc.ConfigSet(ctxT(t), "port", strconv.Itoa(newPort)).Err(); err != nil {
		t.Fatalf("CONFIG SET port: %v", err)
	}
	_ = pc.Close()
	oldAddr := p.addr()
	p.port = newPort
	newAddr := p.addr()

	// Every other member's CLUSTER SLOTS names the new address for the
	// primary's range, and none names the old one.
	for _, m := range ms {
		if m == p {
			continue
		}
		c := redis.NewClient(&redis.Options{Addr: m.addr(), MaxRetries: -1, DisableIdentity: true})
		deadline := time.Now().Add(20 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			//lint:ignore SA1019 CLUSTER SLOTS is what most cluster clients still read
			slots, err := c.ClusterSlots(ctx).Result()
			cancel()
			found, stale := false, false
			for _, s := range slots {
				for _, n := range s.Nodes {
					found = found || n.Addr == newAddr
					stale = stale || n.Addr == oldAddr
				}
			}
			if err == nil && found && !stale {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("member %s: CLUSTER SLOTS = %+v, %v; want %s, not %s\n%s", m.name, slots, err, newAddr, oldAddr, clusterOutputs(ms))
			}
			time.Sleep(100 * time.Millisecond)
		}
		_ = c.Close()
	}

	// A member that does not own the key redirects to the new address.
	var other *clusterMember
	for _, m := range ms {
		if m != p && primaryOf(t, ms, m, key) == p {
			other = m
			break
		}
	}
	if other == nil {
		t.Fatal("no member names the moved primary for the key")
	}
	oc := redis.NewClient(&redis.Options{Addr: other.addr(), MaxRetries: -1, DisableIdentity: true})
	defer oc.Close()
	if err := oc.Set(ctxT(t), key, "v", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED ") || !strings.HasSuffix(err.Error(), " "+newAddr) {
		t.Fatalf("SET through %s = %v, want MOVED to %s", other.name, err, newAddr)
	}

	// Written at the new address, the key reaches the group's replica,
	// which now follows the primary there.
	nc := redis.NewClient(&redis.Options{Addr: newAddr, MaxRetries: -1, DisableIdentity: true})
	defer nc.Close()
	if err := nc.Set(ctxT(t), key, "v", 0).Err(); err != nil {
		t.Fatalf("SET at the new address: %v", err)
	}
	var replica *clusterMember
	//lint:ignore SA1019 CLUSTER SLOTS is what most cluster clients still read
	slots, err := nc.ClusterSlots(ctxT(t)).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slots {
		if len(s.Nodes) == 2 && s.Nodes[0].Addr == newAddr {
			for _, m := range ms {
				if m.addr() == s.Nodes[1].Addr {
					replica = m
				}
			}
		}
	}
	if replica == nil {
		t.Fatalf("no replica of the moved primary in %+v", slots)
	}
	rc := redis.NewClient(&redis.Options{Addr: replica.addr(), MaxRetries: -1, DisableIdentity: true, PoolSize: 1})
	defer rc.Close()
	if err := rc.ReadOnly(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		got, err := rc.Get(ctx, key).Result()
		cancel()
		if err == nil && got == "v" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %s: GET %s = %q, %v; it does not follow the primary to %s\n%s", replica.name, key, got, err, newAddr, clusterOutputs(ms))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
