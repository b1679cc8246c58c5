package integration_test

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// SORT and SORT_RO through go-redis: exact replies on one shard, the
// cluster refusals on four, RESP2/RESP3 nulls, ACL refusals, STORE across
// restarts, and a side-by-side run against redis-server.

func strs(s ...string) []interface{} {
	out := make([]interface{}, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// sortCommon holds the calls whose replies are the same standalone and
// in a cluster (no BY or GET pattern).
func sortCommon(t *testing.T, c cmdr) {
	expect(t, c, int64(4), "RPUSH", "{s}l", 3, 1, 2, 10)
	expect(t, c, strs("1", "2", "3", "10"), "SORT", "{s}l")
	expect(t, c, strs("10", "3", "2", "1"), "SORT", "{s}l", "DESC")
	expect(t, c, strs("1", "10", "2", "3"), "SORT", "{s}l", "ALPHA")
	expect(t, c, strs("2", "3"), "SORT", "{s}l", "LIMIT", 1, 2)
	expect(t, c, strs("3", "2", "1"), "SORT", "{s}l", "DESC", "LIMIT", 1, -1)
	expect(t, c, strs(), "SORT", "{s}l", "LIMIT", 10, 2)
	expect(t, c, strs(), "SORT", "{s}l", "LIMIT", 0, 0)
	expect(t, c, strs("3", "1", "2", "10"), "SORT", "{s}l", "BY", "nosort")
	expect(t, c, strs("10", "2", "1", "3"), "SORT", "{s}l", "BY", "nosort", "DESC")
	expect(t, c, strs("1", "2"), "SORT", "{s}l", "BY", "nosort", "LIMIT", 1, 2)
	expect(t, c, strs("2", "1"), "SORT", "{s}l", "BY", "nosort", "DESC", "LIMIT", 1, 2)
	expect(t, c, strs("1", "2", "3", "10"), "SORT_RO", "{s}l")
	expect(t, c, strs(), "SORT", "{s}none")

	expect(t, c, int64(3), "ZADD", "{s}z", 1, "c", 2, "b", 3, "a")
	expect(t, c, strs("c", "b", "a"), "SORT", "{s}z", "BY", "nosort")
	expect(t, c, strs("a", "b"), "SORT", "{s}z", "BY", "nosort", "DESC", "LIMIT", 0, 2)
	expect(t, c, strs("b", "a"), "SORT", "{s}z", "BY", "nosort", "LIMIT", 1, 5)
	expect(t, c, strs("a", "b", "c"), "SORT", "{s}z", "ALPHA")
	expectErr(t, c, "ERR One or more scores can't be converted into double", "SORT", "{s}z")

	expect(t, c, int64(3), "SADD", "{s}set", 30, 1, 2)
	expect(t, c, strs("1", "2", "30"), "SORT", "{s}set")
	expect(t, c, strs("30", "2", "1"), "SORT", "{s}set", "DESC")
	expect(t, c, strs("1", "2", "30"), "SORT", "{s}set", "ALPHA")

	// STORE: a list, without the destination's old TTL; nothing stored
	// deletes it.
	expect(t, c, "OK", "SET", "{s}dst", "old", "EX", 100)
	expect(t, c, int64(4), "SORT", "{s}l", "DESC", "STORE", "{s}dst")
	expect(t, c, strs("10", "3", "2", "1"), "LRANGE", "{s}dst", 0, -1)
	expect(t, c, "list", "TYPE", "{s}dst")
	expect(t, c, int64(-1), "TTL", "{s}dst")
	// A set stored without sorting is sorted (ALPHA) so it is the same
	// everywhere.
	expect(t, c, int64(3), "SORT", "{s}set", "BY", "nosort", "STORE", "{s}dst")
	expect(t, c, strs("1", "2", "30"), "LRANGE", "{s}dst", 0, -1)
	expect(t, c, int64(0), "SORT", "{s}none", "STORE", "{s}dst")
	expect(t, c, int64(0), "EXISTS", "{s}dst")
	expect(t, c, int64(0), "SORT", "{s}l", "LIMIT", 0, 0, "STORE", "{s}dst")
	expect(t, c, int64(0), "EXISTS", "{s}dst")
	expect(t, c, int64(2), "SORT", "{s}l", "STORE", "{s}x", "LIMIT", 0, 2, "STORE", "{s}dst")
	expect(t, c, strs("1", "2"), "LRANGE", "{s}dst", 0, -1)
	expect(t, c, int64(0), "EXISTS", "{s}x")

	// Errors, in Redis's order: options first, then the key's type.
	expect(t, c, "OK", "SET", "{s}str", "x")
	expectErr(t, c, errWrongType, "SORT", "{s}str")
	expectErr(t, c, errSyntax, "SORT", "{s}str", "BOGUS")
	expectErr(t, c, errNotInt, "SORT", "{s}l", "LIMIT", "x", 1)
	expectErr(t, c, errSyntax, "SORT", "{s}l", "LIMIT", 1)
	expectErr(t, c, errSyntax, "SORT_RO", "{s}l", "STORE", "{s}dst")
	expectErr(t, c, errArity("sort"), "SORT")
	expect(t, c, int64(1), "RPUSH", "{s}bad", "1x")
	expectErr(t, c, "ERR One or more scores can't be converted into double", "SORT", "{s}bad")
	expectErr(t, c, "ERR One or more scores can't be converted into double", "SORT", "{s}bad", "STORE", "{s}dst")
	expect(t, c, strs("1x"), "SORT", "{s}bad", "ALPHA")
	expect(t, c, strs("{s}l", "{s}d"), "COMMAND", "GETKEYS", "SORT", "{s}l", "STORE", "{s}x", "STORE", "{s}d")
	expect(t, c, strs("{s}l"), "COMMAND", "GETKEYS", "SORT_RO", "{s}l", "BY", "w_*")
}

func TestSortCommands(t *testing.T) {
	t.Run("1shard", func(t *testing.T) {
		t.Parallel()
		c := testserver.Start(t).Client(t)
		sortCommon(t, c)
		// BY and GET patterns.
		expect(t, c, "OK", "MSET", "w_3", 1, "w_1", 2, "w_2", 3, "w_10", 4)
		expect(t, c, int64(4), "RPUSH", "l", 3, 1, 2, 10)
		expect(t, c, strs("3", "1", "2", "10"), "SORT", "l", "BY", "w_*")
		expect(t, c, strs("10", "2"), "SORT", "l", "BY", "w_*", "DESC", "LIMIT", 0, 2)
		expect(t, c, int64(2), "HSET", "h_1", "f", "b", "g", "x")
		expect(t, c, int64(1), "HSET", "h_3", "f", "a")
		expect(t, c, strs("2", "10", "3", "1"), "SORT", "l", "BY", "h_*->f", "ALPHA")
		expect(t, c, []interface{}{"3", "1", "a", "1", "2", "b", "2", "3", nil, "10", "4", nil},
			"SORT", "l", "BY", "w_*", "GET", "#", "GET", "w_*", "GET", "h_*->f")
		expect(t, c, []interface{}{nil, nil, nil, nil}, "SORT", "l", "GET", "nostar")
		// "->" at the end of a pattern is part of the key name.
		expect(t, c, "OK", "SET", "k_1->", "v")
		expect(t, c, []interface{}{"v", nil, nil, nil}, "SORT", "l", "GET", "k_*->")
		// A weight that is missing counts as 0; one that is not a number
		// fails the sort.
		expect(t, c, strs("1", "10", "2", "3"), "SORT", "l", "BY", "none_*")          // ties sort by the elements
		expect(t, c, strs("3", "1", "2", "10"), "SORT", "l", "BY", "none_*", "ALPHA") // ALPHA ties keep their order
		expect(t, c, "OK", "SET", "w_2", "x")
		expectErr(t, c, "ERR One or more scores can't be converted into double", "SORT", "l", "BY", "w_*")
		expect(t, c, "OK", "SET", "w_2", " 2.5")
		expect(t, c, strs("3", "1", "2", "10"), "SORT", "l", "BY", "w_*")
		expect(t, c, int64(12), "SORT", "l", "BY", "w_*", "GET", "#", "GET", "w_*", "GET", "h_*->f", "STORE", "dst")
		expect(t, c, strs("3", "1", "a", "1", "2", "b", "2", " 2.5", "", "10", "4", ""), "LRANGE", "dst", 0, -1)

		// A user without access to every key may not use patterns.
		expect(t, c, "OK", "ACL", "SETUSER", "limited", "on", ">p", "~l", "~dst", "+@all")
		u := userClient(t, testserverAddr(t, c), "limited", "p")
		expect(t, u, strs("1", "2", "3", "10"), "SORT", "l")
		expect(t, u, strs("3", "1", "2", "10"), "SORT", "l", "BY", "nosort")
		expectErr(t, u, "ERR BY option of SORT denied due to insufficient ACL permissions.", "SORT", "l", "BY", "w_*")
		expectErr(t, u, "ERR GET option of SORT denied due to insufficient ACL permissions.", "SORT", "l", "GET", "#")
		expect(t, u, int64(4), "SORT", "l", "STORE", "dst")
		expectErr(t, u, "NOPERM this user has no permissions to access one of the keys used as arguments", "SORT", "l", "STORE", "other")
	})
	t.Run("4shards", func(t *testing.T) {
		t.Parallel()
		s := testserver.Start(t, testserver.Shards(4))
		c := s.ClusterClient(t)
		sortCommon(t, c)
		expectErr(t, c, "ERR BY option of SORT denied in Cluster mode.", "SORT", "{s}l", "BY", "{s}w_*")
		expectErr(t, c, "ERR GET option of SORT denied in Cluster mode.", "SORT", "{s}l", "GET", "#")
		expectErr(t, c, "ERR GET option of SORT denied in Cluster mode.", "SORT_RO", "{s}l", "BY", "nosort", "GET", "{s}w_*")
		got, err := s.ClientOf(t, 0).Do(ctxT(t), "SORT", "a", "STORE", "b").Result()
		if err == nil || err.Error() != "CROSSSLOT Keys in request don't hash to the same slot" {
			t.Errorf("SORT a STORE b: want CROSSSLOT, got %#v, %v", got, err)
		}
	})
}

// testserverAddr returns the address c talks to.
func testserverAddr(t *testing.T, c cmdr) string {
	t.Helper()
	return c.(*redis.Client).Options().Addr
}

// TestSortRawReplies checks a missing GET value is a null bulk in RESP2
// and a null in RESP3.
func TestSortRawReplies(t *testing.T) {
	s := testserver.Start(t)
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			r := dialRaw(t, s.Addr())
			null := "$-1\r\n"
			if proto == "3" {
				r.do("HELLO", "3")
				null = "_\r\n"
			}
			r.expect(":2\r\n", "RPUSH", "raw"+proto, "1", "2")
			r.expect("+OK\r\n", "SET", "v_1", "one")
			r.expect(arr(bulk("1"), bulk("one"), bulk("2"), null), "SORT", "raw"+proto, "GET", "#", "GET", "v_*")
		})
	}
}

