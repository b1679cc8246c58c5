package control

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/cluster"
)

// testMember is member s<i> on host with shards shards: client port
// 7000+100*i, control 127.0.0.1:17000+i and node ids derived from i.
func testMember(i int, host string, shards int) Member {
	m := Member{
		Name:    fmt.Sprintf("s%d", i),
		Host:    host,
		Port:    7000 + 100*i,
		Control: fmt.Sprintf("127.0.0.1:%d", 17000+i),
	}
	for j := range shards {
		m.NodeIDs = append(m.NodeIDs, fmt.Sprintf("%036x%04x", i, j))
	}
	return m
}

func register(m Member) Command { return Command{Op: OpRegister, Member: &m} }

// mustApply applies cs in turn and fails the test on a refusal.
func mustApply(t *testing.T, s *State, cs ...Command) {
	t.Helper()
	for _, c := range cs {
		if err := s.Apply(c); err != nil {
			t.Fatalf("Apply(%s) = %v", c.Encode(), err)
		}
	}
}

// createdState registers a member per host (s0, s1, ... on hosts[i], each
// with shards shards) and creates the cluster from them in that order.
func createdState(t *testing.T, replicas, shards int, hosts ...string) *State {
	t.Helper()
	s := &State{}
	var seeds []string
	for i, h := range hosts {
		m := testMember(i, h, shards)
		mustApply(t, s, register(m))
		seeds = append(seeds, m.Name)
	}
	mustApply(t, s, Command{Op: OpCreate, Seeds: seeds, Replicas: replicas})
	return s
}

func TestRegisterValidation(t *testing.T) {
	good := testMember(1, "127.0.0.1", 2)
	with := func(f func(m *Member)) *Member {
		m := good
		m.NodeIDs = append([]string(nil), good.NodeIDs...)
		f(&m)
		return &m
	}
	cases := []struct {
		name string
		m    *Member
		want string
	}{
		{"nil", nil, "a member needs a name"},
		{"no name", with(func(m *Member) { m.Name = "" }), "a member needs a name"},
		{"no host", with(func(m *Member) { m.Host = "" }), `member s1: address "" port 7100 control "127.0.0.1:17001" is not valid`},
		{"port 0", with(func(m *Member) { m.Port = 0 }), `member s1: address "127.0.0.1" port 0 control "127.0.0.1:17001" is not valid`},
		{"last shard past 65535", with(func(m *Member) { m.Port = 65535 }), `member s1: address "127.0.0.1" port 65535 control "127.0.0.1:17001" is not valid`},
		{"no control", with(func(m *Member) { m.Control = "" }), `member s1: address "127.0.0.1" port 7100 control "" is not valid`},
		{"no shards", with(func(m *Member) { m.NodeIDs = nil }), "member s1 has no shards"},
		{"short node id", with(func(m *Member) { m.NodeIDs[1] = "abc" }), `member s1: node id "abc" is not 40 hex characters`},
		{"upper-case node id", with(func(m *Member) { m.NodeIDs[0] = strings.Repeat("AB", 20) }), `member s1: node id "` + strings.Repeat("AB", 20) + `" is not 40 hex characters`},
	}
	for _, tc := range cases {
		s := &State{}
		err := s.Apply(Command{Op: OpRegister, Member: tc.m})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: Apply = %v, want %q", tc.name, err, tc.want)
		}
		if !reflect.DeepEqual(s, &State{}) {
			t.Errorf("%s: a refused register changed the state: %+v", tc.name, s)
		}
	}
	// The highest port that still fits the member's shards is valid.
	s := &State{}
	mustApply(t, s, register(*with(func(m *Member) { m.Port = 65534 })))
	if s.Epoch != 1 || len(s.Members) != 1 || s.Members[0].Port != 65534 {
		t.Fatalf("after register: %+v", s)
	}
}

