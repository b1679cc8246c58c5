package integration_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

const errOOM = "OOM command not allowed when used memory > 'maxmemory'."

// evictionMargin is how far used_memory may go above maxmemory: eviction
// runs before each write, so only the write itself (here a few hundred
// bytes) and the index growing can take a shard over its share.
const evictionMargin = 64 << 10

// infoInt reads one integer field of INFO section.
func infoInt(t testing.TB, c *redis.Client, section, field string) int64 {
	t.Helper()
	text, err := c.Info(ctxT(t), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("INFO %s %s: %q", section, field, v)
			}
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}

// evictionFixture loads 600 keys with a deadline (vol:i, TTL growing with
// i) and 600 without (keep:i), each with a 100-byte value, then sets
// maxmemory so that about a third of the data must go. It returns the
// limit and evicted_keys before the limit was set (the background tick
// starts evicting at once).
func evictionFixture(t *testing.T, c *redis.Client, policy string) (limit, evictedBefore int64) {
	t.Helper()
	if err := c.FlushAll(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", policy)
	val := strings.Repeat("v", 100)
	p := c.Pipeline()
	for i := 0; i < 600; i++ {
		p.Set(ctxT(t), fmt.Sprint("vol:", i), val, time.Duration(1000+i)*time.Second)
		p.Set(ctxT(t), fmt.Sprint("keep:", i), val, 0)
	}
	if _, err := p.Exec(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	evictedBefore = infoInt(t, c, "stats", "evicted_keys")
	return limitToTwoThirds(t, c), evictedBefore
}

// limitToTwoThirds sets maxmemory to two thirds of used_memory.
func limitToTwoThirds(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	limit := infoInt(t, c, "memory", "used_memory") * 2 / 3
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10))
	return limit
}

// writeMore writes n new keys one by one and returns how many were refused
// with -OOM.
func writeMore(t *testing.T, c *redis.Client, n int) int {
	t.Helper()
	val := strings.Repeat("n", 100)
	refused := 0
	for i := 0; i < n; i++ {
		err := c.Set(ctxT(t), fmt.Sprint("new:", i), val, 0).Err()
		switch {
		case err == nil:
		case err.Error() == errOOM:
			refused++
		default:
			t.Fatalf("SET new:%d: %v", i, err)
		}
	}
	return refused
}

func exists(t *testing.T, c *redis.Client, prefix string, n int) int {
	t.Helper()
	p := c.Pipeline()
	cmds := make([]*redis.IntCmd, n)
	for i := range cmds {
		cmds[i] = p.Exists(ctxT(t), fmt.Sprint(prefix, i))
	}
	if _, err := p.Exec(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, cmd := range cmds {
		found += int(cmd.Val())
	}
	return found
}

func TestEvictionPolicies(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			limit, before := evictionFixture(t, c, policy)
			refused := writeMore(t, c, 600)
			evicted := infoInt(t, c, "stats", "evicted_keys") - before
			used := infoInt(t, c, "memory", "used_memory")
			if evicted == 0 {
				t.Fatal("nothing was evicted")
			}
			if used > limit+evictionMargin {
				t.Errorf("used_memory %d above maxmemory %d + %d", used, limit, evictionMargin)
			}
			keep := exists(t, c, "keep:", 600)
			vol := exists(t, c, "vol:", 600)
			if strings.HasPrefix(policy, "volatile-") {
				// Only keys with a deadline go; once they are all gone the
				// writes are refused.
				if keep != 600 {
					t.Errorf("%d of 600 keys without a deadline were evicted", 600-keep)
				}
				if vol == 600 {
					t.Error("no key with a deadline was evicted")
				}
				if refused > 0 && vol != 0 {
					t.Errorf("%d writes refused while %d volatile keys remain", refused, vol)
				}
			} else if refused > 0 {
				t.Errorf("%s refused %d writes", policy, refused)
			}
			// The background tick may evict one more key meanwhile.
			gone := int64(1200 + 600 - refused - keep - vol - exists(t, c, "new:", 600))
			if after := infoInt(t, c, "stats", "evicted_keys") - before; gone < evicted || gone > after {
				t.Errorf("%d keys are gone, evicted_keys says %d then %d", gone, evicted, after)
			}
			if policy == "volatile-ttl" && vol > 0 {
				// The keys closest to their deadline go first: the
				// survivors are the ones with the longest TTLs.
				if n := exists(t, c, "vol:", 300); n > vol/4 {
					t.Errorf("volatile-ttl kept %d of the 300 shortest TTLs and %d in all", n, vol)
				}
			}
		})
	}
}

