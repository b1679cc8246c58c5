package bitmap

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The reference model: one bit at a time.

func bitAt(p []byte, i int64) int { return int(p[i>>3]>>(7-uint(i&7))) & 1 }

func naiveCount(p []byte, first, last int64) int64 {
	var n int64
	for i := first; i <= last; i++ {
		n += int64(bitAt(p, i))
	}
	return n
}

func naivePos(p []byte, bit int, first, last int64) int64 {
	for i := first; i <= last; i++ {
		if bitAt(p, i) == bit {
			return i
		}
	}
	return -1
}

func naiveApply(op Op, srcs [][]byte) []byte {
	n := 0
	for _, s := range srcs {
		n = max(n, len(s))
	}
	if n == 0 {
		return nil
	}
	out := make([]byte, n)
	for i := range out {
		at := func(s []byte) byte {
			if i < len(s) {
				return s[i]
			}
			return 0
		}
		v := at(srcs[0])
		for _, s := range srcs[1:] {
			switch op {
			case And:
				v &= at(s)
			case Or:
				v |= at(s)
			case Xor:
				v ^= at(s)
			}
		}
		if op == Not {
			v = ^v
		}
		out[i] = v
	}
	return out
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		switch rng.IntN(4) {
		case 0:
			b[i] = 0
		case 1:
			b[i] = 0xff
		default:
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

// checkOne compares every function with the model on p and one range.
func checkOne(t *testing.T, p []byte, first, last int64) {
	t.Helper()
	if got, want := CountRange(p, first, last), naiveCount(p, first, last); got != want {
		t.Fatalf("CountRange(%x, %d, %d) = %d, want %d", p, first, last, got, want)
	}
	for bit := 0; bit < 2; bit++ {
		if got, want := Pos(p, bit, first, last), naivePos(p, bit, first, last); got != want {
			t.Fatalf("Pos(%x, %d, %d, %d) = %d, want %d", p, bit, first, last, got, want)
		}
	}
}

func TestAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := 0
	for i := 0; i < 3000; i++ {
		p := randBytes(rng, 1+rng.IntN(80))
		nbits := int64(len(p)) * 8
		first := rng.Int64N(nbits)
		last := first + rng.Int64N(nbits-first)
		checkOne(t, p, first, last)
		if got, want := Count(p), naiveCount(p, 0, nbits-1); got != want {
			t.Fatalf("Count(%x) = %d, want %d", p, got, want)
		}
		srcs := make([][]byte, 1+rng.IntN(4))
		for j := range srcs {
			srcs[j] = randBytes(rng, rng.IntN(40))
		}
		op := Op(rng.IntN(3))
		if rng.IntN(4) == 0 {
			op, srcs = Not, srcs[:1]
		}
		if got, want := Apply(op, srcs), naiveApply(op, srcs); !bytes.Equal(got, want) {
			t.Fatalf("Apply(%d, %x) = %x, want %x", op, srcs, got, want)
		}
		cases++
	}
	if cases != 3000 {
		t.Fatal(cases)
	}
}

func TestRange(t *testing.T) {
	for _, tc := range []struct {
		n, start, end int64
		bits          bool
		first, last   int64
		ok            bool
	}{
		{6, 0, -1, false, 0, 47, true},
		{6, 1, 1, false, 8, 15, true},
		{6, -2, -1, false, 32, 47, true},
		{6, 5, 30, true, 5, 30, true},
		{6, -5, -1, true, 43, 47, true},
		{6, 0, 100, true, 0, 47, true},
		{6, -100, 0, false, 0, 7, true},
		{6, 4, 2, false, 0, 0, false},
		{0, 0, -1, false, 0, 0, false},
		{6, 10, 20, false, 0, 0, false},
	} {
		first, last, ok := Range(tc.n, tc.start, tc.end, tc.bits)
		if ok != tc.ok || (ok && (first != tc.first || last != tc.last)) {
			t.Errorf("Range(%d, %d, %d, %v) = %d, %d, %v; want %d, %d, %v", tc.n, tc.start, tc.end, tc.bits, first, last, ok, tc.first, tc.last, tc.ok)
		}
	}
}

func FuzzBitmap(f *testing.F) {
	f.Add([]byte("foobar"), int64(5), int64(30))
	f.Add([]byte{0xff, 0xf0, 0x00}, int64(0), int64(23))
	f.Add(bytes.Repeat([]byte{0}, 40), int64(7), int64(300))
	f.Fuzz(func(t *testing.T, p []byte, a, b int64) {
		if len(p) == 0 {
			return
		}
		nbits := int64(len(p)) * 8
		first, last, ok := Range(int64(len(p)), a, b, true)
		if !ok {
			return
		}
		if first < 0 || last >= nbits || first > last {
			t.Fatalf("Range gave %d..%d for %d bits", first, last, nbits)
		}
		checkOne(t, p, first, last)
	})
}

func BenchmarkCount1MB(b *testing.B) {
	p := randBytes(rand.New(rand.NewPCG(1, 1)), 1<<20)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		Count(p)
	}
}

func BenchmarkPos1MB(b *testing.B) {
	p := make([]byte, 1<<20)
	p[len(p)-1] = 1
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		Pos(p, 1, 0, int64(len(p))*8-1)
	}
}

func BenchmarkApplyAnd(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	srcs := [][]byte{randBytes(rng, 1<<16), randBytes(rng, 1<<16), randBytes(rng, 1<<16)}
	b.SetBytes(3 << 16)
	b.ReportAllocs()
	for b.Loop() {
		Apply(And, srcs)
	}
}