func TestRegisterIdempotentAndUpdates(t *testing.T) {
	s := &State{}
	m := testMember(1, "127.0.0.1", 2)
	mustApply(t, s, register(m))
	if s.Epoch != 1 || len(s.Members) != 1 || !reflect.DeepEqual(s.Members[0], m) {
		t.Fatalf("after register: %+v", s)
	}
	// The same member again changes nothing, the epoch included.
	mustApply(t, s, register(m))
	if s.Epoch != 1 || len(s.Members) != 1 {
		t.Fatalf("re-register: epoch %d, %d members; want 1, 1", s.Epoch, len(s.Members))
	}
	// The command's member is copied: changing it later changes nothing.
	c := Command{Op: OpRegister, Member: &Member{Name: m.Name, Host: m.Host, Port: m.Port, Control: m.Control, NodeIDs: append([]string(nil), m.NodeIDs...)}}
	mustApply(t, s, c)
	c.Member.NodeIDs[0] = strings.Repeat("f", 40)
	if s.Members[0].NodeIDs[0] != m.NodeIDs[0] {
		t.Fatalf("state shares the command's node ids: %v", s.Members[0].NodeIDs)
	}

	steps := []struct {
		name string
		f    func(m *Member)
	}{
		{"host", func(m *Member) { m.Host = "127.0.0.2" }},
		{"port", func(m *Member) { m.Port = 7500 }},
		{"control", func(m *Member) { m.Control = "127.0.0.2:17001" }},
		{"node id", func(m *Member) { m.NodeIDs[1] = strings.Repeat("e", 40) }},
		{"shard count, in no group", func(m *Member) { m.NodeIDs = append(m.NodeIDs, strings.Repeat("d", 40)) }},
	}
	epoch := s.Epoch
	for _, st := range steps {
		m.NodeIDs = append([]string(nil), m.NodeIDs...)
		st.f(&m)
		mustApply(t, s, register(m))
		epoch++
		if s.Epoch != epoch {
			t.Errorf("changed %s: epoch %d, want %d", st.name, s.Epoch, epoch)
		}
		if got, _ := s.Member("s1"); !reflect.DeepEqual(got, m) {
			t.Errorf("changed %s: member %+v, want %+v", st.name, got, m)
		}
	}
	if len(s.Members) != 1 {
		t.Fatalf("%d members, want 1", len(s.Members))
	}
}

func TestRegisterKeepsMembersSorted(t *testing.T) {
	s := &State{}
	for _, i := range []int{3, 1, 4, 0, 2} {
		mustApply(t, s, register(testMember(i, "127.0.0.1", 1)))
	}
	var names []string
	for _, m := range s.Members {
		names = append(names, m.Name)
	}
	if want := []string{"s0", "s1", "s2", "s3", "s4"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("members %v, want %v", names, want)
	}
	if s.Epoch != 5 || s.Created || s.Groups != nil {
		t.Fatalf("state %+v", s)
	}
	if m, ok := s.Member("s3"); !ok || m.Port != 7300 {
		t.Fatalf("Member(s3) = %+v, %v", m, ok)
	}
	if _, ok := s.Member("s9"); ok {
		t.Fatal("Member(s9) found")
	}
	if _, ok := s.Member(""); ok {
		t.Fatal(`Member("") found`)
	}
}

func TestRegisterShardCountAfterCreate(t *testing.T) {
	s := createdState(t, 0, 2, "127.0.0.1", "127.0.0.2")
	// A new member with another shard count is refused.
	err := s.Apply(register(testMember(5, "127.0.0.3", 3)))
	if !errors.Is(err, ErrShardCount) || err.Error() != "member s5 has 3 shards, the cluster 2: "+ErrShardCount.Error() {
		t.Errorf("new member with 3 shards: %v", err)
	}
	// A member of a group coming back with another shard count too, the
	// first one (whose count the cluster's is read from) included.
	for _, i := range []int{0, 1} {
		m := testMember(i, fmt.Sprintf("127.0.0.%d", i+1), 1)
		err := s.Apply(register(m))
		want := fmt.Sprintf("member s%d came back with 1 shards instead of 2: %v", i, ErrShardCount)
		if i != 0 {
			want = fmt.Sprintf("member s%d has 1 shards, the cluster 2: %v", i, ErrShardCount)
		}
		if !errors.Is(err, ErrShardCount) || err.Error() != want {
			t.Errorf("s%d with 1 shard: %v, want %q", i, err, want)
		}
	}
	if s.Epoch != 4 || len(s.Members) != 2 {
		t.Fatalf("refusals changed the state: %+v", s)
	}
	// Before the cluster is created any shard count registers; create
	// then refuses seeds that differ.
	u := &State{}
	mustApply(t, u, register(testMember(0, "127.0.0.1", 2)), register(testMember(1, "127.0.0.2", 3)))
	err = u.Apply(Command{Op: OpCreate, Seeds: []string{"s0", "s1"}})
	if !errors.Is(err, ErrShardCount) || err.Error() != "seed member s1 has 3 shards, another 2: "+ErrShardCount.Error() {
		t.Errorf("create with mixed shard counts: %v", err)
	}
}

