package integration_test

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestHashes runs the hash family through go-redis over RESP2 and RESP3,
// on one shard and, through the cluster client, on four.
func TestHashes(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 4} {
		s := testserver.Start(t, testserver.Shards(shards))
		for _, proto := range []int{2, 3} {
			t.Run("shards"+strconv.Itoa(shards)+"/resp"+strconv.Itoa(proto), func(t *testing.T) {
				var c redis.UniversalClient
				if shards == 1 {
					c = redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: proto, MaxRetries: -1, DisableIdentity: true}))
				} else {
					c = redis.NewClusterClient(clusterTimeouts(&redis.ClusterOptions{Addrs: []string{s.Addr()}, Protocol: proto, MaxRetries: -1, DisableIdentity: true}))
				}
				t.Cleanup(func() { _ = c.Close() })
				hashChecks(t, c, "h"+strconv.Itoa(proto)+":")
			})
		}
	}
}

func hashChecks(t *testing.T, c redis.UniversalClient, p string) {
	h := p + "h"
	if n, err := c.HSet(ctxT(t), h, "a", "1", "b", "2", "c", "3").Result(); err != nil || n != 3 {
		t.Fatalf("HSET: %d %v", n, err)
	}
	if got, err := c.HGetAll(ctxT(t), h).Result(); err != nil || !reflect.DeepEqual(got, map[string]string{"a": "1", "b": "2", "c": "3"}) {
		t.Fatalf("HGETALL: %v %v", got, err)
	}
	if got, err := c.HKeys(ctxT(t), h).Result(); err != nil || !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("HKEYS: %v %v", got, err)
	}
	if got, err := c.HVals(ctxT(t), h).Result(); err != nil || !reflect.DeepEqual(got, []string{"1", "2", "3"}) {
		t.Fatalf("HVALS: %v %v", got, err)
	}
	if got, err := c.HMGet(ctxT(t), h, "a", "zz").Result(); err != nil || !reflect.DeepEqual(got, []interface{}{"1", nil}) {
		t.Fatalf("HMGET: %#v %v", got, err)
	}
	if _, err := c.HGet(ctxT(t), h, "zz").Result(); err != redis.Nil {
		t.Fatalf("HGET missing field: %v", err)
	}
	if ok, err := c.HSetNX(ctxT(t), h, "a", "x").Result(); err != nil || ok {
		t.Fatalf("HSETNX existing: %v %v", ok, err)
	}
	if n, err := c.HIncrBy(ctxT(t), h, "a", 41).Result(); err != nil || n != 42 {
		t.Fatalf("HINCRBY: %d %v", n, err)
	}
	if f, err := c.HIncrByFloat(ctxT(t), h, "b", 0.5).Result(); err != nil || f != 2.5 {
		t.Fatalf("HINCRBYFLOAT: %v %v", f, err)
	}
	if err := c.HIncrBy(ctxT(t), h, "zz", 1).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.HIncrBy(ctxT(t), h, "b", 1).Result(); err == nil || err.Error() != "ERR hash value is not an integer" {
		t.Fatalf("HINCRBY on a float: %v", err)
	}
	if n, err := c.HLen(ctxT(t), h).Result(); err != nil || n != 4 {
		t.Fatalf("HLEN: %d %v", n, err)
	}
	if n, err := c.HStrLen(ctxT(t), h, "b").Result(); err != nil || n != 3 {
		t.Fatalf("HSTRLEN: %d %v", n, err)
	}
	if ok, err := c.HExists(ctxT(t), h, "c").Result(); err != nil || !ok {
		t.Fatalf("HEXISTS: %v %v", ok, err)
	}
	if got, err := c.HRandFieldWithValues(ctxT(t), h, 2).Result(); err != nil || len(got) != 2 {
		t.Fatalf("HRANDFIELD WITHVALUES: %v %v", got, err)
	}
	if got, err := c.HRandField(ctxT(t), h, -6).Result(); err != nil || len(got) != 6 {
		t.Fatalf("HRANDFIELD -6: %v %v", got, err)
	}
	keys, cur, err := c.HScan(ctxT(t), h, 0, "*", 10).Result()
	if err != nil || cur != 0 || len(keys) != 8 {
		t.Fatalf("HSCAN: %v %d %v", keys, cur, err)
	}
	if n, err := c.HDel(ctxT(t), h, "a", "b", "c", "zz", "nope").Result(); err != nil || n != 4 {
		t.Fatalf("HDEL: %d %v", n, err)
	}
	if n, err := c.Exists(ctxT(t), h).Result(); err != nil || n != 0 {
		t.Fatalf("emptied hash exists: %d %v", n, err)
	}
	s := p + "s"
	if err := c.Set(ctxT(t), s, "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.HSet(ctxT(t), s, "a", "1").Err(); err == nil || err.Error() != "WRONGTYPE Operation against a key holding the wrong kind of value" {
		t.Fatalf("HSET on a string: %v", err)
	}
	if err := c.Do(ctxT(t), "HSET", h, "a").Err(); err == nil || err.Error() != "ERR wrong number of arguments for 'hset' command" {
		t.Fatalf("HSET arity: %v", err)
	}
}
