package commands

import (
	"strings"
	"testing"
)

// The digest is the same for the same data whatever order it was written in, differs when
// any key, member, field, score or deadline differs, and is 40 zeros for an empty shard.
func TestDebugDigest(t *testing.T) {
	zeros := "+" + strings.Repeat("0", 40) + "\r\n"
	a, _ := srvTestShard(t, 1, 0, nil)
	b, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, a, zeros, "DEBUG", "DIGEST")
	srvExpect(t, a, "*2\r\n"+zeros+zeros, "DEBUG", "DIGEST-VALUE", "nosuch", "other")

	for _, c := range [][]string{
		{"SET", "s", "v"}, {"SADD", "set", "a", "b", "c", "1", "2"}, {"HSET", "h", "f1", "v1", "f2", "v2"},
		{"RPUSH", "l", "x", "y"}, {"ZADD", "z", "1", "m1", "2", "m2"}, {"XADD", "st", "1-1", "f", "v"},
		{"PEXPIREAT", "s", "99999999999999"},
	} {
		srvRun(a, 2, c...)
	}
	for _, c := range [][]string{
		{"XADD", "st", "1-1", "f", "v"}, {"ZADD", "z", "2", "m2", "1", "m1"}, {"RPUSH", "l", "x", "y"},
		{"HSET", "h", "f2", "v2", "f1", "v1"}, {"SADD", "set", "2", "c", "1", "b", "a"}, {"SET", "s", "v"},
		{"PEXPIREAT", "s", "99999999999999"},
	} {
		srvRun(b, 2, c...)
	}
	da, db := srvRun(a, 2, "DEBUG", "DIGEST"), srvRun(b, 2, "DEBUG", "DIGEST")
	if da != db || da == zeros || len(da) != 43 {
		t.Fatalf("digests %q and %q: want equal, not empty", da, db)
	}
	if va, vb := srvRun(a, 2, "DEBUG", "DIGEST-VALUE", "set", "h"), srvRun(b, 2, "DEBUG", "DIGEST-VALUE", "set", "h"); va != vb {
		t.Fatalf("value digests differ: %q %q", va, vb)
	}
	for _, change := range [][]string{
		{"SADD", "set", "d"}, {"HSET", "h", "f1", "other"}, {"ZADD", "z", "3", "m1"}, {"PERSIST", "s"}, {"RPUSH", "l", "z"},
	} {
		srvRun(b, 2, change...)
		if d := srvRun(b, 2, "DEBUG", "DIGEST"); d == da {
			t.Errorf("%v: digest unchanged", change)
		}
		da = srvRun(b, 2, "DEBUG", "DIGEST")
	}
}

func TestDebugPopulate(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvExpect(t, sh, "+OK\r\n", "SET", "key:1", "mine")
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "POPULATE", "3")
	srvExpect(t, sh, ":3\r\n", "DBSIZE")
	srvExpect(t, sh, "$7\r\nvalue:0\r\n", "GET", "key:0")
	srvExpect(t, sh, "$4\r\nmine\r\n", "GET", "key:1") // existing keys stay
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "POPULATE", "2", "p", "10")
	srvExpect(t, sh, "$10\r\nvalue:1\x00\x00\x00\r\n", "GET", "p:1")
	srvExpect(t, sh, "+OK\r\n", "DEBUG", "POPULATE", "1", "q", "3")
	srvExpect(t, sh, "$3\r\nval\r\n", "GET", "q:0")
	srvExpect(t, sh, "-ERR value is out of range, must be positive\r\n", "DEBUG", "POPULATE", "-1")
	srvExpect(t, sh, "-ERR value is out of range, must be positive\r\n", "DEBUG", "POPULATE", "1", "k", "x")
	srvExpect(t, sh, ":6\r\n", "DBSIZE")
}