// groupSummary is a group's members and slots, compactly.
type groupSummary struct {
	Primary  string
	Replicas []string
	Slots    []cluster.SlotRange
	Epoch    uint64
}

func summarize(s *State) []groupSummary {
	var out []groupSummary
	for _, g := range s.Groups {
		out = append(out, groupSummary{g.Primary, g.Replicas, g.Slots, g.Epoch})
	}
	return out
}

func TestCreateLayouts(t *testing.T) {
	r := func(a, b uint16) []cluster.SlotRange { return []cluster.SlotRange{{Start: a, End: b}} }
	cases := []struct {
		name     string
		hosts    []string
		replicas int
		want     []groupSummary
	}{
		{"one member", []string{"A"}, 0, []groupSummary{{"s0", nil, r(0, 16383), 1}}},
		{"one host, three members, one replica", []string{"A", "A", "A"}, 1,
			[]groupSummary{{"s0", []string{"s1", "s2"}, r(0, 16383), 1}}},
		{"more replicas than seeds", []string{"A", "B"}, 5,
			[]groupSummary{{"s0", []string{"s1"}, r(0, 16383), 1}}},
		{"primaries on distinct hosts first", []string{"A", "A", "B"}, 0, []groupSummary{
			{"s0", nil, r(0, 5461), 1}, {"s2", nil, r(5462, 10922), 2}, {"s1", nil, r(10923, 16383), 3}}},
		{"replicas apart from their primary", []string{"A", "B", "A", "B"}, 1, []groupSummary{
			{"s0", []string{"s3"}, r(0, 8191), 1}, {"s1", []string{"s2"}, r(8192, 16383), 2}}},
		{"primaries apart, replicas apart", []string{"A", "A", "B", "B"}, 1, []groupSummary{
			{"s0", []string{"s3"}, r(0, 8191), 1}, {"s2", []string{"s1"}, r(8192, 16383), 2}}},
		{"five hosts, one replica", []string{"A", "B", "C", "D", "E"}, 1, []groupSummary{
			{"s0", []string{"s2", "s4"}, r(0, 8191), 1}, {"s1", []string{"s3"}, r(8192, 16383), 2}}},
		{"seven groups", []string{"A", "B", "C", "D", "E", "F", "G"}, 0, []groupSummary{
			{"s0", nil, r(0, 2340), 1}, {"s1", nil, r(2341, 4681), 2}, {"s2", nil, r(4682, 7022), 3},
			{"s3", nil, r(7023, 9363), 4}, {"s4", nil, r(9364, 11703), 5}, {"s5", nil, r(11704, 14043), 6},
			{"s6", nil, r(14044, 16383), 7}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := createdState(t, tc.replicas, 1, tc.hosts...)
			// Registering n members took epochs 1..n; group i's epoch is
			// n+1+i, the state's the last group's.
			for i := range tc.want {
				tc.want[i].Epoch += uint64(len(tc.hosts))
			}
			if got := summarize(s); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("groups\n%+v\nwant\n%+v", got, tc.want)
			}
			if !s.Created {
				t.Error("not Created")
			}
			if want := uint64(len(tc.hosts) + len(tc.want)); s.Epoch != want {
				t.Errorf("epoch %d, want %d", s.Epoch, want)
			}
			for i, g := range s.Groups {
				if g.ID != i || g.PromotedAt != nil {
					t.Errorf("group %d: id %d, promoted at %v", i, g.ID, g.PromotedAt)
				}
			}
			checkSlotsCovered(t, s)
		})
	}
}

