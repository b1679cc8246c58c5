package cluster

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// BusPortOffset is added to a node's port to give the cluster bus port that CLUSTER NODES
// and CLUSTER SLOTS report, as in Redis. Nothing listens on it.
const BusPortOffset = 10000

// MaxShards is the most shards a Topology can hold: one slot each.
const MaxShards = SlotCount

// Node is one shard as a Redis Cluster client sees it: a master with one slot range.
type Node struct {
	Shard     int    // index of the shard, 0..N-1
	ID        string // 40 lower-case hex characters, stable across restarts
	Host      string // address clients reach the shard on, as in MOVED replies
	Port      int    // client port: basePort + Shard
	SlotStart uint16 // first slot owned, inclusive
	SlotEnd   uint16 // last slot owned, inclusive
	Epoch     uint64 // config epoch: Shard + 1, unique per node

	// The fields below are set in a cluster across hosts (NewClusterTopology)
	// only.

	// Ranges are the slot ranges the node serves when there are several;
	// nil means the one range SlotStart..SlotEnd. A replica serves its
	// primary's.
	Ranges []SlotRange
	// Replica is set on a replica; PrimaryID is then its primary's id.
	Replica   bool
	PrimaryID string
	// ShardID is the node's CLUSTER MYSHARDID: shared by a primary and its
	// replicas.
	ShardID string
	// Member is the name of the cluster member (process) the node is a
	// shard of.
	Member string
	// Local is set on the shards of this process.
	Local bool
	// Failed is set on a node the control plane has not heard from within
	// its timeout.
	Failed bool
}

// SlotRanges are the slot ranges the node serves.
func (n Node) SlotRanges() []SlotRange {
	if n.Ranges != nil {
		return n.Ranges
	}
	return []SlotRange{{Start: n.SlotStart, End: n.SlotEnd}}
}

// Addr is "host:port", the address MOVED and ASK replies carry.
func (n Node) Addr() string {
	return n.Host + ":" + strconv.Itoa(n.Port)
}

