package geo

import (
	"math"
	"math/big"
)

// Correctly rounded sine, cosine and arcsine.
//
// Distances are printed with four decimals and stored in full by
// GEOSEARCHSTORE ... STOREDIST, so they must be the same doubles Redis
// computes. Redis calls the C library, whose sin, cos and asin return the
// correctly rounded result (to within a tiny fraction of an ulp); Go's
// math package is off by one ulp in a fifth to a third of the cases. These
// functions evaluate in double-double arithmetic (about 106 bits) and
// round once, which gives the correctly rounded double except when the
// true value lies within about 2^-100 of a rounding midpoint.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	e := (a - (s - bb)) + (b - bb)
	return dd{s, e}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

func ddMul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func ddMulF(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return quickTwoSum(p.hi, p.lo)
}

func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddAdd(a, ddNeg(ddMulF(b, q1)))
	q2 := r.hi / b.hi
	r = ddAdd(r, ddNeg(ddMulF(b, q2)))
	q3 := r.hi / b.hi
	q := quickTwoSum(q1, q2)
	return ddAdd(q, dd{q3, 0})
}

// piOver2 in three parts (each exact in a double, the sum good to about
// 160 bits), for argument reduction.
const (
	pio2a = 1.5707963267948966192313216916397514    // rounded to 53 bits below
	pio2b = 6.123233995736766035868820147291818e-17 // next 53 bits
	pio2c = -1.4973849048591698329435717015109e-33  // next bits
)

var (
	pio2A = float64(pio2a)
	pio2B = float64(pio2b)
	pio2C = float64(pio2c)
)

// reduce returns r = x - k*pi/2 with |r| <= about pi/4, and k mod 4.
func reduce(x dd) (dd, int) {
	k := math.Round(x.hi / pio2A)
	r := ddAdd(x, ddNeg(twoProd(k, pio2A)))
	r = ddAdd(r, ddNeg(twoProd(k, pio2B)))
	r = ddAdd(r, ddNeg(twoProd(k, pio2C)))
	return r, int(int64(k) & 3)
}

// invFact[n] is 1/n! in double-double, for the series below.
var invFact = func() [32]dd {
	var t [32]dd
	f := new(big.Float).SetPrec(256).SetInt64(1)
	for n := range t {
		if n > 1 {
			f.Quo(f, new(big.Float).SetInt64(int64(n)))
		}
		hi, _ := f.Float64()
		rest := new(big.Float).SetPrec(256).Sub(f, new(big.Float).SetFloat64(hi))
		lo, _ := rest.Float64()
		t[n] = dd{hi, lo}
	}
	return t
}()

// sinTaylor and cosTaylor evaluate the series by Horner's rule for
// |r| <= about pi/4, where 13 terms reach 2^-110.
func sinTaylor(r dd) dd {
	r2 := ddMul(r, r)
	sum := ddNeg(invFact[27])
	for n := 25; n >= 1; n -= 2 {
		sum = ddMul(sum, r2)
		if (n/2)%2 == 1 {
			sum = ddAdd(sum, ddNeg(invFact[n]))
		} else {
			sum = ddAdd(sum, invFact[n])
		}
	}
	return ddMul(sum, r)
}

func cosTaylor(r dd) dd {
	r2 := ddMul(r, r)
	sum := invFact[28]
	for n := 26; n >= 0; n -= 2 {
		sum = ddMul(sum, r2)
		if (n/2)%2 == 1 {
			sum = ddAdd(sum, ddNeg(invFact[n]))
		} else {
			sum = ddAdd(sum, invFact[n])
		}
	}
	return sum
}

// ddSinCos returns sin(x) and cos(x) in double-double.
func ddSinCos(x dd) (sin, cos dd) {
	r, k := reduce(x)
	s, c := sinTaylor(r), cosTaylor(r)
	switch k {
	case 0:
		return s, c
	case 1:
		return c, ddNeg(s)
	case 2:
		return ddNeg(s), ddNeg(c)
	}
	return ddNeg(c), s
}

// maxReduced bounds the arguments reduced here; beyond it the reduction
// with a 160-bit pi/2 loses accuracy, and the library functions are used.
const maxReduced = 1 << 20

// The fast paths evaluate the leading terms of a series in double-double
// and the rest in plain doubles, which bounds the error to a small
// fraction of an ulp; when the result lies too close to a rounding
// boundary for that bound (rarely), the full double-double series
// decides.

// tailErr is the relative error bound of a tail evaluated in doubles
// (a dozen roundings and the dropped low parts, with room to spare).
const tailErr = 0x1p-47

// roundsTo reports whether v+err, for every |err| <= e, rounds to v.hi.
func roundsTo(v dd, e float64) bool {
	if v.hi == 0 || math.IsInf(v.hi, 0) {
		return false
	}
	m, exp := math.Frexp(math.Abs(v.hi))
	half := math.Ldexp(1, exp-54) // half an ulp of v.hi
	if m == 0.5 && (v.lo < 0) == (v.hi > 0) {
		half /= 2 // a power of two: the ulp below is half as wide
	}
	return math.Abs(v.lo)+e < half
}

