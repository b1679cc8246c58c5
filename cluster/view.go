package cluster

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
)

// MemberView is a cluster member (one process) as NewClusterTopology needs
// it.
type MemberView struct {
	Name    string   // the member's name
	Host    string   // the address clients reach it at
	Port    int      // its shard 0's client port; shard i listens on Port+i
	NodeIDs []string // its shards' node ids, one per shard
	Failed  bool     // the control plane has not heard from it in time
}

// GroupView is a group of members that owns slot ranges: a primary and its
// replicas.
type GroupView struct {
	ID    int // the group's number, which its shard ids derive from
	Slots []SlotRange
	// ShardSlots, when set, are the ranges each shard of the group's
	// members serves (index: shard); else Slots is split evenly.
	ShardSlots [][]SlotRange
	Epoch      uint64 // config epoch of the group's primary
	Primary    MemberView
	Replicas   []MemberView
}

// ImportView is a slot range moving into a group's shard: the members of
// that group keep the keys they receive for it, though they do not serve
// it yet.
type ImportView struct {
	ID    uint64 // the migration's id
	Group int    // the group the range moves to
	Shard int    // the shard of that group's members that receives it
	Slots SlotRange
}

// NewClusterTopology builds the topology of a cluster across hosts as seen
// by the member me, whose shard count every member shares. A group's slots are split among its primary's shards as on one
// host: shard i of every member of the group serves the i-th part, so a
// replica's shard i follows its primary's shard i. A slot in no group is
// served by nobody.
func NewClusterTopology(self MemberView, epoch uint64, groups []GroupView, imports ...ImportView) (*Topology, error) {
	me, shards := self.Name, len(self.NodeIDs)
	if shards < 1 || shards > MaxShards {
		return nil, fmt.Errorf("cluster: shards %d is out of range 1..%d", shards, MaxShards)
	}
	t := &Topology{Nodes: make([]Node, shards), Multi: true, Epoch: epoch}
	for i := range t.slotShard {
		t.slotShard[i] = noShard
		t.slotOwner[i] = noShard
		t.slotImport[i] = noShard
	}
	t.ImportIDs = make([]uint64, shards)
	local := false
	for _, g := range groups {
		members := append([]MemberView{g.Primary}, g.Replicas...)
		for _, m := range members {
			if len(m.NodeIDs) != shards {
				return nil, fmt.Errorf("cluster: member %s has %d shards, this one %d", m.Name, len(m.NodeIDs), shards)
			}
		}
		parts := g.ShardSlots
		if len(parts) != shards {
			parts = SplitRanges(g.Slots, shards)
		}
		for i := range shards {
			primaryAt := len(t.All)
			for k, m := range members {
				n := Node{
					Shard:   i,
					ID:      m.NodeIDs[i],
					ShardID: groupShardID(g.ID, i),
					Host:    m.Host,
					Port:    m.Port + i,
					Epoch:   g.Epoch,
					Ranges:  parts[i],
					Replica: k > 0,
					Member:  m.Name,
					Local:   m.Name == me,
					Failed:  m.Failed,
				}
				if len(parts[i]) > 0 {
					n.SlotStart, n.SlotEnd = parts[i][0].Start, parts[i][len(parts[i])-1].End
				} else {
					n.Ranges = []SlotRange{}
				}
				if k > 0 {
					n.PrimaryID = g.Primary.NodeIDs[i]
				}
				t.All = append(t.All, n)
				if n.Local {
					t.Nodes[i] = n
					local = true
					t.LocalReplica = k > 0
				}
			}
			for _, r := range parts[i] {
				for s := int(r.Start); s <= int(r.End); s++ {
					if t.slotOwner[s] != noShard {
						return nil, fmt.Errorf("cluster: slot %d is in two groups", s)
					}
					t.slotOwner[s] = uint16(primaryAt)
					if g.Primary.Name == me || containsMember(g.Replicas, me) {
						t.slotShard[s] = uint16(i)
					}
				}
			}
		}
	}
	for _, im := range imports {
		if im.Shard < 0 || im.Shard >= shards || im.Slots.Start > im.Slots.End || int(im.Slots.End) >= SlotCount {
			return nil, fmt.Errorf("cluster: migration %d names shard %d, slots %d-%d", im.ID, im.Shard, im.Slots.Start, im.Slots.End)
		}
		for _, g := range groups {
			if g.ID != im.Group || !(g.Primary.Name == me || containsMember(g.Replicas, me)) {
				continue
			}
			t.ImportIDs[im.Shard] = im.ID
			for s := int(im.Slots.Start); s <= int(im.Slots.End); s++ {
				t.slotImport[s] = uint16(im.Shard)
			}
		}
	}
	if !local {
		// Not in a group yet: the shards serve no slot.
		for i := range t.Nodes {
			t.Nodes[i] = Node{Shard: i, ID: self.NodeIDs[i], Host: self.Host, Port: self.Port + i, Ranges: []SlotRange{}, Member: me, Local: true}
		}
	}
	return t, nil
}

func containsMember(ms []MemberView, name string) bool {
	for _, m := range ms {
		if m.Name == name {
			return true
		}
	}
	return false
}

// SplitRanges splits the slots of rs into n parts of consecutive slots, as
// even as possible (the first ones one slot longer), each as ranges.
func SplitRanges(rs []SlotRange, n int) [][]SlotRange {
	total := 0
	for _, r := range rs {
		total += r.Len()
	}
	parts := make([][]SlotRange, n)
	base, extra := total/n, total%n
	ri, next := 0, 0 // the range being cut and its next slot
	if len(rs) > 0 {
		next = int(rs[0].Start)
	}
	for i := range n {
		want := base
		if i < extra {
			want++
		}
		for want > 0 && ri < len(rs) {
			end := int(rs[ri].End)
			take := min(want, end-next+1)
			parts[i] = append(parts[i], SlotRange{Start: uint16(next), End: uint16(next + take - 1)})
			want -= take
			next += take
			if next > end {
				ri++
				if ri < len(rs) {
					next = int(rs[ri].Start)
				}
			}
		}
	}
	return parts
}

// groupShardID is the CLUSTER MYSHARDID of shard i of group g: the same on
// every member of the group, across failovers.
func groupShardID(g, i int) string {
	sum := sha1.Sum(fmt.Appendf(nil, "ruvio group %d shard %d", g, i))
	return hex.EncodeToString(sum[:])
}
