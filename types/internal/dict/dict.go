// Package dict is the hash table behind the large forms of sets, hashes
// and sorted sets. It exists instead of a Go map for three Redis
// behaviours a map cannot give:
//
//   - SCAN cursors: buckets are a power of two and Scan walks them in
//     reverse-binary order, so an element present for a whole scan is
//     returned at least once even if the table grows or shrinks between
//     calls, or is half-way through a resize (Redis's dictScan guarantee).
//   - Uniform random members in O(1): entries live densely, indexed
//     0..Len-1 (a delete moves the last entry into the hole), so SPOP and
//     SRANDMEMBER pick an index.
//   - No long pauses: a resize moves a few buckets per insert or delete
//     (incremental rehashing, as Redis does), and entries sit in
//     fixed-size chunks, so growth never copies them all at once.
//
// Chains are int32 indexes into the entries, and bucket heads an []int32,
// so the only pointers the collector sees are the entry keys (and
// values).
package dict

import (
	"hash/maphash"
	"math/bits"
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/memsize"
)

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
	// migrateStep is how many old buckets each insert or delete moves
	// while a resize is under way; at least one per insert keeps a resize
	// finished before the next one is due.
	migrateStep = 8
	// smallTable resizes at once below this many buckets.
	smallTable = 256
)

type entry[V any] struct {
	key  string
	hash uint32
	next int32 // index of the next entry in the bucket, -1 at the end
	val  V
}

// Dict maps string keys to values of type V.
type Dict[V any] struct {
	chunks  [][]entry[V] // entry i is chunks[i>>chunkBits][i&chunkMask]
	n       int
	buckets []int32 // head entry index + 1; 0 means empty
	old     []int32 // table being drained by a resize, nil otherwise
	moved   int     // old buckets below this were moved (and zeroed)
	seed    maphash.Seed
	// keyBytes is the rounded allocation size of every live key, kept as
	// keys come and go so that MemoryUsage need not visit each entry.
	keyBytes int
}

// New returns an empty table sized for n entries.
func New[V any](n int) *Dict[V] {
	d := &Dict[V]{seed: maphash.MakeSeed()}
	size := 4
	for size < n {
		size <<= 1
	}
	d.buckets = make([]int32, size)
	d.chunks = [][]entry[V]{make([]entry[V], 0, min(max(n, 1), chunkSize))}
	return d
}

// Len returns the number of entries.
func (d *Dict[V]) Len() int { return d.n }

func (d *Dict[V]) e(i int32) *entry[V] { return &d.chunks[i>>chunkBits][i&chunkMask] }

func (d *Dict[V]) hash(key []byte) uint32 {
	return uint32(maphash.Bytes(d.seed, key))
}

// oldBucket returns the old table's bucket for h and whether the entry
// with hash h would still be there (its bucket not yet moved).
func (d *Dict[V]) oldBucket(h uint32) (uint32, bool) {
	if d.old == nil {
		return 0, false
	}
	b := h & uint32(len(d.old)-1)
	return b, int(b) >= d.moved
}

func (d *Dict[V]) findIn(tbl []int32, b uint32, h uint32, key []byte) int32 {
	for i := tbl[b] - 1; i >= 0; {
		e := d.e(i)
		if e.hash == h && e.key == string(key) {
			return i
		}
		i = e.next
	}
	return -1
}

// Find returns the index of key, or -1.
func (d *Dict[V]) Find(key []byte) int {
	h := d.hash(key)
	if ob, ok := d.oldBucket(h); ok {
		if i := d.findIn(d.old, ob, h, key); i >= 0 {
			return int(i)
		}
	}
	return int(d.findIn(d.buckets, h&uint32(len(d.buckets)-1), h, key))
}

// Key returns the key of entry i.
func (d *Dict[V]) Key(i int) string { return d.e(int32(i)).key }

// Value returns a pointer to the value of entry i, valid until the next
// insert or delete.
func (d *Dict[V]) Value(i int) *V { return &d.e(int32(i)).val }

