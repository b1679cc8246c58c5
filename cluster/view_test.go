package cluster

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// viewMember is member name on host with shards shards from port, its
// node ids derived from tag.
func viewMember(name, host string, port, shards, tag int) MemberView {
	m := MemberView{Name: name, Host: host, Port: port}
	for i := range shards {
		m.NodeIDs = append(m.NodeIDs, fmt.Sprintf("%038x%02x", tag, i))
	}
	return m
}

// twoByTwo is a cluster of two groups of a primary and a replica, two
// shards each, and a fifth member in no group: group 0 (a, b) owns
// 0..8191, group 1 (c, d) 8192..16383.
func twoByTwo() (a, b, c, d, e MemberView, groups []GroupView) {
	a = viewMember("a", "127.0.0.1", 7000, 2, 1)
	b = viewMember("b", "127.0.0.2", 7000, 2, 2)
	c = viewMember("c", "127.0.0.3", 7100, 2, 3)
	d = viewMember("d", "127.0.0.4", 7100, 2, 4)
	e = viewMember("e", "127.0.0.5", 7200, 2, 5)
	groups = []GroupView{
		{ID: 0, Slots: []SlotRange{{0, 8191}}, Epoch: 1, Primary: a, Replicas: []MemberView{b}},
		{ID: 1, Slots: []SlotRange{{8192, 16383}}, Epoch: 4, Primary: c, Replicas: []MemberView{d}},
	}
	return
}

func TestClusterTopologyOwnerAndShardOf(t *testing.T) {
	a, b, c, d, e, groups := twoByTwo()
	// The primary of every slot, and its shard: a's shard 0 and 1, then
	// c's.
	owner := func(s int) (MemberView, int) {
		switch {
		case s < 4096:
			return a, 0
		case s < 8192:
			return a, 1
		case s < 12288:
			return c, 0
		}
		return c, 1
	}
	for _, self := range []MemberView{a, b, c, d, e} {
		top, err := NewClusterTopology(self, 9, groups)
		if err != nil {
			t.Fatalf("%s: %v", self.Name, err)
		}
		if !top.Multi || top.Epoch != 9 || top.Len() != 2 || len(top.All) != 8 {
			t.Fatalf("%s: Multi %v, Epoch %d, Len %d, %d nodes", self.Name, top.Multi, top.Epoch, top.Len(), len(top.All))
		}
		inGroup := -1
		switch self.Name {
		case "a", "b":
			inGroup = 0
		case "c", "d":
			inGroup = 1
		}
		if want := self.Name == "b" || self.Name == "d"; top.LocalReplica != want {
			t.Errorf("%s: LocalReplica %v, want %v", self.Name, top.LocalReplica, want)
		}
		for s := range SlotCount {
			pm, shard := owner(s)
			n, ok := top.Owner(uint16(s))
			if !ok || n.Member != pm.Name || n.Host != pm.Host || n.Port != pm.Port+shard || n.Shard != shard ||
				n.ID != pm.NodeIDs[shard] || n.Replica || !n.Owns(uint16(s)) {
				t.Fatalf("%s: Owner(%d) = %+v, %v; want %s shard %d", self.Name, s, n, ok, pm.Name, shard)
			}
			if n.Local != (self.Name == pm.Name) {
				t.Fatalf("%s: Owner(%d).Local = %v", self.Name, s, n.Local)
			}
			want := -1
			if s/8192 == inGroup {
				want = shard
			}
			if got := top.ShardOf(uint16(s)); got != want {
				t.Fatalf("%s: ShardOf(%d) = %d, want %d", self.Name, s, got, want)
			}
		}
		for i, n := range top.Nodes {
			if n.Shard != i || n.ID != self.NodeIDs[i] || n.Host != self.Host || n.Port != self.Port+i ||
				n.Member != self.Name || !n.Local {
				t.Errorf("%s: Nodes[%d] = %+v", self.Name, i, n)
			}
			if inGroup < 0 {
				if n.Slots() != 0 || n.Ranges == nil || len(n.Ranges) != 0 || n.Replica || n.Epoch != 0 {
					t.Errorf("%s in no group: Nodes[%d] serves %v", self.Name, i, n.SlotRanges())
				}
				continue
			}
			start := uint16(inGroup*8192 + i*4096)
			if want := []SlotRange{{start, start + 4095}}; !reflect.DeepEqual(n.Ranges, want) ||
				n.SlotStart != start || n.SlotEnd != start+4095 {
				t.Errorf("%s: Nodes[%d] serves %v (%d-%d), want %v", self.Name, i, n.Ranges, n.SlotStart, n.SlotEnd, want)
			}
			if want := groups[inGroup].Epoch; n.Epoch != want {
				t.Errorf("%s: Nodes[%d].Epoch = %d, want %d", self.Name, i, n.Epoch, want)
			}
			primary := groups[inGroup].Primary
			if top.LocalReplica {
				if !n.Replica || n.PrimaryID != primary.NodeIDs[i] {
					t.Errorf("%s: Nodes[%d] replica %v of %q, want of %s", self.Name, i, n.Replica, n.PrimaryID, primary.NodeIDs[i])
				}
			} else if n.Replica || n.PrimaryID != "" {
				t.Errorf("%s: Nodes[%d] is a replica of %q", self.Name, i, n.PrimaryID)
			}
			if n.ShardID != groupShardID(inGroup, i) {
				t.Errorf("%s: Nodes[%d].ShardID = %s", self.Name, i, n.ShardID)
			}
		}
	}
}

