package keyspace

import (
	"testing"
	"time"
)

var purgeSink [][]byte

// TestPurgeIdleHeapInBackground: a large idle heap is collected and
// returned by a goroutine of its own, and the caller (shard 0's loop) is
// not held for the collections.
func TestPurgeIdleHeapInBackground(t *testing.T) {
	var tu memoryTuner
	for try := 0; try < 5; try++ {
		for i := 0; i < 96; i++ {
			purgeSink = append(purgeSink, make([]byte, 1<<20))
		}
		purgeSink = nil
		now := int64(1_000_000 * (try + 1))
		tu.PurgeIdleHeap(now) // records the collection count
		before, _ := readHeap(heapSamples())
		tu.PurgeIdleHeap(now + idleHeapAfterMs + 1000)
		if !tu.Purging.Load() {
			continue // a collection ran in between: not idle, try again
		}
		deadline := time.Now().Add(30 * time.Second)
		for tu.Purging.Load() {
			if time.Now().After(deadline) {
				t.Fatal("purge did not finish")
			}
			time.Sleep(time.Millisecond)
		}
		after, _ := readHeap(heapSamples())
		if after < before+2 {
			t.Fatalf("collections %d → %d: the purge did not collect twice", before, after)
		}
		if tu.HeapAfter.Load() == 0 {
			t.Fatal("heap after the purge not recorded")
		}
		// Within the next idle period nothing more is purged.
		tu.PurgeIdleHeap(now + idleHeapAfterMs + 2000)
		if tu.Purging.Load() {
			t.Fatal("purged again right after a purge")
		}
		return
	}
	t.Skip("the heap never stayed idle between two looks (collections kept running)")
}
