package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCRC16(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x31C3 {
		t.Fatalf("CRC16(123456789) = %#x, want 0x31c3", got)
	}
	if got := CRC16(nil); got != 0 {
		t.Fatalf("CRC16(nil) = %#x", got)
	}
}

func TestKeySlot(t *testing.T) {
	cases := map[string]uint16{
		"":        0,
		"foo":     12182,
		"bar":     5061,
		"hello":   866,
		"somekey": 11058,
	}
	for k, want := range cases {
		if got := KeySlot([]byte(k)); got != want {
			t.Errorf("KeySlot(%q) = %d, want %d", k, got, want)
		}
	}
	same := func(a, b string) {
		t.Helper()
		if KeySlot([]byte(a)) != KeySlot([]byte(b)) {
			t.Errorf("KeySlot(%q) = %d != KeySlot(%q) = %d", a, KeySlot([]byte(a)), b, KeySlot([]byte(b)))
		}
	}
	hashOf := func(s string) uint16 { return CRC16([]byte(s)) % SlotCount }
	check := func(key, hashed string) {
		t.Helper()
		if got, want := KeySlot([]byte(key)), hashOf(hashed); got != want {
			t.Errorf("KeySlot(%q) = %d, want slot of %q = %d", key, got, hashed, want)
		}
	}
	same("{user1000}.following", "{user1000}.followers")
	same("{user1000}.following", "user1000")
	check("foo{}{bar}", "foo{}{bar}") // empty first tag: whole key
	check("foo{{bar}}zap", "{bar")    // first "{" to first "}" after it
	check("foo{bar}{zap}", "bar")     // only the first tag counts
	check("{", "{")                   // no closing brace
	check("}{", "}{")                 // "}" before "{" does not close it
	check("a{b", "a{b")               // unclosed
	check("{}", "{}")                 // empty tag
	check("x{y}", "y")
	check("{a}}", "a")
	if KeySlot([]byte("foo")) != 12182 || KeySlot([]byte("{foo}bar")) != 12182 {
		t.Error("tag {foo} should hash like foo")
	}
}

func TestKeySlotAllocs(t *testing.T) {
	key := []byte("{user1000}.following")
	if n := testing.AllocsPerRun(100, func() { _ = KeySlot(key) }); n != 0 {
		t.Fatalf("KeySlot allocates %v times", n)
	}
}

func BenchmarkKeySlot(b *testing.B) {
	keys := [][]byte{[]byte("foo"), []byte("user:1000:profile"), []byte("{user1000}.following"), []byte(strings.Repeat("k", 64))}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = KeySlot(keys[i&3])
	}
}

// testIDs returns n distinct valid node ids.
func testIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%040x", i+1)
	}
	return ids
}

func TestTopologyRanges(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 64, 1000, MaxShards} {
		top, err := NewTopology("127.0.0.1", 1, n, testIDs(n))
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if top.Len() != n {
			t.Fatalf("n=%d: Len = %d", n, top.Len())
		}
		next := 0
		base := SlotCount / n
		for i, node := range top.Nodes {
			if int(node.SlotStart) != next {
				t.Fatalf("n=%d shard %d starts at %d, want %d", n, i, node.SlotStart, next)
			}
			if s := node.Slots(); s != base && s != base+1 || (s == base+1) != (i < SlotCount%n) {
				t.Fatalf("n=%d shard %d has %d slots", n, i, s)
			}
			if node.Shard != i || node.Port != 1+i || node.Epoch != uint64(i+1) {
				t.Fatalf("n=%d node %+v", n, node)
			}
			next = int(node.SlotEnd) + 1
		}
		if next != SlotCount {
			t.Fatalf("n=%d: ranges end at %d", n, next-1)
		}
		for s := 0; s < SlotCount; s++ {
			sh := top.ShardOf(uint16(s))
			if !top.Nodes[sh].Owns(uint16(s)) {
				t.Fatalf("n=%d: ShardOf(%d) = %d, which does not own it", n, s, sh)
			}
		}
	}
}

