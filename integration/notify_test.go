package integration_test

import (
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// readEvents reads n pmessage frames and returns "channel message" lines.
func readEvents(t *testing.T, rc *rawConn, n int) []string {
	t.Helper()
	var out []string
	for range n {
		r := rc.read()
		parts := splitBulks(r)
		if len(parts) != 4 || parts[0] != "pmessage" {
			t.Fatalf("not a pmessage: %q", r)
		}
		out = append(out, parts[2]+" "+parts[3])
	}
	return out
}

// splitBulks returns the bulk strings of a flat RESP2 array reply.
func splitBulks(r string) []string {
	var out []string
	for i := 0; i < len(r); {
		j := i
		for j < len(r) && r[j] != '\n' {
			j++
		}
		line := r[i : j-1]
		i = j + 1
		if len(line) > 0 && line[0] == '$' {
			k := i
			for k < len(r) && r[k] != '\r' {
				k++
			}
			out = append(out, r[i:k])
			i = k + 2
		}
	}
	return out
}

func TestKeyspaceNotifications(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, map[interface{}]interface{}{"notify-keyspace-events": ""}, "CONFIG", "GET", "notify-keyspace-events")
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "KEA")
	expect(t, c, map[interface{}]interface{}{"notify-keyspace-events": "AKE"}, "CONFIG", "GET", "notify-keyspace-events")
	sub := dialRaw(t, s.Addr())
	sub.send("PSUBSCRIBE", "__key*__:*")
	sub.read()
	expect(t, c, "OK", "SET", "foo", "bar")
	expect(t, c, int64(1), "INCR", "n")
	expect(t, c, int64(1), "EXPIRE", "foo", "100")
	expect(t, c, int64(1), "DEL", "foo")
	want := []string{
		"__keyspace@0__:foo set", "__keyevent@0__:set foo",
		"__keyspace@0__:n incrby", "__keyevent@0__:incrby n",
		"__keyspace@0__:foo expire", "__keyevent@0__:expire foo",
		"__keyspace@0__:foo del", "__keyevent@0__:del foo",
	}
	got := readEvents(t, sub, len(want))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %q, want %q (all: %q)", i, got[i], want[i], got)
		}
	}
	// Expired keys are announced by the shard that deletes them.
	expect(t, c, "OK", "SET", "tmp", "v", "PX", "1")
	readEvents(t, sub, 4) // set, expire
	time.Sleep(20 * time.Millisecond)
	expect(t, c, nil, "GET", "tmp")
	if got := readEvents(t, sub, 2); got[0] != "__keyspace@0__:tmp expired" || got[1] != "__keyevent@0__:expired tmp" {
		t.Fatalf("got %q", got)
	}
	// Only the classes asked for: E and $ (strings).
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "E$")
	expect(t, c, int64(1), "DEL", "n")
	expect(t, c, "OK", "SET", "a", "1")
	if got := readEvents(t, sub, 1); got[0] != "__keyevent@0__:set a" {
		t.Fatalf("got %q", got)
	}
	// New keys and misses.
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "Enm")
	expect(t, c, nil, "GET", "missing")
	expect(t, c, "OK", "SET", "b", "1")
	expect(t, c, "OK", "SET", "b", "2")
	if got := readEvents(t, sub, 2); got[0] != "__keyevent@0__:keymiss missing" || got[1] != "__keyevent@0__:new b" {
		t.Fatalf("got %q", got)
	}
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "")
	expect(t, c, "OK", "SET", "c", "1")
	if r, err := sub.tryRead(100 * time.Millisecond); err == nil {
		t.Fatalf("event with notifications off: %q", r)
	}
}

// notifySub turns on every event class and returns a connection subscribed
// to all keyevent channels of database 0.
func notifySub(t *testing.T, s *testserver.Server, c cmdr) *rawConn {
	t.Helper()
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "KEA")
	sub := dialRaw(t, s.Addr())
	sub.send("PSUBSCRIBE", "__keyevent@0__:*")
	sub.read()
	return sub
}

// expectEvents reads len(want) keyevent messages and compares them in order.
func expectEvents(t *testing.T, sub *rawConn, want ...string) {
	t.Helper()
	got := readEvents(t, sub, len(want))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %q, want %q (all: %q)", i, got[i], want[i], got)
		}
	}
}

func TestKeyspaceNotificationsList(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	sub := notifySub(t, s, c)
	expect(t, c, int64(2), "LPUSH", "l", "a", "b")
	expect(t, c, int64(3), "RPUSH", "l", "c")
	expect(t, c, int64(-1), "LINSERT", "l", "BEFORE", "zz", "x") // no change, no event
	expect(t, c, int64(4), "LINSERT", "l", "BEFORE", "a", "x")
	expect(t, c, "OK", "LSET", "l", "0", "y")
	expect(t, c, int64(0), "LREM", "l", "0", "nope")
	expect(t, c, int64(1), "LREM", "l", "0", "y")
	expect(t, c, "c", "RPOPLPUSH", "l", "m")
	expect(t, c, "OK", "LTRIM", "l", "0", "0")
	expect(t, c, "x", "LMOVE", "l", "m", "LEFT", "RIGHT")
	expect(t, c, "c", "LPOP", "m")
	expect(t, c, []interface{}{"x"}, "RPOP", "m", "5")
	expectEvents(t, sub,
		"__keyevent@0__:lpush l", "__keyevent@0__:rpush l",
		"__keyevent@0__:linsert l", "__keyevent@0__:lset l", "__keyevent@0__:lrem l",
		"__keyevent@0__:lpush m", "__keyevent@0__:rpop l",
		"__keyevent@0__:ltrim l",
		"__keyevent@0__:rpush m", "__keyevent@0__:lpop l", "__keyevent@0__:del l",
		"__keyevent@0__:lpop m", "__keyevent@0__:rpop m", "__keyevent@0__:del m",
	)
}

