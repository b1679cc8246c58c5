package control

import (
	"fmt"
	"net"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/cluster"
)

// freePorts returns n free loopback addresses: listened on, then closed.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
	}
	var out []string
	for _, ln := range lns {
		out = append(out, ln.Addr().String())
		_ = ln.Close()
	}
	return out
}

// testNode is one member of an in-process control plane and what its
// callbacks saw.
type testNode struct {
	name string
	ctl  string
	seq  uint64 // the durable sequence it reports
	node *Node

	mu       sync.Mutex
	epochs   []uint64 // the epochs OnState delivered, in order
	latest   *State   // the newest state OnState delivered
	failed   []string // the failed members OnState delivered last
	leases   []uint64 // for every OnLease, the epoch of latest then
	problems []string // what the callbacks saw that they should not have
}

// primary reports whether the newest delivered state names the member its
// group's primary (the test's Status follows it, as a member's would).
func (tn *testNode) primaryLocked() bool {
	if tn.latest == nil {
		return false
	}
	g := tn.latest.GroupOf(tn.name)
	return g != nil && g.Primary == tn.name
}

func (tn *testNode) onState(s *State, failed []string) {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	if n := len(tn.epochs); n > 0 && s.Epoch < tn.epochs[n-1] {
		tn.problems = append(tn.problems, fmt.Sprintf("OnState epoch %d after %d", s.Epoch, tn.epochs[n-1]))
	}
	tn.epochs = append(tn.epochs, s.Epoch)
	tn.latest = s
	tn.failed = failed
}

func (tn *testNode) onLease(until time.Time) {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	if !tn.primaryLocked() {
		tn.problems = append(tn.problems, fmt.Sprintf("OnLease(%v) while not the primary", until))
	}
	var e uint64
	if tn.latest != nil {
		e = tn.latest.Epoch
	}
	tn.leases = append(tn.leases, e)
}

func (tn *testNode) status() Status {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	return Status{Primary: tn.primaryLocked(), Seqs: []uint64{tn.seq}}
}

func (tn *testNode) snapshot() (epochs, leases []uint64, latest *State, failed, problems []string) {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	return slices.Clone(tn.epochs), slices.Clone(tn.leases), tn.latest, slices.Clone(tn.failed), slices.Clone(tn.problems)
}

// waitFor polls cond every 20ms until it holds, for at most d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	eventually(t, d, func() string {
		if cond() {
			return ""
		}
		return "no " + what
	})
}

// eventually polls check every 20ms until it finds nothing wrong (""), for
// at most d, and fails the test with what it found last.
func eventually(t *testing.T, d time.Duration, check func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		wrong := check()
		if wrong == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, wrong)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startControlPlane starts three seed members n0, n1, n2 on 127.0.0.1, one
// replica per group, and closes them at the end of the test.
func startControlPlane(t *testing.T) []*testNode { return startControlPlaneOf(t, 3) }

// startControlPlaneOf starts count seeds (the first three vote).
func startControlPlaneOf(t *testing.T, count int) []*testNode {
	t.Helper()
	addrs := freePorts(t, count)
	var seeds []Seed
	nodes := make([]*testNode, count)
	dirs := make([]string, count)
	for i := range nodes {
		nodes[i] = &testNode{name: fmt.Sprintf("n%d", i), ctl: addrs[i], seq: uint64(100 + i)}
		seeds = append(seeds, Seed{Name: nodes[i].name, Control: addrs[i]})
		// Before the cleanup below, so that it runs after the nodes close.
		dirs[i] = t.TempDir()
	}
	t.Cleanup(func() {
		for _, tn := range nodes {
			if tn.node != nil {
				if err := tn.node.Close(); err != nil {
					t.Errorf("closing %s: %v", tn.name, err)
				}
			}
		}
	})
	for i, tn := range nodes {
		cfg := Config{
			Self: Member{
				Name:    tn.name,
				Host:    "127.0.0.1",
				Port:    7000 + 10*i,
				Control: tn.ctl,
				NodeIDs: []string{fmt.Sprintf("%040x", i+1)},
			},
			Listen:      tn.ctl,
			Dir:         dirs[i],
			Seeds:       seeds,
			Replicas:    1,
			NodeTimeout: time.Second,
			OnState:     tn.onState,
			OnLease:     tn.onLease,
			Status:      tn.status,
		}
		n, err := Start(cfg)
		if err != nil {
			t.Fatalf("starting %s: %v", tn.name, err)
		}
		tn.node = n
	}
	return nodes
}