// checkSlotsCovered checks that the groups' ranges are contiguous, in
// order, as even as can be and cover 0..16383 exactly once.
func checkSlotsCovered(t *testing.T, s *State) {
	t.Helper()
	next, n := 0, len(s.Groups)
	for i, g := range s.Groups {
		if len(g.Slots) != 1 {
			t.Fatalf("group %d has ranges %v", i, g.Slots)
		}
		r := g.Slots[0]
		want := cluster.SlotCount / n
		if i < cluster.SlotCount%n {
			want++
		}
		if int(r.Start) != next || r.Len() != want {
			t.Fatalf("group %d has %v (%d slots), want start %d and %d slots", i, r, r.Len(), next, want)
		}
		next = int(r.End) + 1
	}
	if next != cluster.SlotCount {
		t.Fatalf("slots end at %d", next-1)
	}
}

func TestCreateBalancesReplicasAcrossHosts(t *testing.T) {
	s := createdState(t, 1, 1, "A", "A", "B", "B", "C", "C")
	for _, g := range s.Groups {
		if len(g.Replicas) != 1 {
			t.Errorf("group %d (primary %s) has replicas %v, want one", g.ID, g.Primary, g.Replicas)
			continue
		}
		p, _ := s.Member(g.Primary)
		r, _ := s.Member(g.Replicas[0])
		if p.Host == r.Host {
			t.Errorf("group %d: replica %s on its primary's host %s", g.ID, r.Name, p.Host)
		}
	}
}

func TestCreateRefusals(t *testing.T) {
	s := &State{}
	mustApply(t, s, register(testMember(0, "A", 1)), register(testMember(1, "B", 1)))
	cases := []struct {
		c    Command
		is   error
		want string
	}{
		{Command{Op: OpCreate, Seeds: []string{"s0", "s1", "s2"}, Replicas: 0}, ErrUnknown, "seed member s2 has not registered: no such member"},
		{Command{Op: OpCreate}, nil, "no seed members"},
		{Command{Op: OpCreate, Seeds: []string{"s0"}, Replicas: -1}, nil, "replicas -1 is negative"},
	}
	before := s.Clone()
	for _, tc := range cases {
		err := s.Apply(tc.c)
		if err == nil || err.Error() != tc.want || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("Apply(%s) = %v, want %q", tc.c.Encode(), err, tc.want)
		}
		if !reflect.DeepEqual(s, before) {
			t.Fatalf("refused %s changed the state:\n%+v\nwas\n%+v", tc.c.Encode(), s, before)
		}
	}
	// Created once the last seed registers, then never again.
	mustApply(t, s, register(testMember(2, "C", 1)))
	create := Command{Op: OpCreate, Seeds: []string{"s0", "s1", "s2"}, Replicas: 0}
	mustApply(t, s, create)
	// Three registers, then one epoch per group.
	if s.Epoch != 6 || len(s.Groups) != 3 {
		t.Fatalf("after create: epoch %d, %d groups", s.Epoch, len(s.Groups))
	}
	before = s.Clone()
	if err := s.Apply(create); !errors.Is(err, ErrCreated) {
		t.Fatalf("second create: %v, want ErrCreated", err)
	}
	if !reflect.DeepEqual(s, before) {
		t.Fatal("a second create changed the state")
	}
}

func TestCreateTooManyShards(t *testing.T) {
	s := &State{}
	mustApply(t, s, register(testMember(0, "A", 8193)), register(testMember(1, "B", 8193)))
	err := s.Apply(Command{Op: OpCreate, Seeds: []string{"s0", "s1"}})
	if err == nil || err.Error() != "2 groups of 8193 shards is more than 16384 slots" {
		t.Fatalf("create: %v", err)
	}
	// One group of them fits.
	mustApply(t, s, Command{Op: OpCreate, Seeds: []string{"s0", "s1"}, Replicas: 1})
	if len(s.Groups) != 1 {
		t.Fatalf("%d groups", len(s.Groups))
	}
}

