package integration_test

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// The sorted set family through go-redis on one shard and four shards,
// raw RESP2/RESP3 replies, and restarts from the WAL and a snapshot.

// pairs builds the RESP3 (go-redis) form of member/score pairs.
func pairs(kv ...interface{}) []interface{} {
	out := make([]interface{}, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, []interface{}{kv[i], kv[i+1]})
	}
	return out
}

func TestZSetCommands(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		// ZADD and its options.
		expect(t, c, int64(3), "ZADD", "{z}a", 1, "a", 2, "b", 3, "c")
		expect(t, c, "listpack", "OBJECT", "ENCODING", "{z}a")
		expect(t, c, "zset", "TYPE", "{z}a")
		expect(t, c, int64(0), "ZADD", "{z}a", 5, "a")
		expect(t, c, int64(1), "ZADD", "{z}a", "CH", 1, "a")
		expect(t, c, int64(0), "ZADD", "{z}a", "NX", 9, "a")
		expect(t, c, int64(0), "ZADD", "{z}a", "XX", 9, "new")
		expect(t, c, int64(1), "ZADD", "{z}a", "GT", "CH", 2, "a", 0, "b")
		expect(t, c, float64(2), "ZSCORE", "{z}a", "a")
		expect(t, c, float64(2), "ZSCORE", "{z}a", "b")
		expect(t, c, 4.5, "ZADD", "{z}a", "INCR", 2.5, "a")
		expect(t, c, nil, "ZADD", "{z}a", "LT", "INCR", 1, "a")
		expect(t, c, int64(0), "ZADD", "{z}none", "XX", 1, "a")
		expect(t, c, int64(0), "EXISTS", "{z}none")
		expectErr(t, c, errArity("zadd"), "ZADD", "{z}a", 1)
		expectErr(t, c, errSyntax, "ZADD", "{z}a", 1, "a", 2)
		expectErr(t, c, errSyntax, "ZADD", "{z}a", "NX", "XX")
		expectErr(t, c, "ERR value is not a valid float", "ZADD", "{z}a", "x", "a")
		expectErr(t, c, "ERR value is not a valid float", "ZADD", "{z}a", "nan", "a")
		expectErr(t, c, "ERR XX and NX options at the same time are not compatible", "ZADD", "{z}a", "NX", "XX", 1, "a")
		expectErr(t, c, "ERR GT, LT, and/or NX options at the same time are not compatible", "ZADD", "{z}a", "GT", "LT", 1, "a")
		expectErr(t, c, "ERR INCR option supports a single increment-element pair", "ZADD", "{z}a", "INCR", 1, "a", 2, "b")
		expect(t, c, math.Inf(1), "ZINCRBY", "{z}i", "+inf", "m")
		expectErr(t, c, "ERR resulting score is not a number (NaN)", "ZINCRBY", "{z}i", "-inf", "m")
		expect(t, c, 0.1, "ZINCRBY", "{z}f", 0.1, "m")
		expect(t, c, math.Inf(-1), "ZINCRBY", "{z}n", "-inf", "m")
		expectErr(t, c, errArity("zincrby"), "ZINCRBY", "{z}a", 1)

		// Reads.
		expect(t, c, int64(3), "ZCARD", "{z}a")
		expect(t, c, int64(0), "ZCARD", "{z}none")
		expect(t, c, nil, "ZSCORE", "{z}a", "zz")
		expect(t, c, []interface{}{4.5, nil}, "ZMSCORE", "{z}a", "a", "zz")
		expect(t, c, int64(0), "ZRANK", "{z}a", "b")
		expect(t, c, int64(2), "ZREVRANK", "{z}a", "b")
		expect(t, c, nil, "ZRANK", "{z}a", "zz")
		expect(t, c, int64(2), "ZCOUNT", "{z}a", "(2", "+inf")
		expectErr(t, c, "ERR min or max is not a float", "ZCOUNT", "{z}a", "x", 1)
		expect(t, c, int64(3), "ZADD", "{z}l", 0, "a", 0, "b", 0, "c")
		expect(t, c, int64(2), "ZLEXCOUNT", "{z}l", "(a", "+")
		expectErr(t, c, "ERR min or max not valid string range item", "ZLEXCOUNT", "{z}l", "a", "+")

		// Ranges.
		expect(t, c, []interface{}{"b", "c", "a"}, "ZRANGE", "{z}a", 0, -1)
		expect(t, c, pairs("a", 4.5, "c", 3.0), "ZRANGE", "{z}a", 0, 1, "REV", "WITHSCORES")
		expect(t, c, []interface{}{"c", "a"}, "ZRANGE", "{z}a", "(2", "+inf", "BYSCORE")
		expect(t, c, []interface{}{"c"}, "ZRANGE", "{z}a", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", 1, 1)
		expect(t, c, []interface{}{"c", "b"}, "ZRANGE", "{z}l", "[c", "-", "BYLEX", "REV", "LIMIT", 0, 2)
		expectErr(t, c, "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX", "ZRANGE", "{z}a", 0, 1, "LIMIT", 0, 1)
		expectErr(t, c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX", "ZRANGE", "{z}l", "-", "+", "BYLEX", "WITHSCORES")
		expectErr(t, c, errSyntax, "ZRANGE", "{z}a", 0, 1, "BOGUS")
		expectErr(t, c, errNotInt, "ZRANGE", "{z}a", "x", 1)
		expect(t, c, []interface{}{}, "ZRANGE", "{z}none", 0, -1)
		expect(t, c, []interface{}{"a", "c"}, "ZREVRANGE", "{z}a", 0, 1)
		expect(t, c, pairs("b", 2.0, "c", 3.0), "ZRANGEBYSCORE", "{z}a", "-inf", 3, "WITHSCORES")
		expect(t, c, []interface{}{"a", "c"}, "ZREVRANGEBYSCORE", "{z}a", "+inf", "(2")
		expect(t, c, []interface{}{"b", "c"}, "ZRANGEBYLEX", "{z}l", "(a", "+")
		expect(t, c, []interface{}{"b", "a"}, "ZREVRANGEBYLEX", "{z}l", "(c", "-")
		expectErr(t, c, errSyntax, "ZREVRANGE", "{z}a", 0, 1, "REV")
		expect(t, c, int64(2), "ZRANGESTORE", "{z}d", "{z}a", 0, 1)
		expect(t, c, pairs("b", 2.0, "c", 3.0), "ZRANGE", "{z}d", 0, -1, "WITHSCORES")
		expect(t, c, int64(0), "ZRANGESTORE", "{z}d", "{z}a", 5, 6)
		expect(t, c, int64(0), "EXISTS", "{z}d")
		expectErr(t, c, errSyntax, "ZRANGESTORE", "{z}d", "{z}a", 0, 1, "WITHSCORES")

		// Removals.
		expect(t, c, int64(5), "ZADD", "{z}r", 1, "a", 2, "b", 3, "c", 4, "d", 5, "e")
		expect(t, c, int64(2), "ZREM", "{z}r", "a", "b", "zz")
		expect(t, c, int64(1), "ZREMRANGEBYRANK", "{z}r", 0, 0)
		expect(t, c, int64(1), "ZREMRANGEBYSCORE", "{z}r", "(4", "+inf")
		expect(t, c, int64(1), "ZREMRANGEBYLEX", "{z}r", "-", "+")
		expect(t, c, int64(0), "EXISTS", "{z}r")
		expect(t, c, int64(0), "ZREMRANGEBYRANK", "{z}r", 0, -1)

		// Pops.
		expect(t, c, int64(3), "ZADD", "{z}p", 1, "a", 2, "b", 3, "c")
		expect(t, c, []interface{}{"a", 1.0}, "ZPOPMIN", "{z}p")
		expect(t, c, pairs("c", 3.0), "ZPOPMAX", "{z}p", 1)
		expect(t, c, []interface{}{}, "ZPOPMIN", "{z}p", 0)
		expect(t, c, []interface{}{}, "ZPOPMIN", "{z}none")
		expectErr(t, c, "ERR value is out of range, must be positive", "ZPOPMIN", "{z}p", -1)
		expectErr(t, c, errSyntax, "ZPOPMIN", "{z}p", 1, 2)
		expect(t, c, []interface{}{"{z}p", pairs("b", 2.0)}, "ZMPOP", 2, "{z}none", "{z}p", "MIN", "COUNT", 10)
		expect(t, c, int64(0), "EXISTS", "{z}p")
		expect(t, c, nil, "ZMPOP", 1, "{z}p", "MAX")
		expectErr(t, c, "ERR numkeys should be greater than 0", "ZMPOP", 0, "{z}p", "MIN")
		expectErr(t, c, "ERR count should be greater than 0", "ZMPOP", 1, "{z}p", "MIN", "COUNT", 0)
		expectErr(t, c, errSyntax, "ZMPOP", 1, "{z}p", "MIDDLE")
		expectErr(t, c, errSyntax, "ZMPOP", 2, "{z}p", "{z}q")

		// Random members.
		expect(t, c, nil, "ZRANDMEMBER", "{z}none")
		expect(t, c, []interface{}{}, "ZRANDMEMBER", "{z}none", 3)
		if got := value(t, c, "ZRANDMEMBER", "{z}a", -5, "WITHSCORES").([]interface{}); len(got) != 5 {
			t.Errorf("ZRANDMEMBER -5 WITHSCORES: %#v", got)
		}
		if got := value(t, c, "ZRANDMEMBER", "{z}a", 10).([]interface{}); len(got) != 3 {
			t.Errorf("ZRANDMEMBER 10: %#v", got)
		}
		expectErr(t, c, errSyntax, "ZRANDMEMBER", "{z}a", 1, "SCORES")
		expectErr(t, c, "ERR value is out of range", "ZRANDMEMBER", "{z}a", "-9223372036854775807", "WITHSCORES")

		// Set operations, with a plain set as an input.
		expect(t, c, int64(2), "ZADD", "{z}u1", 1, "a", 2, "b")
		expect(t, c, int64(2), "ZADD", "{z}u2", 10, "b", 20, "c")
		expect(t, c, int64(1), "SADD", "{z}s", "c")
		expect(t, c, pairs("a", 1.0, "b", 12.0, "c", 21.0), "ZUNION", 3, "{z}u1", "{z}u2", "{z}s", "WITHSCORES")
		expect(t, c, pairs("a", 2.0, "b", 24.0, "c", 40.0), "ZUNION", 2, "{z}u1", "{z}u2", "WEIGHTS", 2, 2, "WITHSCORES", "AGGREGATE", "SUM")
		expect(t, c, pairs("b", 10.0), "ZINTER", 2, "{z}u1", "{z}u2", "AGGREGATE", "MAX", "WITHSCORES")
		expect(t, c, []interface{}{"a"}, "ZDIFF", 2, "{z}u1", "{z}u2")
		expect(t, c, int64(1), "ZINTERCARD", 2, "{z}u1", "{z}u2")
		expect(t, c, int64(1), "ZINTERCARD", 2, "{z}u1", "{z}u2", "LIMIT", 1)
		expect(t, c, int64(3), "ZUNIONSTORE", "{z}dst", 2, "{z}u1", "{z}u2")
		expect(t, c, int64(1), "ZINTERSTORE", "{z}dst", 2, "{z}u1", "{z}u2", "WEIGHTS", 1, "-inf")
		expect(t, c, pairs("b", math.Inf(-1)), "ZRANGE", "{z}dst", 0, -1, "WITHSCORES")
		expect(t, c, int64(1), "ZDIFFSTORE", "{z}dst", 2, "{z}u1", "{z}u2")
		expect(t, c, int64(0), "ZINTERSTORE", "{z}dst", 2, "{z}u1", "{z}none")
		expect(t, c, int64(0), "EXISTS", "{z}dst")
		expectErr(t, c, "ERR at least 1 input key is needed for 'zunion' command", "ZUNION", 0, "{z}u1")
		expectErr(t, c, "ERR at least 1 input key is needed for 'zinterstore' command", "ZINTERSTORE", "{z}dst", 0, "{z}u1")
		expectErr(t, c, errSyntax, "ZUNION", 3, "{z}u1", "{z}u2")
		expectErr(t, c, "ERR weight value is not a float", "ZUNION", 2, "{z}u1", "{z}u2", "WEIGHTS", 1, "x")
		expectErr(t, c, errSyntax, "ZUNION", 2, "{z}u1", "{z}u2", "AGGREGATE", "AVG")
		expectErr(t, c, errSyntax, "ZDIFF", 2, "{z}u1", "{z}u2", "WEIGHTS", 1, 1)
		expectErr(t, c, errSyntax, "ZUNIONSTORE", "{z}dst", 1, "{z}u1", "WITHSCORES")
		expectErr(t, c, "ERR LIMIT can't be negative", "ZINTERCARD", 1, "{z}u1", "LIMIT", -1)
		expect(t, c, "OK", "SET", "{z}str", "v")
		expectErr(t, c, errWrongType, "ZUNION", 2, "{z}u1", "{z}str")

		// ZSCAN.
		for i := 0; i < 300; i++ {
			value(t, c, "ZADD", "{z}big", i, "m"+strconv.Itoa(i))
		}
		expect(t, c, "skiplist", "OBJECT", "ENCODING", "{z}big")
		seen := map[string]string{}
		cursor := "0"
		for {
			r := value(t, c, "ZSCAN", "{z}big", cursor, "COUNT", 20).([]interface{})
			kv := r[1].([]interface{})
			for i := 0; i+1 < len(kv); i += 2 {
				seen[kv[i].(string)] = kv[i+1].(string)
			}
			if cursor = r[0].(string); cursor == "0" {
				break
			}
		}
		if len(seen) != 300 || seen["m7"] != "7" {
			t.Errorf("ZSCAN saw %d members, m7 = %q", len(seen), seen["m7"])
		}
		expect(t, c, []interface{}{"0", []interface{}{"a", "4.5"}}, "ZSCAN", "{z}a", 0, "MATCH", "a")
		expectErr(t, c, errSyntax, "ZSCAN", "{z}a", 0, "COUNT", 0)

		// WRONGTYPE.
		for _, args := range [][]interface{}{
			{"ZADD", "{z}str", 1, "a"}, {"ZINCRBY", "{z}str", 1, "a"}, {"ZREM", "{z}str", "a"}, {"ZCARD", "{z}str"},
			{"ZSCORE", "{z}str", "a"}, {"ZRANGE", "{z}str", 0, 1}, {"ZPOPMIN", "{z}str"}, {"ZMPOP", 1, "{z}str", "MIN"},
			{"ZRANDMEMBER", "{z}str"}, {"ZSCAN", "{z}str", 0}, {"ZREMRANGEBYRANK", "{z}str", 0, 1}, {"ZCOUNT", "{z}str", 0, 1},
			{"ZRANGESTORE", "{z}d", "{z}str", 0, 1}, {"SADD", "{z}a", 1},
		} {
			expectErr(t, c, errWrongType, args...)
		}

		// Key commands.
		expect(t, c, int64(1), "COPY", "{z}a", "{z}a2")
		expect(t, c, int64(1), "ZREM", "{z}a2", "a")
		expect(t, c, int64(3), "ZCARD", "{z}a")
		expect(t, c, "OK", "RENAME", "{z}a2", "{z}a3")
		expect(t, c, int64(2), "ZCARD", "{z}a3")
		if n := intValue(t, c, "MEMORY", "USAGE", "{z}big"); n < 300*8 {
			t.Errorf("MEMORY USAGE of 300 members: %d", n)
		}
	})
}

