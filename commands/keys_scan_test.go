package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"strings"
	"testing"
)

// Tests of SCAN: argument errors, the MATCH, COUNT and TYPE filters and
// expired keys, and every key present throughout a scan being returned
// while the table grows or shrinks; with the RESP array decoders and
// scanOnce, which the other families' tests use too.

// parseBulkArray decodes a RESP array of bulk strings.
func parseBulkArray(t *testing.T, s string) []string {
	t.Helper()
	items, rest := parseArray(t, s)
	if rest != "" {
		t.Fatalf("trailing bytes %q", rest)
	}
	return items
}

func parseArray(t *testing.T, s string) ([]string, string) {
	t.Helper()
	if !strings.HasPrefix(s, "*") {
		t.Fatalf("not an array: %q", s)
	}
	i := strings.Index(s, "\r\n")
	n, err := strconv.Atoi(s[1:i])
	if err != nil {
		t.Fatal(err)
	}
	s = s[i+2:]
	var out []string
	for ; n > 0; n-- {
		if !strings.HasPrefix(s, "$") {
			t.Fatalf("not a bulk string: %q", s)
		}
		i = strings.Index(s, "\r\n")
		l, err := strconv.Atoi(s[1:i])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s[i+2:i+2+l])
		s = s[i+2+l+2:]
	}
	return out, s
}

// scanOnce runs one SCAN call and returns the next cursor and the keys.
func scanOnce(t *testing.T, sh *keyspace.Shard, args ...string) (string, []string) {
	t.Helper()
	got := run(t, sh, append([]string{"SCAN"}, args...)...)
	if !strings.HasPrefix(got, "*2\r\n") {
		t.Fatalf("SCAN %v: %q", args, got)
	}
	cur, rest := parseArray(t, "*1\r\n"+got[4:])
	keys, rest := parseArray(t, rest)
	if rest != "" {
		t.Fatalf("trailing bytes %q", rest)
	}
	return cur[0], keys
}

func TestKeysScanErrors(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, "*2\r\n$1\r\n0\r\n*0\r\n", "SCAN", "0")
	for _, c := range []string{"x", " 1", "1 ", "+", "-", "18446744073709551616", "1.5"} {
		expect(t, sh, rErr("ERR invalid cursor"), "SCAN", c)
	}
	expect(t, sh, rErr(keyspace.ErrSyntax), "SCAN", "0", "COUNT", "0")
	expect(t, sh, rErr(keyspace.ErrSyntax), "SCAN", "0", "COUNT", "-1")
	expect(t, sh, rErr(keyspace.ErrNotInt), "SCAN", "0", "COUNT", "x")
	expect(t, sh, rErr(keyspace.ErrSyntax), "SCAN", "0", "COUNT")
	expect(t, sh, rErr(keyspace.ErrSyntax), "SCAN", "0", "MATCH")
	expect(t, sh, rErr(keyspace.ErrSyntax), "SCAN", "0", "FOO", "bar")
	expect(t, sh, rErr("ERR wrong number of arguments for 'scan' command"), "SCAN")
	// strtoul accepts a sign and an empty cursor.
	expect(t, sh, "*2\r\n$1\r\n0\r\n*0\r\n", "SCAN", "+0")
	expect(t, sh, "*2\r\n$1\r\n0\r\n*0\r\n", "SCAN", "")
}

