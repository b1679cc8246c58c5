// Package hll implements HyperLogLog cardinality estimation over byte
// strings laid out exactly as Redis 7.0 lays them out, so a value written by
// one server counts the same on the other.
//
// # Format
//
// A value is a 16-byte header followed by the registers:
//
//	+------+---+-----+----------+
//	| HYLL | E | N/U | Cardin.  |   magic, encoding, 3 unused bytes,
//	+------+---+-----+----------+   cached cardinality (8 bytes, LE)
//
// E is 0 for dense and 1 for sparse. The cached cardinality is valid when
// the most significant bit of its last byte is clear; every change to the
// registers sets that bit.
//
// There are 2^14 registers of 6 bits. The dense form packs them LSB first:
// register i starts at bit 6*i of the register area, its low bits in the
// high part of byte 6*i/8. The sparse form is a run-length code of opcodes:
//
//	00xxxxxx           ZERO:  1..64 registers set to 0
//	01xxxxxx yyyyyyyy  XZERO: 1..16384 registers set to 0 (14-bit length-1)
//	1vvvvvxx           VAL:   1..4 registers set to 1..32
//
// A sparse value becomes dense when a register would exceed 32 or the value
// would grow past the sparse limit (hll-sparse-max-bytes).
//
// The estimator is Ertl's improved raw estimator over the register
// histogram ("New cardinality estimation algorithms for HyperLogLog
// sketches", 2017), the one Redis 7.0 uses.
//
// The byte layouts, the hash (MurmurHash64A, seed 0xadc83b19) and the
// order in which the sparse form is rewritten are part of the format shared
// with Redis and must not change.
package hll

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// Format constants.
const (
	P         = 14             // register index bits
	Registers = 1 << P         // number of registers
	q         = 64 - P         // bits of the hash that feed the run length
	regBits   = 6              // bits per dense register
	regMax    = 1<<regBits - 1 // largest register value
	HeaderLen = 16             // header bytes
	DenseLen  = HeaderLen + Registers*regBits/8
	encDense  = 0
	encSparse = 1
	encMax    = encSparse
	hashSeed  = 0xadc83b19

	sparseValMax    = 32    // largest value a VAL opcode holds
	sparseValMaxLen = 4     // longest run of a VAL opcode
	sparseZeroMax   = 64    // longest run of a ZERO opcode
	sparseXZeroMax  = 16384 // longest run of an XZERO opcode
)

// Errors. ErrNotHLL means the bytes are not a HyperLogLog at all (Redis
// answers WRONGTYPE); ErrCorrupt means the header is right but the registers
// do not decode (Redis answers INVALIDOBJ).
var (
	ErrNotHLL  = errors.New("hll: not a HyperLogLog value")
	ErrCorrupt = errors.New("hll: corrupted HyperLogLog value")
)

// New returns an empty sparse HyperLogLog: the header and one XZERO opcode
// covering every register. Its cached cardinality is a valid 0.
func New() []byte {
	b := make([]byte, HeaderLen+2, HeaderLen+64)
	copy(b, "HYLL")
	b[4] = encSparse
	putXZero(b[HeaderLen:], Registers)
	return b
}

// Check reports whether v has a HyperLogLog header: the magic, a known
// encoding, and for the dense form its exact length. It does not decode
// sparse opcodes.
func Check(v []byte) error {
	if len(v) < HeaderLen || string(v[:4]) != "HYLL" || v[4] > encMax {
		return ErrNotHLL
	}
	if v[4] == encDense && len(v) != DenseLen {
		return ErrNotHLL
	}
	return nil
}

// IsDense reports whether a checked value uses the dense form.
func IsDense(v []byte) bool { return v[4] == encDense }

// Cached returns the cached cardinality of a checked value and whether it is
// valid.
func Cached(v []byte) (uint64, bool) {
	if v[15]&0x80 != 0 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(v[8:16]), true
}

// SetCached stores card as the valid cached cardinality of v.
func SetCached(v []byte, card uint64) { binary.LittleEndian.PutUint64(v[8:16], card) }

// Invalidate marks the cached cardinality of v stale.
func Invalidate(v []byte) { v[15] |= 0x80 }

