package hll

import (
	"encoding/binary"
	"fmt"
	"math"
)

// SelfTest checks the implementation against itself, for PFSELFTEST: every
// dense register keeps what is written to it, and while elements are added
// a sparse value and a dense one hold the same registers and estimate the
// same cardinality, within the expected error of the true count.
func SelfTest() error {
	// Dense registers: write a pattern, read it back.
	d := make([]byte, DenseLen)
	copy(d, "HYLL")
	r := d[HeaderLen:]
	var want [Registers]uint8
	seed := uint64(0x9e3779b97f4a7c15)
	for pass := 0; pass < 4; pass++ {
		for i := range want {
			seed = seed*6364136223846793005 + 1442695040888963407
			want[i] = uint8(seed>>58) & regMax
			denseSet(r, i, want[i])
		}
		for i, w := range want {
			if got := denseGet(r, i); got != w {
				return fmt.Errorf("register error at %d", i)
			}
		}
	}
	// Sparse against dense, and the estimate against the truth.
	sparse := New()
	dense, _ := ToDense(New())
	relErr := 1.04 / math.Sqrt(Registers)
	var el [8]byte
	for n := 1; n <= 30000; n++ {
		binary.LittleEndian.PutUint64(el[:], uint64(n))
		var err error
		if sparse, _, _, err = Add(sparse, el[:], 3000); err != nil {
			return fmt.Errorf("sparse add: %w", err)
		}
		if dense, _, _, err = Add(dense, el[:], 0); err != nil {
			return fmt.Errorf("dense add: %w", err)
		}
		if n&(n-1) != 0 && n%5000 != 0 {
			continue
		}
		cs, err := Count(sparse)
		if err != nil {
			return fmt.Errorf("sparse count: %w", err)
		}
		cd, _ := Count(dense)
		if !IsDense(sparse) && cs != cd {
			return fmt.Errorf("sparse and dense counts differ at %d: %d != %d", n, cs, cd)
		}
		maxErr := relErr * 6
		if n < 10 {
			maxErr = relErr * 10 // tiny counts round coarsely
		}
		if diff := math.Abs(float64(cd) - float64(n)); diff > maxErr*float64(n)+1 {
			return fmt.Errorf("cardinality error: %d for %d elements", cd, n)
		}
	}
	return nil
}
