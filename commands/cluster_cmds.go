package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
)

// errClusterDisabled is Redis's reply to the cluster commands on a
// standalone server.
const errClusterDisabled = "ERR This instance has cluster support disabled"

// serverClusterEnabled resolves cluster.enabled: "auto" is on with more than one
// shard. With it off the process is a standalone server: the cluster
// commands answer errClusterDisabled, so clients that detect the topology
// (CLUSTER SLOTS, CLUSTER INFO, INFO cluster) pick their standalone mode.
func serverClusterEnabled(s *keyspace.Server) bool {
	if s.ClusterAcrossHosts() {
		return true
	}
	switch s.Opts.Config.Cluster.Enabled {
	case config.On:
		return true
	case config.Off:
		return false
	}
	return s.Shards() > 1
}

// CLUSTER <subcommand>: a static view of the process's shards as the nodes
// of a cluster, when cluster support is enabled. An unknown subcommand and
// a wrong argument count are reported first, as Redis's dispatcher does.
func clusterCommand(x *keyspace.Ctx) {
	sub := x.Cmd.Sub(x.Args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + keyspace.TruncArg(x.Args[1]) + "'. Try CLUSTER HELP.")
		return
	}
	if !keyspace.ArityOK(sub.Arity, len(x.Args)) {
		x.W.Error(keyspace.ErrWrongArgs("cluster|" + sub.Name))
		return
	}
	if !serverClusterEnabled(x.S.Srv) {
		x.W.Error(errClusterDisabled)
		return
	}
	sub.Handler(x)
}

// CLUSTER SLOTS
func clusterSlotsCommand(x *keyspace.Ctx) {
	topo := x.S.Srv.Topology()
	if topo.Multi {
		clusterSlotsAcrossHosts(x, topo)
		return
	}
	plain, tlsPort := clientPorts(x)
	reached := x.C.ReachedHost()
	x.W.ArrayHeader(len(topo.Nodes))
	for _, n := range topo.Nodes {
		port := n.Port
		if tlsPort > 0 && (x.C.TLS || plain == 0) {
			port = tlsPort + n.Shard
		}
		x.W.ArrayHeader(3)
		x.W.Int(int64(n.SlotStart))
		x.W.Int(int64(n.SlotEnd))
		x.W.ArrayHeader(4)
		x.W.BulkString(topo.HostFor(n, reached))
		x.W.Int(int64(port))
		x.W.BulkString(n.ID)
		x.W.ArrayHeader(0)
	}
}

// CLUSTER SHARDS
func clusterShardsCommand(x *keyspace.Ctx) {
	topo := x.S.Srv.Topology()
	if topo.Multi {
		clusterShardsAcrossHosts(x, topo)
		return
	}
	reached := x.C.ReachedHost()
	x.W.ArrayHeader(len(topo.Nodes))
	for _, n := range topo.Nodes {
		replicas := x.S.Srv.Replicas(n.Shard)
		x.W.MapHeader(2)
		x.W.BulkString("slots")
		x.W.ArrayHeader(2)
		x.W.Int(int64(n.SlotStart))
		x.W.Int(int64(n.SlotEnd))
		x.W.BulkString("nodes")
		x.W.ArrayHeader(1 + len(replicas))
		port, tlsPort := n.Port, 0
		if plain, tp := clientPorts(x); tp > 0 {
			tlsPort = tp + n.Shard
			if plain == 0 {
				port = 0
			}
		}
		writeShardNodeTLS(x, n.ID, topo.HostFor(n, reached), port, tlsPort, "master", x.S.Srv.LastSequence(n.Shard), "online")
		for _, r := range replicas {
			host, port := r.HostPort()
			writeShardNode(x, r.NodeID, host, port, "replica", r.Ack, "online")
		}
	}
}

// clientPorts are shard 0's plain and TLS ports, 0 for none.
func clientPorts(x *keyspace.Ctx) (plain, tls int) {
	live := x.S.Srv.Opts.Live
	p, _ := live.Value("port")
	t, _ := live.Value("tls-port")
	plain, _ = strconv.Atoi(p)
	tls, _ = strconv.Atoi(t)
	return plain, tls
}

// writeShardNode writes one node of a CLUSTER SHARDS entry, its attributes in
// Redis's order.
func writeShardNode(x *keyspace.Ctx, id, host string, port int, role string, offset uint64, health string) {
	writeShardNodeTLS(x, id, host, port, 0, role, offset, health)
}