// TestZSetRawReplies checks the reply shapes: doubles and nested pairs in
// RESP3, bulk strings and flat arrays in RESP2.
func TestZSetRawReplies(t *testing.T) {
	s := testserver.Start(t)
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			r := dialRaw(t, s.Addr())
			dbl := func(v string) string { return "$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n" }
			null, nullArr := "$-1\r\n", "*-1\r\n"
			pair := func(m, v string) string { return dbl(m) + dbl(v) }
			pairs := func(n int) string { return "*" + strconv.Itoa(2*n) + "\r\n" }
			if proto == "3" {
				r.do("HELLO", "3")
				dbl = func(v string) string { return "," + v + "\r\n" }
				null, nullArr = "_\r\n", "_\r\n"
				pair = func(m, v string) string { return "*2\r\n$" + strconv.Itoa(len(m)) + "\r\n" + m + "\r\n," + v + "\r\n" }
				pairs = func(n int) string { return "*" + strconv.Itoa(n) + "\r\n" }
			}
			k := "raw" + proto
			r.expect(":2\r\n", "ZADD", k, "1.5", "a", "inf", "b")
			r.expect(dbl("1.5"), "ZSCORE", k, "a")
			r.expect(null, "ZSCORE", k, "zz")
			r.expect("*2\r\n"+dbl("inf")+null, "ZMSCORE", k, "b", "zz")
			r.expect(dbl("2.5"), "ZINCRBY", k, "1", "a")
			r.expect(pairs(2)+pair("a", "2.5")+pair("b", "inf"), "ZRANGE", k, "0", "-1", "WITHSCORES")
			r.expect(pairs(2)+pair("a", "2.5")+pair("b", "inf"), "ZUNION", "1", k, "WITHSCORES", "AGGREGATE", "MIN")
			// ZPOPMIN without a count is flat in both protocols.
			r.expect("*2\r\n$1\r\na\r\n"+dbl("2.5"), "ZPOPMIN", k)
			r.expect(pairs(1)+pair("b", "inf"), "ZPOPMAX", k, "1")
			r.expect(nullArr, "ZMPOP", "1", k, "MIN")
			r.expect(":1\r\n", "ZADD", k, "-0.5", "c")
			r.expect("*2\r\n$"+strconv.Itoa(len(k))+"\r\n"+k+"\r\n*1\r\n*2\r\n$1\r\nc\r\n"+dbl("-0.5"), "ZMPOP", "1", k, "MIN")
			r.expect(":1\r\n", "ZADD", k, "3", "d")
			r.expect("*2\r\n$1\r\n0\r\n*2\r\n$1\r\nd\r\n$1\r\n3\r\n", "ZSCAN", k, "0")
		})
	}
}

