package persistence

import (
	"testing"
	"time"
)

// TestFsyncHistogramAndMax: each fsync falls in its power-of-two bucket,
// and TakeMaxFsync reports the longest since its previous call.
func TestFsyncHistogramAndMax(t *testing.T) {
	var m walMetrics
	for _, d := range []time.Duration{500 * time.Nanosecond, 3 * time.Microsecond, 5 * time.Millisecond, 2 * time.Millisecond, time.Hour} {
		m.synced(d)
	}
	s := m.snapshot()
	want := map[int]uint64{0: 1, 2: 1, 13: 1, 11: 1, FsyncBuckets - 1: 1} // 3µs < 4µs; 5ms < 8.192ms; 2ms < 2.048ms
	for i, n := range s.FsyncHist {
		if n != want[i] {
			t.Errorf("bucket %d holds %d, want %d", i, n, want[i])
		}
	}
	if got := time.Duration(m.maxFsyncNs.Swap(0)); got != time.Hour {
		t.Errorf("longest fsync %v, want 1h", got)
	}
	m.synced(time.Millisecond)
	if got := time.Duration(m.maxFsyncNs.Swap(0)); got != time.Millisecond {
		t.Errorf("longest fsync after a reset %v, want 1ms", got)
	}
}