func TestCreateEpochAboveGroups(t *testing.T) {
	// Fewer changes than groups before create: the epoch still ends above
	// every group's.
	s := &State{}
	for i := range 3 {
		mustApply(t, s, register(testMember(i, "A", 1)))
	}
	s.Epoch = 1
	mustApply(t, s, Command{Op: OpCreate, Seeds: []string{"s0", "s1", "s2"}})
	if s.Epoch != 4 {
		t.Fatalf("epoch %d, want 4 (3 groups + 1)", s.Epoch)
	}
}

func TestRegisterAfterCreateJoinsAGroup(t *testing.T) {
	s := createdState(t, 0, 1, "A", "B") // g0 = s0@A, g1 = s1@B
	steps := []struct {
		m     Member
		group int
		why   string
	}{
		{testMember(2, "A", 1), 1, "the group with no member on A"},
		{testMember(3, "B", 1), 0, "the group with no member on B"},
		{testMember(4, "B", 1), 0, "every group has a member on B: the fewest replicas, lowest id on a tie"},
		{testMember(5, "C", 1), 1, "both groups are apart from C: the one with the fewest replicas"},
		{testMember(6, "C", 1), 0, "only group 0 has no member on C"},
	}
	epoch := s.Epoch
	for _, st := range steps {
		mustApply(t, s, register(st.m))
		epoch++
		if s.Epoch != epoch {
			t.Errorf("%s: epoch %d, want %d", st.m.Name, s.Epoch, epoch)
		}
		g := s.GroupOf(st.m.Name)
		if g == nil || g.ID != st.group || g.Primary == st.m.Name {
			t.Fatalf("%s joined %+v, want a replica of group %d (%s)", st.m.Name, g, st.group, st.why)
		}
	}
	want := []groupSummary{
		{"s0", []string{"s3", "s4", "s6"}, []cluster.SlotRange{{Start: 0, End: 8191}}, 3},
		{"s1", []string{"s2", "s5"}, []cluster.SlotRange{{Start: 8192, End: 16383}}, 4},
	}
	if got := summarize(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("groups\n%+v\nwant\n%+v", got, want)
	}
	// A replica that registers again stays where it is.
	mustApply(t, s, register(testMember(4, "B", 1)))
	if s.Epoch != epoch || s.GroupOf("s4").ID != 0 {
		t.Fatalf("re-register moved s4 or bumped the epoch: %+v", s)
	}
}

func TestRegisterBeforeCreateNonSeed(t *testing.T) {
	s := &State{}
	mustApply(t, s,
		register(testMember(0, "A", 2)), register(testMember(1, "B", 2)),
		register(Member{Name: "a-spare", Host: "C", Port: 7000, Control: "127.0.0.1:17100", NodeIDs: []string{strings.Repeat("a", 40)}}),
		Command{Op: OpCreate, Seeds: []string{"s0", "s1"}, Replicas: 0})
	if s.GroupOf("a-spare") == nil {
		t.Error("a-spare, registered before create, is in no group")
	}
	if err := s.Apply(register(testMember(2, "D", 2))); err != nil {
		t.Errorf("a new member with the cluster's 2 shards: %v", err)
	}
	if err := s.Apply(register(testMember(3, "E", 1))); !errors.Is(err, ErrShardCount) {
		t.Errorf("a new member with 1 shard in a cluster of 2: %v, want ErrShardCount", err)
	}
}

