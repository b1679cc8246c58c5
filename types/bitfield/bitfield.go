// Package bitfield reads and writes integers of 1 to 64 bits at any bit
// offset of a byte string, most significant bit first (bit 0 is the top bit
// of the first byte), and applies the overflow policies of BITFIELD: WRAP
// (two's complement wrap-around), SAT (clamp to the type's range) and FAIL
// (refuse the write).
package bitfield

// Overflow is an overflow policy.
type Overflow uint8

// Policies.
const (
	Wrap Overflow = iota
	Sat
	Fail
)

// Type is an integer type: Bits is 1..64 signed, 1..63 unsigned.
type Type struct {
	Signed bool
	Bits   uint
}

// GetUnsigned reads the bits-wide unsigned integer at bit offset off of p;
// bits past the end of p read as 0.
func GetUnsigned(p []byte, off uint64, bits uint) uint64 {
	var v uint64
	// Gather the (at most 9) bytes the field spans, then cut the field out.
	first := off >> 3
	lastBit := off + uint64(bits) - 1
	last := lastBit >> 3
	var hi, lo uint64 // a 128-bit window, big-endian, holding the bytes first..last
	for i := first; i <= last; i++ {
		var b uint64
		if i < uint64(len(p)) {
			b = uint64(p[i])
		}
		hi = hi<<8 | lo>>56
		lo = lo<<8 | b
	}
	// The field ends at bit (lastBit&7) of the last byte: drop the bits after it.
	drop := 7 - uint(lastBit&7)
	v = lo>>drop | hi<<(64-drop) // hi<<64 is 0 when drop is 0
	if bits < 64 {
		v &= 1<<bits - 1
	}
	return v
}

// GetSigned reads the bits-wide two's complement integer at bit offset off.
func GetSigned(p []byte, off uint64, bits uint) int64 {
	v := GetUnsigned(p, off, bits)
	if bits < 64 && v&(1<<(bits-1)) != 0 {
		v |= ^uint64(0) << bits
	}
	return int64(v)
}

// Set writes the low bits of v as a bits-wide integer at bit offset off of
// p, which must be long enough.
func Set(p []byte, off uint64, bits uint, v uint64) {
	for j := uint(0); j < bits; j++ {
		bit := v >> (bits - 1 - j) & 1
		i := off >> 3
		shift := 7 - uint(off&7)
		p[i] = p[i]&^(1<<shift) | byte(bit)<<shift
		off++
	}
}

// Get reads a field of type t as the integer BITFIELD replies.
func Get(p []byte, off uint64, t Type) int64 {
	if t.Signed {
		return GetSigned(p, off, t.Bits)
	}
	return int64(GetUnsigned(p, off, t.Bits))
}

// Incr computes old+incr for a field of type t under policy ow (SET is
// Incr with old=value, incr=0). It returns the value to store and whether
// the sum overflowed; under Fail an overflow means nothing is stored.
func Incr(t Type, old, incr int64, ow Overflow) (int64, bool) {
	if t.Signed {
		return incrSigned(old, incr, t.Bits, ow)
	}
	v, over := incrUnsigned(uint64(old), incr, t.Bits, ow)
	return int64(v), over
}

func incrUnsigned(value uint64, incr int64, bits uint, ow Overflow) (uint64, bool) {
	maxV := uint64(1)<<bits - 1
	if bits == 64 {
		maxV = ^uint64(0)
	}
	sum := value + uint64(incr)
	wrapped := sum
	if bits < 64 {
		wrapped &= maxV
	}
	switch {
	case value > maxV || (incr > 0 && uint64(incr) > maxV-value):
		if ow == Sat {
			return maxV, true
		}
		return wrapped, true
	case incr < 0 && uint64(-incr) > value:
		// -incr of math.MinInt64 is itself: its unsigned reading, 2^63, is
		// right.
		if ow == Sat {
			return 0, true
		}
		return wrapped, true
	}
	return sum, false
}

func incrSigned(value, incr int64, bits uint, ow Overflow) (int64, bool) {
	maxV := int64(1)<<(bits-1) - 1
	if bits == 64 {
		maxV = 1<<63 - 1
	}
	minV := -maxV - 1
	wrap := func() int64 {
		c := uint64(value) + uint64(incr)
		if bits < 64 {
			if c&(1<<(bits-1)) != 0 {
				c |= ^uint64(0) << bits
			} else {
				c &= 1<<bits - 1
			}
		}
		return int64(c)
	}
	// Exact comparisons without overflowing int64: the room left above
	// and below value.
	overMax := value > maxV || (incr > 0 && value >= 0 && uint64(incr) > uint64(maxV-value)) ||
		(incr > 0 && value < 0 && uint64(incr) > uint64(maxV)+uint64(-value))
	underMin := !overMax && (value < minV || (incr < 0 && value <= 0 && uint64(-incr) > uint64(value-minV)) ||
		(incr < 0 && value > 0 && uint64(-incr) > uint64(value)+uint64(-minV)))
	switch {
	case overMax:
		if ow == Sat {
			return maxV, true
		}
		return wrap(), true
	case underMin:
		if ow == Sat {
			return minV, true
		}
		return wrap(), true
	}
	return value + incr, false
}