// TestEvictionKeepsHotKeys: under LFU and LRU policies the keys read most
// (LFU) or last (LRU) survive an eviction wave.
func TestEvictionKeepsHotKeys(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	for _, policy := range []string{"allkeys-lfu", "allkeys-lru"} {
		t.Run(policy, func(t *testing.T) {
			// No decay: a minute boundary between the reads and OBJECT FREQ
			// below would take one off the counter (lfu-decay-time 1).
			expect(t, c, "OK", "CONFIG", "SET", "lfu-decay-time", "0")
			evictionFixture(t, c, policy)
			// Lift the limit while the hot keys are read (the background
			// tick would otherwise evict meanwhile), then set it again.
			expect(t, c, "OK", "CONFIG", "SET", "maxmemory", "0")
			// Keys the tick evicted before the limit was lifted.
			missing := 60 - exists(t, c, "keep:", 60)
			if policy == "allkeys-lru" {
				// The LRU clock counts seconds.
				time.Sleep(2100 * time.Millisecond)
			}
			for round := 0; round < 30; round++ {
				p := c.Pipeline()
				for i := 0; i < 60; i++ {
					p.Get(ctxT(t), fmt.Sprint("keep:", i))
				}
				if _, err := p.Exec(ctxT(t)); err != nil && err != redis.Nil {
					t.Fatal(err)
				}
			}
			limitToTwoThirds(t, c)
			// New keys tie with hot ones (both just accessed): write few
			// enough that cold keys remain to be sampled.
			if refused := writeMore(t, c, 300); refused != 0 {
				t.Fatalf("%d writes refused", refused)
			}
			// About 60% of the keys go; a policy blind to accesses would
			// keep some 25 of the 60 hot keys. Ties with the new keys (LRU
			// counts seconds) cost a few on a slow run.
			if hot := exists(t, c, "keep:", 60); hot < 48-missing {
				t.Errorf("%s kept %d of 60 hot keys (%d went before the test read them)", policy, hot, missing)
			}
			if policy == "allkeys-lfu" {
				for i := 0; i < 60; i++ {
					k := fmt.Sprint("keep:", i)
					if c.Exists(ctxT(t), k).Val() == 1 {
						if f := intValue(t, c, "OBJECT", "FREQ", k); f <= 5 {
							t.Errorf("OBJECT FREQ of a hot key is %d", f)
						}
						break
					}
				}
			}
		})
	}
}

func TestEvictionNoeviction(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	evictionFixture(t, c, "noeviction")
	if refused := writeMore(t, c, 600); refused == 0 {
		t.Fatal("noeviction accepted every write over maxmemory")
	}
	dbsize := c.DBSize(ctxT(t)).Val()
	expectErr(t, c, errOOM, "SET", "another", "v")
	expectErr(t, c, errOOM, "APPEND", "keep:1", "more")
	expect(t, c, strings.Repeat("v", 100), "GET", "keep:1")
	if got := c.DBSize(ctxT(t)).Val(); got != dbsize {
		t.Errorf("DBSIZE %d after refused writes, want %d", got, dbsize)
	}
	if n := infoInt(t, c, "stats", "evicted_keys"); n != 0 {
		t.Errorf("evicted_keys %d under noeviction", n)
	}
	// Deletions work and make room again.
	for i := 0; i < 600; i++ {
		expect(t, c, int64(1), "DEL", fmt.Sprint("keep:", i))
	}
	expect(t, c, "OK", "SET", "another", "v")
	expectErr(t, c, "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.", "OBJECT", "FREQ", "another")
}

