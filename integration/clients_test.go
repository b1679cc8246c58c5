package integration_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidiscompat"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// These tests run popular clients the way their users do, against one
// shard (a standalone server) and four (a cluster): go-redis through
// redis.NewUniversalClient and rueidis with its topology detection. The
// rueidis clients of the command tests turn client-side caching off
// (DisableCache), so every call reaches the server;
// TestRueidisClientSideCaching runs it on.

// clientsTimeout bounds each client call.
const clientsTimeout = 10 * time.Second

// crossSlotKeys are keys of different hash slots.
var crossSlotKeys = []string{"alpha", "bravo", "charlie", "delta"}

// TestGoRedisUniversalClientOneShard: one shard is a standalone server, so
// the universal client of its address is a plain client that keeps its
// database, multi-key commands across slots work, and a cluster client is
// refused with Redis's error.
func TestGoRedisUniversalClientOneShard(t *testing.T) {
	s := testserver.Start(t)
	uc := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: s.Addrs, DB: 2, MaxRetries: -1,
		DialTimeout: clientsTimeout, ReadTimeout: clientsTimeout, WriteTimeout: clientsTimeout})
	defer uc.Close()
	if _, ok := uc.(*redis.Client); !ok {
		t.Fatalf("NewUniversalClient of one shard is %T, want *redis.Client", uc)
	}
	if err := uc.Do(ctxT(t), "CLUSTER", "SLOTS").Err(); err == nil || err.Error() != "ERR This instance has cluster support disabled" {
		t.Errorf("CLUSTER SLOTS: %v", err)
	}
	role, err := uc.Do(ctxT(t), "ROLE").Slice()
	if err != nil || len(role) != 3 || role[0] != "master" {
		t.Errorf("ROLE: %#v %v", role, err)
	}
	multiKeyCommands(t, goRedisOps(t, uc, 2))
	// The keys went to database 2 only.
	if n := intValue(t, s.Client(t), "DBSIZE"); n != 0 {
		t.Errorf("DBSIZE of database 0: %d", n)
	}
	if err := uc.FlushDB(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := uc.DBSize(ctxT(t)).Result(); n != 0 || err != nil {
		t.Errorf("DBSIZE after FLUSHDB: %d %v", n, err)
	}

	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{s.Addr()}, MaxRetries: -1,
		DialTimeout: clientsTimeout, ReadTimeout: clientsTimeout, WriteTimeout: clientsTimeout})
	defer cc.Close()
	if err := cc.Set(ctxT(t), "k", "v", 0).Err(); err == nil || !strings.Contains(err.Error(), "cluster support disabled") {
		t.Errorf("cluster client against one shard: %v", err)
	}
}

// multiKeyOps are the typed calls of one client library that
// multiKeyCommands exercises.
type multiKeyOps struct {
	mset               func(...any) error
	mget               func(...string) ([]any, error)
	exists, touch, del func(...string) (int64, error)
	rename             func(from, to string) error
	copyKey            func(from, to string) (int64, error)
	dbsize             func() (int64, error)
}

func goRedisOps(t testing.TB, c redis.Cmdable, db int) multiKeyOps {
	return multiKeyOps{
		mset:   func(a ...any) error { return c.MSet(ctxT(t), a...).Err() },
		mget:   func(k ...string) ([]any, error) { return c.MGet(ctxT(t), k...).Result() },
		exists: func(k ...string) (int64, error) { return c.Exists(ctxT(t), k...).Result() },
		touch:  func(k ...string) (int64, error) { return c.Touch(ctxT(t), k...).Result() },
		del:    func(k ...string) (int64, error) { return c.Del(ctxT(t), k...).Result() },
		rename: func(a, b string) error { return c.Rename(ctxT(t), a, b).Err() },
		copyKey: func(a, b string) (int64, error) {
			return c.Copy(ctxT(t), a, b, db, false).Result()
		},
		dbsize: func() (int64, error) { return c.DBSize(ctxT(t)).Result() },
	}
}

