package integration_test

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// waitBlocked waits until INFO reports n blocked clients.
func waitBlocked(t testing.TB, c cmdr, n int) {
	t.Helper()
	want := "blocked_clients:" + strconv.Itoa(n) + "\r\n"
	deadline := time.Now().Add(5 * time.Second)
	for {
		info, _ := c.Do(ctxT(t), "INFO", "clients").Text()
		if strings.Contains(info, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %q in INFO clients, got %q", want, info)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// expectNoReply checks that nothing arrives on rc for d.
func (rc *rawConn) expectNoReply(d time.Duration) {
	rc.t.Helper()
	if s, err := rc.tryRead(d); err == nil || s != "" {
		rc.t.Fatalf("want no reply yet, got %q (%v)", s, err)
	}
}

// TestBlockingPops covers the blocking pops on one shard with exact
// replies: FIFO service, timeouts, pipelining, disconnects, CLIENT
// UNBLOCK, transactions and scripts.
func TestBlockingPops(t *testing.T) {
	t.Parallel()
	t.Run("ring", func(t *testing.T) { blockingPopChecks(t, testserver.Start(t)) })
	// Reactors that run batches inline must leave blocking to the shard.
	t.Run("inline", func(t *testing.T) { blockingPopChecks(t, testserver.Start(t, testserver.Config(inline))) })
}

func blockingPopChecks(t *testing.T, s *testserver.Server) {
	c := s.Client(t)

	t.Run("fifo", func(t *testing.T) {
		var rcs []*rawConn
		for i := 0; i < 3; i++ {
			rc := dialRaw(t, s.Addr())
			rc.send("BLPOP", "fifo", "other", "0")
			waitBlocked(t, c, i+1)
			rcs = append(rcs, rc)
		}
		expect(t, c, int64(3), "RPUSH", "fifo", "a", "b", "c")
		for i, want := range []string{"a", "b", "c"} {
			if got := rcs[i].read(); got != arr(bulk("fifo"), bulk(want)) {
				t.Fatalf("waiter %d: got %q, want %s", i, got, want)
			}
		}
		waitBlocked(t, c, 0)
		expect(t, c, int64(0), "EXISTS", "fifo")
	})

	t.Run("timeout", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		start := time.Now()
		rc.expect("*-1\r\n", "BLPOP", "tmo", "0.25")
		if el := time.Since(start); el < 240*time.Millisecond || el > 2*time.Second {
			t.Fatalf("BLPOP 0.25 returned after %v", el)
		}
		rc.expect("*-1\r\n", "BRPOPLPUSH", "tmo", "dst", "0.01")
		rc.expect("$-1\r\n", "LMOVE", "tmo", "dst", "LEFT", "LEFT")
		rc.expect("*-1\r\n", "BZPOPMIN", "tmo", "0.01")
		rc.expect("*-1\r\n", "BLMPOP", "0.01", "1", "tmo", "LEFT")
		rc.expect("*-1\r\n", "BZMPOP", "0.01", "1", "tmo", "MIN")
		rc.expect("-ERR timeout is negative\r\n", "BLPOP", "tmo", "-1")
		rc.expect("-ERR timeout is negative\r\n", "BLPOP", "tmo", "inf")
		rc.expect("-ERR timeout is not a float or out of range\r\n", "BLPOP", "tmo", "abc")
		rc.expect("-ERR timeout is not a float or out of range\r\n", "BLPOP", "tmo", " 1")
		rc.expect("-ERR timeout is not a float or out of range\r\n", "BZPOPMAX", "tmo", "nan")
		rc.expect("-ERR timeout is not a float or out of range\r\n", "BLMOVE", "tmo", "dst", "LEFT", "RIGHT", "x")
		rc.expect("-ERR syntax error\r\n", "BLMOVE", "tmo", "dst", "UP", "RIGHT", "x")
		rc.expect("-ERR numkeys should be greater than 0\r\n", "BLMPOP", "0", "0", "tmo", "LEFT")
		rc.expect("-ERR syntax error\r\n", "BLMPOP", "x", "1", "tmo", "UP")
		rc.expect("-ERR count should be greater than 0\r\n", "BLMPOP", "0", "1", "tmo", "LEFT", "COUNT", "0")
		rc.expect("-"+errArity("blpop")+"\r\n", "BLPOP", "tmo")
		expect(t, c, "OK", "SET", "str", "v")
		rc.expect("-"+errWrongType+"\r\n", "BLPOP", "tmo", "str", "0")
		rc.expect("-"+errWrongType+"\r\n", "BZPOPMIN", "str", "0")
		// -0.0001 rounds to zero: for ever, as Redis.
		rc.send("BLPOP", "tmo", "-0.0001")
		waitBlocked(t, c, 1)
		if info := value(t, c, "INFO", "clients").(string); !strings.Contains(info, "clients_in_timeout_table:0\r\n") {
			t.Fatalf("a client without deadline in the timeout table: %q", info)
		}
		rc.expectNoReply(300 * time.Millisecond)
		expect(t, c, int64(1), "LPUSH", "tmo", "x")
		if got := rc.read(); got != arr(bulk("tmo"), bulk("x")) {
			t.Fatalf("served after -0.0001: %q", got)
		}
	})

	t.Run("pipelined", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		rc.write(multibulk("PING") + multibulk("BLPOP", "pipe", "0") + multibulk("GET", "pk") + multibulk("INCR", "pn"))
		if got := rc.read(); got != "+PONG\r\n" {
			t.Fatalf("reply before the blocked command: %q", got)
		}
		waitBlocked(t, c, 1)
		rc.expectNoReply(200 * time.Millisecond)
		// Written after the block: the GET behind BLPOP must see it.
		expect(t, c, "OK", "SET", "pk", "later")
		rc.send("INCR", "pn") // a later batch of the blocked client waits too
		rc.expectNoReply(100 * time.Millisecond)
		expect(t, c, int64(1), "RPUSH", "pipe", "v")
		for _, want := range []string{arr(bulk("pipe"), bulk("v")), bulk("later"), ":1\r\n", ":2\r\n"} {
			if got := rc.read(); got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	})

	t.Run("disconnect", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		rc.send("BLPOP", "gone", "0")
		waitBlocked(t, c, 1)
		_ = rc.conn.Close()
		waitBlocked(t, c, 0)
		expect(t, c, int64(1), "RPUSH", "gone", "keep")
		expect(t, c, []interface{}{"keep"}, "LRANGE", "gone", "0", "-1")
	})

	t.Run("client kill", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		id := strings.TrimSuffix(strings.TrimPrefix(rc.do("CLIENT", "ID"), ":"), "\r\n")
		rc.send("BRPOPLPUSH", "killed", "kdst", "0")
		waitBlocked(t, c, 1)
		expect(t, c, int64(1), "CLIENT", "KILL", "ID", id)
		rc.expectClosed(5 * time.Second)
		waitBlocked(t, c, 0)
		expect(t, c, int64(1), "RPUSH", "killed", "keep")
		expect(t, c, int64(1), "LLEN", "killed")
		expect(t, c, int64(0), "EXISTS", "kdst")
	})

	t.Run("client unblock", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		id := strings.TrimSuffix(strings.TrimPrefix(rc.do("CLIENT", "ID"), ":"), "\r\n")
		expect(t, c, int64(0), "CLIENT", "UNBLOCK", id)
		rc.send("BLPOP", "ub", "0")
		waitBlocked(t, c, 1)
		list := value(t, c, "CLIENT", "LIST", "ID", id).(string)
		if !strings.Contains(list, " flags=b ") || !strings.Contains(list, " cmd=blpop ") {
			t.Fatalf("CLIENT LIST of a blocked client: %q", list)
		}
		expect(t, c, int64(1), "CLIENT", "UNBLOCK", id)
		if got := rc.read(); got != "*-1\r\n" {
			t.Fatalf("UNBLOCK TIMEOUT: %q", got)
		}
		expect(t, c, "OK", "CONFIG", "RESETSTAT")
		rc.send("BZPOPMIN", "ub", "100")
		waitBlocked(t, c, 1)
		if info := value(t, c, "INFO", "clients").(string); !strings.Contains(info, "clients_in_timeout_table:1\r\n") {
			t.Fatalf("a client with a deadline not in the timeout table: %q", info)
		}
		expect(t, c, int64(1), "CLIENT", "UNBLOCK", id, "ERROR")
		if got := rc.read(); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
			t.Fatalf("UNBLOCK ERROR: %q", got)
		}
		// Counted as a failed call of the blocked command, as Redis does.
		stats := value(t, c, "INFO", "commandstats").(string) + value(t, c, "INFO", "errorstats").(string)
		if !strings.Contains(stats, "cmdstat_bzpopmin:calls=1,") || !strings.Contains(stats, ",rejected_calls=0,failed_calls=1\r\n") ||
			!strings.Contains(stats, "errorstat_UNBLOCKED:count=1\r\n") {
			t.Fatalf("stats after UNBLOCK ERROR: %q", stats)
		}
		expectErr(t, c, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR", "CLIENT", "UNBLOCK", id, "LATER")
		expect(t, c, int64(0), "CLIENT", "UNBLOCK", "999999")
		rc.expect("+PONG\r\n", "PING")
	})

	t.Run("multi push wakes after exec", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		rc.send("BLPOP", "mq", "0")
		waitBlocked(t, c, 1)
		conn := c.Conn()
		defer conn.Close()
		cmds, err := conn.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
			p.RPush(ctxT(t), "mq", "a")
			p.LPush(ctxT(t), "mq", "b", "c")
			p.LLen(ctxT(t), "mq")
			return nil
		})
		if err != nil || cmds[2].(*redis.IntCmd).Val() != 3 {
			t.Fatalf("EXEC: %v %v", cmds, err)
		}
		if got := rc.read(); got != arr(bulk("mq"), bulk("c")) {
			t.Fatalf("served after EXEC: %q", got)
		}
		expect(t, c, []interface{}{"b", "a"}, "LRANGE", "mq", "0", "-1")
		expect(t, c, int64(1), "DEL", "mq")

		// A push undone in the same transaction wakes nobody.
		rc.send("BLPOP", "mq", "0")
		waitBlocked(t, c, 1)
		if _, err := conn.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
			p.RPush(ctxT(t), "mq", "a")
			p.Del(ctxT(t), "mq")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		rc.expectNoReply(150 * time.Millisecond)
		waitBlocked(t, c, 1)
		expect(t, c, int64(1), "RPUSH", "mq", "z")
		if got := rc.read(); got != arr(bulk("mq"), bulk("z")) {
			t.Fatalf("served later: %q", got)
		}
	})

	t.Run("blocking commands inside multi and scripts", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		rc.expect("+OK\r\n", "MULTI")
		rc.expect("+QUEUED\r\n", "BLPOP", "nothing", "0")
		rc.expect("+QUEUED\r\n", "BLMOVE", "nothing", "d", "LEFT", "LEFT", "0")
		rc.expect("+QUEUED\r\n", "BZPOPMAX", "nothing", "0")
		rc.expect("+QUEUED\r\n", "BLMPOP", "0", "1", "nothing", "LEFT")
		rc.expect("*4\r\n*-1\r\n$-1\r\n*-1\r\n*-1\r\n", "EXEC")
		rc.expect(":1\r\n", "EVAL", "return redis.call('blmpop', 0, 1, KEYS[1], 'LEFT') == false and 1 or 0", "1", "nothing")
		rc.expect(":1\r\n", "EVAL", "return redis.call('bzmpop', 0, 1, KEYS[1], 'MIN') == false and 1 or 0", "1", "nothing")
	})

	t.Run("script push", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		rc.send("BRPOP", "sq", "0")
		waitBlocked(t, c, 1)
		// Inside the script no waiter is served: LLEN sees both.
		expect(t, c, int64(2), "EVAL", "redis.call('rpush', KEYS[1], 'a'); redis.call('rpush', KEYS[1], 'b'); return redis.call('llen', KEYS[1])", "1", "sq")
		if got := rc.read(); got != arr(bulk("sq"), bulk("b")) {
			t.Fatalf("served after the script: %q", got)
		}
		expect(t, c, []interface{}{"a"}, "LRANGE", "sq", "0", "-1")
	})

	t.Run("rechecks the key", func(t *testing.T) {
		r1, r2 := dialRaw(t, s.Addr()), dialRaw(t, s.Addr())
		r1.send("BLPOP", "rk", "0")
		waitBlocked(t, c, 1)
		r2.send("BLPOP", "rk", "0")
		waitBlocked(t, c, 2)
		expect(t, c, int64(1), "RPUSH", "rk", "only")
		if got := r1.read(); got != arr(bulk("rk"), bulk("only")) {
			t.Fatalf("first waiter: %q", got)
		}
		waitBlocked(t, c, 1)
		r2.expectNoReply(100 * time.Millisecond)
		// Another type, expiry, DEL and FLUSHDB keep it waiting.
		expect(t, c, "OK", "SET", "rk", "str")
		expect(t, c, int64(1), "DEL", "rk")
		expect(t, c, int64(1), "ZADD", "rk", "1", "m")
		expect(t, c, int64(1), "DEL", "rk")
		expect(t, c, int64(1), "RPUSH", "rk", "x")
		if got := r2.read(); got != arr(bulk("rk"), bulk("x")) {
			t.Fatalf("second waiter: %q", got)
		}
		r2.send("BLPOP", "rk", "0")
		waitBlocked(t, c, 1)
		expect(t, c, "OK", "SET", "rk", "v", "PX", "1")
		time.Sleep(5 * time.Millisecond)
		expect(t, c, nil, "GET", "rk")
		expect(t, c, "OK", "FLUSHDB")
		r2.expectNoReply(100 * time.Millisecond)
		waitBlocked(t, c, 1)
		expect(t, c, int64(1), "LPUSH", "rk", "y")
		if got := r2.read(); got != arr(bulk("rk"), bulk("y")) {
			t.Fatalf("after FLUSHDB: %q", got)
		}
	})

	t.Run("blmove wrongtype destination", func(t *testing.T) {
		rc := dialRaw(t, s.Addr())
		expect(t, c, "OK", "SET", "wdst", "str")
		rc.send("BLMOVE", "wsrc", "wdst", "RIGHT", "LEFT", "0")
		waitBlocked(t, c, 1)
		expect(t, c, int64(1), "RPUSH", "wsrc", "x")
		if got := rc.read(); got != "-"+errWrongType+"\r\n" {
			t.Fatalf("BLMOVE to a string: %q", got)
		}
		expect(t, c, []interface{}{"x"}, "LRANGE", "wsrc", "0", "-1")
		waitBlocked(t, c, 0)
		// And served when it can be.
		expect(t, c, int64(2), "DEL", "wsrc", "wdst")
		rc.send("BLMOVE", "wsrc", "wdst", "RIGHT", "LEFT", "0")
		waitBlocked(t, c, 1)
		expect(t, c, int64(2), "RPUSH", "wsrc", "p", "q")
		if got := rc.read(); got != bulk("q") {
			t.Fatalf("BLMOVE: %q", got)
		}
		expect(t, c, []interface{}{"q"}, "LRANGE", "wdst", "0", "-1")
		expect(t, c, []interface{}{"p"}, "LRANGE", "wsrc", "0", "-1")
	})

	t.Run("sorted sets and blmpop", func(t *testing.T) {
		for _, proto := range []string{"2", "3"} {
			rc := dialRaw(t, s.Addr())
			rc.send("HELLO", proto)
			rc.read()
			score := func(v string) string {
				if proto == "3" {
					return "," + v + "\r\n"
				}
				return bulk(v)
			}
			null := "*-1\r\n"
			if proto == "3" {
				null = "_\r\n"
			}
			rc.expect(null, "BZPOPMIN", "bz", "0.01")
			rc.send("BZPOPMIN", "bz", "bz2", "0")
			waitBlocked(t, c, 1)
			expect(t, c, int64(2), "ZADD", "bz2", "1.5", "a", "2", "b")
			if got := rc.read(); got != arr(bulk("bz2"), bulk("a"), score("1.5")) {
				t.Fatalf("BZPOPMIN RESP%s: %q", proto, got)
			}
			rc.expect(arr(bulk("bz2"), bulk("b"), score("2")), "BZPOPMAX", "bz", "bz2", "0")
			rc.send("BZMPOP", "0", "2", "bz", "bz2", "MAX", "COUNT", "5")
			waitBlocked(t, c, 1)
			expect(t, c, int64(3), "ZADD", "bz", "1", "x", "2", "y", "3", "z")
			want := arr(bulk("bz"), arr(arr(bulk("z"), score("3")), arr(bulk("y"), score("2")), arr(bulk("x"), score("1"))))
			if got := rc.read(); got != want {
				t.Fatalf("BZMPOP RESP%s: %q", proto, got)
			}
			rc.send("BLMPOP", "0", "2", "l1", "l2", "RIGHT", "COUNT", "2")
			waitBlocked(t, c, 1)
			expect(t, c, int64(3), "RPUSH", "l2", "a", "b", "c")
			if got := rc.read(); got != arr(bulk("l2"), arr(bulk("c"), bulk("b"))) {
				t.Fatalf("BLMPOP RESP%s: %q", proto, got)
			}
			rc.expect(null, "BLPOP", "l1", "0.01")
			expect(t, c, int64(1), "DEL", "l2")
			// A list does not serve a sorted-set waiter, nor the reverse.
			rc.send("BZPOPMIN", "mix", "0")
			waitBlocked(t, c, 1)
			expect(t, c, int64(1), "RPUSH", "mix", "a")
			rc.expectNoReply(100 * time.Millisecond)
			expect(t, c, int64(1), "DEL", "mix")
			expect(t, c, int64(1), "ZADD", "mix", "7", "m")
			if got := rc.read(); got != arr(bulk("mix"), bulk("m"), score("7")) {
				t.Fatalf("BZPOPMIN after a type change RESP%s: %q", proto, got)
			}
		}
	})

	t.Run("tracking", func(t *testing.T) {
		tr := dialRaw(t, s.Addr())
		tr.send("HELLO", "3")
		tr.read()
		tr.expect("+OK\r\n", "CLIENT", "TRACKING", "ON")
		tr.expect("*0\r\n", "LRANGE", "tdst", "0", "-1")
		rc := dialRaw(t, s.Addr())
		rc.send("BLMOVE", "tsrc", "tdst", "LEFT", "LEFT", "0")
		waitBlocked(t, c, 1)
		tr.expectNoReply(100 * time.Millisecond)
		expect(t, c, int64(1), "RPUSH", "tsrc", "x")
		if got := rc.read(); got != bulk("x") {
			t.Fatalf("BLMOVE: %q", got)
		}
		if got := tr.read(); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$4\r\ntdst\r\n" {
			t.Fatalf("invalidation of the destination: %q", got)
		}

		// The blocked client tracks the destination itself: its
		// invalidation follows its reply.
		tr.expect("*1\r\n$1\r\nx\r\n", "LRANGE", "tdst", "0", "-1")
		tr.send("BLMOVE", "tsrc", "tdst", "LEFT", "LEFT", "0")
		waitBlocked(t, c, 1)
		expect(t, c, int64(1), "RPUSH", "tsrc", "y")
		if got := tr.read(); got != bulk("y") {
			t.Fatalf("tracking BLMOVE: %q", got)
		}
		if got := tr.read(); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$4\r\ntdst\r\n" {
			t.Fatalf("own invalidation after the reply: %q", got)
		}
	})

	t.Run("notifications", func(t *testing.T) {
		expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "KEA")
		defer c.Do(ctxT(t), "CONFIG", "SET", "notify-keyspace-events", "")
		sub := c.PSubscribe(ctxT(t), "__keyevent@0__:*")
		defer sub.Close()
		if _, err := sub.Receive(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		rc := dialRaw(t, s.Addr())
		rc.send("BLPOP", "nk", "0")
		waitBlocked(t, c, 1)
		expect(t, c, int64(1), "RPUSH", "nk", "v")
		rc.read()
		var got []string
		for len(got) < 3 {
			m, err := sub.ReceiveMessage(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, strings.TrimPrefix(m.Channel, "__keyevent@0__:")+" "+m.Payload)
		}
		// Exactly the events of RPUSH then LPOP ("new" needs the n class).
		want := []string{"rpush nk", "lpop nk", "del nk"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
	})
}

