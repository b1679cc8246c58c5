package memsize

import (
	"runtime"
	"testing"
)

func TestAlloc(t *testing.T) {
	cases := map[int]int{0: 0, 1: 8, 8: 8, 9: 16, 33: 48, 257: 288, 32768: 32768, 32769: 40960}
	for n, want := range cases {
		if got := Alloc(n); got != want {
			t.Errorf("Alloc(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestAllocMatchesRuntime: append's capacity growth lands on size
// classes, so a slice grown from empty has cap == Alloc(cap).
func TestAllocMatchesRuntime(t *testing.T) {
	var b []byte
	for i := 0; i < 100000; i++ {
		b = append(b, 0)
		if c := cap(b); c <= 32768 && Alloc(c) != c {
			t.Fatalf("cap %d is not a size class (Alloc says %d)", c, Alloc(c))
		}
	}
	runtime.KeepAlive(b)
}

// TestAllocTable: the step table gives the smallest class holding n for
// every n, as a search of the class list does.
func TestAllocTable(t *testing.T) {
	for n := 1; n <= largeMax; n++ {
		want := 0
		for _, c := range classes {
			if int(c) >= n {
				want = int(c)
				break
			}
		}
		if got := Alloc(n); got != want {
			t.Fatalf("Alloc(%d) = %d, want %d", n, got, want)
		}
	}
}

func BenchmarkAlloc(b *testing.B) {
	sizes := []int{24, 48, 100, 640, 1500, 8192, 24 * 1024, 40000}
	s := 0
	for i := 0; i < b.N; i++ {
		s += Alloc(sizes[i%len(sizes)])
	}
	if s < 0 {
		b.Fatal(s)
	}
}