// Hash returns the register index and the run length (1..51) an element
// sets: the low P bits of its hash pick the register, the position of the
// lowest set bit of the rest (counted from 1) is the value.
func Hash(elem []byte) (index int, count uint8) {
	h := murmur64A(elem, hashSeed)
	index = int(h & (Registers - 1))
	h >>= P
	h |= 1 << q // bounds the count at q+1
	return index, uint8(bits.TrailingZeros64(h)) + 1
}

// murmur64A is Austin Appleby's MurmurHash64A with little-endian reads.
func murmur64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(key))*m
	for len(key) >= 8 {
		k := binary.LittleEndian.Uint64(key)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		key = key[8:]
	}
	if n := len(key); n > 0 {
		for i := n - 1; i >= 0; i-- {
			h ^= uint64(key[i]) << (8 * uint(i))
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// Dense register access. Register i spans bits 6i..6i+5 of the register
// area: the byte at 6i/8 holds its low bits in its high part, the next byte
// the rest.

func denseGet(regs []byte, i int) uint8 {
	bit := i * regBits
	b, fb := bit>>3, uint(bit&7)
	lo := uint(regs[b])
	var hi uint
	if b+1 < len(regs) {
		hi = uint(regs[b+1])
	}
	return uint8((lo>>fb | hi<<(8-fb)) & regMax)
}

func denseSet(regs []byte, i int, val uint8) {
	bit := i * regBits
	b, fb := bit>>3, uint(bit&7)
	v := uint(val)
	regs[b] &^= byte(regMax << fb)
	regs[b] |= byte(v << fb)
	if b+1 < len(regs) {
		regs[b+1] &^= byte(regMax >> (8 - fb))
		regs[b+1] |= byte(v >> (8 - fb))
	}
}

// unpack4 decodes the four registers packed in three bytes: 4 registers of
// 6 bits fill 24 bits exactly, so register 4g starts at byte 3g, bit 0.
func unpack4(a, b, c byte) [4]uint8 {
	return [4]uint8{a & regMax, (a>>6 | b<<2) & regMax, (b>>4 | c<<4) & regMax, c >> 2}
}

// DenseSpan returns the offsets, within a dense value, of the first and last
// byte register i occupies.
func DenseSpan(i int) (first, last int) {
	bit := i * regBits
	first = HeaderLen + bit>>3
	last = HeaderLen + (bit+regBits-1)>>3
	return first, last
}

// Sparse opcodes.

func isZero(c byte) bool  { return c&0xc0 == 0 }
func isXZero(c byte) bool { return c&0xc0 == 0x40 }
func isVal(c byte) bool   { return c&0x80 != 0 }
func zeroLen(c byte) int  { return int(c&0x3f) + 1 }
func valLen(c byte) int   { return int(c&3) + 1 }
func valValue(c byte) int { return int(c>>2&0x1f) + 1 }

func xzeroLen(c, d byte) int { return (int(c&0x3f)<<8 | int(d)) + 1 }

func valOp(val, n int) byte { return byte((val-1)<<2|(n-1)) | 0x80 }

func putXZero(b []byte, n int) {
	n--
	b[0] = byte(n>>8) | 0x40
	b[1] = byte(n)
}

// opcode decodes the sparse opcode at p[i]: its length in bytes, its run
// and its value (0 for the zero opcodes). ok is false when an XZERO is cut
// off at the end.
func opcode(p []byte, i int) (size, run, val int, ok bool) {
	c := p[i]
	switch {
	case isZero(c):
		return 1, zeroLen(c), 0, true
	case isVal(c):
		return 1, valLen(c), valValue(c), true
	default:
		if i+1 >= len(p) {
			return 0, 0, 0, false
		}
		return 2, xzeroLen(c, p[i+1]), 0, true
	}
}

// Merge decodes a checked value into regs (one byte per register) by
// taking the maximum of each register and what regs already holds, as a
// union of sets. ErrCorrupt means the sparse opcodes do not cover exactly
// the registers.
func Merge(regs *[Registers]uint8, v []byte) error {
	if IsDense(v) {
		r := v[HeaderLen:DenseLen]
		for g := 0; g < Registers/4; g++ {
			a, b, c := r[3*g], r[3*g+1], r[3*g+2]
			x := unpack4(a, b, c)
			m := regs[4*g : 4*g+4 : 4*g+4]
			m[0] = max(m[0], x[0])
			m[1] = max(m[1], x[1])
			m[2] = max(m[2], x[2])
			m[3] = max(m[3], x[3])
		}
		return nil
	}
	p := v[HeaderLen:]
	idx := 0
	for i := 0; i < len(p); {
		size, run, val, ok := opcode(p, i)
		if !ok || idx+run > Registers {
			return ErrCorrupt
		}
		for j := idx; j < idx+run; j++ {
			if uint8(val) > regs[j] {
				regs[j] = uint8(val)
			}
		}
		idx += run
		i += size
	}
	if idx != Registers {
		return ErrCorrupt
	}
	return nil
}

// ToDense returns v in the dense form: v itself when it already is, else a
// new value with the same header (cache included) and the decoded
// registers.
func ToDense(v []byte) ([]byte, error) {
	if IsDense(v) {
		return v, nil
	}
	var regs [Registers]uint8
	if err := Merge(&regs, v); err != nil {
		return nil, err
	}
	d := make([]byte, DenseLen)
	copy(d, v[:HeaderLen])
	d[4] = encDense
	r := d[HeaderLen:]
	for i, x := range regs {
		if x != 0 {
			denseSet(r, i, x)
		}
	}
	return d, nil
}

// Outcome says what Set did to a value.
type Outcome uint8

// Set outcomes.
const (
	Unchanged Outcome = iota // the register already held at least the value
	InPlace                  // a dense register changed in place; see DenseSpan
	Rewritten                // the value was rewritten (sparse, or converted to dense)
)

// Set raises register index of the checked value v to count if it is lower,
// and returns the possibly reallocated value. A sparse value that would grow
// past sparseMax bytes, or would hold a value above 32, is converted to the
// dense form first. The cached cardinality is left to the caller. On
// ErrCorrupt v is unchanged.
func Set(v []byte, index int, count uint8, sparseMax int) ([]byte, Outcome, error) {
	if IsDense(v) {
		r := v[HeaderLen:]
		if denseGet(r, index) >= count {
			return v, Unchanged, nil
		}
		denseSet(r, index, count)
		return v, InPlace, nil
	}
	if count > sparseValMax {
		return promote(v, index, count)
	}
	p := v[HeaderLen:]
	// Find the opcode covering index; prev is the one before it.
	first, prev, at := 0, -1, 0
	var size, run, val int
	for {
		if at >= len(p) {
			return v, Unchanged, ErrCorrupt
		}
		var ok bool
		size, run, val, ok = opcode(p, at)
		if !ok {
			return v, Unchanged, ErrCorrupt
		}
		if index <= first+run-1 {
			break
		}
		prev = at
		at += size
		first += run
	}
	zero := !isVal(p[at])
	if !zero && val >= int(count) {
		return v, Unchanged, nil
	}
	if run == 1 && size == 1 {
		// A one-byte run of one becomes a VAL of one: same size.
		p[at] = valOp(int(count), 1)
		v = v[:HeaderLen+mergeVals(p, prev)]
		return v, Rewritten, nil
	}
	// Split the run into up to three runs: before, the register, after.
	var seq [5]byte
	n := 0
	last := first + run - 1
	emit := func(l int) {
		switch {
		case !zero:
			seq[n] = valOp(val, l)
			n++
		case l > sparseZeroMax:
			putXZero(seq[n:], l)
			n += 2
		default:
			seq[n] = byte(l - 1)
			n++
		}
	}
	if index != first {
		emit(index - first)
	}
	seq[n] = valOp(int(count), 1)
	n++
	if index != last {
		emit(last - index)
	}
	delta := n - size
	if delta > 0 && len(v)+delta > sparseMax {
		return promote(v, index, count)
	}
	switch {
	case delta > 0:
		v = append(v, seq[:delta]...)
		p = v[HeaderLen:]
		copy(p[at+n:], p[at+size:len(p)-delta])
	case delta < 0: // an XZERO of one register
		copy(p[at+n:], p[at+size:])
		v = v[:len(v)+delta]
		p = v[HeaderLen:]
	}
	copy(p[at:], seq[:n])
	v = v[:HeaderLen+mergeVals(p, prev)]
	return v, Rewritten, nil
}

// mergeVals joins adjacent VAL opcodes of equal value whose runs fit one
// opcode, scanning at most five opcodes from prev (or the start), the
// window a single Set can disturb. It returns the new length of p.
func mergeVals(p []byte, prev int) int {
	i := max(prev, 0)
	end := len(p)
	for scan := 5; i < end && scan > 0; scan-- {
		c := p[i]
		switch {
		case isXZero(c):
			i += 2
			continue
		case isZero(c):
			i++
			continue
		}
		if i+1 < end && isVal(p[i+1]) && valValue(c) == valValue(p[i+1]) {
			if l := valLen(c) + valLen(p[i+1]); l <= sparseValMaxLen {
				p[i+1] = valOp(valValue(c), l)
				copy(p[i:], p[i+1:end])
				end--
				continue
			}
		}
		i++
	}
	return end
}

// promote converts v to dense and sets the register there.
func promote(v []byte, index int, count uint8) ([]byte, Outcome, error) {
	d, err := ToDense(v)
	if err != nil {
		return v, Unchanged, err
	}
	denseSet(d[HeaderLen:], index, count)
	return d, Rewritten, nil
}

// Add adds elem to the checked value v; see Set.
func Add(v []byte, elem []byte, sparseMax int) ([]byte, Outcome, int, error) {
	idx, count := Hash(elem)
	out, o, err := Set(v, idx, count, sparseMax)
	return out, o, idx, err
}

// Count estimates the cardinality of the checked value v from its
// registers, ignoring the cache. ErrCorrupt means the sparse opcodes do not
// cover exactly the registers.
func Count(v []byte) (uint64, error) {
	var histo [64]int
	if IsDense(v) {
		r := v[HeaderLen:DenseLen]
		for g := 0; g < Registers/4; g++ {
			x := unpack4(r[3*g], r[3*g+1], r[3*g+2])
			histo[x[0]]++
			histo[x[1]]++
			histo[x[2]]++
			histo[x[3]]++
		}
		return estimate(&histo), nil
	}
	p := v[HeaderLen:]
	idx := 0
	for i := 0; i < len(p); {
		size, run, val, ok := opcode(p, i)
		if !ok {
			return 0, ErrCorrupt
		}
		idx += run
		histo[val] += run
		i += size
	}
	if idx != Registers {
		return 0, ErrCorrupt
	}
	return estimate(&histo), nil
}

// CountRegisters estimates the cardinality of a register array (one byte
// per register, as Merge fills it).
func CountRegisters(regs *[Registers]uint8) uint64 {
	var histo [64]int
	for _, x := range regs {
		histo[x&63]++
	}
	return estimate(&histo)
}

// estimate is the improved raw estimator over a register histogram.
func estimate(histo *[64]int) uint64 {
	const m = float64(Registers)
	const alphaInf = 0.721347520444481703680 // 1/(2 ln 2)
	z := m * tau((m-float64(histo[q+1]))/m)
	for j := q; j >= 1; j-- {
		z += float64(histo[j])
		z *= 0.5
	}
	z += m * sigma(float64(histo[0])/m)
	return uint64(math.Round(alphaInf * m * m / z))
}

// sigma is the series x + sum 2^(k-1) x^(2^k), to convergence.
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if prev == z {
			return z
		}
	}
}