func TestFailover(t *testing.T) {
	s := createdState(t, 1, 2, "A", "B", "C", "D")
	if got := summarize(s); got[0].Primary != "s0" || !reflect.DeepEqual(got[0].Replicas, []string{"s2"}) ||
		got[1].Primary != "s1" || !reflect.DeepEqual(got[1].Replicas, []string{"s3"}) {
		t.Fatalf("groups %+v", got)
	}
	mustApply(t, s, register(testMember(4, "E", 2))) // a tie: the lowest id
	if g := s.GroupOf("s4"); g.ID != 0 {
		t.Fatalf("s4 in group %d", g.ID)
	}
	epoch := s.Epoch
	mustApply(t, s, Command{Op: OpFailover, Group: 0, From: "s0", To: "s4", Seqs: []uint64{7, 9}})
	g := s.Groups[0]
	if g.Primary != "s4" || !reflect.DeepEqual(g.Replicas, []string{"s2", "s0"}) {
		t.Fatalf("after failover: primary %s, replicas %v; want s4, [s2 s0]", g.Primary, g.Replicas)
	}
	if s.Epoch != epoch+1 || g.Epoch != s.Epoch {
		t.Fatalf("epoch %d, group epoch %d; want %d for both", s.Epoch, g.Epoch, epoch+1)
	}
	if !reflect.DeepEqual(g.PromotedAt, []uint64{7, 9}) {
		t.Fatalf("promoted at %v", g.PromotedAt)
	}
	if !reflect.DeepEqual(s.Groups[1], Group{ID: 1, Slots: []cluster.SlotRange{{Start: 8192, End: 16383}},
		ShardSlots: [][]cluster.SlotRange{{{Start: 8192, End: 12287}}, {{Start: 12288, End: 16383}}}, Primary: "s1", Replicas: []string{"s3"}, Epoch: 6}) {
		t.Fatalf("the other group changed: %+v", s.Groups[1])
	}
	// And back, with no sequences: PromotedAt is replaced.
	mustApply(t, s, Command{Op: OpFailover, Group: 0, From: "s4", To: "s0"})
	g = s.Groups[0]
	if g.Primary != "s0" || !reflect.DeepEqual(g.Replicas, []string{"s2", "s4"}) || g.PromotedAt != nil ||
		s.Epoch != epoch+2 || g.Epoch != epoch+2 {
		t.Fatalf("second failover: %+v, epoch %d", g, s.Epoch)
	}
}

func TestFailoverRefusals(t *testing.T) {
	s := createdState(t, 1, 1, "A", "B", "C", "D") // g0 = s0 + s2, g1 = s1 + s3
	cases := []struct {
		c    Command
		is   error
		want string
	}{
		{Command{Op: OpFailover, Group: 0, From: "s1", To: "s2"}, ErrStalePrimary, "group 0: primary is s0, not s1: " + ErrStalePrimary.Error()},
		{Command{Op: OpFailover, Group: 0, From: "s2", To: "s0"}, ErrStalePrimary, "group 0: primary is s0, not s2: " + ErrStalePrimary.Error()},
		{Command{Op: OpFailover, Group: 0, From: "s0", To: "s3"}, nil, "group 0: s3 is not one of its replicas"},
		{Command{Op: OpFailover, Group: 0, From: "s0", To: "s0"}, nil, "group 0: s0 is not one of its replicas"},
		{Command{Op: OpFailover, Group: 0, From: "s0", To: "nobody"}, nil, "group 0: nobody is not one of its replicas"},
		{Command{Op: OpFailover, Group: 2, From: "s0", To: "s2"}, nil, "no group 2"},
		{Command{Op: OpFailover, Group: -1, From: "s0", To: "s2"}, nil, "no group -1"},
	}
	before := s.Clone()
	for _, tc := range cases {
		err := s.Apply(tc.c)
		if err == nil || err.Error() != tc.want || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("Apply(%s) = %v, want %q", tc.c.Encode(), err, tc.want)
		}
		if !reflect.DeepEqual(s, before) {
			t.Fatalf("refused %s changed the state", tc.c.Encode())
		}
	}
	u := &State{}
	mustApply(t, u, register(testMember(0, "A", 1)))
	if err := u.Apply(Command{Op: OpFailover, Group: 0, From: "s0", To: "s1"}); !errors.Is(err, ErrNotCreated) {
		t.Fatalf("failover before create: %v, want ErrNotCreated", err)
	}
}

