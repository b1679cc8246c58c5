package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strings"
	"testing"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/config"
)

// clusterTestShard is srvTestShard with cluster.enabled set to sw.
func clusterTestShard(t *testing.T, n int, sw config.Switch) *keyspace.Shard {
	t.Helper()
	clock := newDurClock()
	opts := testOptions(t, n, clock.now)
	opts.Config.Cluster.Enabled = sw
	sh := newTestServerOpts(t, opts).Shard(0)
	c := attachTestClient(sh, 1, clock.now())
	sh.Ctx.Batch = &keyspace.Batch{Client: c}
	return sh
}

// TestClusterDisabledWithOneShard checks that one shard is a standalone
// server, as redis-server 7.0.15 without cluster-enabled answers: every
// CLUSTER subcommand, READONLY and READWRITE are refused after the
// dispatcher's own checks, and INFO and HELLO say standalone.
func TestClusterDisabledWithOneShard(t *testing.T) {
	sh := clusterTestShard(t, 1, config.Auto)
	const disabled = "-ERR This instance has cluster support disabled\r\n"
	for _, args := range [][]string{
		{"CLUSTER", "SLOTS"}, {"CLUSTER", "SHARDS"}, {"CLUSTER", "NODES"}, {"CLUSTER", "INFO"},
		{"CLUSTER", "MYID"}, {"CLUSTER", "KEYSLOT", "k"}, {"CLUSTER", "COUNTKEYSINSLOT", "1"},
		{"CLUSTER", "GETKEYSINSLOT", "1", "1"}, {"cluster", "help"}, {"READONLY"}, {"READWRITE"},
	} {
		srvExpect(t, sh, disabled, args...)
	}
	srvExpect(t, sh, "-ERR unknown subcommand 'foo'. Try CLUSTER HELP.\r\n", "CLUSTER", "foo")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'cluster|slots' command\r\n", "CLUSTER", "SLOTS", "x")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'readonly' command\r\n", "READONLY", "x")
	info := srvRun(sh, 2, "INFO")
	for _, want := range []string{"\r\ncluster_enabled:0\r\n", "\r\nredis_mode:standalone\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %q", want)
		}
	}
	if hello := srvRun(sh, 3, "HELLO", "3"); !strings.Contains(hello, "$4\r\nmode\r\n$10\r\nstandalone\r\n") {
		t.Errorf("HELLO 3: %q", hello)
	}
	srvExpect(t, sh, "*2\r\n$15\r\ncluster-enabled\r\n$2\r\nno\r\n", "CONFIG", "GET", "cluster-enabled")
}

// TestClusterEnabled checks cluster.enabled turned on with one shard and
// left to auto with four: the shards answer as cluster nodes.
func TestClusterEnabled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards int
		sw     config.Switch
	}{{"one shard, enabled", 1, config.On}, {"four shards, auto", 4, config.Auto}} {
		t.Run(tc.name, func(t *testing.T) {
			sh := clusterTestShard(t, tc.shards, tc.sw)
			srvExpect(t, sh, "+OK\r\n", "READONLY")
			srvExpect(t, sh, "+OK\r\n", "READWRITE")
			srvExpect(t, sh, ":7629\r\n", "CLUSTER", "KEYSLOT", "k")
			if got := srvRun(sh, 2, "CLUSTER", "SLOTS"); !strings.HasPrefix(got, "*"+string(rune('0'+tc.shards))+"\r\n*3\r\n:0\r\n") {
				t.Errorf("CLUSTER SLOTS: %q", got)
			}
			info := srvRun(sh, 2, "INFO")
			for _, want := range []string{"\r\ncluster_enabled:1\r\n", "\r\nredis_mode:cluster\r\n"} {
				if !strings.Contains(info, want) {
					t.Errorf("INFO lacks %q", want)
				}
			}
		})
	}
}

// TestRole checks ROLE's shape without a WAL: a primary at offset 0 with
// no replicas (the integration tests cover the WAL sequence).
func TestRole(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, "*3\r\n$6\r\nmaster\r\n:0\r\n*0\r\n", "ROLE")
	srvExpect3(t, sh, "*3\r\n$6\r\nmaster\r\n:0\r\n*0\r\n", "ROLE")
	srvExpect(t, sh, "-ERR wrong number of arguments for 'role' command\r\n", "ROLE", "x")
}

// TestClusterRepliesNameTheReachedHost: shards listening on a wildcard
// address (server.bind "0.0.0.0", no cluster.announce) are named, in MOVED
// and CLUSTER SLOTS, SHARDS and NODES and RUVIO OWNER, by the host the
// client's own connection reached, which is where every shard of the
// process listens; a client without a TCP address still sees 0.0.0.0.
func TestClusterRepliesNameTheReachedHost(t *testing.T) {
	clock := newDurClock()
	opts := testOptions(t, 2, clock.now)
	topo, err := cluster.NewTopology("0.0.0.0", 7000, 2, []string{strings.Repeat("a", 40), strings.Repeat("b", 40)})
	if err != nil {
		t.Fatal(err)
	}
	opts.Topology = topo
	sh := newTestServerOpts(t, opts).Shard(0)
	c := keyspace.NewClient(1, sh.Idx, "192.0.2.9:50000", "192.0.2.7:7000", nil, clock.now())
	c.Authenticated = true
	sh.Ctx.C = c
	sh.Ctx.W = &codec.Writer{Proto: 2}
	sh.Ctx.Batch = &keyspace.Batch{Client: c}

	// "foo" is slot 12182, shard 1's.
	srvExpect(t, sh, "-MOVED 12182 192.0.2.7:7001\r\n", "GET", "foo")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"CLUSTER", "SLOTS"}, "$9\r\n192.0.2.7\r\n:7001\r\n"},
		{[]string{"CLUSTER", "SHARDS"}, "$9\r\n192.0.2.7\r\n"},
		{[]string{"CLUSTER", "NODES"}, " 192.0.2.7:7000@17000 myself,master "},
		{[]string{"RUVIO", "OWNER", "foo"}, "$14\r\n192.0.2.7:7001\r\n"},
	} {
		got := srvRun(sh, 2, tc.args...)
		if !strings.Contains(got, tc.want) || strings.Contains(got, "0.0.0.0") {
			t.Errorf("%q: %q lacks %q or names 0.0.0.0", tc.args, got, tc.want)
		}
	}

	// A Unix socket's client: nothing better to say than the bind address.
	c.LocalAddr = "/tmp/ruvio.sock"
	srvExpect(t, sh, "-MOVED 12182 0.0.0.0:7001\r\n", "GET", "foo")
}
