//go:build !unix

package keyspace

import "unsafe"

// mapMemory allocates size bytes of pointer-free memory. Without mmap the
// pages come from the Go heap: the collector still does not trace them,
// but it counts them.
func mapMemory(size int) (unsafe.Pointer, error) {
	return unsafe.Pointer(unsafe.SliceData(make([]byte, size))), nil
}

// unmapMemory leaves the page to the collector.
func unmapMemory(unsafe.Pointer, int) error { return nil }
