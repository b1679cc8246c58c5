package integration_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// datasetByUsage is the data set as MEMORY USAGE sees it: every key's
// figure less its index slot (8 bytes) and, with a deadline, its place in
// the expiring index (4 bytes). It also returns the key count.
func datasetByUsage(t *testing.T, c *redis.Client) (sum int64, keys int) {
	t.Helper()
	all, err := c.Keys(ctxT(t), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	p := c.Pipeline()
	usage := make([]*redis.IntCmd, len(all))
	ttl := make([]*redis.DurationCmd, len(all))
	for i, k := range all {
		usage[i] = p.MemoryUsage(ctxT(t), k)
		ttl[i] = p.PTTL(ctxT(t), k)
	}
	if _, err := p.Exec(ctxT(t)); err != nil && err != redis.Nil {
		t.Fatal(err)
	}
	for i := range all {
		if usage[i].Err() == redis.Nil {
			continue // expired between KEYS and MEMORY USAGE
		}
		sum += usage[i].Val() - 8
		if ttl[i].Val() > 0 {
			sum -= 4
		}
		keys++
	}
	return sum, keys
}

// expectDatasetMatches checks used_memory_dataset against the sum of
// MEMORY USAGE over databases 0 and 1 (the only ones the tests use), and
// used_memory against dataset plus overhead.
func expectDatasetMatches(t *testing.T, c *redis.Client, what string) {
	t.Helper()
	sum, _ := datasetByUsage(t, c)
	other := redis.NewClient(clientTimeouts(&redis.Options{Addr: c.Options().Addr, DB: 1, MaxRetries: -1, DisableIdentity: true}))
	defer other.Close()
	sum1, _ := datasetByUsage(t, other)
	sum += sum1
	if ds := infoInt(t, c, "memory", "used_memory_dataset"); ds != sum {
		t.Errorf("%s: used_memory_dataset %d, MEMORY USAGE adds up to %d", what, ds, sum)
	}
	used, ds, over := infoInt(t, c, "memory", "used_memory"), infoInt(t, c, "memory", "used_memory_dataset"), infoInt(t, c, "memory", "used_memory_overhead")
	if used != ds+over {
		t.Errorf("%s: used_memory %d != dataset %d + overhead %d", what, used, ds, over)
	}
}

// pipe runs the commands in one pipeline, ignoring their replies' errors
// (a random workload hits WRONGTYPE and empty keys on purpose).
func pipe(t *testing.T, c *redis.Client, cmds [][]interface{}) {
	t.Helper()
	p := c.Pipeline()
	for _, a := range cmds {
		p.Do(ctxT(t), a...)
	}
	_, _ = p.Exec(ctxT(t))
}

// checkCollectionAccounting loads every collection type, small and large,
// then mixes writes that grow, shrink, convert encodings, delete, expire,
// rename, move, copy and flush them, checking after each phase that the
// running used_memory is the sum of MEMORY USAGE.
func checkCollectionAccounting(t *testing.T, c *redis.Client) {
	var load [][]interface{}
	for i := 0; i < 40; i++ {
		n := 3 + i*i*2 // small ones stay compact, large ones convert
		for j := 0; j < n; j += 10 {
			hs := []interface{}{"HSET", fmt.Sprint("h", i)}
			ls := []interface{}{"RPUSH", fmt.Sprint("l", i)}
			ss := []interface{}{"SADD", fmt.Sprint("s", i)}
			ts := []interface{}{"SADD", fmt.Sprint("t", i)}
			zs := []interface{}{"ZADD", fmt.Sprint("z", i)}
			bf := []interface{}{"BF.ADD", fmt.Sprint("b", i)}
			for k := j; k < j+10 && k < n; k++ {
				hs = append(hs, fmt.Sprint("field", k), strings.Repeat("v", k%70))
				ls = append(ls, strings.Repeat("e", k%90))
				ss = append(ss, k)
				ts = append(ts, fmt.Sprint("m", k))
				zs = append(zs, k, fmt.Sprint("member", k))
			}
			bf = append(bf, fmt.Sprint("x", j))
			load = append(load, hs, ls, ss, ts, zs, bf)
		}
	}
	pipe(t, c, load)
	expect(t, c, "hashtable", "OBJECT", "ENCODING", "h39")
	expect(t, c, "listpack", "OBJECT", "ENCODING", "h1")
	expect(t, c, "intset", "OBJECT", "ENCODING", "s1")
	expect(t, c, "skiplist", "OBJECT", "ENCODING", "z39")
	expectDatasetMatches(t, c, "after the load")

	var mixed [][]interface{}
	for i := 0; i < 40; i++ {
		h, l, s, ts, z := fmt.Sprint("h", i), fmt.Sprint("l", i), fmt.Sprint("s", i), fmt.Sprint("t", i), fmt.Sprint("z", i)
		mixed = append(mixed,
			[]interface{}{"HDEL", h, "field1", "field2", "field3"},
			[]interface{}{"HSET", h, "long", strings.Repeat("L", 100)}, // converts a listpack
			[]interface{}{"HINCRBYFLOAT", h, "f", "2.5"},
			[]interface{}{"LPOP", l, 5},
			[]interface{}{"LSET", l, 0, strings.Repeat("x", 9000)},
			[]interface{}{"LTRIM", l, 0, i * 10},
			[]interface{}{"SADD", s, "notanint"}, // intset to listpack or hashtable
			[]interface{}{"SPOP", ts, 3},
			[]interface{}{"ZREMRANGEBYRANK", z, 0, i},
			[]interface{}{"ZADD", z, 1, strings.Repeat("M", 80)},
			[]interface{}{"BF.MADD", fmt.Sprint("b", i), "p", "q", "r"},
		)
		switch i % 8 {
		case 0:
			mixed = append(mixed, []interface{}{"DEL", h})
		case 1:
			mixed = append(mixed, []interface{}{"UNLINK", z})
		case 2:
			mixed = append(mixed, []interface{}{"RENAME", l, fmt.Sprint("renamed", i)})
		case 3:
			mixed = append(mixed, []interface{}{"COPY", h, fmt.Sprint("copied", i)})
		case 4:
			mixed = append(mixed, []interface{}{"MOVE", s, 1})
		case 5:
			mixed = append(mixed, []interface{}{"PEXPIRE", ts, 1})
		case 6:
			mixed = append(mixed, []interface{}{"EXPIRE", h, 1000})
		case 7:
			mixed = append(mixed, []interface{}{"SINTERSTORE", fmt.Sprint("inter", i), s, ts},
				[]interface{}{"ZUNIONSTORE", fmt.Sprint("union", i), 2, z, fmt.Sprint("z", i-1)},
				[]interface{}{"LMOVE", l, fmt.Sprint("l", i-1), "LEFT", "RIGHT"},
				[]interface{}{"SMOVE", s, fmt.Sprint("s", i-1), 5})
		}
	}
	pipe(t, c, mixed)
	// Keys given 1 ms to live go by active or lazy expiry.
	time.Sleep(300 * time.Millisecond)
	expectDatasetMatches(t, c, "after mixed writes")

	// SWAPDB and FLUSHDB of the other database.
	expect(t, c, "OK", "SWAPDB", 0, 1)
	expectDatasetMatches(t, c, "after SWAPDB")
	// FLUSHDB of the other database, which holds the moved sets.
	other := redis.NewClient(clientTimeouts(&redis.Options{Addr: c.Options().Addr, DB: 1, MaxRetries: -1, DisableIdentity: true}))
	defer other.Close()
	if n := other.DBSize(ctxT(t)).Val(); n == 0 {
		t.Fatal("nothing was moved to database 1")
	}
	if err := other.FlushDB(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	expectDatasetMatches(t, c, "after FLUSHDB")
}

// TestEvictionOfLargeCollections: large hashes, lists and sorted sets
// take a shard past maxmemory, and eviction brings it back under with
// every policy that evicts: used_memory, and the sum of MEMORY USAGE of
// what is left, stay within the limit plus the margin of one write.
func TestEvictionOfLargeCollections(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	const limit = 2 << 20
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			if err := c.FlushAll(ctxT(t)).Err(); err != nil {
				t.Fatal(err)
			}
			expect(t, c, "OK", "CONFIG", "SET", "maxmemory", limit, "maxmemory-policy", policy)
			before := infoInt(t, c, "stats", "evicted_keys")
			created := map[string]bool{} // keys without a deadline whose first write was accepted
			refused := 0
			val := strings.Repeat("v", 40)
			for i := 0; i < 60; i++ {
				key := fmt.Sprint([]string{"hash", "list", "zset"}[i%3], ":", i)
				p := c.Pipeline()
				var cmds []*redis.Cmd
				for j := 0; j < 1000; j += 50 {
					a := []interface{}{"HSET", key}
					switch i % 3 {
					case 1:
						a[0] = "RPUSH"
					case 2:
						a[0] = "ZADD"
					}
					for k := j; k < j+50; k++ {
						switch i % 3 {
						case 0:
							a = append(a, fmt.Sprint("field:", k), val)
						case 1:
							a = append(a, val+fmt.Sprint(k))
						case 2:
							a = append(a, k, fmt.Sprint("member:", k, val))
						}
					}
					cmds = append(cmds, p.Do(ctxT(t), a...))
					if j == 0 && i%2 == 1 {
						p.Expire(ctxT(t), key, time.Duration(1000+i)*time.Second)
					}
				}
				_, _ = p.Exec(ctxT(t))
				for j, cmd := range cmds {
					switch err := cmd.Err(); {
					case err == nil:
						if j == 0 && i%2 == 0 {
							created[key] = true
						}
					case err.Error() == errOOM:
						refused++
					default:
						t.Fatalf("%s: %v", key, err)
					}
				}
			}
			evicted := infoInt(t, c, "stats", "evicted_keys") - before
			if evicted == 0 {
				t.Fatal("nothing was evicted")
			}
			if used := infoInt(t, c, "memory", "used_memory"); used > limit+evictionMargin {
				t.Errorf("used_memory %d above maxmemory %d + %d", used, limit, evictionMargin)
			}
			sum, keys := datasetByUsage(t, c)
			if over := infoInt(t, c, "memory", "used_memory_overhead"); sum+over > limit+evictionMargin {
				t.Errorf("%d keys left take %d bytes by MEMORY USAGE (+ %d overhead), above maxmemory %d + %d", keys, sum, over, limit, evictionMargin)
			}
			if strings.HasPrefix(policy, "volatile-") {
				for k := range created {
					if c.Exists(ctxT(t), k).Val() != 1 {
						t.Errorf("%s has no deadline but was evicted", k)
					}
				}
				if refused == 0 {
					t.Error("keys without a deadline alone exceed the limit, yet no write was refused")
				}
			} else if refused > 0 {
				t.Errorf("%s refused %d writes", policy, refused)
			}
		})
	}
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory", 0)
}