// TestZSetRestart checks every sorted set mutation survives a crash (WAL
// replay), a clean stop with a snapshot, and a start from that snapshot.
func TestZSetRestart(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := []testserver.Option{testserver.Shards(shards), testserver.Fsync("always")}
			s := testserver.Start(t, append(opts, testserver.Dir(dir))...)
			c := s.UniversalClient(t)
			expect(t, c, int64(4), "ZADD", "{r}a", 1, "a", 2, "b", 3, "c", 4, "d")
			expect(t, c, 1.5, "ZINCRBY", "{r}a", 0.5, "a")
			expect(t, c, 7.0, "ZADD", "{r}a", "INCR", 5, "b")
			expect(t, c, int64(1), "ZREM", "{r}a", "d")
			expect(t, c, []interface{}{"a", 1.5}, "ZPOPMIN", "{r}a")
			expect(t, c, int64(3), "ZADD", "{r}rr", 1, "x", 2, "y", 3, "z")
			expect(t, c, int64(1), "ZREMRANGEBYSCORE", "{r}rr", 2, 2)
			expect(t, c, int64(1), "ZREMRANGEBYRANK", "{r}rr", -1, -1)
			expect(t, c, int64(1), "ZREMRANGEBYLEX", "{r}rr", "-", "+")
			expect(t, c, "OK", "SET", "{r}u", "v")
			expect(t, c, int64(2), "ZUNIONSTORE", "{r}u", 1, "{r}a", "WEIGHTS", 2)
			expect(t, c, int64(1), "ZRANGESTORE", "{r}g", "{r}a", 0, 0)
			expect(t, c, "OK", "SET", "{r}del", "v")
			expect(t, c, int64(0), "ZINTERSTORE", "{r}del", 2, "{r}a", "{r}none")
			expect(t, c, []interface{}{"{r}g", pairs("c", 3.0)}, "ZMPOP", 1, "{r}g", "MIN")
			for i := 0; i < 200; i++ { // past zset-max-listpack-entries
				value(t, c, "ZADD", "{r}big", i, "m"+strconv.Itoa(i))
			}
			check := func(t *testing.T, c cmdr) {
				t.Helper()
				expect(t, c, pairs("c", 3.0, "b", 7.0), "ZRANGE", "{r}a", 0, -1, "WITHSCORES")
				expect(t, c, pairs("c", 6.0, "b", 14.0), "ZRANGE", "{r}u", 0, -1, "WITHSCORES")
				for _, k := range []string{"{r}rr", "{r}del", "{r}g"} {
					expect(t, c, int64(0), "EXISTS", k)
				}
				expect(t, c, int64(-1), "TTL", "{r}u")
				expect(t, c, int64(200), "ZCARD", "{r}big")
				expect(t, c, "skiplist", "OBJECT", "ENCODING", "{r}big")
				expect(t, c, "listpack", "OBJECT", "ENCODING", "{r}a")
				expect(t, c, 199.0, "ZSCORE", "{r}big", "m199")
			}
			check(t, c)
			crashDir := kjCopyDir(t, dir)
			s.Stop()
			crashed := testserver.Start(t, append(opts, testserver.Dir(crashDir))...)
			check(t, crashed.UniversalClient(t))
			crashed.Stop()

			again := testserver.Start(t, append(opts, testserver.Dir(dir), testserver.Config(func(c *config.Config) {
				c.Persistence.SnapshotOnShutdown = true
			}))...)
			check(t, again.UniversalClient(t))
			again.Stop()
			if snaps, _ := filepath.Glob(filepath.Join(dir, "*.snap")); len(snaps) == 0 {
				t.Fatal("no snapshot was written at shutdown")
			}
			last := testserver.Start(t, append(opts, testserver.Dir(dir))...)
			check(t, last.UniversalClient(t))
		})
	}
}