func rueidisOps(t testing.TB, c rueidiscompat.Cmdable, db int64) multiKeyOps {
	return multiKeyOps{
		mset:   func(a ...any) error { return c.MSet(ctxT(t), a...).Err() },
		mget:   func(k ...string) ([]any, error) { return c.MGet(ctxT(t), k...).Result() },
		exists: func(k ...string) (int64, error) { return c.Exists(ctxT(t), k...).Result() },
		touch:  func(k ...string) (int64, error) { return c.Touch(ctxT(t), k...).Result() },
		del:    func(k ...string) (int64, error) { return c.Del(ctxT(t), k...).Result() },
		rename: func(a, b string) error { return c.Rename(ctxT(t), a, b).Err() },
		copyKey: func(a, b string) (int64, error) {
			return c.Copy(ctxT(t), a, b, db, false).Result()
		},
		dbsize: func() (int64, error) { return c.DBSize(ctxT(t)).Result() },
	}
}

// multiKeyCommands runs multi-key commands across slots on a standalone
// client and checks their replies.
func multiKeyCommands(t *testing.T, c multiKeyOps) {
	t.Helper()
	pairs := []any{}
	for i, k := range crossSlotKeys {
		pairs = append(pairs, k, fmt.Sprint(i))
	}
	if err := c.mset(pairs...); err != nil {
		t.Fatalf("MSET: %v", err)
	}
	if v, err := c.mget(crossSlotKeys...); err != nil || len(v) != 4 || v[3] != "3" {
		t.Errorf("MGET: %#v %v", v, err)
	}
	if n, err := c.exists(crossSlotKeys...); n != 4 || err != nil {
		t.Errorf("EXISTS: %d %v", n, err)
	}
	if n, err := c.touch(crossSlotKeys...); n != 4 || err != nil {
		t.Errorf("TOUCH: %d %v", n, err)
	}
	if err := c.rename("alpha", "echo"); err != nil {
		t.Errorf("RENAME: %v", err)
	}
	if n, err := c.copyKey("echo", "foxtrot"); n != 1 || err != nil {
		t.Errorf("COPY: %d %v", n, err)
	}
	if n, err := c.dbsize(); n != 5 || err != nil {
		t.Errorf("DBSIZE: %d %v", n, err)
	}
	if n, err := c.del("bravo", "charlie", "nosuch"); n != 2 || err != nil {
		t.Errorf("DEL: %d %v", n, err)
	}
}

// TestGoRedisUniversalClientFourShards: the universal client of four
// shards' addresses is a cluster client. It reads the command tips from
// COMMAND; given its dynamic resolver (its default table only knows module
// commands) it routes by them: FLUSHDB reaches every shard
// (request_policy:all_shards) and MSET/MGET across slots are split by slot
// (request_policy:multi_shard). DBSIZE fans out and sums in any case.
// KEYS is fanned out with ForEachMaster: go-redis's aggregation of a
// keyless all_shards reply into a string slice loses the keys (v9.23),
// whatever the server.
func TestGoRedisUniversalClientFourShards(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(4))
	uc := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: s.Addrs, MaxRetries: -1,
		DialTimeout: clientsTimeout, ReadTimeout: clientsTimeout, WriteTimeout: clientsTimeout})
	defer uc.Close()
	cc, ok := uc.(*redis.ClusterClient)
	if !ok {
		t.Fatalf("NewUniversalClient of four shards is %T, want *redis.ClusterClient", uc)
	}
	infos, err := cc.Command(ctxT(t)).Result()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"keys": "all_shards/default(keyless)", "dbsize": "all_shards/agg_sum",
		"flushdb": "all_shards/all_succeeded", "mset": "multi_shard/all_succeeded", "touch": "multi_shard/agg_sum"} {
		info := infos[name]
		if info == nil || info.CommandPolicy == nil {
			t.Errorf("go-redis found no policy for %s", name)
			continue
		}
		if got := info.CommandPolicy.Request.String() + "/" + info.CommandPolicy.Response.String(); got != want {
			t.Errorf("go-redis policy of %s: %s, want %s", name, got, want)
		}
	}
	cc.SetCommandInfoResolver(cc.NewDynamicResolver())

	keys := fillKeys(ctxT(t), t, func(k string) error { return uc.Set(ctxT(t), k, "v", 0).Err() })
	checkSpread(t, s, len(keys))
	if n, err := uc.DBSize(ctxT(t)).Result(); n != int64(len(keys)) || err != nil {
		t.Errorf("DBSIZE through the cluster client: %d %v, want %d", n, err, len(keys))
	}
	var mu sync.Mutex
	var got []string
	err = cc.ForEachMaster(ctxT(t), func(ctx context.Context, c *redis.Client) error {
		ks, err := c.Keys(ctxT(t), "*").Result()
		mu.Lock()
		got = append(got, ks...)
		mu.Unlock()
		return err
	})
	slices.Sort(got)
	if err != nil || !slices.Equal(got, keys) {
		t.Errorf("KEYS * on every master: %d keys %v, want %d", len(got), err, len(keys))
	}
	if err := uc.MSet(ctxT(t), "alpha", "1", "bravo", "2", "charlie", "3").Err(); err != nil {
		t.Errorf("MSET across slots: %v", err)
	}
	if v, err := uc.MGet(ctxT(t), "alpha", "bravo", "charlie").Result(); err != nil || len(v) != 3 || v[2] != "3" {
		t.Errorf("MGET across slots: %#v %v", v, err)
	}
	if err := uc.FlushDB(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := uc.DBSize(ctxT(t)).Result(); n != 0 || err != nil {
		t.Errorf("DBSIZE after FLUSHDB: %d %v", n, err)
	}
}