// TestBlockingCluster checks the one-slot rule and service through a
// cluster client on four shards, and CLIENT UNBLOCK across shards.
func TestBlockingCluster(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(4))
	cc := s.ClusterClient(t)
	for _, args := range [][]interface{}{
		{"BLPOP", "{a}1", "{b}2", "0"},
		{"BLMOVE", "{a}1", "{b}2", "LEFT", "LEFT", "0"},
		{"BRPOPLPUSH", "{a}1", "{b}2", "0"},
		{"BLMPOP", "0", "2", "{a}1", "{b}2", "LEFT"},
		{"BZPOPMIN", "{a}1", "{b}2", "0"},
		{"BZMPOP", "0", "2", "{a}1", "{b}2", "MIN"},
	} {
		for i := range s.Addrs {
			c := s.ClientOf(t, i)
			err := c.Do(ctxT(t), args...).Err()
			if err == nil || err.Error() != "CROSSSLOT Keys in request don't hash to the same slot" {
				t.Fatalf("%v on shard %d: %v", args, i, err)
			}
		}
	}
	done := make(chan []string, 1)
	go func() {
		v, err := cc.BLPop(ctxT(t), 0, "{q}a", "{q}b").Result()
		if err != nil {
			v = []string{err.Error()}
		}
		done <- v
	}()
	_, sh := ownerOf(t, redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: 3, DisableIdentity: true})), "{q}a")
	owner := int(sh)
	oc := s.ClientOf(t, owner)
	waitBlocked(t, oc, 1)
	if n := cc.RPush(ctxT(t), "{q}b", "x").Val(); n != 1 {
		t.Fatalf("RPUSH: %d", n)
	}
	if v := <-done; !reflect.DeepEqual(v, []string{"{q}b", "x"}) {
		t.Fatalf("BLPOP: %v", v)
	}
	// CLIENT UNBLOCK sent to another shard than the blocked client's.
	rc := dialRaw(t, s.Addrs[owner])
	id := strings.TrimSuffix(strings.TrimPrefix(rc.do("CLIENT", "ID"), ":"), "\r\n")
	rc.send("BZPOPMAX", "{q}z", "0")
	waitBlocked(t, oc, 1)
	other := s.ClientOf(t, (owner+1)%4)
	expect(t, other, int64(1), "CLIENT", "UNBLOCK", id, "ERROR")
	if got := rc.read(); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("cross-shard UNBLOCK: %q", got)
	}
	waitBlocked(t, oc, 0)
}