// TestSortStoreRestart checks SORT ... STORE survives a crash and a
// snapshot as the list it stored.
func TestSortStoreRestart(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := []testserver.Option{testserver.Shards(shards), testserver.Fsync("always")}
			s := testserver.Start(t, append(opts, testserver.Dir(dir))...)
			c := s.UniversalClient(t)
			expect(t, c, int64(5), "RPUSH", "{r}l", 5, 3, 4, 1, 2)
			expect(t, c, "OK", "SET", "{r}d", "v", "EX", 100)
			expect(t, c, int64(3), "SORT", "{r}l", "DESC", "LIMIT", 1, 3, "STORE", "{r}d")
			push := []interface{}{"RPUSH", "{r}big"}
			for i := 300; i > 0; i-- {
				push = append(push, i)
			}
			expect(t, c, int64(300), push...)
			expect(t, c, int64(300), "SORT", "{r}big", "STORE", "{r}sorted")
			check := func(t *testing.T, c cmdr) {
				t.Helper()
				expect(t, c, strs("4", "3", "2"), "LRANGE", "{r}d", 0, -1)
				expect(t, c, int64(-1), "TTL", "{r}d")
				expect(t, c, int64(300), "LLEN", "{r}sorted")
				expect(t, c, strs("1", "2"), "LRANGE", "{r}sorted", 0, 1)
				expect(t, c, strs("300"), "LRANGE", "{r}sorted", -1, -1)
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
			check(t, testserver.Start(t, append(opts, testserver.Dir(dir))...).UniversalClient(t))
		})
	}
}

