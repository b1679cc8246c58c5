package keyspace

import (
	"slices"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/cluster"
)

// memberView is the one-shard member name as topologies show it.
func memberView(name string) cluster.MemberView {
	return cluster.MemberView{Name: name, Host: "127.0.0.1", Port: 7000, NodeIDs: []string{strings.Repeat(name, 40)}}
}

// memberStart is the topology member "a" serves before the control plane
// has said anything: epoch 0, no groups.
func memberStart(t *testing.T) *cluster.Topology {
	t.Helper()
	topo, err := cluster.NewClusterTopology(memberView("a"), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// twoGroups is the topology member "a" sees at epoch: group 1 serves
// slots 0..moved-1 and group 0 the rest; "a" is the primary of group 0, or
// its replica when replica is set.
func twoGroups(t *testing.T, epoch uint64, moved uint16, replica bool) *cluster.Topology {
	t.Helper()
	view := memberView
	g0 := cluster.GroupView{ID: 0, Slots: []cluster.SlotRange{{Start: moved, End: cluster.SlotCount - 1}}, Epoch: 1, Primary: view("a")}
	if replica {
		g0.Primary, g0.Replicas = view("c"), []cluster.MemberView{view("a")}
	}
	g1 := cluster.GroupView{ID: 1, Slots: []cluster.SlotRange{{Start: 0, End: moved - 1}}, Epoch: 2, Primary: view("b")}
	topo, err := cluster.NewClusterTopology(view("a"), epoch, []cluster.GroupView{g0, g1})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// TestCleanupPlan: a primary's shard deletes the keys of the slots it
// stops keeping; everything it does not keep on its first topology from
// the control plane or when it becomes a primary; nothing as a replica or
// for a topology not from the control plane.
func TestCleanupPlan(t *testing.T) {
	single, err := cluster.NewTopology("127.0.0.1", 7000, 1, []string{strings.Repeat("a", 40)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		old, t    *cluster.Topology
		wantClean []int
	}{
		{"slots moved away", twoGroups(t, 4, 100, false), twoGroups(t, 5, 200, false), []int{0}},
		{"slots moved in", twoGroups(t, 4, 200, false), twoGroups(t, 5, 100, false), nil},
		{"no change", twoGroups(t, 5, 200, false), twoGroups(t, 6, 200, false), nil},
		{"first topology", memberStart(t), twoGroups(t, 6, 200, false), []int{0}},
		{"from one host's", single, twoGroups(t, 6, 200, false), []int{0}},
		{"no previous topology", nil, twoGroups(t, 6, 200, false), []int{0}},
		{"becomes the primary", twoGroups(t, 5, 200, true), twoGroups(t, 6, 200, false), []int{0}},
		{"a replica", twoGroups(t, 5, 100, true), twoGroups(t, 6, 200, true), nil},
		{"not from the control plane", nil, single, nil},
	} {
		if clean := cleanupPlan(tc.old, tc.t, 1); !slices.Equal(clean, tc.wantClean) {
			t.Errorf("%s: cleanupPlan = %v, want %v", tc.name, clean, tc.wantClean)
		}
	}
}

// TestCleanupAfterRestart replays, as the control plane does after a
// restart, the states up to the one the process had applied when it was
// killed in the middle of deleting the slots it gave away: the states
// older than that delete nothing, and the first one at least as new
// deletes every slot the shard does not keep, though it differs in none
// from the state before it. Later states delete only what they move.
func TestCleanupAfterRestart(t *testing.T) {
	var c clusterState
	c.init(memberStart(t))
	c.cleanFrom.Store(6) // applied before the kill: epoch 5 moved 100..199 away, 6 changed nothing
	steps := []struct {
		t    *cluster.Topology
		want []int
	}{
		{twoGroups(t, 4, 100, false), nil}, // replayed, older: nothing
		{twoGroups(t, 5, 200, false), nil}, // replayed, older: nothing, though it moves slots away
		{twoGroups(t, 6, 200, false), []int{0}},
		{twoGroups(t, 7, 200, false), nil},
		{twoGroups(t, 8, 300, false), []int{0}},
	}
	for _, st := range steps {
		if got := c.cleanupAfter(st.t, 1); !slices.Equal(got, st.want) {
			t.Errorf("epoch %d: cleanupAfter = %v, want %v", st.t.Epoch, got, st.want)
		}
	}
}
