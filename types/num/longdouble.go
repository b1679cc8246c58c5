package num

import (
	"bytes"
	"math/big"
)

// HINCRBYFLOAT and INCRBYFLOAT compute in C's long double (x87 80-bit on
// the platforms Redis ships for: a 64-bit mantissa and a 15-bit exponent)
// and print with "%.17Lf" before trimming zeros, so "1.23456789012345678"
// survives an increment by 0 and 1e300 prints all its binary digits. The
// helpers below reproduce that exactly with math/big at 64 bits of
// precision, round-to-nearest-even, and the long double exponent range.

const (
	ldPrec   = 64
	ldMaxExp = 16384  // values >= 2^16384 overflow to inf
	ldMinExp = -16444 // below 2^-16445 (the smallest denormal) is zero
)

// LongDouble is a value with long double's precision and range.
type LongDouble struct{ f big.Float }

// ParseLongDouble parses b as Redis's string2ld (strtold) does: no
// leading space, every byte consumed, decimal or hex, "inf"/"infinity"
// in any case accepted, NaN, overflow and underflow to zero refused.
func ParseLongDouble(b []byte) (LongDouble, bool) {
	var x LongDouble
	if len(b) == 0 || len(b) >= 5*1024 || isSpace(b[0]) {
		return x, false
	}
	s := b
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if eqFoldASCII(s, "inf") || eqFoldASCII(s, "infinity") {
		x.f.SetInf(neg)
		return x, true
	}
	for _, c := range s {
		ok := c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
		if isHex(s) {
			ok = ok || c == 'x' || c == 'X' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == 'p' || c == 'P'
		}
		if !ok {
			return x, false
		}
	}
	base := 10
	if isHex(s) {
		base = 0
	}
	x.f.SetPrec(ldPrec).SetMode(big.ToNearestEven)
	if _, _, err := x.f.Parse(string(s), base); err != nil {
		return x, false
	}
	if neg {
		x.f.Neg(&x.f)
	}
	if x.overflows() {
		return x, false
	}
	if x.f.Sign() != 0 && x.f.MantExp(nil) < ldMinExp {
		return x, false // underflow to zero: strtold's ERANGE
	}
	if x.f.Sign() == 0 && hasNonZeroMantissa(b) {
		return x, false
	}
	return x, true
}

func eqFoldASCII(b []byte, s string) bool { return bytes.EqualFold(b, []byte(s)) }

func (x *LongDouble) overflows() bool {
	return !x.f.IsInf() && x.f.Sign() != 0 && x.f.MantExp(nil) > ldMaxExp
}

// IsInf reports whether x is infinite.
func (x *LongDouble) IsInf() bool { return x.f.IsInf() || x.overflows() }

// LongDoubleFromInt returns v as a LongDouble (exact).
func LongDoubleFromInt(v int64) LongDouble {
	var x LongDouble
	x.f.SetPrec(ldPrec).SetMode(big.ToNearestEven).SetInt64(v)
	return x
}

// AddLongDouble returns x+y rounded to long double and reports false
// when the sum is infinite or NaN (inf + -inf), which HINCRBYFLOAT and
// INCRBYFLOAT refuse.
func AddLongDouble(x, y LongDouble) (LongDouble, bool) {
	var z LongDouble
	if x.f.IsInf() || y.f.IsInf() {
		return z, false
	}
	z.f.SetPrec(ldPrec).SetMode(big.ToNearestEven)
	z.f.Add(&x.f, &y.f)
	if z.overflows() {
		return z, false
	}
	if z.f.Sign() != 0 && z.f.MantExp(nil) < ldMinExp {
		z.f.SetInt64(0)
	}
	return z, true
}

// AppendLongDoubleHuman appends x as "%.17Lf" with trailing zeros (and a
// bare '.') removed and "-0" written "0": ld2string's human mode.
func AppendLongDoubleHuman(dst []byte, x LongDouble) []byte {
	if x.IsInf() {
		if x.f.Sign() < 0 {
			return append(dst, "-inf"...)
		}
		return append(dst, "inf"...)
	}
	start := len(dst)
	dst = x.f.Append(dst, 'f', 17)
	if bytes.IndexByte(dst[start:], '.') >= 0 {
		for dst[len(dst)-1] == '0' {
			dst = dst[:len(dst)-1]
		}
		if dst[len(dst)-1] == '.' {
			dst = dst[:len(dst)-1]
		}
	}
	if len(dst)-start == 2 && dst[start] == '-' && dst[start+1] == '0' {
		dst = append(dst[:start], '0')
	}
	return dst
}