// TestSortMatchesRedis runs random SORT calls over lists, sets and sorted
// sets on redis-server (when installed) and on the server and compares
// every reply and every stored result. Where Redis's order would depend
// on its hash table's iteration (a set left unsorted, ALPHA ties by a BY
// pattern), the data is chosen to have no ties.
func TestSortMatchesRedis(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref := startRedisServer(t, bin)
	c := testserver.Start(t).Client(t)
	rng := rand.New(rand.NewPCG(9, 14))
	compare := func(args ...interface{}) {
		t.Helper()
		want, werr := ref.Do(ctxT(t), args...).Result()
		got, gerr := c.Do(ctxT(t), args...).Result()
		if fmt.Sprint(want, werr) != fmt.Sprint(got, gerr) {
			keys, _ := ref.Keys(ctxT(t), "*").Result()
			var dump []string
			for _, k := range keys {
				v, _ := ref.Do(ctxT(t), "DUMP", k).Result()
				dump = append(dump, fmt.Sprintf("%q=%q", k, v))
			}
			t.Fatalf("%s:\nredis-server %v (%v)\nruvio        %v (%v)\n%v", argv(args), want, werr, got, gerr, dump)
		}
	}
	values := []string{"1", "2", "-3", "10", "2.5", "1e3", "0x10", "inf", "-inf", "", " 7", "a", "b", "ab", "B", "1x", "nan", "é"}
	// No value holds a NUL byte (ALPHA compares C strings, so "b" and
	// "b\x00z" tie and keep the load order, a hash table's for sets).
	// No value overflows a double: Redis tests errno after strtod without
	// clearing it first, so after one overflow its later numeric sorts
	// fail until another command happens to clear errno.
	steps := 0
	for round := 0; round < 40; round++ {
		for _, cl := range []*redis.Client{ref, c} {
			if err := cl.FlushAll(ctxT(t)).Err(); err != nil {
				t.Fatal(err)
			}
		}
		numeric := rng.IntN(2) == 0 // only numbers, so numeric sorts succeed
		pick := func() string {
			if numeric {
				return strconv.Itoa(rng.IntN(40) - 10)
			}
			return values[rng.IntN(len(values))]
		}
		kind := []string{"list", "set", "zset"}[rng.IntN(3)]
		n := rng.IntN(25)
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			e := pick()
			if kind != "list" && seen[e] {
				continue
			}
			seen[e] = true
			switch kind {
			case "list":
				compare("RPUSH", "src", e)
			case "set":
				compare("SADD", "src", e)
			default:
				compare("ZADD", "src", rng.IntN(5), e)
			}
			// Weights: distinct numbers (no ties), sometimes missing or
			// not numbers; hash fields likewise.
			if rng.IntN(6) > 0 {
				compare("SET", "w_"+e, strconv.Itoa(rng.IntN(1000))+"."+strconv.Itoa(i))
			} else if !numeric {
				compare("SET", "w_"+e, pick())
			}
			if rng.IntN(4) > 0 {
				compare("HSET", "h_"+e, "f", strconv.Itoa(1000+i), "g", pick())
			}
		}
		for k := 0; k < 25; k++ {
			args := []interface{}{"SORT", "src"}
			if rng.IntN(8) == 0 {
				args[0] = "SORT_RO"
			}
			by := ""
			switch rng.IntN(4) {
			case 0:
				by = "w_*"
			case 1:
				by = "h_*->f"
			case 2:
				if kind != "set" {
					by = "nosort"
				}
			}
			alpha := rng.IntN(3) == 0
			limit := rng.IntN(3) == 0
			if alpha && (by == "w_*" || by == "h_*->f") && (kind != "list" || limit) {
				// ALPHA by a pattern leaves equal (or missing) values in
				// the order they were loaded, which for sets is the hash
				// table's and with LIMIT a partial sort's.
				by = ""
			}
			if by != "" {
				args = append(args, "BY", by)
			}
			if alpha {
				args = append(args, "ALPHA")
			}
			if rng.IntN(2) == 0 {
				args = append(args, []string{"ASC", "DESC"}[rng.IntN(2)])
			}
			if limit {
				args = append(args, "LIMIT", rng.IntN(8)-2, rng.IntN(10)-2)
			}
			for g := rng.IntN(3); g > 0; g-- {
				args = append(args, "GET", []string{"#", "w_*", "h_*->g", "h_*->f", "none_*", "nostar"}[rng.IntN(6)])
			}
			if args[0] == "SORT" && rng.IntN(3) == 0 {
				args = append(args, "STORE", "dst")
				compare(args...)
				compare("LRANGE", "dst", 0, -1)
				compare("EXISTS", "dst")
			} else {
				compare(args...)
			}
			steps++
		}
	}
	if steps != 1000 {
		t.Fatalf("ran %d steps", steps)
	}
}