// tau is the series of the correction for saturated registers.
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		d := 1 - x
		z -= d * d * y
		if prev == z {
			return z / 3
		}
	}
}

// Decode describes the sparse opcodes of a checked sparse value as PFDEBUG
// DECODE shows them: "z:N" for ZERO, "Z:N" for XZERO, "v:V,N" for VAL,
// separated by spaces.
func Decode(v []byte) []byte {
	p := v[HeaderLen:]
	var out []byte
	for i := 0; i < len(p); {
		if len(out) > 0 {
			out = append(out, ' ')
		}
		size, run, val, ok := opcode(p, i)
		if !ok {
			// A cut XZERO reads its missing byte as zero.
			size, run = 1, xzeroLen(p[i], 0)
		}
		switch {
		case isZero(p[i]):
			out = append(out, "z:"...)
			out = appendInt(out, run)
		case isXZero(p[i]):
			out = append(out, "Z:"...)
			out = appendInt(out, run)
		default:
			out = append(out, "v:"...)
			out = appendInt(out, val)
			out = append(out, ',')
			out = appendInt(out, run)
		}
		i += size
	}
	return out
}

func appendInt(b []byte, n int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}

// DenseRegisters returns the registers of a dense value, one per element.
func DenseRegisters(v []byte) []uint8 {
	out := make([]uint8, Registers)
	r := v[HeaderLen:]
	for i := range out {
		out[i] = denseGet(r, i)
	}
	return out
}
