// Package memsize rounds allocation sizes the way Go's allocator does,
// so MemoryUsage reports the bytes a value really occupies on the heap
// rather than the bytes it asked for.
package memsize

// classes are the Go runtime's small-object size classes (runtime/
// sizeclasses.go); larger objects take whole 8 KiB pages.
var classes = [...]uint16{
	8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280,
	1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528,
	6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432,
	19072, 20480, 21760, 24576, 27264, 28672, 32768,
}

const page = 8192

// Alloc returns the heap bytes an allocation of n bytes occupies (0 for
// n <= 0).
func Alloc(n int) int {
	if n <= 0 {
		return 0
	}
	if n > int(classes[len(classes)-1]) {
		return (n + page - 1) / page * page
	}
	lo, hi := 0, len(classes)-1
	for lo < hi {
		m := (lo + hi) / 2
		if int(classes[m]) < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return int(classes[lo])
}

// NoScan returns the heap bytes of a pointer-free allocation of n bytes
// (string data, byte slices): below 16 bytes Go's tiny allocator packs
// several into one block, so those count as their length.
func NoScan(n int) int {
	if n < 16 {
		return max(n, 0)
	}
	return Alloc(n)
}
