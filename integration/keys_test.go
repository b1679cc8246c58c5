package integration_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// sortedStrings converts an array reply of strings and sorts it.
func sortedStrings(t *testing.T, v interface{}) []string {
	t.Helper()
	a, ok := v.([]interface{})
	if !ok {
		t.Fatalf("want an array, got %#v", v)
	}
	out := make([]string, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			t.Fatalf("element %d is %#v, not a string", i, e)
		}
		out[i] = s
	}
	sort.Strings(out)
	return out
}

// scanAll iterates SCAN to the end with extra arguments and returns every key
// seen (deduplicated, sorted) and the number of calls made.
func scanAll(t *testing.T, c cmdr, extra ...interface{}) ([]string, int) {
	t.Helper()
	seen := map[string]bool{}
	cursor := "0"
	calls := 0
	for {
		calls++
		if calls > 100000 {
			t.Fatal("SCAN does not terminate")
		}
		v := value(t, c, append([]interface{}{"SCAN", cursor}, extra...)...)
		a, ok := v.([]interface{})
		if !ok || len(a) != 2 {
			t.Fatalf("SCAN reply: %#v", v)
		}
		cursor, ok = a[0].(string)
		if !ok {
			t.Fatalf("SCAN cursor is not a bulk string: %#v", a[0])
		}
		for _, k := range sortedStrings(t, a[1]) {
			seen[k] = true
		}
		if cursor == "0" {
			break
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, calls
}

// newDBClient returns a go-redis client of db on shard 0 of s.
func newDBClient(t *testing.T, s *testserver.Server, db int) *redis.Client {
	c := redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), DB: db, MaxRetries: -1, DisableIdentity: true}))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestKeys(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	db1 := newDBClient(t, s, 1)
	db2 := newDBClient(t, s, 2)

	t.Run("DEL UNLINK EXISTS TOUCH", func(t *testing.T) {
		expect(t, c, "OK", "MSET", "del:a", "1", "del:b", "2", "del:c", "3", "del:d", "4")
		expect(t, c, int64(3), "EXISTS", "del:a", "del:b", "del:missing", "del:a")
		expect(t, c, int64(3), "TOUCH", "del:a", "del:b", "del:missing", "del:c")
		expect(t, c, int64(2), "DEL", "del:a", "del:b", "del:missing")
		expect(t, c, int64(0), "DEL", "del:a")
		expect(t, c, int64(1), "DEL", "del:c", "del:c")
		expect(t, c, int64(1), "UNLINK", "del:d", "del:missing")
		expect(t, c, int64(0), "EXISTS", "del:a", "del:b", "del:c", "del:d")
		expectErr(t, c, errArity("del"), "DEL")
		expectErr(t, c, errArity("unlink"), "UNLINK")
		expectErr(t, c, errArity("exists"), "EXISTS")
		expectErr(t, c, errArity("touch"), "TOUCH")
	})

	t.Run("TYPE", func(t *testing.T) {
		expect(t, c, "OK", "SET", "type:k", "v")
		expect(t, c, "string", "TYPE", "type:k")
		expect(t, c, "none", "TYPE", "type:missing")
		r := dialRaw(t, s.Addr())
		r.expect("+string\r\n", "TYPE", "type:k")
		r.expect("+none\r\n", "TYPE", "type:missing")
		expectErr(t, c, errArity("type"), "TYPE")
	})

	t.Run("RENAME RENAMENX", func(t *testing.T) {
		expect(t, c, "OK", "SET", "ren:a", "1", "EX", "100")
		expect(t, c, "OK", "RENAME", "ren:a", "ren:b")
		expect(t, c, int64(0), "EXISTS", "ren:a")
		expect(t, c, "1", "GET", "ren:b")
		ttlIn(t, c, "ren:b", 98_000, 100_000) // the TTL moves with the value
		expect(t, c, "OK", "SET", "ren:c", "3")
		expect(t, c, "OK", "RENAME", "ren:c", "ren:b") // overwrites, and drops ren:b's TTL
		expect(t, c, "3", "GET", "ren:b")
		expect(t, c, int64(-1), "TTL", "ren:b")
		expect(t, c, "OK", "RENAME", "ren:b", "ren:b")
		expect(t, c, "3", "GET", "ren:b")
		expectErr(t, c, "ERR no such key", "RENAME", "ren:missing", "ren:x")
		expectErr(t, c, errArity("rename"), "RENAME", "ren:b")

		expect(t, c, "OK", "SET", "ren:d", "4")
		expect(t, c, int64(0), "RENAMENX", "ren:d", "ren:b")
		expect(t, c, "4", "GET", "ren:d")
		expect(t, c, int64(1), "RENAMENX", "ren:d", "ren:e")
		expect(t, c, "4", "GET", "ren:e")
		expect(t, c, int64(0), "EXISTS", "ren:d")
		expect(t, c, int64(0), "RENAMENX", "ren:e", "ren:e")
		expectErr(t, c, "ERR no such key", "RENAMENX", "ren:missing", "ren:x")
	})

	t.Run("COPY", func(t *testing.T) {
		expect(t, c, "OK", "SET", "copy:src", "v", "EX", "100")
		expect(t, c, int64(1), "COPY", "copy:src", "copy:dst")
		expect(t, c, "v", "GET", "copy:dst")
		ttlIn(t, c, "copy:dst", 98_000, 100_000)
		expect(t, c, "v", "GET", "copy:src")
		expect(t, c, "OK", "SET", "copy:src", "w")
		expect(t, c, int64(0), "COPY", "copy:src", "copy:dst")
		expect(t, c, "v", "GET", "copy:dst")
		expect(t, c, int64(1), "COPY", "copy:src", "copy:dst", "REPLACE")
		expect(t, c, "w", "GET", "copy:dst")
		expect(t, c, int64(-1), "TTL", "copy:dst")
		expect(t, c, int64(0), "COPY", "copy:missing", "copy:dst2")
		expect(t, c, int64(0), "EXISTS", "copy:dst2")

		expect(t, c, int64(1), "COPY", "copy:src", "copy:other", "DB", "1")
		expect(t, db1, "w", "GET", "copy:other")
		expect(t, c, int64(0), "EXISTS", "copy:other")
		expect(t, c, int64(0), "COPY", "copy:src", "copy:other", "DB", "1")
		expect(t, c, int64(1), "COPY", "copy:dst", "copy:other", "DB", "1", "REPLACE")
		expect(t, c, int64(1), "COPY", "copy:src", "copy:src", "DB", "2")
		expect(t, db2, "w", "GET", "copy:src")

		expectErr(t, c, "ERR source and destination objects are the same", "COPY", "copy:src", "copy:src")
		expectErr(t, c, "ERR source and destination objects are the same", "COPY", "copy:src", "copy:src", "DB", "0")
		expectErr(t, c, "ERR DB index is out of range", "COPY", "copy:src", "copy:x", "DB", "16")
		expectErr(t, c, errNotInt, "COPY", "copy:src", "copy:x", "DB", "x")
		expectErr(t, c, errSyntax, "COPY", "copy:src", "copy:x", "FOO")
		expectErr(t, c, errSyntax, "COPY", "copy:src", "copy:x", "DB")
		expectErr(t, c, errArity("copy"), "COPY", "copy:src")
		expect(t, c, int64(0), "EXISTS", "copy:x")
		expect(t, db1, int64(1), "DEL", "copy:other")
		expect(t, db2, int64(1), "DEL", "copy:src")
	})

	t.Run("KEYS", func(t *testing.T) {
		expect(t, db2, "OK", "MSET", "hello", "1", "hallo", "1", "hxllo", "1", "hllo", "1", "heeeello", "1", "other", "1")
		check := func(pattern string, want ...string) {
			t.Helper()
			got := sortedStrings(t, value(t, db2, "KEYS", pattern))
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("KEYS %s: want %v, got %v", pattern, want, got)
			}
		}
		check("*", "hallo", "heeeello", "hello", "hllo", "hxllo", "other")
		check("h?llo", "hallo", "hello", "hxllo")
		check("h*llo", "hallo", "heeeello", "hello", "hllo", "hxllo")
		check("h[ae]llo", "hallo", "hello")
		check("h[^e]llo", "hallo", "hxllo")
		check("h[a-b]llo", "hallo")
		check("hello", "hello")
		check("nomatch*")
		check("h\\?llo")
		expectErr(t, db2, errArity("keys"), "KEYS")
		expect(t, db2, "OK", "FLUSHDB")
	})

	t.Run("SCAN", func(t *testing.T) {
		d := newDBClient(t, s, 3)
		const n = 1000
		var want []string
		pipe := d.Pipeline()
		for i := 0; i < n; i++ {
			k := fmt.Sprintf("scan:%04d", i)
			want = append(want, k)
			pipe.Set(ctxT(t), k, i, 0)
		}
		pipe.Set(ctxT(t), "other:1", "x", 0)
		if _, err := pipe.Exec(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		sort.Strings(want)

		got, _ := scanAll(t, d)
		if len(got) != n+1 {
			t.Errorf("SCAN full iteration: %d keys, want %d", len(got), n+1)
		}
		got, calls := scanAll(t, d, "MATCH", "scan:*", "COUNT", "100")
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("SCAN MATCH scan:* COUNT 100: %d keys, want %d", len(got), len(want))
		}
		if calls < 2 {
			t.Errorf("SCAN COUNT 100 over %d keys finished in %d call", n, calls)
		}
		got, _ = scanAll(t, d, "COUNT", "5000")
		if len(got) != n+1 {
			t.Errorf("SCAN COUNT 5000: %d keys, want %d", len(got), n+1)
		}
		got, _ = scanAll(t, d, "MATCH", "scan:000*")
		if strings.Join(got, ",") != strings.Join(want[:10], ",") {
			t.Errorf("SCAN MATCH scan:000*: %v", got)
		}
		got, _ = scanAll(t, d, "TYPE", "string", "MATCH", "other:*")
		if strings.Join(got, ",") != "other:1" {
			t.Errorf("SCAN TYPE string MATCH other:*: %v", got)
		}
		got, _ = scanAll(t, d, "TYPE", "list")
		if len(got) != 0 {
			t.Errorf("SCAN TYPE list: %v", got)
		}
		got, _ = scanAll(t, d, "type", "STRING", "count", "1000000")
		if len(got) != n+1 {
			t.Errorf("SCAN type STRING: %d keys", len(got))
		}

		// An empty database: one call, cursor 0, no keys.
		expect(t, c, []interface{}{"0", []interface{}{}}, "SCAN", "0", "MATCH", "nothing-here:*", "COUNT", "1000000")
		expectErr(t, d, "ERR invalid cursor", "SCAN", "x")
		expectErr(t, d, "ERR invalid cursor", "SCAN", "1.5")
		expectErr(t, d, errSyntax, "SCAN", "0", "COUNT", "0")
		expectErr(t, d, errNotInt, "SCAN", "0", "COUNT", "x")
		expectErr(t, d, errSyntax, "SCAN", "0", "FOO", "1")
		expectErr(t, d, errSyntax, "SCAN", "0", "MATCH")
		expectErr(t, d, errArity("scan"), "SCAN")
		expect(t, d, "OK", "FLUSHDB")
	})

	t.Run("RANDOMKEY", func(t *testing.T) {
		d := newDBClient(t, s, 4)
		expect(t, d, nil, "RANDOMKEY")
		expect(t, d, "OK", "MSET", "rk:a", "1", "rk:b", "2", "rk:c", "3")
		for i := 0; i < 20; i++ {
			k := value(t, d, "RANDOMKEY")
			if k != "rk:a" && k != "rk:b" && k != "rk:c" {
				t.Fatalf("RANDOMKEY: %#v", k)
			}
		}
		expect(t, d, "OK", "FLUSHDB")
		expect(t, d, "OK", "SET", "rk:exp", "v", "PX", "50")
		time.Sleep(300 * time.Millisecond)
		expect(t, d, nil, "RANDOMKEY")
	})

	t.Run("EXPIRE family", func(t *testing.T) {
		expect(t, c, "OK", "SET", "ex:k", "v")
		expect(t, c, int64(1), "EXPIRE", "ex:k", "100")
		ttlIn(t, c, "ex:k", 98_000, 100_000)
		expect(t, c, int64(0), "EXPIRE", "ex:missing", "100")
		expect(t, c, int64(1), "PEXPIRE", "ex:k", "200000")
		ttlIn(t, c, "ex:k", 198_000, 200_000)
		at := time.Now().Add(300 * time.Second).Unix()
		expect(t, c, int64(1), "EXPIREAT", "ex:k", at)
		expect(t, c, at, "EXPIRETIME", "ex:k")
		expect(t, c, at*1000, "PEXPIRETIME", "ex:k")
		atMs := time.Now().Add(400 * time.Second).UnixMilli()
		expect(t, c, int64(1), "PEXPIREAT", "ex:k", atMs)
		expect(t, c, atMs, "PEXPIRETIME", "ex:k")
		expect(t, c, (atMs+500)/1000, "EXPIRETIME", "ex:k")
		if ttl := intValue(t, c, "TTL", "ex:k"); ttl < 398 || ttl > 400 {
			t.Errorf("TTL after PEXPIREAT +400s: %d", ttl)
		}

		expect(t, c, int64(-2), "TTL", "ex:missing")
		expect(t, c, int64(-2), "PTTL", "ex:missing")
		expect(t, c, int64(-2), "EXPIRETIME", "ex:missing")
		expect(t, c, int64(-2), "PEXPIRETIME", "ex:missing")
		expect(t, c, "OK", "SET", "ex:plain", "v")
		expect(t, c, int64(-1), "TTL", "ex:plain")
		expect(t, c, int64(-1), "PTTL", "ex:plain")
		expect(t, c, int64(-1), "EXPIRETIME", "ex:plain")
		expect(t, c, int64(-1), "PEXPIRETIME", "ex:plain")

		// NX: only without a TTL. XX: only with one.
		expect(t, c, int64(0), "EXPIRE", "ex:k", "100", "NX")
		expect(t, c, int64(0), "EXPIRE", "ex:plain", "100", "XX")
		expect(t, c, int64(-1), "TTL", "ex:plain")
		expect(t, c, int64(1), "EXPIRE", "ex:plain", "100", "NX")
		ttlIn(t, c, "ex:plain", 98_000, 100_000)
		expect(t, c, int64(1), "EXPIRE", "ex:plain", "200", "XX")
		ttlIn(t, c, "ex:plain", 198_000, 200_000)
		// GT: only a later deadline; no TTL counts as infinite.
		expect(t, c, int64(0), "EXPIRE", "ex:plain", "100", "GT")
		expect(t, c, int64(1), "EXPIRE", "ex:plain", "300", "GT")
		ttlIn(t, c, "ex:plain", 298_000, 300_000)
		// LT: only an earlier deadline.
		expect(t, c, int64(0), "EXPIRE", "ex:plain", "400", "LT")
		expect(t, c, int64(1), "EXPIRE", "ex:plain", "150", "LT")
		ttlIn(t, c, "ex:plain", 148_000, 150_000)
		expect(t, c, int64(1), "PEXPIRE", "ex:plain", "100000", "xx", "lt")
		ttlIn(t, c, "ex:plain", 98_000, 100_000)
		expect(t, c, "OK", "SET", "ex:nottl", "v")
		expect(t, c, int64(0), "EXPIRE", "ex:nottl", "100", "GT")
		expect(t, c, int64(-1), "TTL", "ex:nottl")
		expect(t, c, int64(1), "EXPIRE", "ex:nottl", "100", "LT")
		ttlIn(t, c, "ex:nottl", 98_000, 100_000)
		expect(t, c, int64(0), "PEXPIREAT", "ex:nottl", time.Now().Add(50*time.Second).UnixMilli(), "GT")
		expect(t, c, int64(1), "EXPIREAT", "ex:nottl", time.Now().Add(50*time.Second).Unix(), "LT")
		ttlIn(t, c, "ex:nottl", 47_000, 50_000)

		expectErr(t, c, "ERR NX and XX, GT or LT options at the same time are not compatible", "EXPIRE", "ex:k", "100", "NX", "XX")
		expectErr(t, c, "ERR NX and XX, GT or LT options at the same time are not compatible", "EXPIRE", "ex:k", "100", "NX", "GT")
		expectErr(t, c, "ERR GT and LT options at the same time are not compatible", "EXPIRE", "ex:k", "100", "GT", "LT")
		expectErr(t, c, "ERR Unsupported option FOO", "EXPIRE", "ex:k", "100", "FOO")
		expectErr(t, c, errNotInt, "EXPIRE", "ex:k", "x")
		expectErr(t, c, errNotInt, "PEXPIRE", "ex:k", "1.5")
		expectErr(t, c, "ERR invalid expire time in 'expire' command", "EXPIRE", "ex:k", "9223372036854775807")
		expectErr(t, c, "ERR invalid expire time in 'pexpire' command", "PEXPIRE", "ex:k", "9223372036854775807")
		expectErr(t, c, "ERR invalid expire time in 'expireat' command", "EXPIREAT", "ex:k", "9223372036854775807")
		expectErr(t, c, errArity("expire"), "EXPIRE", "ex:k")
		expectErr(t, c, errArity("ttl"), "TTL")

		// A deadline in the past deletes the key at once.
		expect(t, c, "OK", "SET", "ex:gone", "v")
		expect(t, c, int64(1), "EXPIRE", "ex:gone", "-1")
		expect(t, c, int64(0), "EXISTS", "ex:gone")
		expect(t, c, "OK", "SET", "ex:gone", "v")
		expect(t, c, int64(1), "PEXPIREAT", "ex:gone", "1")
		expect(t, c, int64(0), "EXISTS", "ex:gone")
		expect(t, c, "OK", "SET", "ex:gone", "v")
		expect(t, c, int64(1), "EXPIRE", "ex:gone", "0")
		expect(t, c, int64(-2), "TTL", "ex:gone")
	})

	t.Run("PERSIST", func(t *testing.T) {
		expect(t, c, "OK", "SET", "per:k", "v", "EX", "100")
		expect(t, c, int64(1), "PERSIST", "per:k")
		expect(t, c, int64(-1), "TTL", "per:k")
		expect(t, c, int64(0), "PERSIST", "per:k")
		expect(t, c, int64(0), "PERSIST", "per:missing")
		expectErr(t, c, errArity("persist"), "PERSIST")
	})

	t.Run("OBJECT", func(t *testing.T) {
		expect(t, c, "OK", "SET", "obj:int", "12345")
		expect(t, c, "OK", "SET", "obj:neg", "-7")
		expect(t, c, "OK", "SET", "obj:short", "hello")
		expect(t, c, "OK", "SET", "obj:long", strings.Repeat("x", 45))
		expect(t, c, "OK", "SET", "obj:44", strings.Repeat("x", 44))
		expect(t, c, "int", "OBJECT", "ENCODING", "obj:int")
		expect(t, c, "int", "OBJECT", "ENCODING", "obj:neg")
		expect(t, c, "embstr", "OBJECT", "ENCODING", "obj:short")
		expect(t, c, "embstr", "OBJECT", "ENCODING", "obj:44")
		expect(t, c, "raw", "OBJECT", "ENCODING", "obj:long")
		expect(t, c, nil, "OBJECT", "ENCODING", "obj:missing")
		// APPEND to a missing key stores the argument (embstr); to an existing one, a raw string.
		expect(t, c, int64(4), "APPEND", "obj:short2", "abcd")
		expect(t, c, "embstr", "OBJECT", "ENCODING", "obj:short2")
		t.Run("raw after APPEND or SETRANGE", func(t *testing.T) {
			expect(t, c, int64(6), "APPEND", "obj:short2", "ef")
			expect(t, c, "raw", "OBJECT", "ENCODING", "obj:short2")
			expect(t, c, "OK", "SET", "obj:sr", "abc")
			expect(t, c, int64(3), "SETRANGE", "obj:sr", "0", "x")
			expect(t, c, "raw", "OBJECT", "ENCODING", "obj:sr")
		})
		expect(t, c, int64(1), "INCR", "obj:counter")
		expect(t, c, "int", "OBJECT", "ENCODING", "obj:counter")
		expect(t, c, int64(1), "OBJECT", "REFCOUNT", "obj:long")
		if n := intValue(t, c, "OBJECT", "IDLETIME", "obj:long"); n < 0 || n > 10 {
			t.Errorf("OBJECT IDLETIME of a fresh key: %d", n)
		}
		expect(t, c, nil, "OBJECT", "IDLETIME", "obj:missing")
		expectErr(t, c, "ERR unknown subcommand 'FOO'. Try OBJECT HELP.", "OBJECT", "FOO", "obj:int")
		expectErr(t, c, errArity("object|encoding"), "OBJECT", "ENCODING")
		if _, ok := value(t, c, "OBJECT", "HELP").([]interface{}); !ok {
			t.Errorf("OBJECT HELP is not an array")
		}
	})

	t.Run("keys vanish after their TTL", func(t *testing.T) {
		d := newDBClient(t, s, 5)
		expect(t, d, "OK", "SET", "vanish:ex", "v", "EX", "1")
		setAt := time.Now()
		expect(t, d, "OK", "SET", "vanish:px", "v", "PX", "100")
		expect(t, d, "OK", "PSETEX", "vanish:psetex", "100", "v")
		expect(t, d, "OK", "SET", "vanish:keep", "v")
		expect(t, d, int64(1), "PEXPIRE", "vanish:keep", "500")
		expect(t, d, int64(1), "PERSIST", "vanish:keep")
		time.Sleep(300 * time.Millisecond)
		expect(t, d, nil, "GET", "vanish:px")
		expect(t, d, int64(0), "EXISTS", "vanish:psetex")
		expect(t, d, int64(-2), "PTTL", "vanish:px")
		expect(t, d, "v", "GET", "vanish:keep")
		if time.Since(setAt) < 800*time.Millisecond { // only when the machine was not stalled
			if got := sortedStrings(t, value(t, d, "KEYS", "*")); strings.Join(got, ",") != "vanish:ex,vanish:keep" {
				t.Errorf("KEYS * after the short TTLs: %v", got)
			}
		}
		time.Sleep(time.Until(setAt.Add(1300 * time.Millisecond)))
		expect(t, d, nil, "GET", "vanish:ex")
		if got := sortedStrings(t, value(t, d, "KEYS", "*")); strings.Join(got, ",") != "vanish:keep" {
			t.Errorf("KEYS * after EX 1: %v", got)
		}
		got, _ := scanAll(t, d)
		if strings.Join(got, ",") != "vanish:keep" {
			t.Errorf("SCAN after expiry: %v", got)
		}

		// Active expiry deletes keys nobody touches: DBSIZE drops to 1 in bounded time.
		for i := 0; i < 50; i++ {
			expect(t, d, "OK", "SET", "active:"+strconv.Itoa(i), "v", "PX", "100")
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			n := intValue(t, d, "DBSIZE")
			if n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("DBSIZE still %d five seconds after 50 keys expired", n)
			}
			time.Sleep(100 * time.Millisecond)
		}
		expect(t, d, "OK", "FLUSHDB")
	})

	t.Run("DBSIZE FLUSHDB FLUSHALL", func(t *testing.T) {
		d := newDBClient(t, s, 6)
		d7 := newDBClient(t, s, 7)
		expect(t, d, int64(0), "DBSIZE")
		expect(t, d, "OK", "MSET", "a", "1", "b", "2", "c", "3")
		expect(t, d7, "OK", "SET", "a", "1")
		expect(t, d, int64(3), "DBSIZE")
		expect(t, d7, int64(1), "DBSIZE")
		expect(t, d, "OK", "FLUSHDB")
		expect(t, d, int64(0), "DBSIZE")
		expect(t, d7, int64(1), "DBSIZE")
		expect(t, d, "OK", "SET", "x", "1")
		expect(t, d, "OK", "FLUSHDB", "ASYNC")
		expect(t, d, int64(0), "DBSIZE")
		expect(t, d, "OK", "FLUSHDB", "SYNC")
		expectErr(t, d, errSyntax, "FLUSHDB", "FOO")
		expectErr(t, d, errSyntax, "FLUSHALL", "FOO")
		expectErr(t, d, errArity("dbsize"), "DBSIZE", "x")
	})

	t.Run("SWAPDB", func(t *testing.T) {
		d8 := newDBClient(t, s, 8)
		d9 := newDBClient(t, s, 9)
		expect(t, d8, "OK", "SET", "swap:k", "eight", "EX", "100")
		expect(t, d9, "OK", "MSET", "swap:k", "nine", "swap:only9", "x")
		expect(t, c, "OK", "SWAPDB", "8", "9")
		expect(t, d8, "nine", "GET", "swap:k")
		expect(t, d8, "x", "GET", "swap:only9")
		expect(t, d9, "eight", "GET", "swap:k")
		ttlIn(t, d9, "swap:k", 98_000, 100_000)
		expect(t, d9, int64(1), "DBSIZE")
		expect(t, c, "OK", "SWAPDB", "9", "9")
		expect(t, d9, "eight", "GET", "swap:k")
		expectErr(t, c, "ERR DB index is out of range", "SWAPDB", "0", "16")
		expectErr(t, c, "ERR DB index is out of range", "SWAPDB", "-1", "0")
		expectErr(t, c, "ERR invalid first DB index", "SWAPDB", "x", "1")
		expectErr(t, c, "ERR invalid second DB index", "SWAPDB", "1", "x")
		expectErr(t, c, errArity("swapdb"), "SWAPDB", "1")
		expect(t, d8, "OK", "FLUSHDB")
		expect(t, d9, "OK", "FLUSHDB")
	})

	t.Run("MOVE", func(t *testing.T) {
		d10 := newDBClient(t, s, 10)
		expect(t, c, "OK", "SET", "move:k", "v", "EX", "100")
		expect(t, c, int64(1), "MOVE", "move:k", "10")
		expect(t, c, int64(0), "EXISTS", "move:k")
		expect(t, d10, "v", "GET", "move:k")
		ttlIn(t, d10, "move:k", 98_000, 100_000)
		expect(t, c, "OK", "SET", "move:k", "other")
		expect(t, c, int64(0), "MOVE", "move:k", "10")
		expect(t, c, "other", "GET", "move:k")
		expect(t, d10, "v", "GET", "move:k")
		expect(t, c, int64(0), "MOVE", "move:missing", "10")
		expectErr(t, c, "ERR source and destination objects are the same", "MOVE", "move:k", "0")
		expectErr(t, c, "ERR DB index is out of range", "MOVE", "move:k", "16")
		expectErr(t, c, errNotInt, "MOVE", "move:k", "x")
		expectErr(t, c, errArity("move"), "MOVE", "move:k")
		expect(t, d10, "OK", "FLUSHDB")
	})
}

// FLUSHALL empties every database; it runs on its own server.
func TestFlushAll(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	d3 := newDBClient(t, s, 3)
	expect(t, c, "OK", "MSET", "a", "1", "b", "2")
	expect(t, d3, "OK", "SET", "c", "3")
	expect(t, c, "OK", "FLUSHALL")
	expect(t, c, int64(0), "DBSIZE")
	expect(t, d3, int64(0), "DBSIZE")
	expect(t, d3, "OK", "SET", "c", "3")
	expect(t, c, "OK", "FLUSHALL", "ASYNC")
	expect(t, d3, int64(0), "DBSIZE")
	expect(t, c, "OK", "FLUSHALL", "SYNC")
}