func TestClusterTopologyAll(t *testing.T) {
	a, b, c, d, _, groups := twoByTwo()
	top, err := NewClusterTopology(b, 9, groups)
	if err != nil {
		t.Fatal(err)
	}
	// The primaries, each followed by its replicas, shard by shard.
	type row struct {
		member  string
		shard   int
		replica bool
		primary string
	}
	want := []row{
		{"a", 0, false, ""}, {"b", 0, true, a.NodeIDs[0]},
		{"a", 1, false, ""}, {"b", 1, true, a.NodeIDs[1]},
		{"c", 0, false, ""}, {"d", 0, true, c.NodeIDs[0]},
		{"c", 1, false, ""}, {"d", 1, true, c.NodeIDs[1]},
	}
	members := map[string]MemberView{"a": a, "b": b, "c": c, "d": d}
	for i, n := range top.All {
		w := want[i]
		m := members[w.member]
		if n.Member != w.member || n.Shard != w.shard || n.Replica != w.replica || n.PrimaryID != w.primary ||
			n.ID != m.NodeIDs[w.shard] || n.Port != m.Port+w.shard || n.Local != (w.member == "b") {
			t.Errorf("All[%d] = %+v, want %+v", i, n, w)
		}
	}
	// A primary and its replicas share a shard id, which differs by shard
	// and by group.
	ids := map[string]bool{}
	for i := 0; i < len(top.All); i += 2 {
		if top.All[i].ShardID != top.All[i+1].ShardID {
			t.Errorf("All[%d] and All[%d]: shard ids %s and %s", i, i+1, top.All[i].ShardID, top.All[i+1].ShardID)
		}
		ids[top.All[i].ShardID] = true
	}
	if len(ids) != 4 {
		t.Errorf("%d distinct shard ids, want 4", len(ids))
	}
}