// Insert adds key with value v if it is absent and returns its index and
// whether it was added; an existing entry is left unchanged.
func (d *Dict[V]) Insert(key []byte, v V) (int, bool) {
	if i := d.Find(key); i >= 0 {
		return i, false
	}
	d.migrate(migrateStep)
	if d.old == nil && d.n >= len(d.buckets) {
		d.resize(len(d.buckets) * 2)
	}
	h := d.hash(key)
	b := h & uint32(len(d.buckets)-1)
	i := int32(d.n)
	last := len(d.chunks) - 1
	if len(d.chunks[last]) == chunkSize {
		d.chunks = append(d.chunks, make([]entry[V], 0, chunkSize))
		last++
	}
	d.chunks[last] = append(d.chunks[last], entry[V]{key: string(key), hash: h, next: d.buckets[b] - 1, val: v})
	d.buckets[b] = i + 1
	d.n++
	d.keyBytes += memsize.NoScan(len(key))
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

// repoint makes whatever refers to entry from (a bucket head or a chain
// link) refer to to instead, or, when to is -1, to from's successor.
func (d *Dict[V]) repoint(from, to int32) {
	e := d.e(from)
	target := to
	if to < 0 {
		target = e.next
	}
	tbl, b := d.buckets, e.hash&uint32(len(d.buckets)-1)
	if ob, ok := d.oldBucket(e.hash); ok && d.chainHas(d.old, ob, from) {
		tbl, b = d.old, ob
	}
	if tbl[b]-1 == from {
		tbl[b] = target + 1
		return
	}
	for j := tbl[b] - 1; ; {
		je := d.e(j)
		if je.next == from {
			je.next = target
			return
		}
		j = je.next
	}
}

func (d *Dict[V]) chainHas(tbl []int32, b uint32, i int32) bool {
	for j := tbl[b] - 1; j >= 0; j = d.e(j).next {
		if j == i {
			return true
		}
	}
	return false
}

// DeleteAt removes entry i. The last entry moves into its place, so
// indexes above i are not stable across a delete.
func (d *Dict[V]) DeleteAt(i int) {
	d.keyBytes -= memsize.NoScan(len(d.e(int32(i)).key))
	d.repoint(int32(i), -1) // unlink i
	last := int32(d.n - 1)
	if int32(i) != last {
		d.repoint(last, int32(i))
		*d.e(int32(i)) = *d.e(last)
	}
	c := len(d.chunks) - 1
	var zero entry[V]
	d.chunks[c][len(d.chunks[c])-1] = zero
	d.chunks[c] = d.chunks[c][:len(d.chunks[c])-1]
	if len(d.chunks[c]) == 0 && c > 0 {
		d.chunks[c] = nil
		d.chunks = d.chunks[:c]
	}
	d.n--
	d.migrate(migrateStep)
	if d.old == nil && len(d.buckets) > 4 && d.n*8 < len(d.buckets) {
		d.resize(len(d.buckets) / 2)
	}
	if d.n == 0 {
		// Empty: drop the tables outright rather than halving them.
		d.buckets, d.old, d.moved = make([]int32, 4), nil, 0
		if cap(d.chunks[0]) > 16 {
			d.chunks[0] = nil
		}
	}
}

// resize starts moving the entries into a table of size buckets; small
// tables move at once.
func (d *Dict[V]) resize(size int) {
	d.migrate(len(d.old)) // finish any resize under way
	d.old, d.buckets, d.moved = d.buckets, make([]int32, size), 0
	if len(d.old) <= smallTable {
		d.migrate(len(d.old))
	}
}

// migrate moves up to k old buckets into the current table.
func (d *Dict[V]) migrate(k int) {
	if d.old == nil {
		return
	}
	mask := uint32(len(d.buckets) - 1)
	for ; k > 0 && d.moved < len(d.old); k-- {
		for j := d.old[d.moved] - 1; j >= 0; {
			e := d.e(j)
			next := e.next
			b := e.hash & mask
			e.next = d.buckets[b] - 1
			d.buckets[b] = j + 1
			j = next
		}
		d.old[d.moved] = 0
		d.moved++
	}
	if d.moved == len(d.old) {
		d.old, d.moved = nil, 0
	}
}

func (d *Dict[V]) visit(tbl []int32, b uint64, fn func(i int)) {
	for i := tbl[b] - 1; i >= 0; i = d.e(i).next {
		fn(int(i))
	}
}

// Scan visits the entries of the buckets selected by cursor and returns
// the next cursor, 0 when the walk is complete. Cursors advance in
// reverse-binary order of the bucket index, which is what keeps a walk
// complete across resizes; during a resize the cursor's bucket in the
// smaller table is visited with all its expansions in the larger one.
// fn must not insert or delete.
func (d *Dict[V]) Scan(cursor uint64, fn func(i int)) uint64 {
	if d.old == nil {
		m0 := uint64(len(d.buckets) - 1)
		d.visit(d.buckets, cursor&m0, fn)
		return nextCursor(cursor, m0)
	}
	t0, t1 := d.old, d.buckets
	if len(t0) > len(t1) {
		t0, t1 = t1, t0
	}
	m0, m1 := uint64(len(t0)-1), uint64(len(t1)-1)
	d.visit(t0, cursor&m0, fn)
	for {
		d.visit(t1, cursor&m1, fn)
		cursor = nextCursor(cursor, m1)
		// The carry out of the larger table's extra bits advances the
		// smaller table's part: then the expansions are done.
		if cursor&(m0^m1) == 0 {
			return cursor
		}
	}
}

// nextCursor increments the reversed cursor over the bits of mask.
func nextCursor(cursor, mask uint64) uint64 {
	cursor |= ^mask
	cursor = bits.Reverse64(cursor)
	cursor++
	return bits.Reverse64(cursor)
}

// MemoryUsage returns the heap bytes held by the table itself and its
// keys; callers add what their values point to. It takes constant time:
// every chunk after the first holds exactly chunkSize entries.
func (d *Dict[V]) MemoryUsage() int {
	var e entry[V]
	n := memsize.Alloc(int(unsafe.Sizeof(*d))) + memsize.NoScan(4*len(d.buckets)) + memsize.NoScan(4*len(d.old))
	n += memsize.Alloc(int(unsafe.Sizeof([]entry[V]{})) * cap(d.chunks))
	if len(d.chunks) > 0 {
		n += memsize.Alloc(int(unsafe.Sizeof(e)) * cap(d.chunks[0]))
		n += (len(d.chunks) - 1) * memsize.Alloc(int(unsafe.Sizeof(e))*chunkSize)
	}
	return n + d.keyBytes
}
