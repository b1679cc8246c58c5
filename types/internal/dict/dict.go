// Package dict is the hash table behind the large forms of sets, hashes
// and sorted sets. It exists instead of a Go map for two Redis behaviours
// a map cannot give:
//
//   - SCAN cursors: buckets are a power of two and Scan walks them in
//     reverse-binary order, so an element present for a whole scan is
//     returned at least once even if the table grows or shrinks between
//     calls (Redis's dictScan guarantee).
//   - Uniform random members in O(1): entries live densely in one slice
//     (a delete moves the last entry into the hole), so SPOP and
//     SRANDMEMBER pick an index.
//
// Chains are int32 indexes into the entry slice, and bucket heads an
// []int32, so the only pointers the collector sees are the entry keys (and
// values). The table rehashes all at once when it doubles; the bucket
// array is at most one int32 per entry.
package dict

import (
	"github.com/ruvio/ruvio/types/internal/memsize"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

type entry[V any] struct {
	key  string
	hash uint32
	next int32 // index of the next entry in the bucket, -1 at the end
	val  V
}

// Dict maps string keys to values of type V.
type Dict[V any] struct {
	buckets []int32 // head entry index + 1; 0 means empty
	ents    []entry[V]
	seed    maphash.Seed
}

// New returns an empty table sized for n entries.
func New[V any](n int) *Dict[V] {
	d := &Dict[V]{seed: maphash.MakeSeed()}
	size := 4
	for size < n {
		size <<= 1
	}
	d.buckets = make([]int32, size)
	d.ents = make([]entry[V], 0, n)
	return d
}

// Len returns the number of entries.
func (d *Dict[V]) Len() int { return len(d.ents) }

func (d *Dict[V]) hash(key []byte) uint32 {
	return uint32(maphash.Bytes(d.seed, key))
}

// Find returns the index of key, or -1.
func (d *Dict[V]) Find(key []byte) int {
	h := d.hash(key)
	for i := d.buckets[h&uint32(len(d.buckets)-1)] - 1; i >= 0; i = d.ents[i].next {
		e := &d.ents[i]
		if e.hash == h && e.key == string(key) {
			return int(i)
		}
	}
	return -1
}

// Key returns the key of entry i.
func (d *Dict[V]) Key(i int) string { return d.ents[i].key }

// Value returns a pointer to the value of entry i, valid until the next
// insert or delete.
func (d *Dict[V]) Value(i int) *V { return &d.ents[i].val }

// Insert adds key with value v if it is absent and returns its index and
// whether it was added; an existing entry is left unchanged.
func (d *Dict[V]) Insert(key []byte, v V) (int, bool) {
	if i := d.Find(key); i >= 0 {
		return i, false
	}
	if len(d.ents) >= len(d.buckets) {
		d.resize(len(d.buckets) * 2)
	}
	h := d.hash(key)
	b := h & uint32(len(d.buckets)-1)
	i := int32(len(d.ents))
	d.ents = append(d.ents, entry[V]{key: string(key), hash: h, next: d.buckets[b] - 1, val: v})
	d.buckets[b] = i + 1
	return int(i), true
}

// Delete removes key and reports whether it was present.
func (d *Dict[V]) Delete(key []byte) bool {
	i := d.Find(key)
	if i < 0 {
		return false
	}
	d.DeleteAt(i)
	return true
}

// DeleteAt removes entry i. The last entry moves into its place, so
// indexes above i are not stable across a delete.
func (d *Dict[V]) DeleteAt(i int) {
	d.unlink(int32(i))
	last := int32(len(d.ents) - 1)
	if int32(i) != last {
		// Re-point whatever referred to the last entry at slot i.
		e := &d.ents[last]
		b := e.hash & uint32(len(d.buckets)-1)
		if d.buckets[b]-1 == last {
			d.buckets[b] = int32(i) + 1
		} else {
			for j := d.buckets[b] - 1; ; j = d.ents[j].next {
				if d.ents[j].next == last {
					d.ents[j].next = int32(i)
					break
				}
			}
		}
		d.ents[i] = *e
	}
	var zero entry[V]
	d.ents[last] = zero
	d.ents = d.ents[:last]
	if len(d.buckets) > 4 && len(d.ents)*8 < len(d.buckets) {
		d.resize(len(d.buckets) / 2)
	}
}

func (d *Dict[V]) unlink(i int32) {
	e := &d.ents[i]
	b := e.hash & uint32(len(d.buckets)-1)
	if d.buckets[b]-1 == i {
		d.buckets[b] = e.next + 1
		return
	}
	for j := d.buckets[b] - 1; ; j = d.ents[j].next {
		if d.ents[j].next == i {
			d.ents[j].next = e.next
			return
		}
	}
}

func (d *Dict[V]) resize(size int) {
	d.buckets = make([]int32, size)
	mask := uint32(size - 1)
	for i := range d.ents {
		e := &d.ents[i]
		b := e.hash & mask
		e.next = d.buckets[b] - 1
		d.buckets[b] = int32(i) + 1
	}
	if cap(d.ents) > 4*len(d.ents)+16 {
		d.ents = append([]entry[V](nil), d.ents...)
	}
}

// Scan visits the entries of the bucket selected by cursor and returns
// the next cursor, 0 when the walk is complete. Cursors advance in
// reverse-binary order of the bucket index, which is what keeps a walk
// complete across resizes. fn must not insert or delete.
func (d *Dict[V]) Scan(cursor uint64, fn func(i int)) uint64 {
	mask := uint64(len(d.buckets) - 1)
	for i := d.buckets[cursor&mask] - 1; i >= 0; i = d.ents[i].next {
		fn(int(i))
	}
	cursor |= ^mask
	cursor = bits.Reverse64(cursor)
	cursor++
	return bits.Reverse64(cursor)
}

// MemoryUsage returns the bytes held by the table itself and its keys;
// callers add what their values point to.
func (d *Dict[V]) MemoryUsage() int {
	var e entry[V]
	n := memsize.Alloc(int(unsafe.Sizeof(*d))) + memsize.NoScan(4*len(d.buckets)) + memsize.Alloc(int(unsafe.Sizeof(e))*cap(d.ents))
	for i := range d.ents {
		n += memsize.NoScan(len(d.ents[i].key))
	}
	return n
}
