package integration_test

import (
	"strings"
	"testing"
)

// TestIncrByFloatLongDouble: INCRBYFLOAT and HINCRBYFLOAT compute in long
// double and print as Redis 7.0 does; the expected replies are redis-server
// 7.0.15's.
func TestIncrByFloatLongDouble(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		const errNaN = "ERR increment would produce NaN or Infinity"
		const errNotFloat = "ERR value is not a valid float"
		set := func(v string) { expect(t, c, "OK", "SET", "k", v) }
		set("10.5")
		expect(t, c, "10.6", "INCRBYFLOAT", "k", "0.1")
		set("1.23456789012345678")
		expect(t, c, "1.23456789012345678", "INCRBYFLOAT", "k", "0")
		set("1e300")
		got := value(t, c, "INCRBYFLOAT", "k", "1").(string)
		if !strings.HasPrefix(got, "10000000000000000000089973240795591938705239442732907479382600823212656465961809") || len(got) != 301 {
			t.Errorf("1e300 + 1 = %q", got)
		}
		expect(t, c, "3000", "INCRBYFLOAT", "n", "3.0e3")
		set("0")
		expect(t, c, "0.0000000000000001", "INCRBYFLOAT", "k", "0.0000000000000001")
		set("0")
		expect(t, c, "0", "INCRBYFLOAT", "k", "1e-20")
		set("1.7976931348623157e308")
		// Past float64's range, within long double's.
		if got := value(t, c, "INCRBYFLOAT", "k", "1.7976931348623157e308").(string); len(got) != 309 {
			t.Errorf("twice float64's maximum printed in %d digits, want 309", len(got))
		}
		set("0")
		// 1e4000 in long double is a little under 10^4000.
		if got := value(t, c, "INCRBYFLOAT", "k", "1e4000").(string); len(got) != 4000 || !strings.HasPrefix(got, "9999999999999999999965463873099623784932") {
			t.Errorf("1e4000 printed as %.40s… in %d digits", got, len(got))
		}
		set("0")
		expect(t, c, "0", "INCRBYFLOAT", "k", "-0")
		set("5")
		expect(t, c, "0", "INCRBYFLOAT", "k", "-5.0")
		set("-1.5")
		expect(t, c, "-1.2", "INCRBYFLOAT", "k", "0.3")
		set("0x10")
		expect(t, c, "18", "INCRBYFLOAT", "k", "0x1p1")
		set("3")
		expectErr(t, c, errNaN, "INCRBYFLOAT", "k", "inf")
		expectErr(t, c, errNotFloat, "INCRBYFLOAT", "k", "abc")
		expectErr(t, c, errNotFloat, "INCRBYFLOAT", "k", " 1")
		expectErr(t, c, errNotFloat, "INCRBYFLOAT", "k", "1e5000")  // overflows long double
		expect(t, c, "3", "INCRBYFLOAT", "k", "1e-4950")            // a denormal: no effect
		expectErr(t, c, errNotFloat, "INCRBYFLOAT", "k", "1e-4960") // underflows to zero
		expect(t, c, "3", "GET", "k")
		set("abc")
		expectErr(t, c, errNotFloat, "INCRBYFLOAT", "k", "1")
		set(" 1")
		expectErr(t, c, errNotFloat, "INCRBYFLOAT", "k", "1")
		expect(t, c, int64(1), "LPUSH", "l", "a")
		expectErr(t, c, errWrongType, "INCRBYFLOAT", "l", "1")
		// WRONGTYPE comes before the increment is parsed, as in Redis.
		expectErr(t, c, errWrongType, "INCRBYFLOAT", "l", "abc")
		// The deadline stays.
		expect(t, c, "OK", "SET", "k", "1", "EX", "100")
		expect(t, c, "1.5", "INCRBYFLOAT", "k", "0.5")
		if ttl := intValue(t, c, "TTL", "k"); ttl <= 0 {
			t.Errorf("TTL %d after INCRBYFLOAT", ttl)
		}
		expect(t, c, int64(1), "HSET", "h", "f", "10.5")
		expect(t, c, "10.6", "HINCRBYFLOAT", "h", "f", "0.1")
		if got := value(t, c, "HINCRBYFLOAT", "h", "f", "1e4000").(string); len(got) != 4000 {
			t.Errorf("HINCRBYFLOAT to 1e4000 printed in %d digits, want 4000", len(got))
		}
	})
}

// TestObjectEncodingInPlace: a string modified in place is raw, even
// when its bytes read as an integer; a new value is encoded afresh.
func TestObjectEncodingInPlace(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		enc := func(want string, args ...interface{}) {
			t.Helper()
			if len(args) > 0 {
				if err := c.Do(ctxT(t), args...).Err(); err != nil {
					t.Fatal(err)
				}
			}
			expect(t, c, want, "OBJECT", "ENCODING", "k")
		}
		enc("int", "SET", "k", "10")
		enc("raw", "APPEND", "k", "5")
		expect(t, c, "105", "GET", "k")
		enc("int", "SET", "k", "10")
		enc("raw", "SETRANGE", "k", "0", "2")
		enc("int", "SET", "k", "10")
		enc("raw", "SETBIT", "k", "1", "0") // even when no bit changes
		enc("int", "INCR", "k")
		enc("int", "SETRANGE", "k", "0", "") // no change at all
		enc("raw", "APPEND", "k", "")
		enc("int", "INCRBY", "k", "5")
		expect(t, c, int64(1), "DEL", "k")
		enc("int", "APPEND", "k", "12") // a new key is encoded afresh
		expect(t, c, int64(1), "DEL", "k")
		enc("raw", "SETRANGE", "k", "0", "12")
		expect(t, c, int64(1), "DEL", "k")
		enc("raw", "SETBIT", "k", "1", "1")
	})
}
