//go:build amd64 || arm64

package prefetch

import "unsafe"

// Line starts loading the cache line holding p into the processor's
// caches. p is never dereferenced by Go code, and an address that does not
// map faults nowhere: a prefetch of it is dropped.
//
//go:noescape
func Line(p unsafe.Pointer)