// sinFast is sin(r) for |r| <= about pi/4: r - r^3/3! + r^5/5! in
// double-double, the rest in doubles; e bounds the error.
func sinFast(r dd) (v dd, e float64) {
	r2 := ddMul(r, r)
	t := 0.0
	for n := 27; n >= 7; n -= 2 {
		c := invFact[n].hi
		if (n/2)%2 == 1 {
			c = -c
		}
		t = t*r2.hi + c
	}
	tail := r.hi * r2.hi * r2.hi * r2.hi * t
	head := ddAdd(ddNeg(invFact[3]), ddMul(r2, invFact[5]))
	v = ddAdd(r, ddMul(ddMul(r, r2), head))
	v = ddAdd(v, dd{tail, 0})
	return v, math.Abs(tail)*tailErr + math.Abs(v.hi)*0x1p-100
}

// cosFast is cos(r) for |r| <= about pi/4: 1 - r^2/2! + r^4/4! - r^6/6!
// in double-double, the rest in doubles; e bounds the error.
func cosFast(r dd) (v dd, e float64) {
	r2 := ddMul(r, r)
	t := 0.0
	for n := 28; n >= 8; n -= 2 {
		c := invFact[n].hi
		if (n/2)%2 == 1 {
			c = -c
		}
		t = t*r2.hi + c
	}
	r4 := r2.hi * r2.hi
	tail := r4 * r4 * t
	head := ddAdd(invFact[4], ddMul(r2, ddNeg(invFact[6])))
	head = ddAdd(ddNeg(invFact[2]), ddMul(r2, head))
	v = ddAdd(dd{1, 0}, ddMul(r2, head))
	v = ddAdd(v, dd{tail, 0})
	return v, math.Abs(tail)*tailErr + math.Abs(v.hi)*0x1p-100
}

// sinCosFast returns sin(x) (or cos(x) when wantCos) with its error
// bound.
func sinCosFast(x float64, wantCos bool) (dd, float64) {
	r, k := reduce(dd{x, 0})
	if wantCos {
		k++
	}
	var v dd
	var e float64
	if k%2 == 0 {
		v, e = sinFast(r)
	} else {
		v, e = cosFast(r)
	}
	if k&2 != 0 {
		v = ddNeg(v)
	}
	return v, e
}

// Sin returns the correctly rounded sine of x.
func Sin(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > maxReduced {
		return math.Sin(x)
	}
	if v, e := sinCosFast(x, false); roundsTo(v, e) {
		return v.hi
	}
	s, _ := ddSinCos(dd{x, 0})
	return s.hi + s.lo
}

// Cos returns the correctly rounded cosine of x.
func Cos(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > maxReduced {
		return math.Cos(x)
	}
	if v, e := sinCosFast(x, true); roundsTo(v, e) {
		return v.hi
	}
	_, c := ddSinCos(dd{x, 0})
	return c.hi + c.lo
}

// asinCoef[k] is the coefficient of x^(2k+1) in the series of asin,
// (2k)! / (4^k (k!)^2 (2k+1)), in double-double.
var asinCoef = func() [24]dd {
	var t [24]dd
	c := new(big.Float).SetPrec(256).SetInt64(1) // (2k)! / (4^k (k!)^2)
	for k := range t {
		if k > 0 {
			c.Mul(c, new(big.Float).SetInt64(int64((2*k-1)*(2*k))))
			c.Quo(c, new(big.Float).SetInt64(int64(4*k*k)))
		}
		v := new(big.Float).SetPrec(256).Quo(c, new(big.Float).SetInt64(int64(2*k+1)))
		hi, _ := v.Float64()
		lo, _ := new(big.Float).SetPrec(256).Sub(v, new(big.Float).SetFloat64(hi)).Float64()
		t[k] = dd{hi, lo}
	}
	return t
}()

// asinFast is asin(x) for 0 < x <= 0.3 by its series: the terms up to x^5
// in double-double, the rest in doubles; e bounds the error.
func asinFast(x float64) (v dd, e float64) {
	x2 := twoProd(x, x)
	t := 0.0
	for k := len(asinCoef) - 1; k >= 3; k-- {
		t = t*x2.hi + asinCoef[k].hi
	}
	x3 := x2.hi * x
	tail := x3 * x3 * x * t
	head := ddAdd(asinCoef[1], ddMul(x2, asinCoef[2]))
	v = ddAdd(dd{x, 0}, ddMul(ddMulF(x2, x), head))
	v = ddAdd(v, dd{tail, 0})
	return v, math.Abs(tail)*tailErr + math.Abs(v.hi)*0x1p-100
}

// Asin returns the correctly rounded arcsine of x: by its series for
// small x, else by Newton steps on sin(z) = x in double-double from the
// library's estimate.
func Asin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || x > 1 || x < -1 {
		return math.Asin(x)
	}
	neg := x < 0
	if neg {
		x = -x
	}
	var v float64
	if x <= 0.3 {
		if f, e := asinFast(x); roundsTo(f, e) {
			v = f.hi
		} else {
			v = asinSlow(x)
		}
	} else {
		v = asinSlow(x)
	}
	if neg {
		v = -v
	}
	return v
}

func asinSlow(x float64) float64 {
	var z dd
	if x == 1 {
		z = dd{pio2A, pio2B}
	} else {
		z = dd{math.Asin(x), 0}
		// One step from an estimate good to an ulp doubles the bits;
		// near 1, where the slope is steep, a second one settles it.
		steps := 1
		if x > 0.9 {
			steps = 2
		}
		for i := 0; i < steps; i++ {
			s, c := ddSinCos(z)
			if c.hi == 0 {
				break
			}
			z = ddAdd(z, ddNeg(ddDiv(ddAdd(s, dd{-x, 0}), c)))
		}
	}
	return z.hi + z.lo
}