// writeShardNodeTLS is writeShardNode for a node that may also serve TLS:
// "tls-port" is there when tlsPort is not 0, and then "port" only when
// port is not 0 (a node serving TLS only), as Redis does.
func writeShardNodeTLS(x *keyspace.Ctx, id, host string, port, tlsPort int, role string, offset uint64, health string) {
	n := 6
	withPort := port > 0 || tlsPort == 0
	if withPort {
		n++
	}
	if tlsPort > 0 {
		n++
	}
	x.W.MapHeader(n)
	x.W.BulkString("id")
	x.W.BulkString(id)
	if withPort {
		x.W.BulkString("port")
		x.W.Int(int64(port))
	}
	if tlsPort > 0 {
		x.W.BulkString("tls-port")
		x.W.Int(int64(tlsPort))
	}
	x.W.BulkString("ip")
	x.W.BulkString(host)
	x.W.BulkString("endpoint")
	x.W.BulkString(host)
	x.W.BulkString("role")
	x.W.BulkString(role)
	x.W.BulkString("replication-offset")
	x.W.Int(int64(offset))
	x.W.BulkString("health")
	x.W.BulkString(health)
}

// CLUSTER NODES
func clusterNodesCommand(x *keyspace.Ctx) {
	x.W.Verbatim("txt", clusterNodesText(x))
}

// clusterNodesText is CLUSTER NODES's text: the topology's nodes and, on
// one host, the replicas connected to each shard.
func clusterNodesText(x *keyspace.Ctx) string {
	topo := x.S.Srv.Topology()
	text := topo.NodesText(x.S.Idx, x.C.ReachedHost())
	if topo.Multi {
		return text
	}
	// Replicas follow their primaries, one line each.
	for _, n := range topo.Nodes {
		for _, r := range x.S.Srv.Replicas(n.Shard) {
			host, port := r.HostPort()
			bus := cluster.Node{Port: port}.BusPort()
			text += r.NodeID + " " + host + ":" + strconv.Itoa(port) + "@" + strconv.Itoa(bus) +
				" slave " + n.ID + " 0 0 " + strconv.FormatUint(n.Epoch, 10) + " connected\n"
		}
	}
	return text
}

// CLUSTER INFO
func clusterInfoCommand(x *keyspace.Ctx) {
	x.W.Verbatim("txt", x.S.Srv.Topology().InfoText(x.S.Idx))
}

// CLUSTER MYID
func clusterMyIDCommand(x *keyspace.Ctx) {
	x.W.BulkString(x.S.Srv.Topology().Nodes[x.S.Idx].ID)
}

// findNode returns the node with id, replying Redis's "Unknown node" error
// when there is none.
func findNodeOrReply(x *keyspace.Ctx, id []byte) (cluster.Node, bool) {
	for _, n := range x.S.Srv.Topology().All {
		if n.ID == string(id) {
			return n, true
		}
	}
	x.W.Error("ERR Unknown node " + string(id))
	return cluster.Node{}, false
}

// CLUSTER REPLICAS node-id (and SLAVES): the replicas of a primary, as
// CLUSTER NODES lines.
func clusterReplicasCommand(x *keyspace.Ctx) {
	n, ok := findNodeOrReply(x, x.Args[2])
	if !ok {
		return
	}
	if n.Replica {
		x.W.Error("ERR The specified node is not a master")
		return
	}
	var lines []string
	for _, line := range strings.Split(clusterNodesText(x), "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[3] == n.ID {
			lines = append(lines, line)
		}
	}
	x.W.BulkStrings(lines)
}

// CLUSTER COUNT-FAILURE-REPORTS node-id: Ruvio's members report no
// failures to each other (the control plane's leader decides alone), so a
// known node has none.
func clusterCountFailureReportsCommand(x *keyspace.Ctx) {
	if _, ok := findNodeOrReply(x, x.Args[2]); ok {
		x.W.Int(0)
	}
}

// CLUSTER LINKS: there is no cluster bus between nodes; the control plane's
// connections are its own (docs/operations.md).
func clusterLinksCommand(x *keyspace.Ctx) {
	x.W.ArrayHeader(0)
}

