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

// Sin returns the correctly rounded sine of x.
func Sin(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > maxReduced {
		return math.Sin(x)
	}
	s, _ := ddSinCos(dd{x, 0})
	return s.hi + s.lo
}

// Cos returns the correctly rounded cosine of x.
func Cos(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > maxReduced {
		return math.Cos(x)
	}
	_, c := ddSinCos(dd{x, 0})
	return c.hi + c.lo
}

// Asin returns the correctly rounded arcsine of x: Newton steps on
// sin(z) = x in double-double from the library's estimate.
func Asin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || x > 1 || x < -1 {
		return math.Asin(x)
	}
	neg := x < 0
	if neg {
		x = -x
	}
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
	v := z.hi + z.lo
	if neg {
		v = -v
	}
	return v
}