// TestMemoryUsageMatchesAccounting: the data set figure of INFO memory is
// the sum of what MEMORY USAGE reports for every key, less each key's
// index slot (and expiring-index place), for strings and for every
// collection type however it is changed.
func TestMemoryUsageMatchesAccounting(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	for i := 0; i < 500; i++ {
		v := strings.Repeat("x", i*97%5000)
		if err := c.Set(ctxT(t), fmt.Sprint("k", i), v, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// A large value lives beside the arena.
	if err := c.Set(ctxT(t), "big", strings.Repeat("b", 100000), 0).Err(); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for i := 0; i < 500; i++ {
		sum += intValue(t, c, "MEMORY", "USAGE", fmt.Sprint("k", i)) - 8
	}
	big := intValue(t, c, "MEMORY", "USAGE", "big") - 8
	if big < 100000 {
		t.Errorf("MEMORY USAGE of a 100000-byte value is %d", big)
	}
	if ds := infoInt(t, c, "memory", "used_memory_dataset"); ds != sum+big {
		t.Errorf("used_memory_dataset %d, MEMORY USAGE adds up to %d", ds, sum+big)
	}
	used, ds, over := infoInt(t, c, "memory", "used_memory"), infoInt(t, c, "memory", "used_memory_dataset"), infoInt(t, c, "memory", "used_memory_overhead")
	if used != ds+over {
		t.Errorf("used_memory %d != dataset %d + overhead %d", used, ds, over)
	}
	stats, err := c.Do(ctxT(t), "MEMORY", "STATS").Result()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := stats.(map[interface{}]interface{})
	if !ok {
		if l, isList := stats.([]interface{}); isList {
			m = map[interface{}]interface{}{}
			for i := 0; i+1 < len(l); i += 2 {
				m[l[i]] = l[i+1]
			}
		}
	}
	if m["keys.count"] != int64(501) || m["dataset.bytes"] != ds {
		t.Errorf("MEMORY STATS keys.count %v dataset.bytes %v", m["keys.count"], m["dataset.bytes"])
	}
	// Every collection type, through writes of every kind.
	checkCollectionAccounting(t, c)
}

// TestEvictionSurvivesKill: evictions are logged as deletions, so after a
// SIGKILL the restarted server holds exactly the keys it held before.
func TestEvictionSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	cfg := testserver.BinaryConfig{Dir: dir, Fsync: "always", Args: []string{"--loglevel", "warn"}}
	p := testserver.StartBinary(t, cfg)
	c := redis.NewClient(clientTimeouts(&redis.Options{Addr: p.Addrs[0], MaxRetries: -1, DisableIdentity: true}))
	defer c.Close()
	limit, _ := evictionFixture(t, c, "allkeys-random")
	if refused := writeMore(t, c, 600); refused != 0 {
		t.Fatalf("%d writes refused", refused)
	}
	if infoInt(t, c, "stats", "evicted_keys") == 0 {
		t.Fatal("nothing was evicted")
	}
	before := allKeys(t, c)
	p.Kill(t)
	_ = c.Close()

	p = testserver.StartBinary(t, cfg)
	c = redis.NewClient(clientTimeouts(&redis.Options{Addr: p.Addrs[0], MaxRetries: -1, DisableIdentity: true}))
	after := allKeys(t, c)
	if strings.Join(before, ",") != strings.Join(after, ",") {
		t.Fatalf("%d keys before SIGKILL, %d after restart", len(before), len(after))
	}
	// maxmemory set by CONFIG SET is not kept across restarts (as Redis
	// without CONFIG REWRITE); the data still fits the old limit.
	if used := infoInt(t, c, "memory", "used_memory"); used > limit+evictionMargin {
		t.Errorf("used_memory %d after restart, limit was %d", used, limit)
	}
}

func allKeys(t *testing.T, c *redis.Client) []string {
	t.Helper()
	keys, err := c.Keys(ctxT(t), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	return keys
}

// TestEvictionBreaksWatch: a key evicted to free memory is a change, as in
// Redis: a WATCH on it makes the next EXEC fail.
func TestEvictionBreaksWatch(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	watcher := dialRaw(t, s.Addr())
	if err := c.FlushAll(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	// volatile-ttl with w the only key that has a deadline: w is the one
	// eviction takes.
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "volatile-ttl")
	val := strings.Repeat("v", 100)
	p := c.Pipeline()
	for i := 0; i < 600; i++ {
		p.Set(ctxT(t), fmt.Sprint("keep:", i), val, 0)
	}
	p.Set(ctxT(t), "w", val, time.Hour)
	if _, err := p.Exec(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	watcher.expect("+OK\r\n", "WATCH", "w")
	before := infoInt(t, c, "stats", "evicted_keys")
	limitToTwoThirds(t, c)
	// The background tick or the next write evicts w; the write itself is
	// then refused (nothing else may go).
	deadline := time.Now().Add(10 * time.Second)
	for c.Exists(ctxT(t), "w").Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatal("w was not evicted")
		}
		_ = c.Set(ctxT(t), "new", val, 0).Err()
	}
	if got := infoInt(t, c, "stats", "evicted_keys") - before; got != 1 {
		t.Fatalf("evicted_keys grew by %d, want 1 (w alone)", got)
	}
	// Lift the limit so the queued write is not refused with -OOM.
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory", "0")
	watcher.expect("+OK\r\n", "MULTI")
	watcher.expect("+QUEUED\r\n", "SET", "w", "mine")
	watcher.expect("*-1\r\n", "EXEC")
	if err := c.Get(ctxT(t), "w").Err(); err == nil {
		t.Error("the failed EXEC set w")
	}
	// A fresh WATCH of the now absent key is not broken by the eviction.
	watcher.expect("+OK\r\n", "WATCH", "w")
	watcher.expect("+OK\r\n", "MULTI")
	watcher.expect("+QUEUED\r\n", "SET", "w", "mine")
	watcher.expect("*1\r\n+OK\r\n", "EXEC")
}