func TestTopologyKnownRanges(t *testing.T) {
	want := map[int][][2]uint16{
		1: {{0, 16383}},
		2: {{0, 8191}, {8192, 16383}},
		3: {{0, 5461}, {5462, 10922}, {10923, 16383}},
		4: {{0, 4095}, {4096, 8191}, {8192, 12287}, {12288, 16383}},
	}
	for n, ranges := range want {
		top, err := NewTopology("h", 7000, n, testIDs(n))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range ranges {
			if got := [2]uint16{top.Nodes[i].SlotStart, top.Nodes[i].SlotEnd}; got != r {
				t.Errorf("n=%d shard %d: %v, want %v", n, i, got, r)
			}
		}
	}
	top, _ := NewTopology("h", 7000, 64, testIDs(64))
	if top.Nodes[63].SlotStart != 63*256 || top.Nodes[63].SlotEnd != 16383 {
		t.Errorf("n=64 last node %+v", top.Nodes[63])
	}
}

func TestShardOfKey(t *testing.T) {
	top, err := NewTopology("127.0.0.1", 7000, 3, testIDs(3))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][2]int{"foo": {12182, 2}, "bar": {5061, 0}, "hello": {866, 0}, "somekey": {11058, 2}, "": {0, 0}} {
		slot, shard := top.ShardOfKey([]byte(key))
		if int(slot) != want[0] || shard != want[1] {
			t.Errorf("ShardOfKey(%q) = %d, %d; want %v", key, slot, shard, want)
		}
	}
	for slot, want := range map[uint16]int{0: 0, 5461: 0, 5462: 1, 10922: 1, 10923: 2, 16383: 2} {
		if got := top.ShardOf(slot); got != want {
			t.Errorf("ShardOf(%d) = %d, want %d", slot, got, want)
		}
	}
	key := []byte("{user1000}.following")
	if n := testing.AllocsPerRun(100, func() { _, _ = top.ShardOfKey(key) }); n != 0 {
		t.Errorf("ShardOfKey allocates %v times", n)
	}
}

func TestNewTopologyErrors(t *testing.T) {
	ids := testIDs(2)
	cases := []struct {
		host   string
		port   int
		shards int
		ids    []string
		want   string
	}{
		{"", 7000, 2, ids, "cluster: host is empty"},
		{"h", 7000, 0, nil, "cluster: shards 0 is out of range 1..16384"},
		{"h", 0, 2, ids, "cluster: ports 0..1 are not all in 1..65535"},
		{"h", 65535, 2, ids, "cluster: ports 65535..65536 are not all in 1..65535"},
		{"h", 7000, 2, ids[:1], "cluster: 1 node ids for 2 shards"},
		{"h", 7000, 2, []string{ids[0], "xyz"}, `cluster: node id "xyz" of shard 1 is not 40 lower-case hex characters`},
		{"h", 7000, 2, []string{ids[0], strings.Repeat("AB", 20)}, "is not 40 lower-case hex characters"},
		{"h", 7000, 2, []string{ids[0], ids[0]}, "cluster: shards 0 and 1 have the same node id " + ids[0]},
	}
	for _, tc := range cases {
		_, err := NewTopology(tc.host, tc.port, tc.shards, tc.ids)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewTopology(%q, %d, %d, %q) = %v, want %q", tc.host, tc.port, tc.shards, tc.ids, err, tc.want)
		}
	}
}