// CLUSTER FAILOVER [FORCE|TAKEOVER]: on a replica of a cluster across hosts,
// asks the control plane to promote it; the primary is fenced and the
// promotion follows once its write lease has ended (FORCE and TAKEOVER
// change nothing: no promotion may skip the lease).
func clusterFailoverCommand(x *keyspace.Ctx) {
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	if len(x.Args) == 3 && !keyspace.EqFold(x.Args[2], "force") && !keyspace.EqFold(x.Args[2], "takeover") {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	srv := x.S.Srv
	topo := srv.Topology()
	if !topo.Multi || srv.Opts.ClusterFailover == nil {
		x.W.Error("ERR CLUSTER FAILOVER needs a cluster across hosts: on one host every shard is a primary")
		return
	}
	if !topo.LocalReplica {
		x.W.Error("ERR You should send CLUSTER FAILOVER to a replica")
		return
	}
	log := x.S.Logger()
	request := srv.Opts.ClusterFailover
	// The request travels to the control plane's leader; the shard does not
	// wait for it, as Redis answers before the failover is done.
	go func() {
		if err := request(); err != nil {
			log.Warn("CLUSTER FAILOVER refused by the control plane", zap.Error(err))
		}
	}()
	x.W.OK()
}

// CLUSTER MEET, FORGET and REPLICATE: members join through cluster.join,
// leave through `ruvio cluster remove`, and the control plane decides who
// replicates whom.
func clusterMembershipCommand(x *keyspace.Ctx) {
	sub := strings.ToUpper(string(x.Args[1]))
	if sub == "FORGET" || sub == "REPLICATE" {
		if _, ok := findNodeOrReply(x, x.Args[2]); !ok {
			return
		}
	}
	x.W.Error("ERR CLUSTER " + sub + " is not how this cluster changes: members join with cluster.join, leave with `ruvio cluster remove`, and the control plane places replicas (docs/operations.md)")
}

// CLUSTER MYSHARDID
func clusterMyShardIDCommand(x *keyspace.Ctx) {
	x.W.BulkString(x.S.Srv.Topology().Nodes[x.S.Idx].ShardID)
}

// CLUSTER KEYSLOT key
func clusterKeySlotCommand(x *keyspace.Ctx) {
	x.W.Int(int64(cluster.KeySlot(x.Args[2])))
}

// parseSlotOrReply reads a slot number for COUNTKEYSINSLOT, replying on error.
func parseSlotOrReply(x *keyspace.Ctx, b []byte) (int64, bool) {
	n, ok := keyspace.ParseInt(b)
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return 0, false
	}
	if n < 0 || n >= 16384 {
		x.W.Error("ERR Invalid slot")
		return 0, false
	}
	return n, true
}

// CLUSTER COUNTKEYSINSLOT slot. Keys are not indexed by slot, so this walks
// the shard's database: O(N) in the number of keys.
func clusterCountKeysInSlotCommand(x *keyspace.Ctx) {
	slot, ok := parseSlotOrReply(x, x.Args[2])
	if !ok {
		return
	}
	n := 0
	db := x.S.DBs[0]
	db.Each(func(e *keyspace.Entry) {
		if !e.Expired(x.S.NowMs) && int64(cluster.KeySlot(e.Key())) == slot {
			n++
		}
	})
	x.W.Int(int64(n))
}

// CLUSTER GETKEYSINSLOT slot count
func clusterGetKeysInSlotCommand(x *keyspace.Ctx) {
	slot, ok1 := keyspace.ParseInt(x.Args[2])
	count, ok2 := keyspace.ParseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	if slot < 0 || slot >= 16384 || count < 0 {
		x.W.Error("ERR Invalid slot or number of keys")
		return
	}
	var keys []string
	db := x.S.DBs[0]
	db.Each(func(e *keyspace.Entry) {
		if int64(len(keys)) < count && !e.Expired(x.S.NowMs) && int64(cluster.KeySlot(e.Key())) == slot {
			keys = append(keys, e.KeyString())
		}
	})
	x.W.BulkStrings(keys)
}

func clusterHelpCommand(x *keyspace.Ctx) {
	lines := []string{
		"CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"COUNTKEYSINSLOT <slot>", "    Return the number of keys in <slot>.",
		"GETKEYSINSLOT <slot> <count>", "    Return key names stored by current node in a slot.",
		"INFO", "    Return information about the cluster.",
		"KEYSLOT <key>", "    Return the hash slot for <key>.",
		"COUNT-FAILURE-REPORTS <node-id>", "    Return number of failure reports for <node-id> (always 0: the control plane decides alone).",
		"FAILOVER [FORCE|TAKEOVER]", "    Promote this replica: the control plane fences the primary and promotes it once the primary's lease has ended.",
		"LINKS", "    Return the cluster bus links (none: the control plane uses its own connections).",
		"MYID", "    Return the node id.",
		"MYSHARDID", "    Return the node's shard id.",
		"NODES", "    Return cluster configuration seen by node.",
		"REPLICAS <node-id>", "    Return <node-id> replicas.",
		"SHARDS", "    Return information about slot range mappings and the nodes associated with them.",
		"SLOTS", "    Return information about slots range mappings.",
		"HELP", "    Prints this help.",
	}
	x.W.ArrayHeader(len(lines))
	for _, l := range lines {
		x.W.SimpleString(l)
	}
}