func TestKeysScanFilters(t *testing.T) {
	sh := newTestShard(t)
	for i := 0; i < 50; i++ {
		expect(t, sh, rOK, "SET", "key:"+strconv.Itoa(i), "v")
	}
	expect(t, sh, rOK, "SET", "other", "v")
	sh.DBs[0].Add([]byte("key:list"), nil, &fakeListObj{}, 0)
	expect(t, sh, rOK, "SET", "key:gone", "v", "PX", "1")
	sh.NowMs++
	collect := func(args ...string) map[string]int {
		seen := map[string]int{}
		cur := "0"
		for {
			var keys []string
			cur, keys = scanOnce(t, sh, append([]string{cur}, args...)...)
			for _, k := range keys {
				seen[k]++
			}
			if cur == "0" {
				return seen
			}
		}
	}
	all := collect()
	if len(all) != 52 {
		t.Errorf("SCAN returned %d keys, want 52", len(all))
	}
	if all["key:gone"] != 0 {
		t.Error("SCAN returned an expired key")
	}
	if sh.DBs[0].FindString("key:gone") != nil {
		t.Error("SCAN did not delete the expired key it met")
	}
	m := collect("MATCH", "key:*", "COUNT", "7")
	if len(m) != 51 || m["other"] != 0 {
		t.Errorf("MATCH key:* returned %d keys", len(m))
	}
	lists := collect("TYPE", "LIST")
	if len(lists) != 1 || lists["key:list"] != 1 {
		t.Errorf("TYPE list returned %v", lists)
	}
	strs := collect("type", "string", "match", "*1*")
	for k := range strs {
		if !strings.Contains(k, "1") || k == "key:list" {
			t.Errorf("TYPE string MATCH *1* returned %q", k)
		}
	}
	if len(strs) != 14 { // 1, 10..19, 21, 31, 41
		t.Errorf("TYPE string MATCH *1* returned %d keys, want 14", len(strs))
	}
	if n := len(collect("TYPE", "nosuchtype")); n != 0 {
		t.Errorf("unknown TYPE returned %d keys", n)
	}
	// A big COUNT returns everything in one call.
	cur, keys := scanOnce(t, sh, "0", "COUNT", "1000")
	if cur != "0" || len(keys) != 52 {
		t.Errorf("SCAN COUNT 1000: cursor %s, %d keys", cur, len(keys))
	}
	cur, _ = scanOnce(t, sh, "0", "COUNT", "9223372036854775807")
	if cur != "0" {
		t.Errorf("SCAN with a huge COUNT: cursor %s", cur)
	}
}

func TestKeysScanCoverageWhileGrowing(t *testing.T) {
	sh := newTestShard(t)
	orig := map[string]bool{}
	for i := 0; i < 1000; i++ {
		k := "orig:" + strconv.Itoa(i)
		orig[k] = true
		expect(t, sh, rOK, "SET", k, "v")
	}
	seen := map[string]bool{}
	cur := "0"
	added := 0
	startBuckets := len(sh.DBs[0].T.Slots)
	for calls := 0; ; calls++ {
		var keys []string
		cur, keys = scanOnce(t, sh, cur, "COUNT", "10")
		for _, k := range keys {
			seen[k] = true
		}
		if cur == "0" {
			break
		}
		if calls > 100000 {
			t.Fatal("SCAN does not terminate")
		}
		for n := 0; n < 20; n++ {
			expect(t, sh, rOK, "SET", "new:"+strconv.Itoa(added), "v")
			added++
		}
	}
	if len(sh.DBs[0].T.Slots) <= startBuckets {
		t.Fatalf("the table did not grow (%d buckets)", startBuckets)
	}
	for k := range orig {
		if !seen[k] {
			t.Fatalf("SCAN missed %s", k)
		}
	}
}

func TestKeysScanCoverageWhileShrinking(t *testing.T) {
	sh := newTestShard(t)
	for i := 0; i < 2000; i++ {
		expect(t, sh, rOK, "SET", "k"+strconv.Itoa(i), "v")
	}
	// Keys 0..199 stay; the others are deleted between calls.
	seen := map[string]bool{}
	cur := "0"
	next := 200
	for {
		var keys []string
		cur, keys = scanOnce(t, sh, cur, "COUNT", "10")
		for _, k := range keys {
			seen[k] = true
		}
		if cur == "0" {
			break
		}
		for n := 0; n < 30 && next < 2000; n++ {
			run(t, sh, "DEL", "k"+strconv.Itoa(next))
			next++
		}
	}
	for i := 0; i < 200; i++ {
		if !seen["k"+strconv.Itoa(i)] {
			t.Fatalf("SCAN missed k%d", i)
		}
	}
}
