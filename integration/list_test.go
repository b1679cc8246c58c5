package integration_test

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestLists runs the non-blocking list commands through go-redis over
// RESP2 and RESP3, on one shard and, through the cluster client, on four.
func TestLists(t *testing.T) {
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
				listChecks(t, c, "{l"+strconv.Itoa(proto)+"}:")
			})
		}
	}
}

func listChecks(t *testing.T, c redis.UniversalClient, p string) {
	l, d := p+"l", p+"d"
	if n, err := c.RPush(ctxT(t), l, "a", "b", "c").Result(); err != nil || n != 3 {
		t.Fatalf("RPUSH: %d %v", n, err)
	}
	if n, err := c.LPush(ctxT(t), l, "z").Result(); err != nil || n != 4 {
		t.Fatalf("LPUSH: %d %v", n, err)
	}
	if got, err := c.LRange(ctxT(t), l, 0, -1).Result(); err != nil || !reflect.DeepEqual(got, []string{"z", "a", "b", "c"}) {
		t.Fatalf("LRANGE: %v %v", got, err)
	}
	if got, err := c.LPopCount(ctxT(t), l, 2).Result(); err != nil || !reflect.DeepEqual(got, []string{"z", "a"}) {
		t.Fatalf("LPOP 2: %v %v", got, err)
	}
	if _, err := c.LPopCount(ctxT(t), p+"missing", 2).Result(); err != redis.Nil {
		t.Fatalf("LPOP count on a missing key: %v", err)
	}
	if got, err := c.LMove(ctxT(t), l, d, "RIGHT", "LEFT").Result(); err != nil || got != "c" {
		t.Fatalf("LMOVE: %q %v", got, err)
	}
	if pos, err := c.LPos(ctxT(t), l, "b", redis.LPosArgs{}).Result(); err != nil || pos != 0 {
		t.Fatalf("LPOS: %d %v", pos, err)
	}
	key, vals, err := c.LMPop(ctxT(t), "left", 5, p+"none", l).Result()
	if err != nil || key != l || !reflect.DeepEqual(vals, []string{"b"}) {
		t.Fatalf("LMPOP: %q %v %v", key, vals, err)
	}
	if n, err := c.Exists(ctxT(t), l).Result(); err != nil || n != 0 {
		t.Fatalf("emptied list exists: %d %v", n, err)
	}
	if err := c.LSet(ctxT(t), l, 0, "x").Err(); err == nil || err.Error() != "ERR no such key" {
		t.Fatalf("LSET missing: %v", err)
	}
	if n, err := c.LInsertBefore(ctxT(t), d, "c", "b").Result(); err != nil || n != 2 {
		t.Fatalf("LINSERT: %d %v", n, err)
	}
	if n, err := c.LLen(ctxT(t), d).Result(); err != nil || n != 2 {
		t.Fatalf("LLEN: %d %v", n, err)
	}
	if err := c.HSet(ctxT(t), p+"h", "f", "v").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(ctxT(t), p+"h", "a").Err(); err == nil || err.Error() != "WRONGTYPE Operation against a key holding the wrong kind of value" {
		t.Fatalf("LPUSH on a hash: %v", err)
	}
}