// TestBlockingQueuePattern runs the reliable-queue pattern of job
// libraries: workers move jobs from a wait list to an active list with
// BLMOVE / BRPOPLPUSH while producers LPUSH; no job is lost or delivered
// twice.
func TestBlockingQueuePattern(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	const producers, workers, perProducer = 20, 5, 200
	var seenMu sync.Mutex
	seen := make(map[string]int)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, producers+workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: s.Addr(), DisableIdentity: true, MaxRetries: -1, ReadTimeout: 10 * time.Second})
			defer c.Close()
			for {
				var job string
				var err error
				// Sub-second timeouts, as job libraries use them.
				if w%2 == 0 {
					job, err = c.Do(ctxT(t), "BLMOVE", "q:wait", "q:active", "RIGHT", "LEFT", "0.1").Text()
				} else {
					job, err = c.Do(ctxT(t), "BRPOPLPUSH", "q:wait", "q:active", "0.1").Text()
				}
				if errors.Is(err, redis.Nil) {
					select {
					case <-stop:
						return
					default:
						continue
					}
				}
				if err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
					return
				}
				seenMu.Lock()
				seen[job]++
				seenMu.Unlock()
				if n, err := c.LRem(ctxT(t), "q:active", 1, job).Result(); err != nil || n != 1 {
					errs <- fmt.Errorf("worker %d: LREM %s: %d %v", w, job, n, err)
					return
				}
			}
		}(w)
	}
	var pwg sync.WaitGroup
	for p := 0; p < producers; p++ {
		pwg.Add(1)
		go func(p int) {
			defer pwg.Done()
			c := redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), DisableIdentity: true, MaxRetries: -1}))
			defer c.Close()
			for i := 0; i < perProducer; i++ {
				if err := c.LPush(ctxT(t), "q:wait", fmt.Sprintf("job:%d:%d", p, i)).Err(); err != nil {
					errs <- err
					return
				}
			}
		}(p)
	}
	pwg.Wait()
	c := s.Client(t)
	for deadline := time.Now().Add(30 * time.Second); ; {
		n, _ := c.LLen(ctxT(t), "q:wait").Result()
		a, _ := c.LLen(ctxT(t), "q:active").Result()
		if n == 0 && a == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs left: wait %d active %d", n, a)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != producers*perProducer {
		t.Fatalf("%d distinct jobs delivered, want %d", len(seen), producers*perProducer)
	}
	for job, n := range seen {
		if n != 1 {
			t.Fatalf("job %s delivered %d times", job, n)
		}
	}
}