func TestNodesText(t *testing.T) {
	ids := []string{
		"07c37dfeb235213a872192d90877d0cd55635b91",
		"67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1",
		"e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca",
	}
	top, err := NewTopology("127.0.0.1", 30001, 3, ids)
	if err != nil {
		t.Fatal(err)
	}
	want := "07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30001@40001 master - 0 0 1 connected 0-5461\n" +
		"67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@40002 myself,master - 0 0 2 connected 5462-10922\n" +
		"e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30003@40003 master - 0 0 3 connected 10923-16383\n"
	if got := top.NodesText(1, ""); got != want {
		t.Errorf("NodesText(1) =\n%s\nwant\n%s", got, want)
	}
	one, _ := NewTopology("127.0.0.1", 6379, 1, ids[:1])
	if got, want := one.NodesText(0, ""), ids[0]+" 127.0.0.1:6379@16379 myself,master - 0 0 1 connected 0-16383\n"; got != want {
		t.Errorf("one shard: %q, want %q", got, want)
	}
	high, _ := NewTopology("::1", 60000, 1, ids[:1])
	if got := high.NodesText(0, ""); !strings.Contains(got, "::1:60000@0 ") {
		t.Errorf("bus port beyond 65535 should read 0: %q", got)
	}
}

func TestInfoText(t *testing.T) {
	top, _ := NewTopology("127.0.0.1", 7000, 3, testIDs(3))
	want := "cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\n" +
		"cluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:3\r\ncluster_size:3\r\n" +
		"cluster_current_epoch:3\r\ncluster_my_epoch:2\r\ncluster_stats_messages_sent:0\r\n" +
		"cluster_stats_messages_received:0\r\ntotal_cluster_links_buffer_limit_exceeded:0\r\n"
	if got := top.InfoText(1); got != want {
		t.Errorf("InfoText(1) =\n%q\nwant\n%q", got, want)
	}
}

func TestNodeAddr(t *testing.T) {
	top, _ := NewTopology("127.0.0.1", 7000, 2, testIDs(2))
	if a := top.Nodes[1].Addr(); a != "127.0.0.1:7001" {
		t.Errorf("Addr = %q", a)
	}
}