func TestRemove(t *testing.T) {
	s := createdState(t, 1, 1, "A", "B", "C", "D")   // g0 = s0 + s2, g1 = s1 + s3
	mustApply(t, s, register(testMember(4, "E", 1))) // g0 (tie, lowest id)
	epoch := s.Epoch
	before := s.Clone()

	err := s.Apply(Command{Op: OpRemove, Name: "s1"})
	if err == nil || err.Error() != "member s1 is the primary of group 1: fail it over, or move its slots away (drain) and remove its replicas, first" {
		t.Fatalf("removing a primary: %v", err)
	}
	err = s.Apply(Command{Op: OpRemove, Name: "s9"})
	if !errors.Is(err, ErrUnknown) || err.Error() != "member s9: no such member" {
		t.Fatalf("removing an unknown member: %v", err)
	}
	if !reflect.DeepEqual(s, before) {
		t.Fatal("a refused remove changed the state")
	}

	mustApply(t, s, Command{Op: OpRemove, Name: "s2"})
	if s.Epoch != epoch+1 {
		t.Fatalf("epoch %d, want %d", s.Epoch, epoch+1)
	}
	if _, ok := s.Member("s2"); ok || len(s.Members) != 4 {
		t.Fatalf("s2 still a member: %+v", s.Members)
	}
	if s.GroupOf("s2") != nil || !reflect.DeepEqual(s.Groups[0].Replicas, []string{"s4"}) {
		t.Fatalf("group 0 replicas %v, want [s4]", s.Groups[0].Replicas)
	}
	if !reflect.DeepEqual(s.Groups[1], before.Groups[1]) {
		t.Fatalf("group 1 changed: %+v", s.Groups[1])
	}
	// Removed twice: unknown.
	if err := s.Apply(Command{Op: OpRemove, Name: "s2"}); !errors.Is(err, ErrUnknown) {
		t.Fatalf("second remove: %v", err)
	}
	// A member in no group (before create) is removed too.
	u := &State{}
	mustApply(t, u, register(testMember(0, "A", 1)), register(testMember(1, "B", 1)), Command{Op: OpRemove, Name: "s0"})
	if u.Epoch != 3 || len(u.Members) != 1 || u.Members[0].Name != "s1" {
		t.Fatalf("after removing s0: %+v", u)
	}
	// The removed member may come back, as a new member.
	mustApply(t, s, register(testMember(2, "C", 1)))
	if g := s.GroupOf("s2"); g == nil || g.ID != 0 || !reflect.DeepEqual(g.Replicas, []string{"s4", "s2"}) {
		t.Fatalf("s2 came back to %+v, want group 0 (one replica each: the lowest id)", g)
	}
}

// TestRefusedChangesNothing applies every kind of refused command to a
// created state and to an empty one.
func TestRefusedChangesNothing(t *testing.T) {
	bad := testMember(7, "A", 1)
	bad.NodeIDs[0] = "x"
	other := testMember(0, "A", 3)
	refused := []Command{
		{Op: "resize"},
		{},
		{Op: OpRegister},
		{Op: OpRegister, Member: &bad},
		{Op: OpCreate, Seeds: []string{"s0"}},
		{Op: OpCreate, Seeds: []string{"zz"}},
		{Op: OpFailover, Group: 0, From: "s2", To: "s0"},
		{Op: OpFailover, Group: 0, From: "s0", To: "s1"},
		{Op: OpFailover, Group: 5},
		{Op: OpRemove, Name: "zz"},
		{Op: OpRemove},
	}
	created := createdState(t, 1, 2, "A", "B", "C", "D")
	mustApply(t, created, Command{Op: OpFailover, Group: 1, From: "s1", To: "s3", Seqs: []uint64{1, 2}})
	// Refused by the created state only.
	createdOnly := []Command{
		{Op: OpRegister, Member: &other},
		{Op: OpRemove, Name: "s0"},
		{Op: OpRemove, Name: "s3"},
	}
	for _, base := range []*State{created, {}} {
		cs := refused
		if base.Created {
			cs = append(cs, createdOnly...)
		}
		for _, c := range cs {
			s := base.Clone()
			before := s.Clone()
			if err := s.Apply(c); err == nil {
				t.Errorf("Apply(%s) on epoch %d: accepted", c.Encode(), base.Epoch)
				continue
			}
			if !reflect.DeepEqual(s, before) {
				t.Errorf("refused %s changed the state:\n%+v\nwas\n%+v", c.Encode(), s, before)
			}
		}
	}
	if err := (&State{}).Apply(Command{Op: "resize"}); err == nil || err.Error() != `unknown change "resize"` {
		t.Fatalf("unknown op: %v", err)
	}
}