// Wildcard reports whether host is an unspecified address ("0.0.0.0",
// "::"), which a server listens on but no client can reach it at.
func Wildcard(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

// BusPort is the cluster bus port reported for the node: Port + 10000, or 0 when that is not a
// valid port.
func (n Node) BusPort() int {
	if p := n.Port + BusPortOffset; p <= 65535 {
		return p
	}
	return 0
}

// Slots is the number of slots the node owns.
func (n Node) Slots() int {
	total := 0
	for _, r := range n.SlotRanges() {
		total += r.Len()
	}
	return total
}

// Owns reports whether slot is in one of the node's ranges.
func (n Node) Owns(slot uint16) bool {
	for _, r := range n.SlotRanges() {
		if slot >= r.Start && slot <= r.End {
			return true
		}
	}
	return false
}

// Topology is the static slot layout of a process: which shard owns which slot. It is
// immutable after NewTopology returns and safe for concurrent use; callers must not modify
// Nodes.
type Topology struct {
	// Nodes holds one Node per shard of this process, indexed by shard.
	// Read-only.
	Nodes []Node
	// All holds every node of the cluster, this process's too: the
	// primaries, each followed by its replicas. On one host it is Nodes.
	All []Node
	// Multi is set for a cluster across hosts (NewClusterTopology).
	Multi bool
	// Epoch is the cluster's current epoch.
	Epoch uint64
	// LocalReplica is set when this process is a replica of its group.
	LocalReplica bool

	// ImportIDs are, per local shard, the migration whose range the shard
	// receives now (0: none).
	ImportIDs []uint64

	slotShard  [SlotCount]uint16 // shard of this process serving every slot, or noShard
	slotImport [SlotCount]uint16 // shard of this process receiving every slot, or noShard
	slotOwner  [SlotCount]uint16 // index in All of every slot's primary, or noShard
}

// Moved returns a copy of a one-host topology whose shards listen on host, shard i on
// basePort+i, the slots and everything else unchanged: the layout after CONFIG SET port or
// bind. A topology across hosts comes from the control plane and is not moved here.
func (t *Topology) Moved(host string, basePort int) (*Topology, error) {
	if t.Multi {
		return nil, errors.New("cluster: a topology across hosts moves through the control plane")
	}
	if host == "" {
		return nil, errors.New("cluster: host is empty")
	}
	if basePort < 1 || basePort+len(t.Nodes)-1 > 65535 {
		return nil, fmt.Errorf("cluster: ports %d..%d are not all in 1..65535", basePort, basePort+len(t.Nodes)-1)
	}
	m := *t
	m.Nodes = slices.Clone(t.Nodes)
	for i := range m.Nodes {
		m.Nodes[i].Host, m.Nodes[i].Port = host, basePort+m.Nodes[i].Shard
	}
	m.All = m.Nodes
	return &m, nil
}

// noShard marks a slot no shard serves.
const noShard = 0xFFFF

// NewTopology builds the topology of shards shards on host, shard i listening on basePort+i
// and owning the i-th of shards contiguous slot ranges. The 16384 slots are split as evenly
// as possible; the first 16384 mod shards ranges are one slot longer. ids[i] is shard i's node
// id (see LoadOrCreateNodeIDs); there must be exactly shards of them, distinct, each 40 hex
// characters.
func NewTopology(host string, basePort, shards int, ids []string) (*Topology, error) {
	if host == "" {
		return nil, errors.New("cluster: host is empty")
	}
	if shards < 1 || shards > MaxShards {
		return nil, fmt.Errorf("cluster: shards %d is out of range 1..%d", shards, MaxShards)
	}
	if basePort < 1 || basePort+shards-1 > 65535 {
		return nil, fmt.Errorf("cluster: ports %d..%d are not all in 1..65535", basePort, basePort+shards-1)
	}
	if len(ids) != shards {
		return nil, fmt.Errorf("cluster: %d node ids for %d shards", len(ids), shards)
	}
	seen := make(map[string]int, shards)
	for i, id := range ids {
		if !ValidNodeID(id) {
			return nil, fmt.Errorf("cluster: node id %q of shard %d is not 40 lower-case hex characters", id, i)
		}
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("cluster: shards %d and %d have the same node id %s", j, i, id)
		}
		seen[id] = i
	}

	t := &Topology{Nodes: make([]Node, shards), ImportIDs: make([]uint64, shards)}
	for i := range t.slotImport {
		t.slotImport[i] = noShard
	}
	base, extra := SlotCount/shards, SlotCount%shards
	start := 0
	for i := range shards {
		size := base
		if i < extra {
			size++
		}
		end := start + size - 1
		t.Nodes[i] = Node{
			Shard:     i,
			ID:        ids[i],
			Host:      host,
			Port:      basePort + i,
			SlotStart: uint16(start),
			SlotEnd:   uint16(end),
			Epoch:     uint64(i) + 1,
			ShardID:   ids[i],
		}
		for s := start; s <= end; s++ {
			t.slotShard[s] = uint16(i)
			t.slotOwner[s] = uint16(i)
		}
		start = end + 1
	}
	t.All = t.Nodes
	t.Epoch = uint64(shards)
	return t, nil
}

// Len is the number of shards.
func (t *Topology) Len() int { return len(t.Nodes) }

// ShardOf returns the shard of this process that serves slot, which must
// be below 16384, or -1 when none does. O(1).
func (t *Topology) ShardOf(slot uint16) int {
	if s := t.slotShard[slot]; s != noShard {
		return int(s)
	}
	return -1
}

// ImportingShard returns the shard of this process that receives slot
// from a migration in progress, or -1.
func (t *Topology) ImportingShard(slot uint16) int {
	if s := t.slotImport[slot]; s != noShard {
		return int(s)
	}
	return -1
}

// Keeps reports whether shard idx of this process keeps the keys of slot:
// it serves the slot or receives it from a migration.
func (t *Topology) Keeps(idx int, slot uint16) bool {
	return t.ShardOf(slot) == idx || t.ImportingShard(slot) == idx
}

// ShardOfKey returns key's slot and the shard of this process that serves
// it, or -1. It does not allocate.
func (t *Topology) ShardOfKey(key []byte) (slot uint16, shard int) {
	slot = KeySlot(key)
	return slot, t.ShardOf(slot)
}

// Owner returns the primary node that owns slot, wherever it is; false when
// no group owns the slot.
func (t *Topology) Owner(slot uint16) (Node, bool) {
	i := t.slotOwner[slot]
	if i == noShard {
		return Node{}, false
	}
	return t.All[i], true
}