func TestLoadOrCreateNodeIDs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nested")
	a, err := LoadOrCreateNodeIDs(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 3 {
		t.Fatalf("got %d ids", len(a))
	}
	for _, id := range a {
		if !ValidNodeID(id) {
			t.Fatalf("bad id %q", id)
		}
	}
	if a[0] == a[1] || a[1] == a[2] || a[0] == a[2] {
		t.Fatalf("ids not distinct: %q", a)
	}
	b, err := LoadOrCreateNodeIDs(dir, 3)
	if err != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("second call = %q, %v; want %q", b, err, a)
	}
	// Fewer: a prefix, file untouched.
	c, err := LoadOrCreateNodeIDs(dir, 2)
	if err != nil || !reflect.DeepEqual(c, a[:2]) {
		t.Fatalf("n=2: %q, %v", c, err)
	}
	// More: the old ids first, new ones appended and kept.
	d, err := LoadOrCreateNodeIDs(dir, 5)
	if err != nil || !reflect.DeepEqual(d[:3], a) || len(d) != 5 {
		t.Fatalf("n=5: %q, %v", d, err)
	}
	e, err := LoadOrCreateNodeIDs(dir, 5)
	if err != nil || !reflect.DeepEqual(d, e) {
		t.Fatalf("n=5 again: %q, %v", e, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != NodeIDsFile {
		t.Errorf("dir holds %v, want only %s", entries, NodeIDsFile)
	}
	if other, _ := LoadOrCreateNodeIDs(t.TempDir(), 3); reflect.DeepEqual(other, a) {
		t.Error("another dir produced the same ids")
	}
}

func TestLoadOrCreateNodeIDsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadOrCreateNodeIDs(dir, 0); err == nil {
		t.Error("n=0 accepted")
	}
	path := filepath.Join(dir, NodeIDsFile)
	good := strings.Repeat("ab", 20)
	for text, want := range map[string]string{
		"# c\n" + good + "\nnot-an-id\n": NodeIDsFile + `:3: "not-an-id" is not a node id`,
		good + "\n\n" + good + "\n":      NodeIDsFile + ":3: node id " + good + " appears twice",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadOrCreateNodeIDs(dir, 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("file %q: err %v, want %q", text, err, want)
		}
	}
	// A hand-written file with comments and blank lines is fine.
	if err := os.WriteFile(path, []byte("# ids\n\n  "+good+"  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ids, err := LoadOrCreateNodeIDs(dir, 1)
	if err != nil || ids[0] != good {
		t.Errorf("got %q, %v", ids, err)
	}
	// A path that is a file cannot be a directory.
	if _, err := LoadOrCreateNodeIDs(path, 1); err == nil {
		t.Error("file as dir accepted")
	}
}

// TestHostFor: a wildcard host of this process's node is replaced by the
// host a client's connection reached, when there is one; any other host,
// and a node of another member, are kept.
func TestHostFor(t *testing.T) {
	one := &Topology{}
	for _, tc := range []struct {
		host, reached, want string
	}{
		{"0.0.0.0", "10.0.0.5", "10.0.0.5"},
		{"::", "fe80::1", "fe80::1"},
		{"0.0.0.0", "", "0.0.0.0"},
		{"127.0.0.1", "10.0.0.5", "127.0.0.1"},
		{"cache.example", "10.0.0.5", "cache.example"},
	} {
		n := Node{Host: tc.host, Port: 7001}
		if got := one.HostFor(n, tc.reached); got != tc.want {
			t.Errorf("HostFor(Node{Host: %q}, %q) = %q, want %q", tc.host, tc.reached, got, tc.want)
		}
		if got, want := one.AddrFor(n, tc.reached), tc.want+":7001"; got != want {
			t.Errorf("AddrFor(Node{Host: %q}, %q) = %q, want %q", tc.host, tc.reached, got, want)
		}
	}
	// Across hosts, another member's node is where it says, whatever the
	// connection reached; this member's is treated as on one host.
	multi := &Topology{Multi: true}
	if got := multi.HostFor(Node{Host: "0.0.0.0", Port: 7001}, "10.0.0.5"); got != "0.0.0.0" {
		t.Errorf("a node of another member: HostFor = %q", got)
	}
	if got := multi.HostFor(Node{Host: "0.0.0.0", Port: 7001, Local: true}, "10.0.0.5"); got != "10.0.0.5" {
		t.Errorf("a node of this member: HostFor = %q", got)
	}
	top, err := NewTopology("0.0.0.0", 7000, 1, []string{strings.Repeat("a", 40)})
	if err != nil {
		t.Fatal(err)
	}
	if got := top.NodesText(0, "10.0.0.5"); !strings.Contains(got, " 10.0.0.5:7000@17000 myself,master ") {
		t.Errorf("NodesText(0, 10.0.0.5) = %q", got)
	}
}

// TestTopologyMoved: a one-host topology moved to another host and port
// keeps its slots and ids; one across hosts is refused.
func TestTopologyMoved(t *testing.T) {
	top, err := NewTopology("127.0.0.1", 7000, 3, []string{strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.Moved("10.0.0.5", 8000)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range m.Nodes {
		if n.Host != "10.0.0.5" || n.Port != 8000+i || n.ID != top.Nodes[i].ID || n.SlotStart != top.Nodes[i].SlotStart || n.SlotEnd != top.Nodes[i].SlotEnd {
			t.Errorf("node %d after the move: %+v (was %+v)", i, n, top.Nodes[i])
		}
	}
	if top.Nodes[0].Port != 7000 {
		t.Error("Moved changed the topology it copied")
	}
	if o, ok := m.Owner(16383); !ok || o.Addr() != "10.0.0.5:8002" {
		t.Errorf("owner of slot 16383 after the move: %+v", o)
	}
	if _, err := top.Moved("10.0.0.5", 65534); err == nil {
		t.Error("ports past 65535 accepted")
	}
}
