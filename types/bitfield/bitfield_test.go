package bitfield

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// The reference model: fields bit by bit, arithmetic on big integers.

func naiveGet(p []byte, off uint64, t Type) *big.Int {
	v := new(big.Int)
	for j := uint64(0); j < uint64(t.Bits); j++ {
		i := off + j
		bit := uint(0)
		if i>>3 < uint64(len(p)) {
			bit = uint(p[i>>3]>>(7-uint(i&7))) & 1
		}
		v.Lsh(v, 1)
		v.SetBit(v, 0, bit)
	}
	if t.Signed && v.Bit(int(t.Bits)-1) == 1 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), t.Bits))
	}
	return v
}

func bounds(t Type) (lo, hi *big.Int) {
	one := big.NewInt(1)
	if t.Signed {
		hi = new(big.Int).Sub(new(big.Int).Lsh(one, t.Bits-1), one)
		lo = new(big.Int).Neg(new(big.Int).Lsh(one, t.Bits-1))
	} else {
		lo = new(big.Int)
		hi = new(big.Int).Sub(new(big.Int).Lsh(one, t.Bits), one)
	}
	return lo, hi
}

// naiveIncr is the exact sum, clamped or wrapped into the type. For an
// unsigned type, old is read as unsigned (a SET of a negative value is a
// huge number, as in Redis).
func naiveIncr(t Type, old, incr int64, ow Overflow) (*big.Int, bool) {
	o := big.NewInt(old)
	if !t.Signed && old < 0 {
		o.SetUint64(uint64(old))
	}
	sum := new(big.Int).Add(o, big.NewInt(incr))
	lo, hi := bounds(t)
	if sum.Cmp(lo) >= 0 && sum.Cmp(hi) <= 0 {
		return sum, false
	}
	if ow == Sat {
		if sum.Cmp(hi) > 0 {
			return hi, true
		}
		return lo, true
	}
	mod := new(big.Int).Lsh(big.NewInt(1), t.Bits)
	w := new(big.Int).Mod(sum, mod)
	if t.Signed && w.Cmp(hi) > 0 {
		w.Sub(w, mod)
	}
	return w, true
}

func randType(rng *rand.Rand) Type {
	if rng.IntN(2) == 0 {
		return Type{Signed: true, Bits: uint(1 + rng.IntN(64))}
	}
	return Type{Bits: uint(1 + rng.IntN(63))}
}

func randInt(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0:
		return rng.Int64N(512) - 256
	case 1:
		return int64(rng.Uint64())
	case 2:
		return []int64{-1 << 63, 1<<63 - 1, 0, -1, 1}[rng.IntN(5)]
	default:
		return int64(rng.Uint64() >> rng.IntN(64))
	}
}

func checkGetSet(t *testing.T, p []byte, off uint64, ty Type, v uint64) {
	t.Helper()
	if got, want := Get(p, off, ty), naiveGet(p, off, ty); got != want.Int64() && !(!ty.Signed && uint64(got) == want.Uint64()) {
		t.Fatalf("Get(%x, %d, %+v) = %d, want %s", p, off, ty, got, want)
	}
	before := append([]byte(nil), p...)
	Set(p, off, ty.Bits, v)
	mask := ^uint64(0)
	if ty.Bits < 64 {
		mask = 1<<ty.Bits - 1
	}
	if got := GetUnsigned(p, off, ty.Bits); got != v&mask {
		t.Fatalf("after Set(%d, %d, %d): read %d", off, ty.Bits, v, got)
	}
	// Bits outside the field are untouched.
	for i := uint64(0); i < uint64(len(p))*8; i++ {
		if i >= off && i < off+uint64(ty.Bits) {
			continue
		}
		if (p[i>>3]^before[i>>3])>>(7-uint(i&7))&1 != 0 {
			t.Fatalf("Set(%d, %d) changed bit %d", off, ty.Bits, i)
		}
	}
}

func checkIncr(t *testing.T, ty Type, old, incr int64, ow Overflow) {
	t.Helper()
	got, over := Incr(ty, old, incr, ow)
	want, wantOver := naiveIncr(ty, old, incr, ow)
	ok := over == wantOver
	if ty.Signed {
		ok = ok && want.IsInt64() && got == want.Int64()
	} else {
		ok = ok && want.IsUint64() && uint64(got) == want.Uint64()
	}
	if !ok {
		t.Fatalf("Incr(%+v, %d, %d, %d) = %d, %v; want %s, %v", ty, old, incr, ow, got, over, want, wantOver)
	}
}

func TestAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 0
	for ; n < 20000; n++ {
		ty := randType(rng)
		p := make([]byte, 12)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		off := uint64(rng.IntN(len(p)*8 - int(ty.Bits) + 1))
		checkGetSet(t, p, off, ty, rng.Uint64())
		// Reads past the end see zeros.
		if got, want := Get(p[:off>>3], off, ty), naiveGet(p[:off>>3], off, ty); got != want.Int64() {
			t.Fatalf("Get past the end = %d, want %s", got, want)
		}
		old := Get(p, off, ty)
		checkIncr(t, ty, old, randInt(rng), Overflow(rng.IntN(2)))
		checkIncr(t, ty, randInt(rng), 0, Overflow(rng.IntN(2))) // SET
	}
	if n != 20000 {
		t.Fatal(n)
	}
}

func FuzzIncr(f *testing.F) {
	f.Add(true, uint8(64), int64(-1<<63), int64(-1), uint8(0))
	f.Add(false, uint8(63), int64(-1), int64(0), uint8(1))
	f.Add(true, uint8(8), int64(100), int64(100), uint8(0))
	f.Fuzz(func(t *testing.T, signed bool, bits uint8, old, incr int64, ow uint8) {
		ty := Type{Signed: signed, Bits: uint(bits%64) + 1}
		if !signed && ty.Bits == 64 {
			ty.Bits = 63
		}
		// INCRBY starts from a stored field, always in range; SET (incr 0)
		// takes any value.
		lo, hi := bounds(ty)
		if o := big.NewInt(old); incr == 0 || (o.Cmp(lo) >= 0 && o.Cmp(hi) <= 0) {
			checkIncr(t, ty, old, incr, Overflow(ow%2))
		}
	})
}

func FuzzGetSet(f *testing.F) {
	f.Add([]byte("foobar"), uint16(3), uint8(13), uint64(12345), true)
	f.Fuzz(func(t *testing.T, p []byte, off uint16, bits uint8, v uint64, signed bool) {
		ty := Type{Signed: signed, Bits: uint(bits%63) + 1}
		if len(p) == 0 || uint64(off)+uint64(ty.Bits) > uint64(len(p))*8 {
			return
		}
		checkGetSet(t, p, uint64(off), ty, v)
	})
}

func BenchmarkGetSet(b *testing.B) {
	p := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		for off := uint64(0); off < 400; off += 37 {
			v := GetUnsigned(p, off, 13)
			Set(p, off, 13, v+1)
		}
	}
}
