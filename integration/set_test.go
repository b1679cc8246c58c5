package integration_test

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// The set family through go-redis on one shard and four shards (keys of
// one command share a hash tag), raw RESP2/RESP3 replies, and restarts
// from the WAL and from a snapshot.

// members runs args and returns the reply's members sorted.
func members(t *testing.T, c cmdr, args ...interface{}) []string {
	t.Helper()
	v := value(t, c, args...)
	var out []string
	switch r := v.(type) {
	case []interface{}:
		for _, m := range r {
			out = append(out, m.(string))
		}
	case map[interface{}]bool:
		for m := range r {
			out = append(out, m.(string))
		}
	default:
		t.Fatalf("%s: want members, got %#v", argv(args), v)
	}
	sort.Strings(out)
	return out
}

func expectMembers(t *testing.T, c cmdr, want []string, args ...interface{}) {
	t.Helper()
	got := members(t, c, args...)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s: want %q, got %q", argv(args), want, got)
	}
}

func TestSetCommands(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		// SADD, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS, encodings.
		expect(t, c, int64(3), "SADD", "{s}a", 1, 2, 3)
		expect(t, c, int64(0), "SADD", "{s}a", 1, 2)
		expect(t, c, "intset", "OBJECT", "ENCODING", "{s}a")
		expect(t, c, int64(1), "SADD", "{s}a", "x")
		expect(t, c, "hashtable", "OBJECT", "ENCODING", "{s}a")
		expect(t, c, "set", "TYPE", "{s}a")
		expect(t, c, int64(4), "SCARD", "{s}a")
		expect(t, c, int64(0), "SCARD", "{s}none")
		expect(t, c, int64(1), "SISMEMBER", "{s}a", "x")
		expect(t, c, int64(0), "SISMEMBER", "{s}a", "y")
		expect(t, c, []interface{}{int64(1), int64(0), int64(1)}, "SMISMEMBER", "{s}a", 1, 9, "x")
		expect(t, c, []interface{}{int64(0)}, "SMISMEMBER", "{s}none", 1)
		expectMembers(t, c, []string{"1", "2", "3", "x"}, "SMEMBERS", "{s}a")
		expect(t, c, []interface{}{}, "SMEMBERS", "{s}none")
		expectErr(t, c, errArity("smismember"), "SMISMEMBER", "{s}a")

		// WRONGTYPE everywhere.
		expect(t, c, "OK", "SET", "{s}str", "v")
		for _, args := range [][]interface{}{
			{"SADD", "{s}str", 1}, {"SREM", "{s}str", 1}, {"SCARD", "{s}str"}, {"SISMEMBER", "{s}str", 1},
			{"SMEMBERS", "{s}str"}, {"SPOP", "{s}str"}, {"SRANDMEMBER", "{s}str"}, {"SINTER", "{s}a", "{s}str"},
			{"SUNION", "{s}a", "{s}str"}, {"SDIFF", "{s}a", "{s}str"}, {"SINTERCARD", 2, "{s}a", "{s}str"},
			{"SMOVE", "{s}a", "{s}str", 1}, {"SMOVE", "{s}str", "{s}a", 1}, {"SSCAN", "{s}str", 0},
			{"SINTERSTORE", "{s}d", "{s}str"}, {"SMISMEMBER", "{s}str", 1},
		} {
			expectErr(t, c, errWrongType, args...)
		}
		// SMOVE from a missing source answers 0 before the type check.
		expect(t, c, int64(0), "SMOVE", "{s}none", "{s}str", 1)

		// SREM deletes an emptied set.
		expect(t, c, int64(2), "SADD", "{s}r", "a", "b")
		expect(t, c, int64(1), "SREM", "{s}r", "a", "z")
		expect(t, c, int64(1), "SREM", "{s}r", "b", "b")
		expect(t, c, int64(0), "EXISTS", "{s}r")
		expect(t, c, int64(0), "SREM", "{s}r", "b")

		// Algebra.
		expect(t, c, int64(3), "SADD", "{s}b", 2, 3, "y")
		expectMembers(t, c, []string{"2", "3"}, "SINTER", "{s}a", "{s}b")
		expectMembers(t, c, nil, "SINTER", "{s}a", "{s}none")
		expectMembers(t, c, []string{"1", "2", "3", "x", "y"}, "SUNION", "{s}a", "{s}b", "{s}none")
		expectMembers(t, c, []string{"1", "x"}, "SDIFF", "{s}a", "{s}b", "{s}none")
		expectMembers(t, c, nil, "SDIFF", "{s}none", "{s}a")
		expectMembers(t, c, nil, "SDIFF", "{s}a", "{s}a")
		expect(t, c, int64(2), "SINTERCARD", 2, "{s}a", "{s}b")
		expect(t, c, int64(1), "SINTERCARD", 2, "{s}a", "{s}b", "LIMIT", 1)
		expect(t, c, int64(2), "SINTERCARD", 2, "{s}a", "{s}b", "LIMIT", 0)
		expect(t, c, int64(0), "SINTERCARD", 2, "{s}a", "{s}none")
		expectErr(t, c, "ERR numkeys should be greater than 0", "SINTERCARD", 0, "{s}a")
		expectErr(t, c, "ERR numkeys should be greater than 0", "SINTERCARD", "x", "{s}a")
		expectErr(t, c, "ERR Number of keys can't be greater than number of args", "SINTERCARD", 3, "{s}a", "{s}b")
		expectErr(t, c, "ERR LIMIT can't be negative", "SINTERCARD", 1, "{s}a", "LIMIT", -1)
		expectErr(t, c, errSyntax, "SINTERCARD", 1, "{s}a", "LIMIT")
		expectErr(t, c, errSyntax, "SINTERCARD", 1, "{s}a", "{s}b")

		// STORE variants: the destination is replaced whatever it held,
		// loses its deadline, and an empty result deletes it.
		expect(t, c, "OK", "SET", "{s}d", "v", "EX", 100)
		expect(t, c, int64(2), "SINTERSTORE", "{s}d", "{s}a", "{s}b")
		expectMembers(t, c, []string{"2", "3"}, "SMEMBERS", "{s}d")
		expect(t, c, int64(-1), "TTL", "{s}d")
		expect(t, c, int64(5), "SUNIONSTORE", "{s}d", "{s}a", "{s}b")
		expect(t, c, int64(2), "SDIFFSTORE", "{s}d", "{s}a", "{s}b")
		expectMembers(t, c, []string{"1", "x"}, "SMEMBERS", "{s}d")
		expect(t, c, int64(2), "SDIFFSTORE", "{s}a", "{s}a", "{s}b") // destination among the sources
		expectMembers(t, c, []string{"1", "x"}, "SMEMBERS", "{s}a")
		expect(t, c, int64(0), "SINTERSTORE", "{s}d", "{s}a", "{s}none")
		expect(t, c, int64(0), "EXISTS", "{s}d")
		expectErr(t, c, errWrongType, "SUNIONSTORE", "{s}d", "{s}a", "{s}str")

		// SMOVE.
		expect(t, c, int64(1), "SMOVE", "{s}a", "{s}m", "1")
		expect(t, c, int64(0), "SMOVE", "{s}a", "{s}m", "1")
		expect(t, c, int64(1), "SMOVE", "{s}a", "{s}m", "x") // empties the source
		expect(t, c, int64(0), "EXISTS", "{s}a")
		expectMembers(t, c, []string{"1", "x"}, "SMEMBERS", "{s}m")
		expect(t, c, int64(1), "SMOVE", "{s}m", "{s}m", "x")
		expect(t, c, int64(0), "SMOVE", "{s}m", "{s}m", "z")
		expect(t, c, int64(1), "SADD", "{s}b", "1")
		expect(t, c, int64(1), "SMOVE", "{s}m", "{s}b", "1") // already in the destination
		expectMembers(t, c, []string{"x"}, "SMEMBERS", "{s}m")

		// SPOP and SRANDMEMBER.
		expect(t, c, nil, "SPOP", "{s}none")
		expect(t, c, []interface{}{}, "SPOP", "{s}none", 3)
		expect(t, c, []interface{}{}, "SPOP", "{s}m", 0)
		expectErr(t, c, "ERR value is out of range, must be positive", "SPOP", "{s}m", -1)
		expectErr(t, c, "ERR value is out of range, must be positive", "SPOP", "{s}m", "x")
		expectErr(t, c, errSyntax, "SPOP", "{s}m", 1, 2)
		expect(t, c, int64(5), "SADD", "{s}p", 1, 2, 3, 4, 5)
		if got := members(t, c, "SPOP", "{s}p", 2); len(got) != 2 {
			t.Errorf("SPOP 2: %q", got)
		}
		expect(t, c, int64(3), "SCARD", "{s}p")
		if got := members(t, c, "SPOP", "{s}p", 10); len(got) != 3 {
			t.Errorf("SPOP 10: %q", got)
		}
		expect(t, c, int64(0), "EXISTS", "{s}p")
		expect(t, c, int64(1), "SADD", "{s}one", "only")
		expect(t, c, "only", "SPOP", "{s}one")
		expect(t, c, int64(0), "EXISTS", "{s}one")
		expect(t, c, int64(3), "SADD", "{s}q", "a", "b", "c")
		expect(t, c, nil, "SRANDMEMBER", "{s}none")
		expect(t, c, []interface{}{}, "SRANDMEMBER", "{s}none", 5)
		expect(t, c, []interface{}{}, "SRANDMEMBER", "{s}q", 0)
		expectMembers(t, c, []string{"a", "b", "c"}, "SRANDMEMBER", "{s}q", 10)
		if got := members(t, c, "SRANDMEMBER", "{s}q", 2); len(got) != 2 || got[0] == got[1] {
			t.Errorf("SRANDMEMBER 2: %q", got)
		}
		if got := members(t, c, "SRANDMEMBER", "{s}q", -7); len(got) != 7 {
			t.Errorf("SRANDMEMBER -7: %q", got)
		}
		expectErr(t, c, errNotInt, "SRANDMEMBER", "{s}q", "x")
		expectErr(t, c, "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807", "SRANDMEMBER", "{s}q", "-9223372036854775808")
		expectErr(t, c, errSyntax, "SRANDMEMBER", "{s}q", 1, 2)

		// SSCAN.
		for i := 0; i < 600; i++ {
			value(t, c, "SADD", "{s}big", "m"+strconv.Itoa(i))
		}
		seen := map[string]bool{}
		cursor := "0"
		for {
			r := value(t, c, "SSCAN", "{s}big", cursor, "COUNT", 50).([]interface{})
			for _, m := range r[1].([]interface{}) {
				seen[m.(string)] = true
			}
			cursor = r[0].(string)
			if cursor == "0" {
				break
			}
		}
		if len(seen) != 600 {
			t.Errorf("SSCAN saw %d members, want 600", len(seen))
		}
		expect(t, c, []interface{}{"0", []interface{}{"a"}}, "SSCAN", "{s}q", 0, "MATCH", "a*")
		expect(t, c, []interface{}{"0", []interface{}{}}, "SSCAN", "{s}none", 0)
		expectErr(t, c, "ERR invalid cursor", "SSCAN", "{s}q", "x")
		expectErr(t, c, errSyntax, "SSCAN", "{s}q", 0, "COUNT", 0)
		expectErr(t, c, errSyntax, "SSCAN", "{s}q", 0, "TYPE", "set")
		expectErr(t, c, errSyntax, "SSCAN", "{s}q", 0, "MATCH")

		// Key commands on sets.
		expect(t, c, int64(1), "COPY", "{s}q", "{s}q2")
		expect(t, c, int64(1), "SADD", "{s}q2", "d")
		expect(t, c, int64(3), "SCARD", "{s}q")
		expect(t, c, "OK", "RENAME", "{s}q2", "{s}q3")
		expect(t, c, int64(4), "SCARD", "{s}q3")
		expect(t, c, int64(1), "EXPIRE", "{s}q3", 100)
		expect(t, c, int64(1), "DEL", "{s}q3")
		if n := intValue(t, c, "MEMORY", "USAGE", "{s}big"); n < 600*3 {
			t.Errorf("MEMORY USAGE of 600 members: %d", n)
		}
	})
}