// TestZSetCrossSlot checks the one-slot rule on four shards for commands
// whose keys follow numkeys.
func TestZSetCrossSlot(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(4))
	const crossSlot = "CROSSSLOT Keys in request don't hash to the same slot"
	for _, args := range [][]interface{}{
		{"ZUNION", 2, "a", "b"}, {"ZUNIONSTORE", "a", 1, "b"}, {"ZINTERCARD", 2, "a", "b"}, {"ZMPOP", 2, "a", "b", "MIN"}, {"ZRANGESTORE", "a", "b", 0, 1},
	} {
		got, err := s.ClientOf(t, 0).Do(ctxT(t), args...).Result()
		if err == nil || err.Error() != crossSlot {
			t.Errorf("%s: want CROSSSLOT, got %#v, %v", argv(args), got, err)
		}
	}
}

// TestCollectionThresholdsFollowConfig checks the encoding thresholds are
// read from CONFIG SET (under Redis 7.0's names and the ziplist aliases).
func TestCollectionThresholdsFollowConfig(t *testing.T) {
	c := testserver.Start(t).Client(t)
	expect(t, c, "OK", "CONFIG", "SET", "set-max-intset-entries", 2)
	expect(t, c, int64(2), "SADD", "s", 1, 2)
	expect(t, c, "intset", "OBJECT", "ENCODING", "s")
	expect(t, c, int64(1), "SADD", "s", 3)
	expect(t, c, "hashtable", "OBJECT", "ENCODING", "s")
	expect(t, c, "OK", "CONFIG", "SET", "zset-max-ziplist-entries", 1)
	expect(t, c, int64(1), "ZADD", "z", 1, "a")
	expect(t, c, "listpack", "OBJECT", "ENCODING", "z")
	expect(t, c, int64(1), "ZADD", "z", 2, "b")
	expect(t, c, "skiplist", "OBJECT", "ENCODING", "z")
	expect(t, c, "OK", "CONFIG", "SET", "zset-max-listpack-entries", 128, "zset-max-listpack-value", 3)
	expect(t, c, int64(1), "ZADD", "z2", 1, "abc")
	expect(t, c, "listpack", "OBJECT", "ENCODING", "z2")
	expect(t, c, int64(1), "ZADD", "z2", 1, "abcd")
	expect(t, c, "skiplist", "OBJECT", "ENCODING", "z2")
}
