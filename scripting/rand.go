package scripting

// lrand48 is the 48-bit linear congruential generator behind math.random,
// the same sequence on every platform: x = (0x5DEECE66D*x + 0xB) mod 2^48,
// 31 output bits taken from the top. An engine starts from the standard
// initial state and keeps one generator for its whole life, so two fresh
// engines produce the same numbers while consecutive calls differ; a
// script that wants a repeatable sequence calls math.randomseed.
type lrand48 struct{ x uint64 }

const (
	lrandMul  = 0x5DEECE66D
	lrandAdd  = 0xB
	lrandMask = 1<<48 - 1
	lrandInit = 0x1234ABCD330E
	// lrandMax is the largest value next can return (INT32_MAX).
	lrandMax = 1<<31 - 1
)

func newLrand48() lrand48 { return lrand48{x: lrandInit} }

// seed sets the state from a 32-bit seed as srand48 does: the seed becomes
// the high 32 bits, 0x330E the low 16.
func (r *lrand48) seed(s int32) {
	r.x = uint64(uint32(s))<<16 | 0x330E
}

// next advances the generator and returns a value in [0, 2^31).
func (r *lrand48) next() int32 {
	r.x = (lrandMul*r.x + lrandAdd) & lrandMask
	return int32(r.x >> 17)
}

// float returns a number in [0, 1) the way the scripting math.random does.
func (r *lrand48) float() float64 {
	return float64(r.next()%lrandMax) / float64(lrandMax)
}