// TestSetCrossSlot checks the one-slot rule on four shards, SINTERCARD's
// keys (after numkeys) included.
func TestSetCrossSlot(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(4))
	c := s.ClusterClient(t)
	const crossSlot = "CROSSSLOT Keys in request don't hash to the same slot"
	for _, args := range [][]interface{}{
		{"SINTER", "a", "b"}, {"SUNIONSTORE", "a", "b"}, {"SMOVE", "a", "b", "m"}, {"SINTERCARD", 2, "a", "b"},
	} {
		// The cluster client refuses these itself; ask one node directly.
		got, err := s.ClientOf(t, 0).Do(ctxT(t), args...).Result()
		if err == nil || err.Error() != crossSlot {
			t.Errorf("%s: want CROSSSLOT, got %#v, %v", argv(args), got, err)
		}
	}
	expect(t, c, int64(1), "SADD", "{t}a", 1)
	expect(t, c, int64(1), "SINTERCARD", 1, "{t}a")
}

// TestSetRawReplies checks the reply types: sets in RESP3 where Redis
// sends sets (SMEMBERS, SINTER, SUNION, SDIFF, SPOP with a count), arrays
// for SRANDMEMBER and SMISMEMBER.
func TestSetRawReplies(t *testing.T) {
	s := testserver.Start(t)
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			r := dialRaw(t, s.Addr())
			set, null := "*", "$-1\r\n"
			if proto == "3" {
				set, null = "~", "_\r\n"
				r.do("HELLO", "3")
			}
			k := "raw" + proto
			r.expect(":1\r\n", "SADD", k, "m")
			r.expect(set+"1\r\n$1\r\nm\r\n", "SMEMBERS", k)
			r.expect(set+"0\r\n", "SMEMBERS", k+"none")
			r.expect(set+"1\r\n$1\r\nm\r\n", "SINTER", k, k)
			r.expect(set+"1\r\n$1\r\nm\r\n", "SUNION", k)
			r.expect(set+"0\r\n", "SDIFF", k, k)
			r.expect("*1\r\n$1\r\nm\r\n", "SRANDMEMBER", k, "1")
			r.expect("*2\r\n$1\r\nm\r\n$1\r\nm\r\n", "SRANDMEMBER", k, "-2")
			r.expect("*0\r\n", "SRANDMEMBER", k+"none", "1")
			r.expect("*2\r\n:1\r\n:0\r\n", "SMISMEMBER", k, "m", "n")
			r.expect(null, "SPOP", k+"none")
			r.expect(set+"0\r\n", "SPOP", k+"none", "1")
			r.expect(set+"1\r\n$1\r\nm\r\n", "SPOP", k, "1")
			r.expect(":0\r\n", "EXISTS", k)
		})
	}
}

