//go:build unix

package keyspace

import (
	"syscall"
	"unsafe"
)

// mapMemory maps size bytes of zeroed anonymous memory outside the Go heap.
func mapMemory(size int) (unsafe.Pointer, error) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	return unsafe.Pointer(unsafe.SliceData(b)), nil
}

// unmapMemory returns memory from mapMemory to the system.
func unmapMemory(p unsafe.Pointer, size int) error {
	return syscall.Munmap(unsafe.Slice((*byte)(p), size))
}