// waitFormed waits, for at most d, until every node's applied state and
// the last one it delivered say the cluster was created.
func waitFormed(t *testing.T, nodes []*testNode, d time.Duration) {
	t.Helper()
	waitFor(t, d, "cluster formed on every member", func() bool {
		for _, tn := range nodes {
			if s := tn.node.State(); !s.Created {
				return false
			}
			if _, _, latest, _, _ := tn.snapshot(); latest == nil || !latest.Created {
				return false
			}
		}
		return true
	})
}

// leaderOfNodes is the one live node that leads, or nil.
func leaderOfNodes(nodes []*testNode) *testNode {
	var l *testNode
	for _, tn := range nodes {
		if tn.node.isLeader() {
			if l != nil {
				return nil
			}
			l = tn
		}
	}
	return l
}

// statusThroughFollowers asks for the status through every member that
// does not lead and says what is wrong with the answers, "" if nothing.
func statusThroughFollowers(nodes []*testNode, want []Group) string {
	leader := leaderOfNodes(nodes)
	if leader == nil {
		return "no single leader"
	}
	for _, tn := range nodes {
		if tn == leader {
			continue
		}
		c := NewClient(tn.ctl, 2*time.Second)
		r, err := c.Status()
		c.Close()
		if err != nil {
			return fmt.Sprintf("Status through %s: %v", tn.name, err)
		}
		slices.Sort(r.Voters)
		if r.NotLeader || r.Leader != leader.ctl || !reflect.DeepEqual(r.State.Groups, want) || r.State.Epoch != 4 ||
			!reflect.DeepEqual(r.Voters, []string{"n0", "n1", "n2"}) {
			return fmt.Sprintf("Status through %s: leader %q (not leader %v), voters %v, state %+v; want leader %s",
				tn.name, r.Leader, r.NotLeader, r.Voters, r.State, leader.ctl)
		}
	}
	return ""
}

func TestControlPlaneFormsAndFailsOver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member consensus group")
	}
	nodes := startControlPlane(t)
	const wait = 15 * time.Second

	// Formed: three seeds with one replica each make one group, its primary
	// the first seed.
	waitFormed(t, nodes, wait)
	st := nodes[0].node.State()
	all := []cluster.SlotRange{{Start: 0, End: cluster.SlotCount - 1}}
	want := []Group{{ID: 0, Slots: all, ShardSlots: [][]cluster.SlotRange{all}, Primary: "n0", Replicas: []string{"n1", "n2"}, Epoch: 4}}
	if !reflect.DeepEqual(st.Groups, want) || st.Epoch != 4 || len(st.Members) != 3 {
		t.Fatalf("formed state: epoch %d, %d members, groups %+v; want epoch 4 (3 registers, create), 3, %+v", st.Epoch, len(st.Members), st.Groups, want)
	}
	for i, m := range st.Members {
		if m.Name != nodes[i].name || m.Control != nodes[i].ctl || m.Port != 7000+10*i {
			t.Fatalf("member %d: %+v", i, m)
		}
	}
	for _, tn := range nodes[1:] {
		if s := tn.node.State(); !reflect.DeepEqual(s, st) {
			t.Fatalf("%s has another state: %+v", tn.name, s)
		}
	}

	// The primary, and it only, receives leases.
	waitFor(t, wait, "a lease for the primary n0", func() bool {
		_, leases, _, _, _ := nodes[0].snapshot()
		return len(leases) > 0
	})
	// Status through a member that does not lead follows to the leader
	// (again should the leadership move meanwhile).
	eventually(t, wait, func() string { return statusThroughFollowers(nodes, want) })

	for _, tn := range nodes[1:] {
		if _, leases, _, _, _ := tn.snapshot(); len(leases) != 0 {
			t.Fatalf("replica %s received %d leases", tn.name, len(leases))
		}
	}

	// The primary stops: a replica is promoted.
	if err := nodes[0].node.Close(); err != nil {
		t.Fatalf("closing n0: %v", err)
	}
	rest := nodes[1:]
	var after *State
	waitFor(t, wait, "a failover", func() bool {
		for _, tn := range rest {
			s := tn.node.State()
			if s.Groups[0].Primary == "n0" {
				return false
			}
			after = s
		}
		return true
	})
	g := after.Groups[0]
	var promoted, other *testNode
	for _, tn := range rest {
		if tn.name == g.Primary {
			promoted = tn
		} else {
			other = tn
		}
	}
	if promoted == nil {
		t.Fatalf("promoted %q, not a replica", g.Primary)
	}
	if after.Epoch != 5 || g.Epoch != 5 || !reflect.DeepEqual(g.PromotedAt, []uint64{promoted.seq}) ||
		!reflect.DeepEqual(g.Replicas, []string{other.name, "n0"}) {
		t.Fatalf("after the failover: epoch %d, group %+v; want epoch 5, group epoch 5, promoted at [%d], replicas [%s n0]",
			after.Epoch, g, promoted.seq, other.name)
	}
	for _, tn := range rest {
		if s := tn.node.State(); !reflect.DeepEqual(s, after) {
			t.Fatalf("%s has another state: %+v", tn.name, s)
		}
	}

	// The new primary is leased, from the new epoch on; the survivors are
	// told n0 failed.
	waitFor(t, wait, "a lease for the new primary", func() bool {
		_, leases, _, _, _ := promoted.snapshot()
		return len(leases) > 0
	})
	waitFor(t, wait, "n0 reported failed to both survivors", func() bool {
		for _, tn := range rest {
			if epochs, _, _, failed, _ := tn.snapshot(); epochs[len(epochs)-1] != 5 || !reflect.DeepEqual(failed, []string{"n0"}) {
				return false
			}
		}
		return true
	})
	if _, leases, _, _, _ := promoted.snapshot(); slices.ContainsFunc(leases, func(e uint64) bool { return e < 5 }) {
		t.Fatalf("new primary %s leased at epochs %v, before the failover (5)", promoted.name, leases)
	}
	if _, leases, _, _, _ := other.snapshot(); len(leases) != 0 {
		t.Fatalf("replica %s received leases at epochs %v", other.name, leases)
	}

	for _, tn := range nodes {
		epochs, leases, _, _, problems := tn.snapshot()
		if len(problems) > 0 {
			t.Errorf("%s: %v", tn.name, problems)
		}
		if !slices.IsSorted(epochs) {
			t.Errorf("%s: OnState epochs %v", tn.name, epochs)
		}
		t.Logf("%s: OnState epochs %v, %d leases", tn.name, epochs, len(leases))
	}
}

