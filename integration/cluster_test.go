package integration_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// ownerOf asks shard 0 which shard owns key (RUVIO OWNER) and returns the
// slot and the shard index.
func ownerOf(t *testing.T, c cmdr, key string) (slot, shard int64) {
	t.Helper()
	v := value(t, c, "RUVIO", "OWNER", key)
	m, ok := v.(map[interface{}]interface{})
	if !ok {
		t.Fatalf("RUVIO OWNER %s: %#v", key, v)
	}
	return m["slot"].(int64), m["shard"].(int64)
}

// tagsPerShard returns one hash tag owned by each shard.
func tagsPerShard(t *testing.T, c cmdr, shards int) []string {
	t.Helper()
	tags := make([]string, shards)
	found := 0
	for i := 0; found < shards && i < 10000; i++ {
		tag := "t" + strconv.Itoa(i)
		_, sh := ownerOf(t, c, "{"+tag+"}")
		if tags[sh] == "" {
			tags[sh] = tag
			found++
		}
	}
	if found < shards {
		t.Fatalf("found tags for only %d of %d shards", found, shards)
	}
	return tags
}

func TestCluster(t *testing.T) {
	t.Parallel()
	const shards = 4
	s := testserver.Start(t, testserver.Shards(shards))
	base := s.Port()
	c0 := s.Client(t)
	cc := s.ClusterClient(t)

	t.Run("ClusterClient across shards", func(t *testing.T) {
		tags := tagsPerShard(t, c0, shards)
		for i, tag := range tags {
			a, b, n := "{"+tag+"}:a", "{"+tag+"}:b", "{"+tag+"}:n"
			if err := cc.Set(ctxT(t), a, "A"+strconv.Itoa(i), 0).Err(); err != nil {
				t.Fatalf("SET %s: %v", a, err)
			}
			if err := cc.MSet(ctxT(t), b, "B"+strconv.Itoa(i), n, "10").Err(); err != nil {
				t.Fatalf("MSET %s %s: %v", b, n, err)
			}
			if got, err := cc.Get(ctxT(t), a).Result(); err != nil || got != "A"+strconv.Itoa(i) {
				t.Errorf("GET %s: %q %v", a, got, err)
			}
			got, err := cc.MGet(ctxT(t), a, b, "{"+tag+"}:missing").Result()
			if err != nil || len(got) != 3 || got[0] != "A"+strconv.Itoa(i) || got[1] != "B"+strconv.Itoa(i) || got[2] != nil {
				t.Errorf("MGET on shard %d: %#v %v", i, got, err)
			}
			if v, err := cc.Incr(ctxT(t), n).Result(); err != nil || v != 11 {
				t.Errorf("INCR %s: %d %v", n, v, err)
			}
			if v, err := cc.Del(ctxT(t), a, b).Result(); err != nil || v != 2 {
				t.Errorf("DEL %s %s: %d %v", a, b, v, err)
			}
			if v, err := cc.Exists(ctxT(t), a).Result(); err != nil || v != 0 {
				t.Errorf("EXISTS %s after DEL: %d %v", a, v, err)
			}
			// The key really lives on shard i: its own client sees it, shard i's DBSIZE counts it.
			own := s.ClientOf(t, i)
			expect(t, own, "11", "GET", n)
		}
		// Plain keys spread over the shards through MOVED redirections.
		for i := 0; i < 100; i++ {
			k := "plain:" + strconv.Itoa(i)
			if err := cc.Set(ctxT(t), k, i, 0).Err(); err != nil {
				t.Fatalf("SET %s: %v", k, err)
			}
		}
		var total int64
		for i := 0; i < shards; i++ {
			n := intValue(t, s.ClientOf(t, i), "DBSIZE")
			if n == 0 {
				t.Errorf("shard %d holds no key", i)
			}
			total += n
		}
		if total != 100+shards {
			t.Errorf("DBSIZE over all shards = %d, want %d", total, 100+shards)
		}
		for i := 0; i < 100; i++ {
			k := "plain:" + strconv.Itoa(i)
			if got, err := cc.Get(ctxT(t), k).Result(); err != nil || got != strconv.Itoa(i) {
				t.Errorf("GET %s: %q %v", k, got, err)
			}
		}
	})

	t.Run("CLUSTER SLOTS", func(t *testing.T) {
		v, ok := value(t, c0, "CLUSTER", "SLOTS").([]interface{})
		if !ok || len(v) != shards {
			t.Fatalf("CLUSTER SLOTS: %#v", v)
		}
		type rng struct {
			start, end int64
			host       string
			port       int64
			id         string
		}
		var rs []rng
		for _, e := range v {
			a := e.([]interface{})
			if len(a) != 3 {
				t.Fatalf("CLUSTER SLOTS entry has %d elements (want start, end, one master): %#v", len(a), a)
			}
			node := a[2].([]interface{})
			if len(node) < 3 {
				t.Fatalf("CLUSTER SLOTS node: %#v", node)
			}
			rs = append(rs, rng{a[0].(int64), a[1].(int64), node[0].(string), node[1].(int64), node[2].(string)})
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
		next := int64(0)
		ports := map[int64]bool{}
		ids := map[string]bool{}
		for _, r := range rs {
			if r.start != next || r.end < r.start {
				t.Errorf("CLUSTER SLOTS ranges are not contiguous: %+v", rs)
			}
			next = r.end + 1
			if r.host != "127.0.0.1" {
				t.Errorf("CLUSTER SLOTS host %q", r.host)
			}
			ports[r.port] = true
			ids[r.id] = true
		}
		if next != 16384 {
			t.Errorf("CLUSTER SLOTS cover 0..%d, want 0..16383", next-1)
		}
		for p := int64(base); p < int64(base+shards); p++ {
			if !ports[p] {
				t.Errorf("CLUSTER SLOTS lacks port %d: %+v", p, rs)
			}
		}
		if len(ids) != shards {
			t.Errorf("CLUSTER SLOTS has %d distinct ids: %+v", len(ids), rs)
		}
		// Every shard gives the same answer.
		for i := 1; i < shards; i++ {
			if w := value(t, s.ClientOf(t, i), "CLUSTER", "SLOTS"); fmt.Sprint(w) != fmt.Sprint(v) {
				t.Errorf("shard %d: CLUSTER SLOTS differs: %v vs %v", i, w, v)
			}
		}
		// A slot's range points at the shard RUVIO OWNER names.
		for _, key := range []string{"foo", "bar", "hello", "{user1}:x"} {
			slot, sh := ownerOf(t, c0, key)
			for _, r := range rs {
				if slot >= r.start && slot <= r.end && r.port != int64(base)+sh {
					t.Errorf("key %s slot %d: CLUSTER SLOTS says port %d, RUVIO OWNER shard %d", key, slot, r.port, sh)
				}
			}
		}
	})

	t.Run("CLUSTER SHARDS", func(t *testing.T) {
		sh, err := cc.ClusterShards(ctxT(t)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(sh) != shards {
			t.Fatalf("CLUSTER SHARDS: %d shards", len(sh))
		}
		var covered int64
		ports := map[int64]bool{}
		for _, x := range sh {
			if len(x.Nodes) != 1 {
				t.Errorf("shard with %d nodes: %+v", len(x.Nodes), x)
				continue
			}
			n := x.Nodes[0]
			if len(n.ID) != 40 || n.Role != "master" || n.Health != "online" || n.IP != "127.0.0.1" {
				t.Errorf("CLUSTER SHARDS node: %+v", n)
			}
			ports[n.Port] = true
			for _, r := range x.Slots {
				covered += r.End - r.Start + 1
			}
		}
		if covered != 16384 || len(ports) != shards {
			t.Errorf("CLUSTER SHARDS cover %d slots on %d ports", covered, len(ports))
		}
	})

	t.Run("CLUSTER NODES MYID INFO", func(t *testing.T) {
		nodeRE := regexp.MustCompile(`^([0-9a-f]{40}) 127\.0\.0\.1:(\d+)@\d+\S* (myself,master|master) - 0 \d+ \d+ connected( \d+(-\d+)?)+$`)
		var ids []string
		for i := 0; i < shards; i++ {
			ci := s.ClientOf(t, i)
			myid, ok := value(t, ci, "CLUSTER", "MYID").(string)
			if !ok || !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(myid) {
				t.Fatalf("shard %d CLUSTER MYID: %q", i, myid)
			}
			ids = append(ids, myid)

			nodes := value(t, ci, "CLUSTER", "NODES").(string)
			lines := strings.Split(strings.TrimSuffix(nodes, "\n"), "\n")
			if len(lines) != shards {
				t.Fatalf("shard %d CLUSTER NODES has %d lines: %q", i, len(lines), nodes)
			}
			myself := 0
			for _, l := range lines {
				m := nodeRE.FindStringSubmatch(l)
				if m == nil {
					t.Errorf("shard %d CLUSTER NODES line: %q", i, l)
					continue
				}
				if m[3] == "myself,master" {
					myself++
					if m[1] != myid || m[2] != strconv.Itoa(base+i) {
						t.Errorf("shard %d: myself line %q, MYID %s", i, l, myid)
					}
				}
			}
			if myself != 1 {
				t.Errorf("shard %d CLUSTER NODES has %d myself lines", i, myself)
			}

			info := value(t, ci, "CLUSTER", "INFO").(string)
			for _, want := range []string{"cluster_state:ok\r\n", "cluster_slots_assigned:16384\r\n", "cluster_slots_ok:16384\r\n",
				"cluster_known_nodes:4\r\n", "cluster_size:4\r\n"} {
				if !strings.Contains(info, want) {
					t.Errorf("shard %d CLUSTER INFO lacks %q: %q", i, want, info)
				}
			}
		}
		seen := map[string]bool{}
		for _, id := range ids {
			seen[id] = true
		}
		if len(seen) != shards {
			t.Errorf("CLUSTER MYID not distinct per shard: %v", ids)
		}
	})

	t.Run("CLUSTER KEYSLOT COUNTKEYSINSLOT GETKEYSINSLOT", func(t *testing.T) {
		expect(t, c0, int64(12182), "CLUSTER", "KEYSLOT", "foo")
		expect(t, c0, int64(5061), "CLUSTER", "KEYSLOT", "bar")
		expect(t, c0, int64(866), "CLUSTER", "KEYSLOT", "hello")
		expect(t, c0, int64(0), "CLUSTER", "KEYSLOT", "")
		slot := intValue(t, c0, "CLUSTER", "KEYSLOT", "{user1000}.following")
		expect(t, c0, slot, "CLUSTER", "KEYSLOT", "{user1000}.followers")
		expect(t, c0, slot, "CLUSTER", "KEYSLOT", "user1000")
		// An empty tag hashes the whole key.
		if intValue(t, c0, "CLUSTER", "KEYSLOT", "{}foo") == intValue(t, c0, "CLUSTER", "KEYSLOT", "foo") {
			t.Errorf("{}foo hashed like foo")
		}
		expect(t, c0, int64(12182), "CLUSTER", "KEYSLOT", "{foo}{bar}")
		expectErr(t, c0, errArity("cluster|keyslot"), "CLUSTER", "KEYSLOT")

		_, sh := ownerOf(t, c0, "{cks}")
		owner := s.ClientOf(t, int(sh))
		cslot := intValue(t, owner, "CLUSTER", "KEYSLOT", "{cks}")
		expect(t, owner, int64(0), "CLUSTER", "COUNTKEYSINSLOT", cslot)
		expect(t, owner, []interface{}{}, "CLUSTER", "GETKEYSINSLOT", cslot, "10")
		var want []string
		for i := 0; i < 5; i++ {
			k := "{cks}:" + strconv.Itoa(i)
			want = append(want, k)
			expect(t, owner, "OK", "SET", k, "v")
		}
		expect(t, owner, int64(5), "CLUSTER", "COUNTKEYSINSLOT", cslot)
		if got := sortedStrings(t, value(t, owner, "CLUSTER", "GETKEYSINSLOT", cslot, "10")); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("GETKEYSINSLOT %d 10: %v", cslot, got)
		}
		if got := sortedStrings(t, value(t, owner, "CLUSTER", "GETKEYSINSLOT", cslot, "2")); len(got) != 2 {
			t.Errorf("GETKEYSINSLOT %d 2: %v", cslot, got)
		}
		expect(t, owner, []interface{}{}, "CLUSTER", "GETKEYSINSLOT", cslot, "0")
		expectErr(t, owner, "ERR Invalid slot", "CLUSTER", "COUNTKEYSINSLOT", "16384")
		expectErr(t, owner, "ERR Invalid slot", "CLUSTER", "COUNTKEYSINSLOT", "-1")
		t.Run("error texts", func(t *testing.T) {
			expectErr(t, owner, errNotInt, "CLUSTER", "COUNTKEYSINSLOT", "x")
			expectErr(t, owner, "ERR Invalid slot or number of keys", "CLUSTER", "GETKEYSINSLOT", cslot, "-1")
			expectErr(t, owner, "ERR Invalid slot or number of keys", "CLUSTER", "GETKEYSINSLOT", "16384", "1")
		})
		expectErr(t, owner, "ERR unknown subcommand 'NOSUCH'. Try CLUSTER HELP.", "CLUSTER", "NOSUCH")
	})

	t.Run("MOVED CROSSSLOT SELECT", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		checked := 0
		for i := 0; i < 50; i++ {
			key := "mv:" + strconv.Itoa(i)
			slot, sh := ownerOf(t, c0, key)
			if sh == 0 {
				r.expect("$-1\r\n", "GET", key)
				continue
			}
			checked++
			want := fmt.Sprintf("-MOVED %d 127.0.0.1:%d\r\n", slot, base+int(sh))
			r.expect(want, "GET", key)
			r.expect(want, "SET", key, "v")
			r.expect(want, "EXPIRE", key, "10")
		}
		if checked == 0 {
			t.Fatal("no key of another shard among 50")
		}
		r.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "MSET", "a", "1", "b", "2")
		r.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "MGET", "a", "b")
		r.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "DEL", "a", "b")
		r.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "EXISTS", "a", "b")
		r.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "RENAME", "a", "b")
		r.expect("-ERR SELECT is not allowed in cluster mode\r\n", "SELECT", "1")
		r.expect("+OK\r\n", "SELECT", "0")
		r.expect("+PONG\r\n", "PING")
		// Database-crossing commands are refused in cluster mode.
		tag0 := tagsPerShard(t, c0, shards)[0]
		r.expect("+OK\r\n", "SET", "{"+tag0+"}:db", "v")
		r.expect("-ERR Copying to another database is not allowed in cluster mode\r\n", "COPY", "{"+tag0+"}:db", "{"+tag0+"}:db2", "DB", "1")
		r.expect("-ERR MOVE is not allowed in cluster mode\r\n", "MOVE", "{"+tag0+"}:db", "1")
		r.expect("-ERR SWAPDB is not allowed in cluster mode\r\n", "SWAPDB", "0", "1")
		r.expect(":1\r\n", "DEL", "{"+tag0+"}:db")
		// Same-slot keys of another shard: MOVED, not CROSSSLOT.
		tag3 := tagsPerShard(t, c0, shards)[3]
		slot3, _ := ownerOf(t, c0, "{"+tag3+"}")
		moved3 := fmt.Sprintf("-MOVED %d 127.0.0.1:%d\r\n", slot3, base+3)
		r.expect(moved3, "MSET", "{"+tag3+"}:1", "a", "{"+tag3+"}:2", "b")
		r.expect(moved3, "MGET", "{"+tag3+"}:1", "{"+tag3+"}:2")
		// HELLO reports cluster mode.
		if got := r.do("HELLO", "2"); !strings.Contains(got, bulk("mode")+bulk("cluster")) {
			t.Errorf("HELLO 2 in cluster mode: %q", got)
		}
		// A key of shard 0 with a hash tag is served directly.
		tag := tagsPerShard(t, c0, shards)[0]
		r.expect("+OK\r\n", "MSET", "{"+tag+"}:1", "a", "{"+tag+"}:2", "b")
		r.expect(arr(bulk("a"), bulk("b")), "MGET", "{"+tag+"}:1", "{"+tag+"}:2")
		r.expect(":2\r\n", "DEL", "{"+tag+"}:1", "{"+tag+"}:2")
	})

	t.Run("redis-cli follows MOVED", func(t *testing.T) {
		const cli = "/usr/bin/redis-cli"
		if _, err := os.Stat(cli); err != nil {
			t.Skip("redis-cli not installed")
		}
		run := func(args ...string) string {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			full := append([]string{"-c", "-h", "127.0.0.1", "-p", strconv.Itoa(base)}, args...)
			out, err := exec.CommandContext(ctx, cli, full...).CombinedOutput()
			if err != nil {
				t.Fatalf("redis-cli %v: %v: %s", args, err, out)
			}
			return strings.TrimSpace(string(out))
		}
		_, sh := ownerOf(t, c0, "foo")
		if sh == 0 {
			t.Fatal("foo is owned by shard 0; the test needs a redirection")
		}
		if got := run("set", "foo", "bar"); got != "OK" {
			t.Errorf("redis-cli -c set foo bar: %q", got)
		}
		if got := run("get", "foo"); got != "bar" {
			t.Errorf("redis-cli -c get foo: %q", got)
		}
		expect(t, s.ClientOf(t, int(sh)), "bar", "GET", "foo")
	})
}

// TestClusterAnnounceOneHost: on one host, cluster.announce is the host
// MOVED and CLUSTER SLOTS name the shards by, in place of server.bind.
func TestClusterAnnounceOneHost(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(2), testserver.Config(func(c *config.Config) { c.Cluster.Announce = "192.0.2.7" }))
	c := dialRaw(t, s.Addrs[0])
	base := s.Port()
	// "foo" is slot 12182, shard 1's of two.
	if got, want := c.do("GET", "foo"), fmt.Sprintf("-MOVED 12182 192.0.2.7:%d\r\n", base+1); got != want {
		t.Errorf("GET foo: %q, want %q", got, want)
	}
	if got := c.do("CLUSTER", "SLOTS"); !strings.Contains(got, "$9\r\n192.0.2.7\r\n") || strings.Contains(got, "127.0.0.1") {
		t.Errorf("CLUSTER SLOTS: %q", got)
	}
}
