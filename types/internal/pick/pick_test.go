package pick

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDistinct(t *testing.T) {
	src := rand.NewPCG(1, 2)
	for _, c := range [][2]int{{10, 3}, {10, 9}, {1000, 5}, {1000, 400}, {5, 5}, {5, 9}, {5, 0}} {
		got := Distinct(nil, src, c[0], c[1])
		if len(got) != min(c[0], c[1]) || !slices.IsSorted(got) {
			t.Fatalf("Distinct(%d, %d) = %v", c[0], c[1], got)
		}
		for i := 1; i < len(got); i++ {
			if got[i] == got[i-1] || got[i] < 0 || got[i] >= c[0] {
				t.Fatalf("Distinct(%d, %d) = %v", c[0], c[1], got)
			}
		}
	}
	// Uniform: every index of 20 chosen about equally often, in both the
	// sparse and the dense algorithm.
	for _, k := range []int{3, 15} {
		hits := make([]int, 20)
		for r := 0; r < 20000; r++ {
			for _, i := range Distinct(nil, src, 20, k) {
				hits[i]++
			}
		}
		want := 20000 * k / 20
		for i, n := range hits {
			if n < want*9/10 || n > want*11/10 {
				t.Fatalf("k=%d: index %d chosen %d times, expected about %d", k, i, n, want)
			}
		}
	}
}

func TestIntnDeterministic(t *testing.T) {
	a, b := rand.NewPCG(7, 8), rand.NewPCG(7, 8)
	for i := 0; i < 100; i++ {
		if Intn(a, 1000) != Intn(b, 1000) {
			t.Fatal("same source, different draws")
		}
	}
}
