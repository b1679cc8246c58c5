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
//
// Table[E] is the table itself, over entries that carry their own key
// (read through the function it is made with, only when hashes match);
// Dict[V] is a Table of (key, value) pairs that owns copies of its keys.
// A sorted set indexes its skiplist nodes with a Table[*node]: the node
// holds the member, so the entry is 16 bytes where a Dict's would be 32.
package dict

import (
	"hash/maphash"
	"math/bits"
	"unsafe"

	"github.com/ruvio/ruvio/internal/prefetch"
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

type slot[E any] struct {
	e    E
	hash uint32
	next int32 // index of the next entry in the bucket, -1 at the end
}

// Table is a hash table of entries of type E, each carrying its key.
type Table[E any] struct {
	chunks  [][]slot[E] // entry i is chunks[i>>chunkBits][i&chunkMask]
	n       int
	buckets []int32 // head entry index + 1; 0 means empty
	old     []int32 // table being drained by a resize, nil otherwise
	moved   int     // old buckets below this were moved (and zeroed)
	seed    maphash.Seed
	keyOf   func(*E) string
}

// NewTable returns an empty table sized for n entries whose keys keyOf
// reads.
func NewTable[E any](n int, keyOf func(*E) string) *Table[E] {
	t := &Table[E]{seed: maphash.MakeSeed(), keyOf: keyOf}
	t.init(n)
	return t
}

func (t *Table[E]) init(n int) {
	size := 4
	for size < n {
		size <<= 1
	}
	t.buckets = make([]int32, size)
	t.chunks = [][]slot[E]{make([]slot[E], 0, min(max(n, 1), chunkSize))}
}

// Len returns the number of entries.
func (t *Table[E]) Len() int { return t.n }

func (t *Table[E]) s(i int32) *slot[E] { return &t.chunks[i>>chunkBits][i&chunkMask] }

// At returns entry i (0 <= i < Len), valid until the next insert or
// delete.
func (t *Table[E]) At(i int) *E { return &t.s(int32(i)).e }

func (t *Table[E]) hash(key []byte) uint32 {
	return uint32(maphash.Bytes(t.seed, key))
}

// oldBucket returns the old table's bucket for h and whether the entry
// with hash h would still be there (its bucket not yet moved).
func (t *Table[E]) oldBucket(h uint32) (uint32, bool) {
	if t.old == nil {
		return 0, false
	}
	b := h & uint32(len(t.old)-1)
	return b, int(b) >= t.moved
}

func (t *Table[E]) findIn(tbl []int32, b uint32, h uint32, key []byte) int32 {
	for i := tbl[b] - 1; i >= 0; {
		s := t.s(i)
		if s.hash == h && t.keyOf(&s.e) == string(key) {
			return i
		}
		i = s.next
	}
	return -1
}

// PrefetchBucket is the first of three steps of a read ahead for a caller
// that looks several keys up in turn: each step runs for every key before
// the next step, so the cache misses of all the keys overlap, and a
// prefetch does not hold the processor up while its line arrives, as a
// load does. It starts loading key's bucket and returns key's
// hash for PrefetchEntry. During a resize only the new table is read.
func (t *Table[E]) PrefetchBucket(key []byte) uint32 {
	h := t.hash(key)
	prefetch.Line(unsafe.Pointer(&t.buckets[h&uint32(len(t.buckets)-1)]))
	return h
}

// PrefetchEntry is the second step (PrefetchBucket): it reads the bucket
// of hash h, by now in cache, and starts loading the entry that heads it,
// which it returns for PrefetchKey (-1: none).
func (t *Table[E]) PrefetchEntry(h uint32) int32 {
	i := t.buckets[h&uint32(len(t.buckets)-1)] - 1
	if i < 0 || int(i) >= t.n {
		return -1
	}
	s := t.s(i)
	prefetch.Line(unsafe.Pointer(s))
	// An entry may straddle two lines; the lookup reads both ends.
	prefetch.Line(unsafe.Pointer(&s.next))
	return i
}

// Find returns the index of key, or -1.
func (t *Table[E]) Find(key []byte) int {
	return t.find(key, t.hash(key))
}

func (t *Table[E]) find(key []byte, h uint32) int {
	if ob, ok := t.oldBucket(h); ok {
		if i := t.findIn(t.old, ob, h, key); i >= 0 {
			return int(i)
		}
	}
	return int(t.findIn(t.buckets, h&uint32(len(t.buckets)-1), h, key))
}

// Insert adds e under key (which must be e's key) if key is absent and
// returns its index and whether it was added; an existing entry is left
// unchanged.
func (t *Table[E]) Insert(key []byte, e E) (int, bool) {
	h := t.hash(key)
	if i := t.find(key, h); i >= 0 {
		return i, false
	}
	return t.add(h, e), true
}

// InsertNew adds e under key, which must be e's key and absent from the
// table, and returns its index.
func (t *Table[E]) InsertNew(key []byte, e E) int { return t.add(t.hash(key), e) }

func (t *Table[E]) add(h uint32, e E) int {
	t.migrate(migrateStep)
	if t.old == nil && t.n >= len(t.buckets) {
		t.resize(len(t.buckets) * 2)
	}
	b := h & uint32(len(t.buckets)-1)
	i := int32(t.n)
	last := len(t.chunks) - 1
	if len(t.chunks[last]) == chunkSize {
		t.chunks = append(t.chunks, make([]slot[E], 0, chunkSize))
		last++
	}
	t.chunks[last] = append(t.chunks[last], slot[E]{e: e, hash: h, next: t.buckets[b] - 1})
	t.buckets[b] = i + 1
	t.n++
	return int(i)
}

// Delete removes key and reports whether it was present.
func (t *Table[E]) Delete(key []byte) bool {
	i := t.Find(key)
	if i < 0 {
		return false
	}
	t.DeleteAt(i)
	return true
}

// repoint makes whatever refers to entry from (a bucket head or a chain
// link) refer to to instead, or, when to is -1, to from's successor.
func (t *Table[E]) repoint(from, to int32) {
	s := t.s(from)
	target := to
	if to < 0 {
		target = s.next
	}
	tbl, b := t.buckets, s.hash&uint32(len(t.buckets)-1)
	if ob, ok := t.oldBucket(s.hash); ok && t.chainHas(t.old, ob, from) {
		tbl, b = t.old, ob
	}
	if tbl[b]-1 == from {
		tbl[b] = target + 1
		return
	}
	for j := tbl[b] - 1; ; {
		js := t.s(j)
		if js.next == from {
			js.next = target
			return
		}
		j = js.next
	}
}

func (t *Table[E]) chainHas(tbl []int32, b uint32, i int32) bool {
	for j := tbl[b] - 1; j >= 0; j = t.s(j).next {
		if j == i {
			return true
		}
	}
	return false
}

// DeleteAt removes entry i. The last entry moves into its place, so
// indexes above i are not stable across a delete.
func (t *Table[E]) DeleteAt(i int) {
	t.repoint(int32(i), -1) // unlink i
	last := int32(t.n - 1)
	if int32(i) != last {
		t.repoint(last, int32(i))
		*t.s(int32(i)) = *t.s(last)
	}
	c := len(t.chunks) - 1
	var zero slot[E]
	t.chunks[c][len(t.chunks[c])-1] = zero
	t.chunks[c] = t.chunks[c][:len(t.chunks[c])-1]
	if len(t.chunks[c]) == 0 && c > 0 {
		t.chunks[c] = nil
		t.chunks = t.chunks[:c]
	}
	t.n--
	t.migrate(migrateStep)
	if t.old == nil && len(t.buckets) > 4 && t.n*8 < len(t.buckets) {
		t.resize(len(t.buckets) / 2)
	}
	if t.n == 0 {
		// Empty: drop the tables outright rather than halving them.
		t.buckets, t.old, t.moved = make([]int32, 4), nil, 0
		if cap(t.chunks[0]) > 16 {
			t.chunks[0] = nil
		}
	}
}

// resize starts moving the entries into a table of size buckets; small
// tables move at once.
func (t *Table[E]) resize(size int) {
	t.migrate(len(t.old)) // finish any resize under way
	t.old, t.buckets, t.moved = t.buckets, make([]int32, size), 0
	if len(t.old) <= smallTable {
		t.migrate(len(t.old))
	}
}

// migrate moves up to k old buckets into the current table.
func (t *Table[E]) migrate(k int) {
	if t.old == nil {
		return
	}
	mask := uint32(len(t.buckets) - 1)
	for ; k > 0 && t.moved < len(t.old); k-- {
		for j := t.old[t.moved] - 1; j >= 0; {
			s := t.s(j)
			next := s.next
			b := s.hash & mask
			s.next = t.buckets[b] - 1
			t.buckets[b] = j + 1
			j = next
		}
		t.old[t.moved] = 0
		t.moved++
	}
	if t.moved == len(t.old) {
		t.old, t.moved = nil, 0
	}
}

func (t *Table[E]) visit(tbl []int32, b uint64, fn func(i int)) {
	for i := tbl[b] - 1; i >= 0; i = t.s(i).next {
		fn(int(i))
	}
}

// Scan visits the entries of the buckets selected by cursor and returns
// the next cursor, 0 when the walk is complete. Cursors advance in
// reverse-binary order of the bucket index, which is what keeps a walk
// complete across resizes; during a resize the cursor's bucket in the
// smaller table is visited with all its expansions in the larger one.
// fn must not insert or delete.
func (t *Table[E]) Scan(cursor uint64, fn func(i int)) uint64 {
	if t.old == nil {
		m0 := uint64(len(t.buckets) - 1)
		t.visit(t.buckets, cursor&m0, fn)
		return nextCursor(cursor, m0)
	}
	t0, t1 := t.old, t.buckets
	if len(t0) > len(t1) {
		t0, t1 = t1, t0
	}
	m0, m1 := uint64(len(t0)-1), uint64(len(t1)-1)
	t.visit(t0, cursor&m0, fn)
	for {
		t.visit(t1, cursor&m1, fn)
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

// MemoryUsage returns the heap bytes held by the table itself, not what
// its entries point to (keys included). It takes constant time.
func (t *Table[E]) MemoryUsage() int {
	return memsize.Alloc(int(unsafe.Sizeof(*t))) + t.storage()
}

// storage is the heap bytes of the buckets and entry chunks: every chunk
// after the first holds exactly chunkSize entries.
func (t *Table[E]) storage() int {
	var s slot[E]
	n := memsize.NoScan(4*len(t.buckets)) + memsize.NoScan(4*len(t.old))
	n += memsize.Alloc(int(unsafe.Sizeof([]slot[E]{})) * cap(t.chunks))
	if len(t.chunks) > 0 {
		n += memsize.Alloc(int(unsafe.Sizeof(s)) * cap(t.chunks[0]))
		n += (len(t.chunks) - 1) * memsize.Alloc(int(unsafe.Sizeof(s))*chunkSize)
	}
	return n
}

// pair is a Dict's entry. The value comes first: a zero-size value (a
// set's struct{}) at the end would be padded to a word, and the key sits
// next to the slot's hash, which a lookup reads first.
type pair[V any] struct {
	val V
	key string
}

func pairKey[V any](p *pair[V]) string { return p.key }

// Dict maps string keys to values of type V; it keeps its own copy of
// each key.
type Dict[V any] struct {
	t Table[pair[V]]
	// keyBytes is the rounded allocation size of every live key, kept as
	// keys come and go so that MemoryUsage need not visit each entry.
	keyBytes int
}

// New returns an empty table sized for n entries.
func New[V any](n int) *Dict[V] {
	d := &Dict[V]{t: Table[pair[V]]{seed: maphash.MakeSeed(), keyOf: pairKey[V]}}
	d.t.init(n)
	return d
}

// Len returns the number of entries.
func (d *Dict[V]) Len() int { return d.t.n }

// Find returns the index of key, or -1.
func (d *Dict[V]) Find(key []byte) int { return d.find(key, d.t.hash(key)) }

// find is Table.find reading the key in place rather than through keyOf,
// which a generic table can only call indirectly.
func (d *Dict[V]) find(key []byte, h uint32) int {
	t := &d.t
	if ob, ok := t.oldBucket(h); ok {
		if i := d.findIn(t.old, ob, h, key); i >= 0 {
			return int(i)
		}
	}
	return int(d.findIn(t.buckets, h&uint32(len(t.buckets)-1), h, key))
}

func (d *Dict[V]) findIn(tbl []int32, b uint32, h uint32, key []byte) int32 {
	for i := tbl[b] - 1; i >= 0; {
		s := d.t.s(i)
		if s.hash == h && s.e.key == string(key) {
			return i
		}
		i = s.next
	}
	return -1
}

// PrefetchBucket is Table.PrefetchBucket.
func (d *Dict[V]) PrefetchBucket(key []byte) uint32 { return d.t.PrefetchBucket(key) }

// PrefetchEntry is Table.PrefetchEntry.
func (d *Dict[V]) PrefetchEntry(h uint32) int32 { return d.t.PrefetchEntry(h) }

// PrefetchKey is the third step of the read ahead (Table.PrefetchBucket):
// it reads entry i, by now in cache, and starts loading its key's bytes,
// which the lookup compares.
func (d *Dict[V]) PrefetchKey(i int32) {
	if i < 0 || int(i) >= d.t.n {
		return
	}
	if k := d.t.s(i).e.key; k != "" {
		prefetch.Line(unsafe.Pointer(unsafe.StringData(k)))
	}
}

// Key returns the key of entry i.
func (d *Dict[V]) Key(i int) string { return d.t.s(int32(i)).e.key }

// Value returns a pointer to the value of entry i, valid until the next
// insert or delete.
func (d *Dict[V]) Value(i int) *V { return &d.t.s(int32(i)).e.val }

// Insert adds key with value v if it is absent and returns its index and
// whether it was added; an existing entry is left unchanged.
func (d *Dict[V]) Insert(key []byte, v V) (int, bool) {
	h := d.t.hash(key)
	if i := d.find(key, h); i >= 0 {
		return i, false
	}
	d.keyBytes += memsize.NoScan(len(key))
	return d.t.add(h, pair[V]{key: string(key), val: v}), true
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
	d.keyBytes -= memsize.NoScan(len(d.Key(i)))
	d.t.DeleteAt(i)
}

// Scan is Table.Scan.
func (d *Dict[V]) Scan(cursor uint64, fn func(i int)) uint64 { return d.t.Scan(cursor, fn) }

// MemoryUsage returns the heap bytes held by the table itself and its
// keys; callers add what their values point to. It takes constant time.
func (d *Dict[V]) MemoryUsage() int {
	return memsize.Alloc(int(unsafe.Sizeof(*d))) + d.t.storage() + d.keyBytes
}