// TestSetRestart checks every set mutation survives a crash (WAL replay), a
// clean stop with a snapshot, and a start from that snapshot.
func TestSetRestart(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := []testserver.Option{testserver.Shards(shards), testserver.Fsync("always")}
			s := testserver.Start(t, append(opts, testserver.Dir(dir))...)
			c := s.UniversalClient(t)
			expect(t, c, int64(4), "SADD", "{r}a", 1, 2, 3, 4)
			expect(t, c, int64(3), "SADD", "{r}h", "x", "y", "z")
			expect(t, c, int64(1), "SREM", "{r}a", 4)
			expect(t, c, int64(1), "SADD", "{r}gone", "g")
			expect(t, c, int64(1), "SREM", "{r}gone", "g")
			popped := members(t, c, "SPOP", "{r}h", 2)
			expect(t, c, int64(1), "SMOVE", "{r}a", "{r}m", 3)
			expect(t, c, int64(1), "SADD", "{r}e", "only")
			expect(t, c, int64(1), "SMOVE", "{r}e", "{r}m", "only")
			expect(t, c, "OK", "SET", "{r}u", "string")
			expect(t, c, int64(4), "SUNIONSTORE", "{r}u", "{r}a", "{r}m")
			expect(t, c, int64(2), "SINTERSTORE", "{r}i", "{r}a", "{r}a")
			expect(t, c, "OK", "SET", "{r}del", "v")
			expect(t, c, int64(0), "SDIFFSTORE", "{r}del", "{r}a", "{r}a")
			for i := 0; i < 700; i++ { // past set-max-intset-entries
				value(t, c, "SADD", "{r}big", i)
			}
			expect(t, c, int64(1), "SREM", "{r}big", "x", 699)
			h := members(t, c, "SMEMBERS", "{r}h")
			if len(popped) != 2 || len(h) != 1 {
				t.Fatalf("SPOP: popped %q, left %q", popped, h)
			}

			check := func(t *testing.T, c cmdr) {
				t.Helper()
				expectMembers(t, c, []string{"1", "2"}, "SMEMBERS", "{r}a")
				expectMembers(t, c, h, "SMEMBERS", "{r}h")
				expectMembers(t, c, []string{"3", "only"}, "SMEMBERS", "{r}m")
				expectMembers(t, c, []string{"1", "2", "3", "only"}, "SMEMBERS", "{r}u")
				expectMembers(t, c, []string{"1", "2"}, "SMEMBERS", "{r}i")
				for _, k := range []string{"{r}gone", "{r}e", "{r}del"} {
					expect(t, c, int64(0), "EXISTS", k)
				}
				expect(t, c, int64(699), "SCARD", "{r}big")
				expect(t, c, "hashtable", "OBJECT", "ENCODING", "{r}big")
				expect(t, c, "intset", "OBJECT", "ENCODING", "{r}a")
				expect(t, c, int64(-1), "TTL", "{r}u")
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