// READONLY / READWRITE: accepted in cluster mode, refused on a standalone
// server, as Redis does. In a cluster across hosts READONLY lets a replica
// serve the connection's reads of its group's slots.
func readonlyCommand(x *keyspace.Ctx) {
	if !serverClusterEnabled(x.S.Srv) {
		x.W.Error(errClusterDisabled)
		return
	}
	x.C.ReadOnly = x.Cmd.Name == "readonly"
	x.W.OK()
}

// clusterSlotsAcrossHosts is CLUSTER SLOTS in a cluster across hosts: each
// range of each primary node, then the primary and its replicas.
func clusterSlotsAcrossHosts(x *keyspace.Ctx, topo *cluster.Topology) {
	n := 0
	for _, p := range topo.All {
		if !p.Replica {
			n += len(p.SlotRanges())
		}
	}
	x.W.ArrayHeader(n)
	for _, p := range topo.All {
		if p.Replica {
			continue
		}
		replicas := replicasOf(topo, p.ID)
		for _, r := range p.SlotRanges() {
			x.W.ArrayHeader(3 + len(replicas))
			x.W.Int(int64(r.Start))
			x.W.Int(int64(r.End))
			for _, nd := range append([]cluster.Node{p}, replicas...) {
				x.W.ArrayHeader(4)
				x.W.BulkString(nd.Host)
				x.W.Int(int64(nd.Port))
				x.W.BulkString(nd.ID)
				x.W.ArrayHeader(0)
			}
		}
	}
}

// replicasOf returns the replica nodes of the primary node id.
func replicasOf(topo *cluster.Topology, id string) []cluster.Node {
	var rs []cluster.Node
	for _, n := range topo.All {
		if n.Replica && n.PrimaryID == id {
			rs = append(rs, n)
		}
	}
	return rs
}

// clusterShardsAcrossHosts is CLUSTER SHARDS in a cluster across hosts:
// one entry per primary node with its ranges, then it and its replicas.
func clusterShardsAcrossHosts(x *keyspace.Ctx, topo *cluster.Topology) {
	n := 0
	for _, p := range topo.All {
		if !p.Replica {
			n++
		}
	}
	x.W.ArrayHeader(n)
	for _, p := range topo.All {
		if p.Replica {
			continue
		}
		replicas := replicasOf(topo, p.ID)
		x.W.MapHeader(2)
		x.W.BulkString("slots")
		ranges := p.SlotRanges()
		x.W.ArrayHeader(2 * len(ranges))
		for _, r := range ranges {
			x.W.Int(int64(r.Start))
			x.W.Int(int64(r.End))
		}
		x.W.BulkString("nodes")
		x.W.ArrayHeader(1 + len(replicas))
		for _, nd := range append([]cluster.Node{p}, replicas...) {
			role, health := "master", "online"
			if nd.Replica {
				role = "replica"
			}
			if nd.Failed {
				health = "failed"
			}
			var off uint64
			if nd.Local {
				off = x.S.Srv.LastSequence(nd.Shard)
			}
			writeShardNode(x, nd.ID, nd.Host, nd.Port, role, off, health)
		}
	}
}

