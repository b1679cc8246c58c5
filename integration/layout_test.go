package integration_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/app"
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

// runReshard runs "ruvio reshard" on dir and returns its output and
// whether it succeeded.
func runReshard(t *testing.T, dir string, shards int) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, testserver.Binary(t), "reshard", "--config", "", "--dir", dir, "--shards", strconv.Itoa(shards)).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("reshard did not finish: %s", out)
	}
	return string(out), err == nil
}

// backupOf is the directory reshard kept the old layout of dir in.
func backupOf(t *testing.T, dir string, from, to int) string {
	t.Helper()
	m, err := filepath.Glob(fmt.Sprintf("%s.before-reshard-%dto%d-*", dir, from, to))
	if err != nil || len(m) != 1 {
		t.Fatalf("backups of %s: %v %v", dir, m, err)
	}
	return m[0]
}

// Hardening item 6: "ruvio reshard" rewrites a directory of 4 shards
// (left by a kill: WAL tails and all) into 2, and back into 4 after the
// 2-shard server wrote and snapshotted; each time every key is on the
// shard owning its slot, and the old layout is kept untouched.
func TestReshardRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	const n = 600
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 4})
	writeClusterKeys(t, p, "key:", n)
	cc := p.ClusterClient(t)
	if err := cc.Set(callCtx(t), "gone", "x", 50*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cc.Set(callCtx(t), "ttl", "y", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	p.Kill(t)
	time.Sleep(100 * time.Millisecond) // "gone" expires
	before := dirState(t, dir)

	out, ok := runReshard(t, dir, 2)
	if !ok {
		t.Fatalf("reshard 4 -> 2 failed:\n%s", out)
	}
	t.Log(out)
	for _, s := range []string{"from 4 to 2 shard(s)", fmt.Sprintf("%d keys", n+1), "not written: 1 keys already expired"} {
		if !strings.Contains(out, s) {
			t.Fatalf("report lacks %q:\n%s", s, out)
		}
	}
	backup := backupOf(t, dir, 4, 2)
	if got := dirState(t, backup); got != before {
		t.Fatalf("the old layout changed:\n%s\nwas\n%s", got, before)
	}
	// The new directory is 2 shards: the old count is refused now.
	if msg := finalError(t, refusedStart(t, dir, "--shards", "4")); !strings.Contains(msg, "holds the data of 2 shards") {
		t.Fatalf("4 shards after the reshard: %s", msg)
	}
	q := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 2})
	checkClusterKeysPlus(t, q, "key:", n, 1)
	qc := q.ClusterClient(t)
	if ttl, err := qc.PTTL(callCtx(t), "ttl").Result(); err != nil || ttl < 50*time.Minute {
		t.Fatalf("PTTL ttl after reshard: %v %v", ttl, err)
	}
	writeClusterKeys(t, q, "more:", 200)
	for i := 0; i < 2; i++ {
		if err := q.Client(t, i).Save(callCtx(t)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	writeClusterKeys(t, q, "late:", 50) // after the snapshots: in the WAL only
	q.Stop(t, 20*time.Second)

	out, ok = runReshard(t, dir, 4)
	if !ok {
		t.Fatalf("reshard 2 -> 4 failed:\n%s", out)
	}
	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 4})
	checkClusterKeysPlus(t, r, "key:", n, 1+200+50)
	checkClusterKeysPlus(t, r, "more:", 200, n+1+50)
	checkClusterKeysPlus(t, r, "late:", 50, n+1+200)
	r.Kill(t)
	_ = backupOf(t, dir, 2, 4)

	// Nothing to do, and a directory without data.
	if out, ok := runReshard(t, dir, 4); !ok || !strings.Contains(out, "nothing to do") {
		t.Fatalf("reshard to the same count: %v\n%s", ok, out)
	}
	if out, ok := runReshard(t, t.TempDir(), 2); ok || !strings.Contains(out, "holds no data") {
		t.Fatalf("reshard of an empty directory: %v\n%s", ok, out)
	}
}

// A reshard that cannot be done changes nothing: keys in database 5 of a
// one-shard directory cannot go to several shards.
func TestReshardRefusedChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir})
	writeKeys(t, p, "key:", 0, 50)
	c := p.Client(t, 0)
	if err := c.Do(callCtx(t), "SELECT", "5").Err(); err != nil {
		t.Fatal(err)
	}
	pipe := c.Pipeline()
	pipe.Select(callCtx(t), 5)
	pipe.Set(callCtx(t), "in-db5", "1", 0)
	if _, err := pipe.Exec(callCtx(t)); err != nil {
		t.Fatal(err)
	}
	p.Kill(t)
	before := dirState(t, dir)
	out, ok := runReshard(t, dir, 3)
	if ok || !strings.Contains(out, `key "in-db5" is in database 5, but with 3 shards only database 0 exists`) {
		t.Fatalf("reshard with a key in database 5: %v\n%s", ok, out)
	}
	if got := dirState(t, dir); got != before {
		t.Fatalf("the refused reshard changed the directory:\n%s\nwas\n%s", got, before)
	}
	if m, _ := filepath.Glob(dir + ".*"); len(m) != 0 {
		t.Fatalf("the refused reshard left %v", m)
	}
	q := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir})
	if present, _ := countKeys(t, q, "key:", 50); present != 50 {
		t.Fatalf("%d of 50 keys after the refused reshard", present)
	}
}

// checkClusterKeysPlus is checkClusterKeys for a server that holds others
// keys besides.
func checkClusterKeysPlus(t *testing.T, p *testserver.Process, prefix string, n, others int) {
	t.Helper()
	total := int64(0)
	for i := 0; i < p.Config.Shards; i++ {
		size, err := p.Client(t, i).DBSize(callCtx(t)).Result()
		if err != nil {
			t.Fatal(err)
		}
		total += size
	}
	if total != int64(n+others) {
		t.Fatalf("%d keys over %d shards, want %d", total, p.Config.Shards, n+others)
	}
	cc := p.ClusterClient(t)
	for i := 0; i < n; i++ {
		key := prefix + strconv.Itoa(i)
		v, err := cc.Get(callCtx(t), key).Result()
		if err != nil || v != "val:"+strconv.Itoa(i) {
			t.Fatalf("GET %s on %d shards: %q %v", key, p.Config.Shards, v, err)
		}
	}
}

// An import into a directory that a server with more shards used leaves
// it in the import's layout: the files of the shards it does not have go.
func TestImportAfterMoreShardsTakesItsLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	for _, replace := range []bool{false, true} {
		dir := t.TempDir()
		p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 4})
		if replace {
			writeClusterKeys(t, p, "old:", 50)
		}
		p.Kill(t)
		cfg := config.Default()
		cfg.Persistence.Dir = dir
		var out bytes.Buffer
		if err := app.ImportRDB(cfg, "testdata/redis-7.0.15-dump.rdb", replace, &out); err != nil {
			t.Fatalf("replace %v: %v", replace, err)
		}
		q := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1})
		if n, err := q.Client(t, 0).DBSize(callCtx(t)).Result(); err != nil || n != 13 {
			t.Fatalf("replace %v: DBSIZE %d %v, want the 13 keys of database 0", replace, n, err)
		}
		q.Kill(t)
	}
}
