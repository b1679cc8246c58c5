package integration_test

import (
	"testing"

	"github.com/ruvio/ruvio/internal/testserver"
)

const errBitOffset = "ERR bit offset is not an integer or out of range"

func TestBitmaps(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "SET", "s", "foobar")
	value(t, c, "LEASE", "h", "100000") // a key of another type

	t.Run("BITCOUNT", func(t *testing.T) {
		expect(t, c, int64(26), "BITCOUNT", "s")
		expect(t, c, int64(4), "BITCOUNT", "s", "0", "0")
		expect(t, c, int64(6), "BITCOUNT", "s", "1", "1")
		expect(t, c, int64(6), "BITCOUNT", "s", "1", "1", "byte")
		expect(t, c, int64(17), "BITCOUNT", "s", "5", "30", "BIT")
		expect(t, c, int64(26), "BITCOUNT", "s", "0", "-1", "BIT")
		expect(t, c, int64(0), "BITCOUNT", "s", "-1", "-5")
		expect(t, c, int64(0), "BITCOUNT", "s", "4", "2")
		expect(t, c, int64(0), "BITCOUNT", "missing")
		expect(t, c, int64(0), "BITCOUNT", "missing", "x", "y") // a missing key is looked up first
		expectErr(t, c, errSyntax, "BITCOUNT", "s", "0")
		expectErr(t, c, errSyntax, "BITCOUNT", "s", "0", "1", "WORD")
		expectErr(t, c, errSyntax, "BITCOUNT", "s", "0", "1", "BIT", "x")
		expectErr(t, c, errNotInt, "BITCOUNT", "s", "a", "1")
		expectErr(t, c, errWrongType, "BITCOUNT", "h")
		expectErr(t, c, errArity("bitcount"), "BITCOUNT")
	})

	t.Run("BITPOS", func(t *testing.T) {
		expect(t, c, "OK", "SET", "p", "\xff\xf0\x00")
		expect(t, c, int64(12), "BITPOS", "p", "0")
		expect(t, c, int64(0), "BITPOS", "p", "1")
		expect(t, c, int64(16), "BITPOS", "p", "0", "2")
		expect(t, c, int64(-1), "BITPOS", "p", "1", "2")
		expect(t, c, int64(12), "BITPOS", "p", "0", "0", "-1")
		expect(t, c, int64(-1), "BITPOS", "p", "0", "0", "0")
		expect(t, c, int64(9), "BITPOS", "p", "1", "9", "20", "BIT")
		expect(t, c, int64(12), "BITPOS", "p", "0", "7", "15", "bit")
		expect(t, c, int64(-1), "BITPOS", "p", "0", "0", "11", "BIT")
		expect(t, c, int64(-1), "BITPOS", "p", "1", "2", "1")
		expect(t, c, int64(0), "BITPOS", "missing", "0")
		expect(t, c, int64(-1), "BITPOS", "missing", "1")
		expect(t, c, "OK", "SET", "ones", "\xff\xff")
		expect(t, c, int64(16), "BITPOS", "ones", "0")
		expect(t, c, int64(-1), "BITPOS", "ones", "0", "0", "1")
		expectErr(t, c, "ERR The bit argument must be 1 or 0.", "BITPOS", "p", "2")
		expectErr(t, c, errNotInt, "BITPOS", "p", "x")
		expectErr(t, c, errNotInt, "BITPOS", "p", "1", "x")
		expectErr(t, c, errSyntax, "BITPOS", "p", "1", "0", "1", "bytes")
		expectErr(t, c, errSyntax, "BITPOS", "p", "1", "0", "1", "bit", "x")
		expectErr(t, c, errWrongType, "BITPOS", "h", "1")
	})

	t.Run("BITOP", func(t *testing.T) {
		expect(t, c, "OK", "SET", "a", "\xf0\x0f\xaa")
		expect(t, c, "OK", "SET", "b", "\xff")
		expect(t, c, int64(3), "BITOP", "AND", "d", "a", "b")
		expect(t, c, "\xf0\x00\x00", "GET", "d")
		expect(t, c, int64(3), "BITOP", "or", "d", "a", "b", "missing")
		expect(t, c, "\xff\x0f\xaa", "GET", "d")
		expect(t, c, int64(3), "BITOP", "XOR", "d", "a", "b")
		expect(t, c, "\x0f\x0f\xaa", "GET", "d")
		expect(t, c, int64(3), "BITOP", "NOT", "d", "a")
		expect(t, c, "\x0f\xf0\x55", "GET", "d")
		// An empty result deletes the destination, whatever its type.
		expect(t, c, "OK", "SET", "d", "x", "EX", "100")
		expect(t, c, int64(0), "BITOP", "AND", "d", "missing", "missing2")
		expect(t, c, int64(0), "EXISTS", "d")
		// The destination is overwritten whatever its type, and loses its TTL.
		expect(t, c, "OK", "SET", "d", "x", "EX", "100")
		expect(t, c, int64(1), "BITOP", "OR", "d", "b")
		expect(t, c, int64(-1), "TTL", "d")
		expectErr(t, c, "ERR BITOP NOT must be called with a single source key.", "BITOP", "NOT", "d", "a", "b")
		expectErr(t, c, errSyntax, "BITOP", "NAND", "d", "a")
		expectErr(t, c, errWrongType, "BITOP", "AND", "d", "a", "h")
		expectErr(t, c, errArity("bitop"), "BITOP", "AND", "d")
	})

	t.Run("BITFIELD", func(t *testing.T) {
		expect(t, c, []interface{}{int64(0), int64(56), int64(-128), nil, int64(-128)},
			"BITFIELD", "bf", "SET", "i8", "0", "-100", "INCRBY", "i8", "0", "-100",
			"OVERFLOW", "SAT", "INCRBY", "i8", "0", "-200", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "-1", "GET", "i8", "0")
		expect(t, c, "\x80", "GET", "bf")
		// # offsets count fields of the type's width.
		expect(t, c, []interface{}{int64(0), int64(255)}, "BITFIELD", "bf", "SET", "u8", "#2", "255", "GET", "u8", "16")
		expect(t, c, "\x80\x00\xff", "GET", "bf")
		// Wrap-around, unsigned and signed, and the widest types.
		expect(t, c, []interface{}{int64(1), int64(0)}, "BITFIELD", "w", "INCRBY", "u2", "0", "5", "INCRBY", "u2", "0", "3")
		expect(t, c, []interface{}{int64(0), int64(-9223372036854775808), int64(9223372036854775807)},
			"BITFIELD", "w64", "SET", "i64", "0", "-9223372036854775808", "GET", "i64", "0", "INCRBY", "i64", "0", "-1")
		expect(t, c, []interface{}{int64(0), int64(9223372036854775807)},
			"BITFIELD", "u63", "SET", "u63", "0", "-1", "GET", "u63", "0")
		// SAT clamps a SET value too.
		expect(t, c, []interface{}{int64(0), int64(255), int64(0), int64(127)},
			"BITFIELD", "sat", "OVERFLOW", "SAT", "SET", "u8", "0", "300", "GET", "u8", "0", "SET", "i8", "8", "1000", "GET", "i8", "8")
		// FAIL on a new key still creates it, zero-filled.
		expect(t, c, []interface{}{nil}, "BITFIELD", "failkey", "OVERFLOW", "FAIL", "SET", "u8", "8", "256")
		expect(t, c, "\x00\x00", "GET", "failkey")
		expect(t, c, []interface{}{int64(0)}, "BITFIELD", "missing", "GET", "u8", "0")
		expect(t, c, []interface{}{}, "BITFIELD", "missing")
		expect(t, c, int64(0), "EXISTS", "missing")
		expect(t, c, []interface{}{int64(102), int64(6)}, "BITFIELD_RO", "s", "GET", "u8", "0", "GET", "u4", "#1")
		expectErr(t, c, "ERR BITFIELD_RO only supports the GET subcommand", "BITFIELD_RO", "s", "SET", "u8", "0", "1")
		expectErr(t, c, "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.", "BITFIELD", "bf", "GET", "u64", "0")
		expectErr(t, c, "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.", "BITFIELD", "bf", "GET", "i0", "0")
		expectErr(t, c, errBitOffset, "BITFIELD", "bf", "GET", "u8", "-1")
		expectErr(t, c, errBitOffset, "BITFIELD", "bf", "GET", "u8", "#x")
		expectErr(t, c, errBitOffset, "BITFIELD", "bf", "SET", "u8", "4294967296", "1")
		expectErr(t, c, "ERR Invalid OVERFLOW type specified", "BITFIELD", "bf", "OVERFLOW", "WRAPS")
		expectErr(t, c, errSyntax, "BITFIELD", "bf", "GET", "u8")
		expectErr(t, c, errSyntax, "BITFIELD", "bf", "FOO", "u8", "0")
		expectErr(t, c, errNotInt, "BITFIELD", "bf", "SET", "u8", "0", "x")
		expectErr(t, c, errWrongType, "BITFIELD", "h", "GET", "u8", "0")
		expectErr(t, c, errWrongType, "BITFIELD", "h", "SET", "u8", "0", "1")
		expectErr(t, c, errArity("bitfield_ro"), "BITFIELD_RO")
	})
}
