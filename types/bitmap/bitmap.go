// Package bitmap holds the bit algorithms of the bitmap commands over byte
// strings: population counts and first-bit searches over bit ranges, and
// the bitwise operations between strings. Bits are numbered from the most
// significant bit of the first byte, as Redis numbers them. Counting and
// searching go a 64-bit word at a time.
package bitmap

import (
	"encoding/binary"
	"math/bits"
)

// Range converts a BITCOUNT/BITPOS style range over a string of n bytes to
// an inclusive range of bit positions. start and end count bytes, or bits
// when inBits is set; negative values count from the end. ok is false when
// the range is empty.
func Range(n, start, end int64, inBits bool) (first, last int64, ok bool) {
	total := n
	if inBits {
		total = n << 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start = max(start, 0)
	end = max(end, 0)
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 0, 0, false
	}
	if inBits {
		return start, end, true
	}
	return start << 3, end<<3 | 7, true
}

// Count returns the number of set bits in p.
func Count(p []byte) int64 {
	var n int
	for len(p) >= 32 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(p)) +
			bits.OnesCount64(binary.LittleEndian.Uint64(p[8:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(p[16:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(p[24:]))
		p = p[32:]
	}
	for len(p) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(p))
		p = p[8:]
	}
	for _, b := range p {
		n += bits.OnesCount8(b)
	}
	return int64(n)
}

// CountRange returns the number of set bits of p at positions first..last
// (inclusive, within p).
func CountRange(p []byte, first, last int64) int64 {
	fb, lb := first>>3, last>>3
	n := Count(p[fb : lb+1])
	// Remove the bits of the edge bytes outside the range.
	n -= int64(bits.OnesCount8(p[fb] & ^byte(0xff>>(first&7))))
	n -= int64(bits.OnesCount8(p[lb] & byte(0xff>>(last&7+1))))
	return n
}

// Pos returns the position of the first bit equal to bit (0 or 1) among
// positions first..last of p (inclusive, within p), or -1 when there is
// none.
func Pos(p []byte, bit int, first, last int64) int64 {
	fb, lb := first>>3, last>>3
	var flip byte // searching for 0 is searching for 1 in the complement
	if bit == 0 {
		flip = 0xff
	}
	headMask := byte(0xff >> (first & 7))
	tailMask := ^byte(0xff >> (last&7 + 1))
	if fb == lb {
		if b := (p[fb] ^ flip) & headMask & tailMask; b != 0 {
			return fb<<3 + int64(bits.LeadingZeros8(b))
		}
		return -1
	}
	if b := (p[fb] ^ flip) & headMask; b != 0 {
		return fb<<3 + int64(bits.LeadingZeros8(b))
	}
	i := fb + 1
	flip64 := uint64(0)
	if bit == 0 {
		flip64 = ^uint64(0)
	}
	for ; i+8 <= lb; i += 8 {
		if w := binary.BigEndian.Uint64(p[i:]) ^ flip64; w != 0 {
			return i<<3 + int64(bits.LeadingZeros64(w))
		}
	}
	for ; i < lb; i++ {
		if b := p[i] ^ flip; b != 0 {
			return i<<3 + int64(bits.LeadingZeros8(b))
		}
	}
	if b := (p[lb] ^ flip) & tailMask; b != 0 {
		return lb<<3 + int64(bits.LeadingZeros8(b))
	}
	return -1
}

// Op is a bitwise operation between strings.
type Op uint8

// Operations.
const (
	And Op = iota
	Or
	Xor
	Not
)

// Apply returns the result of op over srcs (Not takes exactly one). Shorter
// strings read as zero-padded to the longest; the result has the longest
// length, nil when every source is empty.
func Apply(op Op, srcs [][]byte) []byte {
	n := 0
	for _, s := range srcs {
		n = max(n, len(s))
	}
	if n == 0 {
		return nil
	}
	out := make([]byte, n)
	copy(out, srcs[0])
	if op == Not {
		i := 0
		for ; i+8 <= n; i += 8 {
			binary.LittleEndian.PutUint64(out[i:], ^binary.LittleEndian.Uint64(out[i:]))
		}
		for ; i < n; i++ {
			out[i] = ^out[i]
		}
		return out
	}
	for _, s := range srcs[1:] {
		if op == And {
			clear(out[len(s):]) // s reads as zeros past its end
		}
		i := 0
		for ; i+8 <= len(s); i += 8 {
			a, b := binary.LittleEndian.Uint64(out[i:]), binary.LittleEndian.Uint64(s[i:])
			switch op {
			case And:
				a &= b
			case Or:
				a |= b
			default:
				a ^= b
			}
			binary.LittleEndian.PutUint64(out[i:], a)
		}
		for ; i < len(s); i++ {
			switch op {
			case And:
				out[i] &= s[i]
			case Or:
				out[i] |= s[i]
			default:
				out[i] ^= s[i]
			}
		}
	}
	return out
}