// TestBlockingCrash: with fsync = always, a pop served to a blocked
// client is in the log before the client sees it, and its records replay
// without any knowledge of blocking.
func TestBlockingCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	dir := t.TempDir()
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
	c := p.Client(t, 0)
	type res struct {
		v   []string
		err error
	}
	popped := make(chan res, 1)
	moved := make(chan res, 1)
	b1 := p.Client(t, 0)
	b2 := p.Client(t, 0)
	go func() {
		v, err := b1.BLPop(ctxT(t), 0, "cq").Result()
		popped <- res{v, err}
	}()
	waitBlocked(t, c, 1)
	go func() {
		v, err := b2.BLMove(ctxT(t), "cm", "cdst", "LEFT", "RIGHT", 0).Result()
		moved <- res{[]string{v}, err}
	}()
	waitBlocked(t, c, 2)
	if err := c.RPush(ctxT(t), "cq", "a", "b").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.RPush(ctxT(t), "cm", "m1", "m2").Err(); err != nil {
		t.Fatal(err)
	}
	if r := <-popped; r.err != nil || !reflect.DeepEqual(r.v, []string{"cq", "a"}) {
		t.Fatalf("BLPOP: %v %v", r.v, r.err)
	}
	if r := <-moved; r.err != nil || r.v[0] != "m1" {
		t.Fatalf("BLMOVE: %v %v", r.v, r.err)
	}
	p.Kill(t)
	p2 := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
	c2 := p2.Client(t, 0)
	expect(t, c2, []interface{}{"b"}, "LRANGE", "cq", "0", "-1")
	expect(t, c2, []interface{}{"m2"}, "LRANGE", "cm", "0", "-1")
	expect(t, c2, []interface{}{"m1"}, "LRANGE", "cdst", "0", "-1")
}
