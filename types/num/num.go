// Package num holds Redis 7.0's rules for reading and writing numbers, so
// every collection and command parses and formats them the same way:
//
//   - ParseInt is string2ll: an optional '-', no '+', no spaces, no leading
//     zeros, at most 20 characters, within int64.
//   - ParseFloat is what Redis's getDoubleFromObject accepts (strtod): no
//     leading space, the whole input consumed, "inf"/"-inf"/"infinity" in any
//     case, never NaN, and no result that underflows to zero from a non-zero
//     literal (strtod reports ERANGE there and Redis rejects it).
//   - AppendScore is how Redis 7.0 replies with a double (addReplyDouble):
//     "inf"/"-inf", otherwise printf's %.17g (so 1.1 reads "1.1000000000000001").
//   - ParseLongDouble, AddLongDouble and AppendLongDoubleHuman are
//     HINCRBYFLOAT's and INCRBYFLOAT's arithmetic (string2ld, long double
//     addition, ld2string in human mode), reproduced exactly with math/big
//     (see longdouble.go): "1.23456789012345678" + 0 stays as typed and
//     1e300 prints every digit, as redis-server does.
//   - AddInt is HINCRBY's overflow rule: the sum must stay within int64.
package num

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"unsafe"
)

// MaxIntLen is the longest decimal an int64 needs ("-9223372036854775808").
const MaxIntLen = 20

// ErrOverflow is returned by AddInt when the sum leaves int64.
var ErrOverflow = errors.New("increment or decrement would overflow")

// ParseInt parses b with string2ll's rules and reports whether it is a
// canonical int64.
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n > MaxIntLen {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	i, neg := 0, false
	if b[0] == '-' {
		if n == 1 {
			return 0, false
		}
		neg, i = true, 1
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// AppendInt appends v in decimal (the canonical form ParseInt accepts).
func AppendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// AddInt returns a+b, or ErrOverflow when the sum leaves int64, as
// HINCRBY checks before it writes.
func AddInt(a, b int64) (int64, error) {
	if (b < 0 && a < math.MinInt64-b) || (b > 0 && a > math.MaxInt64-b) {
		return 0, ErrOverflow
	}
	return a + b, nil
}

// ParseFloat parses b as Redis parses a score or a float argument.
func ParseFloat(b []byte) (float64, bool) {
	if f, ok := parseShortDecimal(b); ok {
		return f, true
	}
	if len(b) == 0 || isSpace(b[0]) {
		return 0, false
	}
	for _, c := range b {
		// strconv accepts Go's digit separators; strtod does not.
		if c == '_' || c == 0 {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(hexExponent(b), 64)
	if err != nil {
		// Includes overflow to ±Inf from a finite literal (strtod's
		// ERANGE with HUGE_VAL), which Redis rejects.
		return 0, false
	}
	if math.IsNaN(f) {
		return 0, false
	}
	if f == 0 && hasNonZeroMantissa(b) {
		return 0, false // underflow: strtod's ERANGE with a zero result
	}
	return f, true
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// maxShortDigits bounds the significant digits parseShortDecimal reads:
// 10^15 < 2^53, so they make an integer a float64 holds exactly.
const maxShortDigits = 15

// parseShortDecimal parses the common score, an optional sign, then digits
// with at most one '.' among them (at least one digit; at most 15 from the
// first non-zero one, at most 22 after the point), and reports false for
// anything else, which strconv parses. The digits make an integer m and
// the point a power of ten p, both exact in a float64, so m / p, one
// correctly rounded IEEE division, is the correctly rounded value strconv
// and strtod return. A ZADD score parsed by strconv cost about 690
// instructions; this path, a few per digit.
func parseShortDecimal(b []byte) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var m uint64
	significant, frac := 0, 0
	digit, point := false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
			if m != 0 || c != '0' {
				if significant == maxShortDigits {
					return 0, false
				}
				significant++
				m = m*10 + uint64(c-'0')
			}
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default:
			return 0, false
		}
	}
	if !digit || frac >= len(exactPow10) {
		return 0, false
	}
	f := float64(m) / exactPow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// isHex reports whether b starts with an optional sign and "0x".
func isHex(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	return len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')
}

// hexExponent returns b as a string, with "p0" appended to a hex float
// that has no binary exponent: strtod reads "0x10" as 16, Go's parsers
// require the exponent. The common case aliases b without copying (a
// copy here was an allocation per ZADD score): the callers only parse
// the string and drop it, error included, before b can change.
func hexExponent(b []byte) string {
	if isHex(b) && !bytes.ContainsAny(b, "pP") {
		return string(b) + "p0"
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// hasNonZeroMantissa reports whether the digits before any exponent
// include a non-zero one (so a zero result means underflow).
func hasNonZeroMantissa(b []byte) bool {
	if isHex(b) {
		for _, c := range b {
			switch {
			case c == 'p' || c == 'P':
				return false
			case c >= '1' && c <= '9' || c >= 'a' && c <= 'f' && c != 'x' || c >= 'A' && c <= 'F':
				return true
			}
		}
		return false
	}
	for _, c := range b {
		if c == 'e' || c == 'E' {
			return false
		}
		if c >= '1' && c <= '9' {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// AppendScore appends f as Redis 7.0 replies with a double in RESP2 and
// RESP3: "inf", "-inf", or %.17g.
func AppendScore(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// ParseRangeFloat parses one end of a score range the way ZRANGEBYSCORE
// and friends read it (plain strtod): leading white space is skipped, an
// empty remainder reads as 0, values beyond the double range read as
// ±inf or 0, and only NaN or trailing bytes are errors.
func ParseRangeFloat(b []byte) (float64, bool) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	b = b[i:]
	if len(b) == 0 {
		return 0, true
	}
	for _, c := range b {
		if c == '_' || c == 0 {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(hexExponent(b), 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	if math.IsNaN(f) {
		return 0, false
	}
	return f, true
}