// A voter removed from a cluster of four is replaced by the live
// non-voter, so the control plane keeps three votes.
func TestControlPlaneReplacesARemovedVoter(t *testing.T) {
	if testing.Short() {
		t.Skip("a four-member control plane")
	}
	nodes := startControlPlaneOf(t, 4)
	c := NewClient(nodes[0].ctl, 2*time.Second)
	defer c.Close()
	voters := func() []string {
		st, err := c.Status()
		if err != nil || !st.State.Created {
			return nil
		}
		return st.Voters
	}
	waitFor(t, 20*time.Second, "three voters of a formed cluster", func() bool { return len(voters()) == 3 })
	if v := voters(); slices.Contains(v, "n3") {
		t.Fatalf("voters %v: n3 is not one of the first three", v)
	}
	// Remove a voter that is not a primary.
	st, err := c.Status()
	if err != nil {
		t.Fatal(err)
	}
	victim := ""
	for _, name := range []string{"n1", "n2", "n0"} {
		if g := st.State.GroupOf(name); g != nil && g.Primary != name && slices.Contains(st.Voters, name) {
			victim = name
			break
		}
	}
	if victim == "" {
		t.Fatalf("no voter that is a replica in %+v", st.State.Groups)
	}
	if err := c.Remove(victim); err != nil {
		t.Fatalf("remove %s: %v", victim, err)
	}
	waitFor(t, 20*time.Second, "n3 voting in place of "+victim, func() bool {
		v := voters()
		return len(v) == 3 && slices.Contains(v, "n3") && !slices.Contains(v, victim)
	})
}

// TestSetClientAddressReachesEveryMember: a member whose client port
// moves (CONFIG SET port) registers the new address, and every member's
// state names it, its node ids and control address unchanged, under a
// newer epoch.
func TestSetClientAddressReachesEveryMember(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member consensus group")
	}
	nodes := startControlPlane(t)
	const wait = 15 * time.Second
	waitFormed(t, nodes, wait)
	before := nodes[0].node.State().Epoch
	nodes[1].node.SetClientAddress("127.0.0.1", 7444)
	eventually(t, wait, func() string {
		for _, tn := range nodes {
			_, _, latest, _, _ := tn.snapshot()
			m, ok := latest.Member("n1")
			if !ok || m.Host != "127.0.0.1" || m.Port != 7444 || m.Control != nodes[1].ctl || !slices.Equal(m.NodeIDs, []string{fmt.Sprintf("%040x", 2)}) {
				return fmt.Sprintf("%s: member n1 = %+v (found %v), want port 7444", tn.name, m, ok)
			}
			if latest.Epoch <= before {
				return fmt.Sprintf("%s: epoch %d, not past %d", tn.name, latest.Epoch, before)
			}
		}
		return ""
	})
	for _, tn := range nodes {
		if _, _, _, _, problems := tn.snapshot(); len(problems) > 0 {
			t.Errorf("%s: %v", tn.name, problems)
		}
	}
}
