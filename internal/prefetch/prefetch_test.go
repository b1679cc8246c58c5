package prefetch

import (
	"testing"
	"unsafe"
)

// TestLineIsHarmless prefetches valid, nil and unmapped addresses: none
// may fault or change memory.
func TestLineIsHarmless(t *testing.T) {
	buf := make([]byte, 256)
	for i := range buf {
		buf[i] = byte(i)
	}
	for i := range buf {
		Line(unsafe.Pointer(&buf[i]))
	}
	Line(nil)
	Line(unsafe.Add(unsafe.Pointer(&buf[0]), 1<<40)) // far past the buffer: unmapped
	for i := range buf {
		if buf[i] != byte(i) {
			t.Fatalf("byte %d changed to %d", i, buf[i])
		}
	}
}
