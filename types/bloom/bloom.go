// Package bloom is a scalable Bloom filter with the behaviour RedisBloom's
// BF.* commands expose (BF.RESERVE, BF.ADD, BF.MADD, BF.EXISTS,
// BF.MEXISTS, BF.INSERT, BF.INFO, BF.CARD).
//
// A filter is a chain of layers. The first layer holds Capacity items at
// a false-positive rate of half the requested rate (the full rate for a
// NONSCALING filter); when the newest layer has taken as many items as
// its capacity, an add opens a layer Expansion times larger with half the
// previous layer's rate, so the sum of the rates, and with it the
// filter's false-positive rate, stays below the requested bound however
// far it grows. A NONSCALING filter refuses adds once full (ErrFull).
//
// A layer for n items at rate e has ceil(n * -ln(e) / ln(2)^2) bits
// rounded up to a multiple of 64 and ceil(ln(2) * bits-per-item) hash
// functions, probed by double hashing (h1 + i*h2 mod bits) over two
// 64-bit hashes of the item. An add counts (and returns true) only when
// no layer already reports the item, as BF.ADD's reply does; Card is
// that count.
//
// Layers are fixed-size []uint64 bit arrays, pointer-free for the garbage
// collector. The package's own 64-bit hash is part of the format: a
// filter written by one version must answer the same after loading, so
// the hash never changes without a new encoding version.
//
// # Binary encoding (version 1), all integers little-endian
//
//	byte    1 (version)
//	byte    flags (bit 0: NONSCALING)
//	uint32  expansion
//	uint64  items inserted (Card)
//	uint32  number of layers (>= 1)
//	per layer:
//	  uint64  capacity
//	  float64 error rate (IEEE-754 bits)
//	  uint64  items added to this layer
//	  uint32  hash functions
//	  uint64  number of 64-bit words of the bit array
//	  words   the bit array
//
// Unmarshal checks every field against the sizes the capacity and rate
// imply, so a loaded filter is one this package could have built.
package bloom

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/ruvio/ruvio/types/internal/memsize"
	"math"
	"math/bits"
	"unsafe"
)

// Defaults of BF.ADD on a missing key, as RedisBloom's.
const (
	DefaultErrorRate = 0.01
	DefaultCapacity  = 100
	DefaultExpansion = 2
)

// maxLayerBits caps a layer's size (1 GiB of bits: a billion items at
// 1%) so a hostile capacity cannot ask for unbounded memory; MaxExpansion
// is RedisBloom's upper bound for the growth factor.
const (
	maxLayerBits = 1 << 33
	MaxExpansion = 32768
)

// Errors. The command layer maps them to RedisBloom's reply texts.
var (
	ErrFull      = errors.New("non scaling filter is full")
	ErrErrorRate = errors.New("(0 < error rate range < 1)")
	ErrCapacity  = errors.New("(capacity should be larger than 0)")
	ErrExpansion = errors.New("expansion should be between 1 and 32768")
	ErrTooLarge  = errors.New("bloom: filter too large")
	ErrCorrupt   = errors.New("bloom: corrupt encoding")
)

const encodingVersion = 1

type layer struct {
	bits     []uint64
	capacity uint64
	rate     float64
	count    uint64
	hashes   uint32
}

// Filter is a scalable Bloom filter.
type Filter struct {
	layers     []layer
	count      uint64
	expansion  uint32
	nonScaling bool
}

// New returns an empty filter for capacity items at false-positive rate
// errorRate (BF.RESERVE).
func New(errorRate float64, capacity uint64, expansion uint32, nonScaling bool) (*Filter, error) {
	if !(errorRate > 0 && errorRate < 1) {
		return nil, ErrErrorRate
	}
	if capacity < 1 {
		return nil, ErrCapacity
	}
	if expansion < 1 || expansion > MaxExpansion {
		return nil, ErrExpansion
	}
	f := &Filter{expansion: expansion, nonScaling: nonScaling}
	rate := errorRate
	if !nonScaling {
		rate /= 2
	}
	l, err := newLayer(capacity, rate)
	if err != nil {
		return nil, err
	}
	f.layers = append(f.layers, l)
	return f, nil
}

func bitsPerItem(rate float64) float64 { return -math.Log(rate) / (math.Ln2 * math.Ln2) }

