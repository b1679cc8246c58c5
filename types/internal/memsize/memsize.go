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

// Sizes up to smallMax are looked up by 8-byte steps, larger ones by
// 128-byte steps, as the runtime does: every class up to smallMax is a
// multiple of 8 and every larger one a multiple of 128, so a step never
// straddles a class boundary.
const (
	smallMax = 1024
	largeMax = 32768
)

// stepClasses is the class of every size step: sizes 8*i-7..8*i at
// index i (i <= smallMax/8), then sizes smallMax+128*j-127..smallMax+128*j
// at index smallMax/8+j. It is computed once and only read.
var stepClasses = func() (t [smallMax/8 + (largeMax-smallMax)/128 + 1]uint16) {
	c := 0
	for i := range t {
		n := 8 * i
		if i > smallMax/8 {
			n = smallMax + 128*(i-smallMax/8)
		}
		for int(classes[c]) < n {
			c++
		}
		t[i] = classes[c]
	}
	return t
}()

// Alloc returns the heap bytes an allocation of n bytes occupies (0 for
// n <= 0). It costs one table lookup: the memory accounting calls it on
// every write to a collection.
func Alloc(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= smallMax:
		return int(stepClasses[(n+7)>>3])
	case n <= largeMax:
		return int(stepClasses[smallMax/8+(n-smallMax+127)>>7])
	}
	return (n + page - 1) / page * page
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