func TestCommandEncodeDecode(t *testing.T) {
	m := testMember(3, "127.0.0.3", 2)
	cases := []Command{
		{Op: OpRegister, Member: &m},
		{Op: OpCreate, Seeds: []string{"s1", "s0", "s2"}, Replicas: 2},
		{Op: OpFailover, Group: 3, From: "s1", To: "s2", Seqs: []uint64{0, 1 << 62, 5}},
		{Op: OpRemove, Name: "s9"},
		{Op: "future"},
	}
	for _, c := range cases {
		b := c.Encode()
		got, err := DecodeCommand(b)
		if err != nil {
			t.Fatalf("DecodeCommand(%s): %v", b, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("round trip of %s = %+v, want %+v", b, got, c)
		}
	}
	if got := string(Command{Op: OpRemove, Name: "s1"}.Encode()); got != `{"op":"remove","name":"s1"}` {
		t.Errorf("Encode = %s", got)
	}
	for _, garbage := range []string{"", "{", "not json", `{"op":5}`, `["register"]`, `{"seqs":[-1]}`} {
		_, err := DecodeCommand([]byte(garbage))
		if err == nil || !strings.HasPrefix(err.Error(), "control: decoding a log entry: ") {
			t.Errorf("DecodeCommand(%q) = %v, want an error", garbage, err)
		}
	}
}

func TestCloneIsDeep(t *testing.T) {
	s := createdState(t, 1, 2, "A", "B", "C", "D")
	mustApply(t, s, Command{Op: OpFailover, Group: 0, From: "s0", To: "s2", Seqs: []uint64{4, 5}})
	orig := s.Clone()
	if !reflect.DeepEqual(s, orig) {
		t.Fatalf("Clone differs:\n%+v\n%+v", orig, s)
	}
	c := s.Clone()
	c.Epoch++
	c.Created = false
	c.Members[0].NodeIDs[0] = strings.Repeat("f", 40)
	c.Members[1].Host = "Z"
	c.Members = append(c.Members, testMember(9, "Z", 2))
	c.Groups[0].Slots[0].End = 5
	c.Groups[0].Replicas[0] = "zz"
	c.Groups[0].PromotedAt[1] = 99
	c.Groups[1].Primary = "zz"
	c.Groups = append(c.Groups, Group{ID: 2})
	if !reflect.DeepEqual(s, orig) {
		t.Fatalf("changing a clone changed the original:\n%+v\nwant\n%+v", s, orig)
	}
	if e := (&State{}).Clone(); !reflect.DeepEqual(e, &State{}) {
		t.Fatalf("clone of the empty state: %+v", e)
	}
}

func TestGroupOfAndHas(t *testing.T) {
	s := createdState(t, 1, 1, "A", "B", "C", "D") // g0 = s0 + s2, g1 = s1 + s3
	for name, want := range map[string]int{"s0": 0, "s2": 0, "s1": 1, "s3": 1, "s9": -1} {
		g := s.GroupOf(name)
		switch {
		case want < 0 && g != nil:
			t.Errorf("GroupOf(%s) = %d", name, g.ID)
		case want >= 0 && (g == nil || g.ID != want || !g.Has(name)):
			t.Errorf("GroupOf(%s) = %+v, want group %d", name, g, want)
		}
	}
	// GroupOf points into the state.
	s.GroupOf("s3").Replicas = nil
	if s.Groups[1].Replicas != nil {
		t.Fatal("GroupOf returned a copy")
	}
}
