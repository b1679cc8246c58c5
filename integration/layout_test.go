package integration_test

import (
	"context"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// callCtx bounds one request.
func callCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dirState lists the files of dir with their sizes, for checking that a
// refused start changed nothing.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "ruvio.lock" {
			continue // rewritten with the pid of every process that takes it
		}
		lines = append(lines, e.Name()+" "+strconv.FormatInt(fi.Size(), 10))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// writeClusterKeys sets prefix0..prefix(n-1) through a cluster client, so
// every key goes to the shard owning its slot.
func writeClusterKeys(t *testing.T, p *testserver.Process, prefix string, n int) {
	t.Helper()
	cc := p.ClusterClient(t)
	for i := 0; i < n; i++ {
		if err := cc.Set(callCtx(t), prefix+strconv.Itoa(i), "val:"+strconv.Itoa(i), 0).Err(); err != nil {
			t.Fatalf("SET %s%d: %v", prefix, i, err)
		}
	}
}

// checkClusterKeys checks that every one of prefix0..prefix(n-1) is on the
// shard owning its slot, with its value, and that the shards hold n keys
// in all.
func checkClusterKeys(t *testing.T, p *testserver.Process, prefix string, n int) {
	t.Helper()
	shards := p.Config.Shards
	clients := make([]*redis.Client, shards)
	total := int64(0)
	for i := range clients {
		clients[i] = p.Client(t, i)
		size, err := clients[i].DBSize(callCtx(t)).Result()
		if err != nil {
			t.Fatal(err)
		}
		total += size
	}
	if total != int64(n) {
		t.Fatalf("%d keys over %d shards, want %d", total, shards, n)
	}
	cc := p.ClusterClient(t)
	for i := 0; i < n; i++ {
		key := prefix + strconv.Itoa(i)
		v, err := cc.Get(callCtx(t), key).Result()
		if err != nil || v != "val:"+strconv.Itoa(i) {
			t.Fatalf("GET %s on %d shards: %q %v", key, shards, v, err)
		}
	}
}

// Hardening item 6: a data directory written by 4 shards is refused with
// another shard count, naming what it holds and what was asked, and the
// refused start changes nothing: the 4-shard start that follows finds
// every key on its shard.
func TestShardCountChangeRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	const n = 400
	dir := t.TempDir()
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 4})
	writeClusterKeys(t, p, "key:", n)
	p.Kill(t)
	before := dirState(t, dir)
	for _, shards := range []int{1, 2, 8} {
		msg := finalError(t, refusedStart(t, dir, "--shards", strconv.Itoa(shards)))
		for _, s := range []string{dir, "holds the data of 4 shards", strconv.Itoa(shards) + " shard", "--shards 4", "ruvio reshard"} {
			if !strings.Contains(msg, s) {
				t.Fatalf("--shards %d: error lacks %q: %s", shards, s, msg)
			}
		}
		if after := dirState(t, dir); after != before {
			t.Fatalf("--shards %d: the refused start changed the directory:\n%s\nwas:\n%s", shards, after, before)
		}
	}
	q := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 4})
	checkClusterKeys(t, q, "key:", n)

	// A directory without data takes any shard count.
	empty := t.TempDir()
	e := testserver.StartBinary(t, testserver.BinaryConfig{Dir: empty, Shards: 4})
	e.Kill(t)
	e = testserver.StartBinary(t, testserver.BinaryConfig{Dir: empty, Shards: 2})
	writeClusterKeys(t, e, "two:", 100)
	e.Kill(t)
	// What those 2 shards wrote is taken as a 2-shard layout: the empty
	// files of shards 2 and 3 went at the 2-shard start.
	e = testserver.StartBinary(t, testserver.BinaryConfig{Dir: empty, Shards: 2})
	checkClusterKeys(t, e, "two:", 100)
	e.Kill(t)
	if msg := finalError(t, refusedStart(t, empty, "--shards", "4")); !strings.Contains(msg, "holds the data of 2 shards") {
		t.Fatalf("4 shards on a 2-shard directory: %s", msg)
	}
}