// HostFor is the host a client is told to reach node n at: n.Host, unless n
// is this process's (Local, or any node on one host), n.Host is a wildcard
// address (a server bound to "0.0.0.0" or "::" with no cluster.announce)
// and reached is not empty; then reached, the host of the address the
// client's own connection reached, where every shard of this process
// listens. No client elsewhere can connect to 0.0.0.0.
func (t *Topology) HostFor(n Node, reached string) string {
	if reached != "" && (n.Local || !t.Multi) && Wildcard(n.Host) {
		return reached
	}
	return n.Host
}

// AddrFor is n.Addr with HostFor(n, reached) as the host.
func (t *Topology) AddrFor(n Node, reached string) string {
	return t.HostFor(n, reached) + ":" + strconv.Itoa(n.Port)
}

// NodesText renders CLUSTER NODES as seen from shard myShard by a client
// whose connection reached host reached (HostFor): one line per node,
//
//	<id> <ip>:<port>@<cport> [myself,]master|slave[,fail] <primary id>|- 0 0 <epoch> connected [<start>-<end> ...]
//
// each ending in "\n". "myself," marks myShard's line only.
func (t *Topology) NodesText(myShard int, reached string) string {
	var b strings.Builder
	for _, n := range t.All {
		b.WriteString(n.ID)
		b.WriteByte(' ')
		b.WriteString(t.AddrFor(n, reached))
		b.WriteByte('@')
		b.WriteString(strconv.Itoa(n.BusPort()))
		b.WriteByte(' ')
		if n.Shard == myShard && (n.Local || !t.Multi) {
			b.WriteString("myself,")
		}
		if n.Replica {
			b.WriteString("slave")
		} else {
			b.WriteString("master")
		}
		if n.Failed {
			b.WriteString(",fail")
		}
		if n.Replica {
			b.WriteString(" " + n.PrimaryID)
		} else {
			b.WriteString(" -")
		}
		b.WriteString(" 0 0 ")
		b.WriteString(strconv.FormatUint(n.Epoch, 10))
		if n.Failed {
			b.WriteString(" disconnected")
		} else {
			b.WriteString(" connected")
		}
		if !n.Replica {
			for _, r := range n.SlotRanges() {
				b.WriteByte(' ')
				b.WriteString(strconv.Itoa(int(r.Start)))
				if r.End != r.Start {
					b.WriteByte('-')
					b.WriteString(strconv.Itoa(int(r.End)))
				}
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// InfoText renders CLUSTER INFO as seen from shard myShard: "field:value" lines, each ending
// in "\r\n" as in Redis. On one host the cluster is always ok with every slot assigned; the
// current epoch is the number of nodes and myShard's epoch is myShard+1.
func (t *Topology) InfoText(myShard int) string {
	my := "0"
	if myShard >= 0 && myShard < len(t.Nodes) {
		my = strconv.FormatUint(t.Nodes[myShard].Epoch, 10)
	}
	assigned, failed, size := 0, 0, 0
	for _, n := range t.All {
		if n.Replica {
			continue
		}
		if n.Slots() > 0 {
			size++
		}
		assigned += n.Slots()
		if n.Failed {
			failed += n.Slots()
		}
	}
	state := "ok"
	if assigned < SlotCount || failed > 0 {
		state = "fail"
	}
	lines := [...]string{
		"cluster_state:" + state,
		"cluster_slots_assigned:" + strconv.Itoa(assigned),
		"cluster_slots_ok:" + strconv.Itoa(assigned-failed),
		"cluster_slots_pfail:0",
		"cluster_slots_fail:" + strconv.Itoa(failed),
		"cluster_known_nodes:" + strconv.Itoa(len(t.All)),
		"cluster_size:" + strconv.Itoa(size),
		"cluster_current_epoch:" + strconv.FormatUint(t.Epoch, 10),
		"cluster_my_epoch:" + my,
		"cluster_stats_messages_sent:0",
		"cluster_stats_messages_received:0",
		"total_cluster_links_buffer_limit_exceeded:0",
	}
	return strings.Join(lines[:], "\r\n") + "\r\n"
}