func registerClusterFamily(t keyspace.CommandTable) {
	const grp = "cluster"
	stale := keyspace.FlagStale
	t.Add(
		&keyspace.Command{Name: "cluster", Arity: -2, Group: grp, Since: "3.0.0", Summary: "A container for Redis Cluster commands.", Complexity: "Depends on subcommand.", Handler: clusterCommand,
			Subcommands: []*keyspace.Command{
				{Name: "slots", Arity: 2, Flags: stale, Group: grp, Since: "3.0.0", Summary: "Returns the mapping of cluster slots to nodes.", Complexity: "O(N) where N is the total number of Cluster nodes", Handler: clusterSlotsCommand, Tips: []string{tipNondeterministic}},
				{Name: "shards", Arity: 2, Flags: stale, Group: grp, Since: "7.0.0", Summary: "Returns the mapping of cluster slots to shards.", Complexity: "O(N) where N is the total number of cluster nodes", Handler: clusterShardsCommand, Tips: []string{tipNondeterministic}},
				{Name: "nodes", Arity: 2, Flags: stale, Group: grp, Since: "3.0.0", Summary: "Returns the cluster configuration for a node.", Complexity: "O(N) where N is the total number of Cluster nodes", Handler: clusterNodesCommand, Tips: []string{tipNondeterministic}},
				{Name: "info", Arity: 2, Flags: stale, Group: grp, Since: "3.0.0", Summary: "Returns information about the state of a node.", Complexity: "O(1)", Handler: clusterInfoCommand, Tips: []string{tipNondeterministic}},
				{Name: "myid", Arity: 2, Flags: stale, Group: grp, Since: "3.0.0", Summary: "Returns the ID of a node.", Complexity: "O(1)", Handler: clusterMyIDCommand},
				{Name: "replicas", Arity: 3, Flags: keyspace.FlagAdmin | stale, Group: grp, Since: "5.0.0", Summary: "Lists the replica nodes of a master node.", Complexity: "O(1)", Handler: clusterReplicasCommand, Tips: []string{tipNondeterministic}},
				{Name: "slaves", Arity: 3, Flags: keyspace.FlagAdmin | stale, Group: grp, Since: "3.0.0", Summary: "Lists the replica nodes of a master node.", Complexity: "O(1)", Handler: clusterReplicasCommand, Tips: []string{tipNondeterministic}},
				{Name: "count-failure-reports", Arity: 3, Flags: keyspace.FlagAdmin | stale, Group: grp, Since: "3.0.0", Summary: "Returns the number of active failure reports active for a node.", Complexity: "O(N) where N is the number of failure reports", Handler: clusterCountFailureReportsCommand, Tips: []string{tipNondeterministic}},
				{Name: "links", Arity: 2, Flags: stale, Group: grp, Since: "7.0.0", Summary: "Returns a list of all TCP links to and from peer nodes.", Complexity: "O(N) where N is the total number of Cluster nodes", Handler: clusterLinksCommand, Tips: []string{tipNondeterministic}},
				{Name: "failover", Arity: -2, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoAsyncLoading, Group: grp, Since: "3.0.0", Summary: "Forces a replica to perform a manual failover of its master.", Complexity: "O(1)", Handler: clusterFailoverCommand},
				{Name: "meet", Arity: -4, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoAsyncLoading, Group: grp, Since: "3.0.0", Summary: "Forces a node to handshake with another node.", Complexity: "O(1)", Handler: clusterMembershipCommand},
				{Name: "forget", Arity: 3, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoAsyncLoading, Group: grp, Since: "3.0.0", Summary: "Removes a node from the nodes table.", Complexity: "O(1)", Handler: clusterMembershipCommand},
				{Name: "replicate", Arity: 3, Flags: keyspace.FlagAdmin | stale | keyspace.FlagNoAsyncLoading, Group: grp, Since: "3.0.0", Summary: "Configure a node as replica of a master node.", Complexity: "O(1)", Handler: clusterMembershipCommand},
				{Name: "myshardid", Arity: 2, Flags: stale, Group: grp, Since: "7.2.0", Summary: "Returns the shard ID of a node.", Complexity: "O(1)", Handler: clusterMyShardIDCommand, Tips: []string{tipNondeterministic}},
				{Name: "keyslot", Arity: 3, Flags: stale, Group: grp, Since: "3.0.0", Summary: "Returns the hash slot for a key.", Complexity: "O(N) where N is the number of bytes in the key", Handler: clusterKeySlotCommand},
				{Name: "countkeysinslot", Arity: 3, Flags: stale, Group: grp, Since: "3.0.0", Summary: "Returns the number of keys in a hash slot.", Complexity: "O(N) in the number of keys of the shard", Handler: clusterCountKeysInSlotCommand},
				{Name: "getkeysinslot", Arity: 4, Flags: stale, Group: grp, Since: "3.0.0", Summary: "Returns the key names in a hash slot.", Complexity: "O(N) in the number of keys of the shard", Handler: clusterGetKeysInSlotCommand, Tips: []string{tipNondeterministic}},
				{Name: "help", Arity: 2, Flags: keyspace.FlagLoading | stale, Group: grp, Since: "5.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: clusterHelpCommand},
			}},
		&keyspace.Command{Name: "readonly", Arity: 1, Flags: keyspace.FlagFast | keyspace.FlagLoading | stale, Group: grp, Categories: []string{"connection"}, Since: "3.0.0", Summary: "Enables read-only queries for a connection to a Redis Cluster replica node.", Complexity: "O(1)", Handler: readonlyCommand},
		&keyspace.Command{Name: "readwrite", Arity: 1, Flags: keyspace.FlagFast | keyspace.FlagLoading | stale, Group: grp, Categories: []string{"connection"}, Since: "3.0.0", Summary: "Enables read-write queries for a connection to a Redis Cluster replica node.", Complexity: "O(1)", Handler: readonlyCommand},
	)
}
