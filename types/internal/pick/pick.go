// Package pick chooses random indexes for SRANDMEMBER, SPOP, HRANDFIELD
// and ZRANDMEMBER, from a caller's math/rand/v2 Source so that a given
// source makes the same choices.
package pick

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Intn returns a uniform integer in [0, n) (n > 0) drawn from src.
func Intn(src rand.Source, n int) int {
	// Lemire's multiply-shift with rejection: unbiased.
	un := uint64(n)
	for {
		v := src.Uint64()
		hi, lo := bits.Mul64(v, un)
		if lo >= un || lo >= (-un)%un {
			return int(hi)
		}
	}
}

// Distinct appends k distinct indexes in [0, n) chosen uniformly, sorted
// ascending, to dst (k < n; callers take everything when k >= n).
func Distinct(dst []int, src rand.Source, n, k int) []int {
	if k <= 0 {
		return dst
	}
	if k >= n {
		for i := 0; i < n; i++ {
			dst = append(dst, i)
		}
		return dst
	}
	base := len(dst)
	if k*3 > n {
		// Dense: partial Fisher-Yates over all indexes.
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		for i := 0; i < k; i++ {
			j := i + Intn(src, n-i)
			all[i], all[j] = all[j], all[i]
		}
		dst = append(dst, all[:k]...)
	} else {
		// Sparse: Floyd's algorithm.
		seen := make(map[int]struct{}, k)
		for j := n - k; j < n; j++ {
			t := Intn(src, j+1)
			if _, ok := seen[t]; ok {
				t = j
			}
			seen[t] = struct{}{}
			dst = append(dst, t)
		}
	}
	slices.Sort(dst[base:])
	return dst
}