func layerShape(capacity uint64, rate float64) (words uint64, hashes uint32, ok bool) {
	bpe := bitsPerItem(rate)
	nb := math.Ceil(float64(capacity) * bpe)
	if nb > maxLayerBits || math.IsNaN(nb) {
		return 0, 0, false
	}
	if nb < 1 {
		nb = 1
	}
	words = (uint64(nb) + 63) / 64
	hashes = uint32(math.Ceil(math.Ln2 * bpe))
	if hashes < 1 {
		hashes = 1
	}
	return words, hashes, true
}

func newLayer(capacity uint64, rate float64) (layer, error) {
	words, hashes, ok := layerShape(capacity, rate)
	if !ok {
		return layer{}, ErrTooLarge
	}
	return layer{bits: make([]uint64, words), capacity: capacity, rate: rate, hashes: hashes}, nil
}

// hash64 is the package's item hash: 8-byte little-endian words folded
// with multiply-xorshift rounds and a final avalanche. It is part of the
// encoding and must not change within a version.
func hash64(b []byte, seed uint64) uint64 {
	const (
		k1 = 0x9e3779b97f4a7c15
		k2 = 0xbf58476d1ce4e5b9
		k3 = 0x94d049bb133111eb
	)
	h := seed ^ uint64(len(b))*k1
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		w *= k2
		w ^= w >> 31
		w *= k3
		h ^= w
		h = bits.RotateLeft64(h, 27)*k1 + k3
		b = b[8:]
	}
	var tail uint64
	for i := len(b) - 1; i >= 0; i-- {
		tail = tail<<8 | uint64(b[i])
	}
	h ^= (tail + uint64(len(b))) * k2
	h ^= h >> 33
	h *= k2
	h ^= h >> 29
	h *= k3
	h ^= h >> 32
	return h
}

type hashPair struct{ a, b uint64 }

func hashItem(item []byte) hashPair {
	a := hash64(item, 0x5bd1e9955bd1e995)
	b := hash64(item, a)
	return hashPair{a, b | 1} // odd step: probes never collapse to one bit
}

func (l *layer) nbits() uint64 { return uint64(len(l.bits)) * 64 }

func (l *layer) test(h hashPair) bool {
	n := l.nbits()
	for i := uint64(0); i < uint64(l.hashes); i++ {
		x := (h.a + i*h.b) % n
		if l.bits[x>>6]&(1<<(x&63)) == 0 {
			return false
		}
	}
	return true
}

// set sets the item's bits and reports whether any was clear.
func (l *layer) set(h hashPair) bool {
	n := l.nbits()
	changed := false
	for i := uint64(0); i < uint64(l.hashes); i++ {
		x := (h.a + i*h.b) % n
		w, m := x>>6, uint64(1)<<(x&63)
		if l.bits[w]&m == 0 {
			l.bits[w] |= m
			changed = true
		}
	}
	return changed
}

// Add inserts item and reports whether it was new, that is, whether no
// layer reported it already (BF.ADD's 1 or 0). A full NONSCALING filter
// returns ErrFull and is unchanged.
func (f *Filter) Add(item []byte) (bool, error) {
	h := hashItem(item)
	for i := len(f.layers) - 1; i >= 0; i-- {
		if f.layers[i].test(h) {
			return false, nil
		}
	}
	cur := &f.layers[len(f.layers)-1]
	if cur.count >= cur.capacity {
		if f.nonScaling {
			return false, ErrFull
		}
		capacity := cur.capacity * uint64(f.expansion)
		if capacity/uint64(f.expansion) != cur.capacity {
			return false, ErrTooLarge
		}
		l, err := newLayer(capacity, cur.rate/2)
		if err != nil {
			return false, err
		}
		f.layers = append(f.layers, l)
		cur = &f.layers[len(f.layers)-1]
	}
	if cur.set(h) {
		cur.count++
		f.count++
		return true, nil
	}
	return false, nil
}

// Exists reports whether item may have been added (BF.EXISTS): false is
// certain, true is wrong at most at the filter's error rate.
func (f *Filter) Exists(item []byte) bool {
	h := hashItem(item)
	for i := len(f.layers) - 1; i >= 0; i-- {
		if f.layers[i].test(h) {
			return true
		}
	}
	return false
}

// Card returns the number of items added (BF.CARD, BF.INFO "Number of
// items inserted").
func (f *Filter) Card() uint64 { return f.count }

// Capacity returns the items the filter holds before its next layer (sum
// of the layers' capacities; BF.INFO "Capacity").
func (f *Filter) Capacity() uint64 {
	var n uint64
	for i := range f.layers {
		n += f.layers[i].capacity
	}
	return n
}