func TestClusterTopologyErrors(t *testing.T) {
	a, b, c, _, _, groups := twoByTwo()
	one := viewMember("x", "127.0.0.9", 7000, 1, 9)
	cases := []struct {
		name   string
		self   MemberView
		groups []GroupView
		want   string
	}{
		{"no shards", MemberView{Name: "z", Host: "h", Port: 1}, groups, "cluster: shards 0 is out of range 1..16384"},
		{"overlapping groups", a, []GroupView{
			{ID: 0, Slots: []SlotRange{{0, 100}}, Primary: a},
			{ID: 1, Slots: []SlotRange{{50, 16383}}, Primary: c},
		}, "cluster: slot 50 is in two groups"},
		{"a slot twice in one group", a, []GroupView{
			{ID: 0, Slots: []SlotRange{{0, 10}, {10, 20}}, Primary: a, Replicas: []MemberView{b}},
		}, "cluster: slot 10 is in two groups"},
		{"a replica with another shard count", a, []GroupView{
			{ID: 0, Slots: []SlotRange{{0, 16383}}, Primary: a, Replicas: []MemberView{one}},
		}, "cluster: member x has 1 shards, this one 2"},
		{"self with another shard count", one, groups, "cluster: member a has 2 shards, this one 1"},
	}
	for _, tc := range cases {
		if _, err := NewClusterTopology(tc.self, 1, tc.groups); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestClusterNodesText(t *testing.T) {
	a := viewMember("a", "127.0.0.1", 7000, 1, 1)
	b := viewMember("b", "127.0.0.2", 7000, 1, 2)
	c := viewMember("c", "127.0.0.3", 7100, 1, 3)
	b.Failed = true
	groups := []GroupView{
		{ID: 0, Slots: []SlotRange{{0, 8191}}, Epoch: 1, Primary: a, Replicas: []MemberView{b}},
		{ID: 1, Slots: []SlotRange{{8192, 8192}, {8193, 16383}}, Epoch: 3, Primary: c},
	}
	want := func(me string) string {
		mark := map[string]string{}
		mark[me] = "myself,"
		return a.NodeIDs[0] + " 127.0.0.1:7000@17000 " + mark["a"] + "master - 0 0 1 connected 0-8191\n" +
			b.NodeIDs[0] + " 127.0.0.2:7000@17000 " + mark["b"] + "slave,fail " + a.NodeIDs[0] + " 0 0 1 disconnected\n" +
			c.NodeIDs[0] + " 127.0.0.3:7100@17100 " + mark["c"] + "master - 0 0 3 connected 8192 8193-16383\n"
	}
	for _, self := range []MemberView{a, b, c} {
		top, err := NewClusterTopology(self, 5, groups)
		if err != nil {
			t.Fatal(err)
		}
		if got := top.NodesText(0, ""); got != want(self.Name) {
			t.Errorf("%s: NodesText(0) =\n%s\nwant\n%s", self.Name, got, want(self.Name))
		}
		// No shard 1 here: nobody is myself.
		if got := top.NodesText(1, ""); got != want("") {
			t.Errorf("%s: NodesText(1) =\n%s\nwant\n%s", self.Name, got, want(""))
		}
	}
	// A failed primary.
	c.Failed = true
	groups[1].Primary = c
	top, err := NewClusterTopology(a, 5, groups)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Split(top.NodesText(0, ""), "\n")[2], c.NodeIDs[0]+" 127.0.0.3:7100@17100 master,fail - 0 0 3 disconnected 8192 8193-16383"; got != want {
		t.Errorf("failed primary: %q, want %q", got, want)
	}
}

func infoText(state string, assigned, ok, fail, known, size int, epoch, my uint64) string {
	return fmt.Sprintf("cluster_state:%s\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\n"+
		"cluster_slots_pfail:0\r\ncluster_slots_fail:%d\r\ncluster_known_nodes:%d\r\ncluster_size:%d\r\n"+
		"cluster_current_epoch:%d\r\ncluster_my_epoch:%d\r\ncluster_stats_messages_sent:0\r\n"+
		"cluster_stats_messages_received:0\r\ntotal_cluster_links_buffer_limit_exceeded:0\r\n",
		state, assigned, ok, fail, known, size, epoch, my)
}

func TestClusterInfoText(t *testing.T) {
	a, b, c, d, e, groups := twoByTwo()
	check := func(name string, self MemberView, groups []GroupView, myShard int, want string) {
		t.Helper()
		top, err := NewClusterTopology(self, 9, groups)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := top.InfoText(myShard); got != want {
			t.Errorf("%s: InfoText(%d) =\n%q\nwant\n%q", name, myShard, got, want)
		}
	}
	check("all assigned, from a primary", a, groups, 1, infoText("ok", 16384, 16384, 0, 8, 4, 9, 1))
	check("all assigned, from a replica", d, groups, 0, infoText("ok", 16384, 16384, 0, 8, 4, 9, 4))
	check("all assigned, from a member in no group", e, groups, 0, infoText("ok", 16384, 16384, 0, 8, 4, 9, 0))
	check("shard out of range", a, groups, 5, infoText("ok", 16384, 16384, 0, 8, 4, 9, 0))
	check("half assigned", a, groups[:1], 0, infoText("fail", 8192, 8192, 0, 4, 2, 9, 1))
	check("one slot missing", a, []GroupView{
		{ID: 0, Slots: []SlotRange{{0, 8191}}, Epoch: 1, Primary: a, Replicas: []MemberView{b}},
		{ID: 1, Slots: []SlotRange{{8192, 16382}}, Epoch: 4, Primary: c, Replicas: []MemberView{d}},
	}, 0, infoText("fail", 16383, 16383, 0, 8, 4, 9, 1))
	check("no groups", e, nil, 0, infoText("fail", 0, 0, 0, 0, 0, 9, 0))
	// A failed primary fails its slots; a failed replica does not.
	fc := groups[1]
	fc.Primary.Failed = true
	check("failed primary", a, []GroupView{groups[0], fc}, 0, infoText("fail", 16384, 8192, 8192, 8, 4, 9, 1))
	fr := groups[1]
	fr.Replicas = []MemberView{d}
	fr.Replicas[0].Failed = true
	check("failed replica", a, []GroupView{groups[0], fr}, 0, infoText("ok", 16384, 16384, 0, 8, 4, 9, 1))
}

// slotsOf lists the slots of rs in order.
func slotsOf(rs []SlotRange) []int {
	var out []int
	for _, r := range rs {
		if r.Start > r.End {
			return append(out, -1)
		}
		for s := int(r.Start); s <= int(r.End); s++ {
			out = append(out, s)
		}
	}
	return out
}

func TestSplitRanges(t *testing.T) {
	got := SplitRanges([]SlotRange{{0, 99}, {200, 299}}, 3)
	want := [][]SlotRange{{{0, 66}}, {{67, 99}, {200, 233}}, {{234, 299}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SplitRanges(0-99 200-299, 3) = %v, want %v", got, want)
	}
	if got, want := SplitRanges([]SlotRange{{5, 5}}, 3), [][]SlotRange{{{5, 5}}, nil, nil}; !reflect.DeepEqual(got, want) {
		t.Fatalf("one slot in 3: %v", got)
	}
	if got := SplitRanges(nil, 2); !reflect.DeepEqual(got, [][]SlotRange{nil, nil}) {
		t.Fatalf("no slots in 2: %v", got)
	}

	sets := [][]SlotRange{
		{{0, 16383}},
		{{0, 99}, {200, 299}, {1000, 1000}},
		{{10, 20}, {30, 30}, {40, 100}, {16000, 16383}},
		{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}},
		{{5, 5}},
		{{16383, 16383}},
		{{0, 8191}, {8192, 16383}},
	}
	for _, rs := range sets {
		all := slotsOf(rs)
		total := len(all)
		for _, n := range []int{1, 2, 3, 4, 5, 7, 16, 64, 333, 1024} {
			parts := SplitRanges(rs, n)
			if len(parts) != n {
				t.Fatalf("%v in %d: %d parts", rs, n, len(parts))
			}
			var joined []int
			for i, p := range parts {
				want := total / n
				if i < total%n {
					want++
				}
				ps := slotsOf(p)
				if len(ps) != want {
					t.Fatalf("%v in %d: part %d has %d slots (%v), want %d", rs, n, i, len(ps), p, want)
				}
				joined = append(joined, ps...)
			}
			// Every slot exactly once, in order.
			if !reflect.DeepEqual(joined, all) {
				t.Fatalf("%v in %d: parts %v hold other slots", rs, n, parts)
			}
		}
	}
}

func TestClusterTopologyMultiRangeShards(t *testing.T) {
	// A group of two ranges across three shards: every slot served once,
	// by the shard whose ranges hold it.
	a := viewMember("a", "127.0.0.1", 7000, 3, 1)
	b := viewMember("b", "127.0.0.2", 7000, 3, 2)
	g := GroupView{ID: 2, Slots: []SlotRange{{0, 99}, {200, 299}}, Epoch: 2, Primary: a, Replicas: []MemberView{b}}
	top, err := NewClusterTopology(b, 2, []GroupView{g})
	if err != nil {
		t.Fatal(err)
	}
	if n := top.Nodes[1]; !reflect.DeepEqual(n.Ranges, []SlotRange{{67, 99}, {200, 233}}) || n.SlotStart != 67 || n.SlotEnd != 233 || n.Slots() != 67 {
		t.Fatalf("Nodes[1] = %+v", n)
	}
	for s := range SlotCount {
		sh := top.ShardOf(uint16(s))
		o, ok := top.Owner(uint16(s))
		in := s <= 99 || s >= 200 && s <= 299
		if !in {
			if sh != -1 || ok {
				t.Fatalf("slot %d outside the group: ShardOf %d, Owner %v", s, sh, ok)
			}
			continue
		}
		if sh < 0 || !top.Nodes[sh].Owns(uint16(s)) || !ok || o.Member != "a" || o.Shard != sh || !o.Owns(uint16(s)) {
			t.Fatalf("slot %d: ShardOf %d, Owner %+v", s, sh, o)
		}
	}
	if got := top.InfoText(0); !strings.HasPrefix(got, "cluster_state:fail\r\ncluster_slots_assigned:200\r\n") {
		t.Fatalf("InfoText = %q", got)
	}
}

func TestSingleHostTopologyUnchanged(t *testing.T) {
	for _, n := range []int{1, 3, 16} {
		top, err := NewTopology("127.0.0.1", 7000, n, testIDs(n))
		if err != nil {
			t.Fatal(err)
		}
		if top.Multi || top.LocalReplica || len(top.All) != n || &top.All[0] != &top.Nodes[0] {
			t.Fatalf("n=%d: Multi %v, LocalReplica %v, All is not Nodes", n, top.Multi, top.LocalReplica)
		}
		for s := range SlotCount {
			sh := top.ShardOf(uint16(s))
			o, ok := top.Owner(uint16(s))
			if sh < 0 || !ok || !reflect.DeepEqual(o, top.Nodes[sh]) || !o.Owns(uint16(s)) || o.Port != 7000+sh {
				t.Fatalf("n=%d slot %d: ShardOf %d, Owner %+v %v", n, s, sh, o, ok)
			}
		}
		for i, node := range top.Nodes {
			if node.Replica || node.Local || node.Member != "" || node.Ranges != nil || node.ShardID != node.ID {
				t.Fatalf("n=%d node %d: %+v", n, i, node)
			}
		}
	}
}