// fillKeys writes 64 keys with set and returns them sorted.
func fillKeys(_ context.Context, t *testing.T, set func(string) error) []string {
	t.Helper()
	var keys []string
	for i := range 64 {
		k := fmt.Sprintf("key:%02d", i)
		if err := set(k); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkSpread checks, through each shard's own client, that n keys were
// written and that more than one shard holds some, so the fan-out
// checks mean something.
func checkSpread(t *testing.T, s *testserver.Server, n int) {
	t.Helper()
	total, holding := int64(0), 0
	for i := range s.Addrs {
		k := intValue(t, s.ClientOf(t, i), "DBSIZE")
		total += k
		if k > 0 {
			holding++
		}
	}
	if total != int64(n) || holding < 2 {
		t.Fatalf("%d keys on %d shards, want %d on several", total, holding, n)
	}
}

// newRueidis starts a rueidis client with topology detection and without
// client-side caching.
func newRueidis(t *testing.T, opt rueidis.ClientOption) rueidis.Client {
	t.Helper()
	opt.DisableCache = true // every call reaches the server
	opt.Dialer.Timeout = clientsTimeout
	opt.ConnWriteTimeout = clientsTimeout
	c, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatalf("rueidis.NewClient: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestRueidisOneShard: rueidis detects a standalone server (its CLUSTER
// probe is refused), keeps the selected database, and its compatibility
// layer (which asks ROLE before DBSIZE and FLUSHDB) works.
func TestRueidisOneShard(t *testing.T) {
	s := testserver.Start(t)
	c := newRueidis(t, rueidis.ClientOption{InitAddress: []string{s.Addr()}, SelectDB: 3})
	if m := c.Mode(); m != rueidis.ClientModeStandalone {
		t.Fatalf("rueidis mode %q, want standalone", m)
	}
	// Multi-key commands across slots: a cluster client's command builder
	// would refuse (panic on) these.
	if err := c.Do(ctxT(t), c.B().Mset().KeyValue().KeyValue("alpha", "1").KeyValue("bravo", "2").KeyValue("charlie", "3").Build()).Error(); err != nil {
		t.Fatalf("MSET: %v", err)
	}
	if n, err := c.Do(ctxT(t), c.B().Exists().Key("alpha", "bravo", "charlie").Build()).AsInt64(); n != 3 || err != nil {
		t.Errorf("EXISTS: %d %v", n, err)
	}
	compat := rueidiscompat.NewAdapter(c)
	multiKeyCommands(t, rueidisOps(t, compat, 3))
	if n := intValue(t, s.Client(t), "DBSIZE"); n != 0 {
		t.Errorf("DBSIZE of database 0: %d", n)
	}
	if err := compat.FlushDB(ctxT(t)).Err(); err != nil {
		t.Fatalf("FLUSHDB: %v", err)
	}
	if n, err := compat.DBSize(ctxT(t)).Result(); n != 0 || err != nil {
		t.Errorf("DBSIZE after FLUSHDB: %d %v", n, err)
	}
}

// TestRueidisFourShards: rueidis detects the cluster and its
// compatibility layer fans DBSIZE, KEYS and FLUSHDB out to every primary
// it finds with ROLE.
func TestRueidisFourShards(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(4))
	c := newRueidis(t, rueidis.ClientOption{InitAddress: []string{s.Addr()}})
	if m := c.Mode(); m != rueidis.ClientModeCluster {
		t.Fatalf("rueidis mode %q, want cluster", m)
	}
	compat := rueidiscompat.NewAdapter(c)
	keys := fillKeys(ctxT(t), t, func(k string) error { return compat.Set(ctxT(t), k, "v", 0).Err() })
	checkSpread(t, s, len(keys))
	if n, err := compat.DBSize(ctxT(t)).Result(); n != int64(len(keys)) || err != nil {
		t.Errorf("DBSIZE: %d %v, want %d", n, err, len(keys))
	}
	got, err := compat.Keys(ctxT(t), "*").Result()
	slices.Sort(got)
	if err != nil || !slices.Equal(got, keys) {
		t.Errorf("KEYS *: %d keys %v, want %d", len(got), err, len(keys))
	}
	if err := compat.FlushDB(ctxT(t)).Err(); err != nil {
		t.Fatalf("FLUSHDB: %v", err)
	}
	if n, err := compat.DBSize(ctxT(t)).Result(); n != 0 || err != nil {
		t.Errorf("DBSIZE after FLUSHDB: %d %v", n, err)
	}
}

// TestRoleOffsetIsWALSequence: ROLE on each shard reports that shard's own
// WAL sequence (wal_last_sequence), not a sum over shards.
func TestRoleOffsetIsWALSequence(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(2), testserver.Config(func(c *config.Config) { c.Persistence.WAL = true }))
	tags := tagsPerShard(t, s.Client(t), 2)
	for i := range 2 {
		c := s.ClientOf(t, i)
		for j := range 3 * (i + 1) {
			expect(t, c, "OK", "SET", "{"+tags[i]+"}"+strconv.Itoa(j), "v")
		}
	}
	for i := range 2 {
		c := s.ClientOf(t, i)
		role := value(t, c, "ROLE").([]interface{})
		info := value(t, c, "INFO", "persistence").(string)
		seq := regexp.MustCompile(`wal_last_sequence:(\d+)`).FindStringSubmatch(info)
		if seq == nil {
			t.Fatalf("shard %d: no wal_last_sequence in %q", i, info)
		}
		want, _ := strconv.ParseInt(seq[1], 10, 64)
		if len(role) != 3 || role[0] != "master" || role[1] != want || want < int64(3*(i+1)) || len(role[2].([]interface{})) != 0 {
			t.Errorf("shard %d: ROLE %#v, wal_last_sequence %d", i, role, want)
		}
	}
}

// TestRueidisClientSideCaching: rueidis's client-side caching (on by
// default) works against the server's CLIENT TRACKING, on one shard and
// on a cluster: a cached read is served from the cache, and a write by
// another client invalidates it.
func TestRueidisClientSideCaching(t *testing.T) {
	for _, shards := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d shards", shards), func(t *testing.T) {
			s := testserver.Start(t, testserver.Shards(shards))
			opt := rueidis.ClientOption{InitAddress: []string{s.Addr()}}
			opt.Dialer.Timeout = clientsTimeout
			opt.ConnWriteTimeout = clientsTimeout
			c, err := rueidis.NewClient(opt)
			if err != nil {
				t.Fatalf("rueidis.NewClient: %v", err)
			}
			t.Cleanup(c.Close)
			writer := s.UniversalClient(t)
			cachedGet := func(key string) (string, bool) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), clientsTimeout)
				defer cancel()
				r := c.DoCache(ctx, c.B().Get().Key(key).Cache(), time.Minute)
				v, err := r.ToString()
				if err != nil {
					t.Fatalf("cached GET %s: %v", key, err)
				}
				return v, r.IsCacheHit()
			}
			for i := 0; i < 8; i++ {
				key := fmt.Sprintf("cached:%d", i)
				ctx, cancel := context.WithTimeout(context.Background(), clientsTimeout)
				err := writer.Set(ctx, key, "v1", 0).Err()
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				if v, hit := cachedGet(key); v != "v1" || hit {
					t.Fatalf("first cached GET %s: %q hit=%v", key, v, hit)
				}
				if v, hit := cachedGet(key); v != "v1" || !hit {
					t.Fatalf("second cached GET %s: %q hit=%v, want a cache hit", key, v, hit)
				}
				ctx, cancel = context.WithTimeout(context.Background(), clientsTimeout)
				err = writer.Set(ctx, key, "v2", 0).Err()
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				deadline := time.Now().Add(10 * time.Second)
				for {
					v, _ := cachedGet(key)
					if v == "v2" {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("cached GET %s still %q 10 s after the write: no invalidation", key, v)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}