// Filters returns the number of layers (BF.INFO "Number of filters").
func (f *Filter) Filters() int { return len(f.layers) }

// Expansion returns the growth factor and false for a NONSCALING filter
// (BF.INFO "Expansion rate", nil there).
func (f *Filter) Expansion() (uint32, bool) { return f.expansion, !f.nonScaling }

// ErrorRate returns the rate the filter was created with.
func (f *Filter) ErrorRate() float64 {
	r := f.layers[0].rate
	if !f.nonScaling {
		r *= 2
	}
	return r
}

// MemoryUsage returns the bytes the filter holds (BF.INFO "Size", MEMORY
// USAGE).
func (f *Filter) MemoryUsage() int {
	n := memsize.Alloc(int(unsafe.Sizeof(*f))) + memsize.Alloc(int(unsafe.Sizeof(layer{}))*cap(f.layers))
	for i := range f.layers {
		n += memsize.NoScan(8 * len(f.layers[i].bits))
	}
	return n
}

// Clone returns an independent copy of f (for COPY and snapshots).
func (f *Filter) Clone() *Filter {
	c := *f
	c.layers = make([]layer, len(f.layers))
	for i, l := range f.layers {
		l.bits = append([]uint64(nil), l.bits...)
		c.layers[i] = l
	}
	return &c
}

// MarshalBinary encodes f in the version 1 format of the package comment.
func (f *Filter) MarshalBinary() ([]byte, error) {
	size := 1 + 1 + 4 + 8 + 4
	for i := range f.layers {
		size += 8 + 8 + 8 + 4 + 8 + 8*len(f.layers[i].bits)
	}
	return f.AppendBinary(make([]byte, 0, size))
}

// AppendBinary appends f's encoding to dst.
func (f *Filter) AppendBinary(dst []byte) ([]byte, error) {
	le := binary.LittleEndian
	var flags byte
	if f.nonScaling {
		flags = 1
	}
	dst = append(dst, encodingVersion, flags)
	dst = le.AppendUint32(dst, f.expansion)
	dst = le.AppendUint64(dst, f.count)
	dst = le.AppendUint32(dst, uint32(len(f.layers)))
	for i := range f.layers {
		l := &f.layers[i]
		dst = le.AppendUint64(dst, l.capacity)
		dst = le.AppendUint64(dst, math.Float64bits(l.rate))
		dst = le.AppendUint64(dst, l.count)
		dst = le.AppendUint32(dst, l.hashes)
		dst = le.AppendUint64(dst, uint64(len(l.bits)))
		for _, w := range l.bits {
			dst = le.AppendUint64(dst, w)
		}
	}
	return dst, nil
}

// Unmarshal decodes a filter written by MarshalBinary.
func Unmarshal(b []byte) (*Filter, error) {
	le := binary.LittleEndian
	bad := func(what string) (*Filter, error) { return nil, fmt.Errorf("%w: %s", ErrCorrupt, what) }
	if len(b) < 18 || b[0] != encodingVersion {
		return bad("header")
	}
	if b[1]&^1 != 0 {
		return bad("flags")
	}
	f := &Filter{nonScaling: b[1]&1 != 0, expansion: le.Uint32(b[2:]), count: le.Uint64(b[6:])}
	n := le.Uint32(b[14:])
	b = b[18:]
	if f.expansion < 1 || f.expansion > MaxExpansion || n < 1 || uint64(n) > uint64(len(b))/36 {
		return bad("expansion or layer count")
	}
	var total uint64
	for i := uint32(0); i < n; i++ {
		if len(b) < 36 {
			return bad("layer header")
		}
		l := layer{capacity: le.Uint64(b), rate: math.Float64frombits(le.Uint64(b[8:])), count: le.Uint64(b[16:]), hashes: le.Uint32(b[24:])}
		words := le.Uint64(b[28:])
		b = b[36:]
		if !(l.rate > 0 && l.rate < 1) || l.capacity < 1 || l.count > l.capacity {
			return bad("layer parameters")
		}
		ww, hh, ok := layerShape(l.capacity, l.rate)
		if !ok || ww != words || hh != l.hashes || words > uint64(len(b))/8 {
			return bad("layer size")
		}
		l.bits = make([]uint64, words)
		for j := range l.bits {
			l.bits[j] = le.Uint64(b[8*j:])
		}
		b = b[8*words:]
		total += l.count
		f.layers = append(f.layers, l)
	}
	if len(b) != 0 {
		return bad("trailing bytes")
	}
	if total != f.count {
		return bad("item count")
	}
	return f, nil
}