func TestKeyspaceNotificationsHash(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	sub := notifySub(t, s, c)
	expect(t, c, int64(2), "HSET", "h", "a", "1", "b", "2")
	expect(t, c, int64(3), "HINCRBY", "h", "a", "2")
	expect(t, c, "1.5", "HINCRBYFLOAT", "h", "c", "1.5")
	expect(t, c, int64(0), "HDEL", "h", "nope")
	expect(t, c, int64(2), "HDEL", "h", "a", "b")
	expect(t, c, int64(1), "HDEL", "h", "c")
	expectEvents(t, sub,
		"__keyevent@0__:hset h", "__keyevent@0__:hincrby h", "__keyevent@0__:hincrbyfloat h",
		"__keyevent@0__:hdel h", "__keyevent@0__:hdel h", "__keyevent@0__:del h",
	)
}

func TestKeyspaceNotificationsSet(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	sub := notifySub(t, s, c)
	expect(t, c, int64(3), "SADD", "s", "a", "b", "c")
	expect(t, c, int64(0), "SADD", "s", "a") // no change, no event
	expect(t, c, int64(0), "SREM", "s", "nope")
	expect(t, c, int64(1), "SREM", "s", "a")
	expect(t, c, int64(1), "SMOVE", "s", "t", "b")
	expect(t, c, int64(1), "SINTERSTORE", "u", "s", "s")
	expect(t, c, int64(2), "SUNIONSTORE", "u", "s", "t")
	expect(t, c, int64(0), "SDIFFSTORE", "u", "s", "s")
	expect(t, c, "b", "SPOP", "t")
	expect(t, c, []interface{}{"c"}, "SPOP", "s", "5")
	expectEvents(t, sub,
		"__keyevent@0__:sadd s", "__keyevent@0__:srem s",
		"__keyevent@0__:srem s", "__keyevent@0__:sadd t",
		"__keyevent@0__:sinterstore u", "__keyevent@0__:sunionstore u", "__keyevent@0__:del u",
		"__keyevent@0__:spop t", "__keyevent@0__:del t",
		"__keyevent@0__:spop s", "__keyevent@0__:del s",
	)
}

func TestKeyspaceNotificationsZset(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	sub := notifySub(t, s, c)
	expect(t, c, int64(4), "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d")
	expect(t, c, int64(0), "ZADD", "z", "1", "a") // no change, no event
	expect(t, c, float64(5), "ZINCRBY", "z", "4", "a")
	expect(t, c, float64(6), "ZADD", "z", "INCR", "1", "a")
	expect(t, c, int64(0), "ZREM", "z", "nope")
	expect(t, c, int64(1), "ZREM", "z", "d")
	expect(t, c, int64(3), "ZUNIONSTORE", "u", "1", "z")
	expect(t, c, int64(3), "ZINTERSTORE", "u", "1", "u")
	expect(t, c, int64(0), "ZDIFFSTORE", "u", "2", "u", "u")
	expect(t, c, int64(1), "ZRANGESTORE", "r", "z", "0", "0")
	expect(t, c, int64(0), "ZREMRANGEBYSCORE", "z", "100", "200")
	expect(t, c, int64(1), "ZREMRANGEBYRANK", "z", "0", "0")
	expect(t, c, int64(1), "ZREMRANGEBYLEX", "r", "-", "+")
	expect(t, c, int64(2), "ZREMRANGEBYSCORE", "z", "3", "6")
	expect(t, c, int64(2), "ZADD", "z", "1", "a", "2", "b")
	expect(t, c, []interface{}{"b", float64(2)}, "ZPOPMAX", "z")
	expect(t, c, []interface{}{"a", float64(1)}, "ZPOPMIN", "z")
	expectEvents(t, sub,
		"__keyevent@0__:zadd z", "__keyevent@0__:zincr z", "__keyevent@0__:zincr z",
		"__keyevent@0__:zrem z",
		"__keyevent@0__:zunionstore u", "__keyevent@0__:zinterstore u", "__keyevent@0__:del u",
		"__keyevent@0__:zrangestore r",
		"__keyevent@0__:zremrangebyrank z",
		"__keyevent@0__:zremrangebylex r", "__keyevent@0__:del r",
		"__keyevent@0__:zremrangebyscore z", "__keyevent@0__:del z",
		"__keyevent@0__:zadd z", "__keyevent@0__:zpopmax z",
		"__keyevent@0__:zpopmin z", "__keyevent@0__:del z",
	)
}
