package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// TestReshardKeepsEveryValue: keys of every type, from snapshots and WAL
// alike, go from 2 shards to 3 with their values and deadlines, each on
// the shard owning its slot; the source directory is not changed.
func TestReshardKeepsEveryValue(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 2, nil)
	owner := func(key string) *keyspace.Shard {
		_, i := d.srv.Topology().ShardOfKey([]byte(key))
		return d.shard(i)
	}
	write := func(prefix string) {
		for i := 0; i < 40; i++ {
			k := prefix + strconv.Itoa(i)
			for _, cmd := range [][]string{
				{"SET", "s:" + k, "v" + k, "PX", strconv.Itoa(3600000 * (1 + i%2))},
				{"HSET", "h:" + k, "f1", "a", "f2", k},
				{"RPUSH", "l:" + k, "x", "y", k},
				{"SADD", "set:" + k, "m1", k},
				{"ZADD", "z:" + k, "1.5", "a", strconv.Itoa(i), k},
				{"XADD", "x:" + k, "*", "f", k},
			} {
				if got := d.do(owner(cmd[1]), cmd...); strings.HasPrefix(got, "-") {
					t.Fatalf("%v: %s", cmd, got)
				}
			}
		}
	}
	write("a")
	for i := 0; i < 2; i++ { // part of the data in snapshots ...
		if got := d.do(d.shard(i), "SAVE"); got != rOK {
			t.Fatalf("SAVE: %q", got)
		}
	}
	write("b") // ... and part in the WAL only
	var keys []string
	for _, p := range []string{"a", "b"} {
		for i := 0; i < 40; i++ {
			for _, typ := range []string{"s:", "h:", "l:", "set:", "z:", "x:"} {
				keys = append(keys, typ+p+strconv.Itoa(i))
			}
		}
	}
	var want []string
	for _, k := range keys {
		want = append(want, render(d, owner(k), k))
	}
	src := mem.CrashClone()
	before := listing(t, src, durDir)
	if err := src.MkdirAll("new"); err != nil {
		t.Fatal(err)
	}
	topo := func(n int) *cluster.Topology {
		return testOptions(t, n, clock.now).Topology
	}
	rep, err := keyspace.Reshard(keyspace.ReshardOptions{FS: src, From: durDir, To: "new", Config: config.Default(),
		FromTopology: topo(2), ToTopology: topo(3), Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Keys != len(keys) || len(rep.PerShard) != 3 {
		t.Fatalf("report %+v, want %d keys over 3 shards", rep, len(keys))
	}
	if after := listing(t, src, durDir); after != before {
		t.Fatalf("the source changed:\n%s\nwas\n%s", after, before)
	}
	r := durOpen(t, src, clock, 3, func(o *keyspace.DiskOptions) { o.Dir = "new" })
	var got []string
	for i := 0; i < 3; i++ {
		sh := r.shard(i)
		for _, db := range sh.DBs {
			db.Each(func(e *keyspace.Entry) {
				if _, o := r.srv.Topology().ShardOfKey(e.Key()); o != i {
					t.Errorf("key %q on shard %d, its slot is shard %d's", e.KeyView(), i, o)
				}
			})
		}
	}
	for _, k := range keys {
		_, i := r.srv.Topology().ShardOfKey([]byte(k))
		got = append(got, render(r, r.shard(i), k))
	}
	for _, w := range want[:6] {
		if strings.Contains(w, "-ERR") || strings.Contains(w, "MOVED") || strings.Contains(w, "+none") {
			t.Fatalf("source value not read: %s", w)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after reshard: %d keys, want %d\n%s", len(got), len(want), durDiffText(got, want))
	}
}

// render is key's type, value and deadline as commands on sh show them,
// members of unordered types sorted.
func render(d *durServer, sh *keyspace.Shard, key string) string {
	typ := d.do(sh, "TYPE", key)
	var val string
	switch typ {
	case "+string\r\n":
		val = d.do(sh, "GET", key)
	case "+hash\r\n":
		val = sortedReply(d.do(sh, "HGETALL", key))
	case "+list\r\n":
		val = d.do(sh, "LRANGE", key, "0", "-1")
	case "+set\r\n":
		val = sortedReply(d.do(sh, "SMEMBERS", key))
	case "+zset\r\n":
		val = d.do(sh, "ZRANGE", key, "0", "-1", "WITHSCORES")
	case "+stream\r\n":
		val = d.do(sh, "XRANGE", key, "-", "+") + d.do(sh, "XINFO", "STREAM", key)
	}
	return key + " " + typ + val + " expire=" + d.do(sh, "PEXPIRETIME", key)
}

func sortedReply(r string) string {
	lines := strings.Split(r, "\r\n")
	slices.Sort(lines)
	return strings.Join(lines, "|")
}

// listing is dir's names and sizes.
func listing(t *testing.T, fs persistence.FS, dir string) string {
	t.Helper()
	names, err := fs.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range names {
		size, _ := fs.Stat(dir + "/" + n)
		b.WriteString(n + " " + strconv.FormatInt(size, 10) + "\n")
	}
	return b.String()
}

// durDiffText shows the first lines that differ.
func durDiffText(got, want []string) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return "got  " + g + "\nwant " + w
		}
	}
	return ""
}
