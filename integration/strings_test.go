package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

func TestStrings(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)

	t.Run("GET", func(t *testing.T) {
		expect(t, c, nil, "GET", "get:missing")
		expect(t, c, "OK", "SET", "get:k", "v")
		expect(t, c, "v", "GET", "get:k")
		expect(t, c, "OK", "SET", "get:empty", "")
		expect(t, c, "", "GET", "get:empty")
		expectErr(t, c, errArity("get"), "GET")
		expectErr(t, c, errArity("get"), "GET", "a", "b")
	})

	t.Run("SET options", func(t *testing.T) {
		expect(t, c, "OK", "SET", "set:k", "1")
		expect(t, c, int64(-1), "TTL", "set:k")

		expect(t, c, "OK", "SET", "set:k", "2", "EX", "100")
		ttlIn(t, c, "set:k", 98_000, 100_000)
		expect(t, c, "OK", "SET", "set:k", "3", "PX", "50000")
		ttlIn(t, c, "set:k", 48_000, 50_000)
		at := time.Now().Add(200 * time.Second).Unix()
		expect(t, c, "OK", "SET", "set:k", "4", "EXAT", at)
		expect(t, c, at, "EXPIRETIME", "set:k")
		atMs := time.Now().Add(300 * time.Second).UnixMilli()
		expect(t, c, "OK", "SET", "set:k", "5", "PXAT", atMs)
		expect(t, c, atMs, "PEXPIRETIME", "set:k")
		// KEEPTTL keeps the deadline, a plain SET drops it.
		expect(t, c, "OK", "SET", "set:k", "6", "KEEPTTL")
		expect(t, c, atMs, "PEXPIRETIME", "set:k")
		expect(t, c, "6", "GET", "set:k")
		expect(t, c, "OK", "SET", "set:k", "7")
		expect(t, c, int64(-1), "PTTL", "set:k")
		// Option names are case-insensitive.
		expect(t, c, "OK", "SET", "set:k", "8", "ex", "100")
		ttlIn(t, c, "set:k", 98_000, 100_000)

		// NX / XX.
		expect(t, c, nil, "SET", "set:k", "nx", "NX")
		expect(t, c, "8", "GET", "set:k")
		expect(t, c, "OK", "SET", "set:new", "nx", "NX")
		expect(t, c, "nx", "GET", "set:new")
		expect(t, c, nil, "SET", "set:absent", "xx", "XX")
		expect(t, c, int64(0), "EXISTS", "set:absent")
		expect(t, c, "OK", "SET", "set:new", "xx", "XX")
		expect(t, c, "xx", "GET", "set:new")

		// GET returns the old value.
		expect(t, c, "xx", "SET", "set:new", "g", "GET")
		expect(t, c, "g", "GET", "set:new")
		expect(t, c, nil, "SET", "set:get-missing", "g", "GET")
		expect(t, c, "g", "GET", "set:get-missing")
		// NX with GET (allowed since 7.0): an existing key is returned and kept.
		expect(t, c, "g", "SET", "set:new", "other", "NX", "GET")
		expect(t, c, "g", "GET", "set:new")
		expect(t, c, nil, "SET", "set:nxget", "v", "NX", "GET")
		expect(t, c, "v", "GET", "set:nxget")
		// XX with GET on a missing key: nil, nothing stored.
		expect(t, c, nil, "SET", "set:xxget", "v", "XX", "GET")
		expect(t, c, int64(0), "EXISTS", "set:xxget")
		// GET with EX.
		expect(t, c, "v", "SET", "set:nxget", "w", "GET", "EX", "100")
		ttlIn(t, c, "set:nxget", 98_000, 100_000)

		// Conflicting and malformed options.
		for _, args := range [][]interface{}{
			{"NX", "XX"}, {"XX", "NX"}, {"EX", "10", "PX", "100"}, {"EX", "10", "EXAT", "99999999999"},
			{"PX", "10", "PXAT", "99999999999999"}, {"KEEPTTL", "EX", "10"}, {"PX", "10", "KEEPTTL"},
			{"EX"}, {"PX"}, {"FOO"}, {"EXAT"}, {"EX", "10", "XX", "NX"},
		} {
			expectErr(t, c, errSyntax, append([]interface{}{"SET", "set:bad", "v"}, args...)...)
		}
		// Repeating a flag is not a conflict (Redis accepts it).
		expect(t, c, "OK", "SET", "set:rep", "v", "NX", "NX")
		expect(t, c, "v", "SET", "set:rep", "w", "GET", "GET")
		expect(t, c, "w", "GET", "set:rep")
		expectErr(t, c, errNotInt, "SET", "set:bad", "v", "EX", "x")
		expectErr(t, c, errNotInt, "SET", "set:bad", "v", "PX", "1.5")
		for _, args := range [][]interface{}{
			{"EX", "0"}, {"EX", "-1"}, {"PX", "0"}, {"PX", "-100"}, {"EXAT", "0"}, {"PXAT", "-1"},
			{"EX", "9223372036854775807"}, {"PX", "9223372036854775807"},
		} {
			expectErr(t, c, "ERR invalid expire time in 'set' command", append([]interface{}{"SET", "set:bad", "v"}, args...)...)
		}
		expect(t, c, int64(0), "EXISTS", "set:bad")
		expectErr(t, c, errArity("set"), "SET", "set:bad")

		// A deadline in the past stores nothing visible.
		expect(t, c, "OK", "SET", "set:past", "v", "EXAT", "1")
		expect(t, c, nil, "GET", "set:past")
		expect(t, c, "OK", "SET", "set:past", "v", "PXAT", time.Now().Add(-time.Second).UnixMilli())
		expect(t, c, int64(0), "EXISTS", "set:past")
	})

	t.Run("SET repeated expire option", func(t *testing.T) {
		expect(t, c, "OK", "SET", "setrep:k", "v", "EX", "10", "EX", "200")
		ttlIn(t, c, "setrep:k", 198_000, 200_000)
		expect(t, c, "OK", "SET", "setrep:k", "v", "PX", "10", "PX", "200000")
		ttlIn(t, c, "setrep:k", 198_000, 200_000)
		expect(t, c, "v", "GETEX", "setrep:k", "EX", "10", "EX", "300")
		ttlIn(t, c, "setrep:k", 298_000, 300_000)
	})

	t.Run("SETNX SETEX PSETEX", func(t *testing.T) {
		expect(t, c, int64(1), "SETNX", "setnx:k", "a")
		expect(t, c, int64(0), "SETNX", "setnx:k", "b")
		expect(t, c, "a", "GET", "setnx:k")
		expectErr(t, c, errArity("setnx"), "SETNX", "setnx:k")

		expect(t, c, "OK", "SETEX", "setex:k", "100", "v")
		expect(t, c, "v", "GET", "setex:k")
		ttlIn(t, c, "setex:k", 98_000, 100_000)
		expectErr(t, c, "ERR invalid expire time in 'setex' command", "SETEX", "setex:k", "0", "v")
		expectErr(t, c, "ERR invalid expire time in 'setex' command", "SETEX", "setex:k", "-5", "v")
		expectErr(t, c, errNotInt, "SETEX", "setex:k", "ten", "v")
		expectErr(t, c, errArity("setex"), "SETEX", "setex:k", "10")
		expect(t, c, "v", "GET", "setex:k") // unchanged by the errors

		expect(t, c, "OK", "PSETEX", "psetex:k", "100000", "pv")
		expect(t, c, "pv", "GET", "psetex:k")
		ttlIn(t, c, "psetex:k", 98_000, 100_000)
		expectErr(t, c, "ERR invalid expire time in 'psetex' command", "PSETEX", "psetex:k", "0", "v")
		expectErr(t, c, errNotInt, "PSETEX", "psetex:k", "1.0", "v")
	})

	t.Run("MGET MSET MSETNX", func(t *testing.T) {
		expect(t, c, "OK", "MSET", "m:a", "1", "m:b", "2", "m:c", "3")
		expect(t, c, []interface{}{"1", "2", nil, "3"}, "MGET", "m:a", "m:b", "m:missing", "m:c")
		expect(t, c, []interface{}{nil}, "MGET", "m:missing")
		expectErr(t, c, errArity("mget"), "MGET")
		expectErr(t, c, errArity("mset"), "MSET", "m:a", "1", "m:b")
		expectErr(t, c, errArity("mset"), "MSET")
		// Later pairs win.
		expect(t, c, "OK", "MSET", "m:d", "x", "m:d", "y")
		expect(t, c, "y", "GET", "m:d")
		// MSET drops TTLs.
		expect(t, c, "OK", "SET", "m:ttl", "v", "EX", "100")
		expect(t, c, "OK", "MSET", "m:ttl", "w")
		expect(t, c, int64(-1), "TTL", "m:ttl")

		expect(t, c, int64(1), "MSETNX", "mnx:a", "1", "mnx:b", "2")
		expect(t, c, int64(0), "MSETNX", "mnx:b", "x", "mnx:c", "3")
		expect(t, c, []interface{}{"1", "2", nil}, "MGET", "mnx:a", "mnx:b", "mnx:c")
		expectErr(t, c, errArity("msetnx"), "MSETNX", "mnx:a")
		expectErr(t, c, errArity("msetnx"), "MSETNX", "mnx:a", "1", "mnx:b")
	})

	t.Run("GETSET GETDEL", func(t *testing.T) {
		expect(t, c, nil, "GETSET", "gs:k", "1")
		expect(t, c, "1", "GETSET", "gs:k", "2")
		expect(t, c, "2", "GET", "gs:k")
		expect(t, c, "OK", "SET", "gs:k", "3", "EX", "100")
		expect(t, c, "3", "GETSET", "gs:k", "4")
		expect(t, c, int64(-1), "TTL", "gs:k")
		expectErr(t, c, errArity("getset"), "GETSET", "gs:k")

		expect(t, c, "4", "GETDEL", "gs:k")
		expect(t, c, int64(0), "EXISTS", "gs:k")
		expect(t, c, nil, "GETDEL", "gs:k")
		expectErr(t, c, errArity("getdel"), "GETDEL")
	})

	t.Run("GETEX", func(t *testing.T) {
		expect(t, c, "OK", "SET", "gex:k", "v")
		expect(t, c, "v", "GETEX", "gex:k")
		expect(t, c, int64(-1), "TTL", "gex:k")
		expect(t, c, "v", "GETEX", "gex:k", "EX", "100")
		ttlIn(t, c, "gex:k", 98_000, 100_000)
		expect(t, c, "v", "GETEX", "gex:k", "PX", "50000")
		ttlIn(t, c, "gex:k", 48_000, 50_000)
		at := time.Now().Add(500 * time.Second).Unix()
		expect(t, c, "v", "GETEX", "gex:k", "EXAT", at)
		expect(t, c, at, "EXPIRETIME", "gex:k")
		atMs := time.Now().Add(600 * time.Second).UnixMilli()
		expect(t, c, "v", "GETEX", "gex:k", "PXAT", atMs)
		expect(t, c, atMs, "PEXPIRETIME", "gex:k")
		expect(t, c, "v", "GETEX", "gex:k", "PERSIST")
		expect(t, c, int64(-1), "PTTL", "gex:k")
		expect(t, c, nil, "GETEX", "gex:missing", "EX", "100")
		expect(t, c, int64(0), "EXISTS", "gex:missing")

		for _, args := range [][]interface{}{
			{"EX", "10", "PX", "10"}, {"PERSIST", "EX", "10"}, {"EX", "10", "PERSIST"}, {"FOO"}, {"EX"},
			{"KEEPTTL"}, {"NX"},
		} {
			expectErr(t, c, errSyntax, append([]interface{}{"GETEX", "gex:k"}, args...)...)
		}
		expectErr(t, c, errNotInt, "GETEX", "gex:k", "EX", "x")
		for _, args := range [][]interface{}{{"EX", "0"}, {"PX", "-1"}, {"EXAT", "0"}, {"EX", "9223372036854775807"}} {
			expectErr(t, c, "ERR invalid expire time in 'getex' command", append([]interface{}{"GETEX", "gex:k"}, args...)...)
		}
		expect(t, c, int64(-1), "PTTL", "gex:k") // errors change nothing
		expectErr(t, c, errArity("getex"), "GETEX")

		// A deadline in the past: the value is returned and the key is gone.
		expect(t, c, "v", "GETEX", "gex:k", "PXAT", time.Now().Add(-time.Second).UnixMilli())
		expect(t, c, int64(0), "EXISTS", "gex:k")
	})

	t.Run("GETEX milliseconds form", func(t *testing.T) {
		// Ruvio's short form: GETEX key <milliseconds> sets the deadline to now+ms.
		expect(t, c, "OK", "SET", "gexms:k", "v")
		expect(t, c, "v", "GETEX", "gexms:k", "50000")
		ttlIn(t, c, "gexms:k", 48_000, 50_000)
		expect(t, c, nil, "GETEX", "gexms:missing", "50000")
		expect(t, c, int64(0), "EXISTS", "gexms:missing")
		expect(t, c, "v", "GETEX", "gexms:k", "100")
		time.Sleep(300 * time.Millisecond)
		expect(t, c, nil, "GET", "gexms:k")
	})

	t.Run("APPEND STRLEN", func(t *testing.T) {
		expect(t, c, int64(5), "APPEND", "app:k", "Hello")
		expect(t, c, int64(11), "APPEND", "app:k", " World")
		expect(t, c, "Hello World", "GET", "app:k")
		expect(t, c, int64(11), "STRLEN", "app:k")
		expect(t, c, int64(0), "STRLEN", "app:missing")
		expect(t, c, int64(0), "APPEND", "app:empty", "")
		expect(t, c, int64(1), "EXISTS", "app:empty")
		// APPEND keeps the TTL.
		expect(t, c, "OK", "SET", "app:ttl", "a", "EX", "100")
		expect(t, c, int64(2), "APPEND", "app:ttl", "b")
		ttlIn(t, c, "app:ttl", 98_000, 100_000)
		expect(t, c, "OK", "SET", "app:int", "12")
		expect(t, c, int64(3), "APPEND", "app:int", "3")
		expect(t, c, int64(124), "INCR", "app:int")
		expectErr(t, c, errArity("append"), "APPEND", "app:k")
		expectErr(t, c, errArity("strlen"), "STRLEN")
	})

	t.Run("INCR DECR", func(t *testing.T) {
		expect(t, c, int64(1), "INCR", "n:k")
		expect(t, c, int64(0), "DECR", "n:k")
		expect(t, c, int64(-1), "DECR", "n:k")
		expect(t, c, int64(9), "INCRBY", "n:k", "10")
		expect(t, c, int64(4), "DECRBY", "n:k", "5")
		expect(t, c, int64(-6), "INCRBY", "n:k", "-10")
		expect(t, c, "-6", "GET", "n:k")
		expect(t, c, int64(-5), "DECRBY", "n:new", "5")

		// INCR keeps the TTL.
		expect(t, c, "OK", "SET", "n:ttl", "1", "EX", "100")
		expect(t, c, int64(2), "INCR", "n:ttl")
		ttlIn(t, c, "n:ttl", 98_000, 100_000)

		expect(t, c, "OK", "SET", "n:max", "9223372036854775807")
		expectErr(t, c, errOverflw, "INCR", "n:max")
		expectErr(t, c, errOverflw, "INCRBY", "n:max", "1")
		expect(t, c, "9223372036854775807", "GET", "n:max")
		expect(t, c, "OK", "SET", "n:min", "-9223372036854775808")
		expectErr(t, c, errOverflw, "DECR", "n:min")
		expectErr(t, c, errOverflw, "INCRBY", "n:min", "-1")
		expect(t, c, "OK", "SET", "n:zero", "0")
		expectErr(t, c, "ERR decrement would overflow", "DECRBY", "n:zero", "-9223372036854775808")

		for _, v := range []string{"abc", "1.5", " 1", "1 ", "", "01", "+1", "9223372036854775808", "0x10"} {
			expect(t, c, "OK", "SET", "n:bad", v)
			expectErr(t, c, errNotInt, "INCR", "n:bad")
			expect(t, c, v, "GET", "n:bad")
		}
		expect(t, c, "OK", "SET", "n:neg0", "-0")
		expectErr(t, c, errNotInt, "INCR", "n:neg0")
		expectErr(t, c, errNotInt, "INCRBY", "n:k", "x")
		expectErr(t, c, errNotInt, "INCRBY", "n:k", "1.0")
		expectErr(t, c, errNotInt, "DECRBY", "n:k", "9223372036854775808")
		expectErr(t, c, errArity("incr"), "INCR")
		expectErr(t, c, errArity("incrby"), "INCRBY", "n:k")
	})

	t.Run("INCRBYFLOAT", func(t *testing.T) {
		expect(t, c, "OK", "SET", "f:k", "10.50")
		expect(t, c, "10.6", "INCRBYFLOAT", "f:k", "0.1")
		expect(t, c, "5.6", "INCRBYFLOAT", "f:k", "-5")
		expect(t, c, "5.6", "GET", "f:k")
		expect(t, c, "OK", "SET", "f:k", "5.0e3")
		expect(t, c, "5200", "INCRBYFLOAT", "f:k", "2.0e2")
		expect(t, c, "3", "INCRBYFLOAT", "f:new", "3")
		expect(t, c, "3.5", "INCRBYFLOAT", "f:new", ".5")
		expect(t, c, "0", "INCRBYFLOAT", "f:new", "-3.5")
		expect(t, c, "OK", "SET", "f:int", "17")
		expect(t, c, "17.25", "INCRBYFLOAT", "f:int", "0.25")

		expect(t, c, "OK", "SET", "f:bad", "abc")
		expectErr(t, c, errFloat, "INCRBYFLOAT", "f:bad", "1")
		expectErr(t, c, errFloat, "INCRBYFLOAT", "f:k", "abc")
		expectErr(t, c, errFloat, "INCRBYFLOAT", "f:k", "nan")
		expectErr(t, c, "ERR increment would produce NaN or Infinity", "INCRBYFLOAT", "f:k", "inf")
		expectErr(t, c, errFloat, "INCRBYFLOAT", "f:k", "")
		// Long double's range goes far past float64's: Redis prints the sum.
		expect(t, c, "OK", "SET", "f:big", "1.7e308")
		big := "340000000000000000006273556050395193590540427779388267466087171526404912102411641988123739177800600673957047683771263425322806997836001586961457274820033393094901317200013624802610872515245814124760542925564488876540887382670905522638137419003805178364056052028734561012664811529831035124023358619554802565120"
		expect(t, c, big, "INCRBYFLOAT", "f:big", "1.7e308")
		expect(t, c, big, "GET", "f:big")
		expect(t, c, "OK", "SET", "f:big", "1e4932")
		expectErr(t, c, "ERR increment would produce NaN or Infinity", "INCRBYFLOAT", "f:big", "1e4932")
		expect(t, c, "1e4932", "GET", "f:big")
		expect(t, c, "5200", "GET", "f:k")
		expectErr(t, c, errArity("incrbyfloat"), "INCRBYFLOAT", "f:k")

		// The reply is a bulk string in RESP2 as well.
		r := dialRaw(t, s.Addr())
		r.expect(bulk("5201"), "INCRBYFLOAT", "f:k", "1")
	})

	t.Run("GETRANGE SUBSTR", func(t *testing.T) {
		expect(t, c, "OK", "SET", "gr:k", "This is a string")
		for _, cmd := range []string{"GETRANGE", "SUBSTR"} {
			expect(t, c, "This", cmd, "gr:k", "0", "3")
			expect(t, c, "ing", cmd, "gr:k", "-3", "-1")
			expect(t, c, "This is a string", cmd, "gr:k", "0", "-1")
			expect(t, c, "string", cmd, "gr:k", "10", "100")
			expect(t, c, "This is a string", cmd, "gr:k", "-100", "100")
			expect(t, c, "", cmd, "gr:k", "5", "3")
			expect(t, c, "", cmd, "gr:k", "100", "200")
			expect(t, c, "", cmd, "gr:k", "-1", "-5")
			expect(t, c, "T", cmd, "gr:k", "0", "0")
			expect(t, c, "", cmd, "gr:missing", "0", "-1")
			expectErr(t, c, errNotInt, cmd, "gr:k", "x", "1")
			expectErr(t, c, errNotInt, cmd, "gr:k", "0", "1.5")
			expectErr(t, c, errArity(strings.ToLower(cmd)), cmd, "gr:k", "0")
		}
		expect(t, c, "OK", "SET", "gr:int", "12345")
		expect(t, c, "234", "GETRANGE", "gr:int", "1", "3")
	})

	t.Run("SETRANGE", func(t *testing.T) {
		expect(t, c, "OK", "SET", "sr:k", "Hello World")
		expect(t, c, int64(11), "SETRANGE", "sr:k", "6", "Redis")
		expect(t, c, "Hello Redis", "GET", "sr:k")
		expect(t, c, int64(14), "SETRANGE", "sr:k", "10", "sXYZ")
		expect(t, c, "Hello RedisXYZ", "GET", "sr:k")
		expect(t, c, int64(6), "SETRANGE", "sr:new", "5", "x")
		expect(t, c, "\x00\x00\x00\x00\x00x", "GET", "sr:new")
		// An empty value on a missing key creates nothing; on an existing one changes nothing.
		expect(t, c, int64(0), "SETRANGE", "sr:none", "0", "")
		expect(t, c, int64(0), "EXISTS", "sr:none")
		expect(t, c, int64(0), "SETRANGE", "sr:none", "100", "")
		expect(t, c, int64(0), "EXISTS", "sr:none")
		expect(t, c, int64(14), "SETRANGE", "sr:k", "100", "")
		expect(t, c, int64(14), "STRLEN", "sr:k")
		expectErr(t, c, "ERR offset is out of range", "SETRANGE", "sr:k", "-1", "x")
		expectErr(t, c, errNotInt, "SETRANGE", "sr:k", "x", "x")
		expectErr(t, c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)", "SETRANGE", "sr:k", "536870912", "x")
		expectErr(t, c, errArity("setrange"), "SETRANGE", "sr:k", "1")
		// SETRANGE keeps the TTL.
		expect(t, c, "OK", "SET", "sr:ttl", "abc", "EX", "100")
		expect(t, c, int64(3), "SETRANGE", "sr:ttl", "0", "x")
		ttlIn(t, c, "sr:ttl", 98_000, 100_000)
		expect(t, c, "xbc", "GET", "sr:ttl")
	})

	t.Run("large value", func(t *testing.T) {
		v := strings.Repeat("0123456789", 100_000)
		expect(t, c, "OK", "SET", "big:k", v)
		expect(t, c, v, "GET", "big:k")
		expect(t, c, int64(len(v)), "STRLEN", "big:k")
	})
}
