package keyspace

import (
	"hash/maphash"
	"math/bits"
)

// entry is one key of a database. Strings keep their bytes in val; every
// other type keeps its value in obj. expireAt is an absolute unix time in
// milliseconds, 0 when the key has no deadline.
type entry struct {
	next     *entry
	key      string
	val      []byte
	obj      any
	expireAt int64
	// expIdx is the position of the entry in its database's expiring slice
	// plus one (0: not there), so deadlines are sampled and removed in O(1).
	expIdx int32
	// meta packs, in what would be padding after expIdx, the access clock
	// (low 24 bits: unix seconds modulo 2^24, for OBJECT IDLETIME, as
	// Redis's 24-bit LRU clock) and a tag of the key's hash (high 8 bits),
	// which lets a lookup skip other keys in its bucket without reading
	// their bytes.
	meta uint32
}

const (
	clockMask = 1<<24 - 1
	tagMask   = ^uint32(clockMask)
)

// hashTag is the part of a key's hash kept in meta.
func hashTag(h uint64) uint32 { return uint32(h>>56) << 24 }

// touch records an access at clock (an accessTime).
func (e *entry) touch(clock uint32) { e.meta = e.meta&tagMask | clock&clockMask }

// accessed is the access clock of the last touch.
func (e *entry) accessed() uint32 { return e.meta & clockMask }

// dict is a chained hash table whose bucket count is a power of two. It
// grows by doubling and shrinks by halving, and supports Redis's
// reverse-binary cursor scan: an entry present for a whole scan is returned
// at least once however the table is resized between calls.
type dict struct {
	seed    maphash.Seed
	buckets []*entry
	count   int
	// frozen stops resizing while a snapshot walks the buckets.
	frozen bool
}

const dictMinBuckets = 16

func newDict() *dict {
	return &dict{seed: maphash.MakeSeed(), buckets: make([]*entry, dictMinBuckets)}
}

func (d *dict) hashBytes(key []byte) uint64  { return maphash.Bytes(d.seed, key) }
func (d *dict) hashString(key string) uint64 { return maphash.String(d.seed, key) }

// find returns the entry for key, or nil.
func (d *dict) find(key []byte) *entry {
	h := d.hashBytes(key)
	tag := hashTag(h)
	for e := d.buckets[h&uint64(len(d.buckets)-1)]; e != nil; e = e.next {
		if e.meta&tagMask == tag && e.key == string(key) {
			return e
		}
	}
	return nil
}

// findString is find for a string key.
func (d *dict) findString(key string) *entry {
	h := d.hashString(key)
	tag := hashTag(h)
	for e := d.buckets[h&uint64(len(d.buckets)-1)]; e != nil; e = e.next {
		if e.meta&tagMask == tag && e.key == key {
			return e
		}
	}
	return nil
}

// insert adds e, whose key must not be present.
func (d *dict) insert(e *entry) {
	if d.count >= len(d.buckets) && !d.frozen {
		d.resize(len(d.buckets) * 2)
	}
	h := d.hashString(e.key)
	e.meta = e.meta&clockMask | hashTag(h)
	i := h & uint64(len(d.buckets)-1)
	e.next = d.buckets[i]
	d.buckets[i] = e
	d.count++
}

// remove unlinks the entry for key and returns it, or nil.
func (d *dict) remove(key string) *entry {
	h := d.hashString(key)
	tag := hashTag(h)
	i := h & uint64(len(d.buckets)-1)
	var prev *entry
	for e := d.buckets[i]; e != nil; e = e.next {
		if e.meta&tagMask == tag && e.key == key {
			if prev == nil {
				d.buckets[i] = e.next
			} else {
				prev.next = e.next
			}
			e.next = nil
			d.count--
			if len(d.buckets) > dictMinBuckets && d.count < len(d.buckets)/8 && !d.frozen {
				d.resize(len(d.buckets) / 2)
			}
			return e
		}
		prev = e
	}
	return nil
}

// reserve sizes the table for n entries at once, sparing the rehashes of
// growing one doubling at a time (recovery knows the count up front).
func (d *dict) reserve(n int) {
	size := len(d.buckets)
	for size < n {
		size *= 2
	}
	if size != len(d.buckets) && !d.frozen {
		d.resize(size)
	}
}

// maybeResize brings the table back to its load bounds after a freeze.
func (d *dict) maybeResize() {
	n := len(d.buckets)
	for d.count >= n {
		n *= 2
	}
	for n > dictMinBuckets && d.count < n/8 {
		n /= 2
	}
	if n != len(d.buckets) {
		d.resize(n)
	}
}

func (d *dict) resize(n int) {
	if n < dictMinBuckets {
		n = dictMinBuckets
	}
	nb := make([]*entry, n)
	mask := uint64(n - 1)
	for _, e := range d.buckets {
		for e != nil {
			next := e.next
			i := d.hashString(e.key) & mask
			e.next = nb[i]
			nb[i] = e
			e = next
		}
	}
	d.buckets = nb
}

// scan calls fn for every entry of the bucket the cursor names and returns
// the next cursor (0 when the scan is complete). The cursor walks bucket
// indexes with the high bits incremented first, which is what keeps the
// guarantee across resizes.
func (d *dict) scan(cursor uint64, fn func(e *entry)) uint64 {
	mask := uint64(len(d.buckets) - 1)
	for e := d.buckets[cursor&mask]; e != nil; e = e.next {
		fn(e)
	}
	cursor |= ^mask
	cursor = bits.Reverse64(cursor)
	cursor++
	cursor = bits.Reverse64(cursor)
	return cursor
}

// clear drops every entry.
func (d *dict) clear() {
	n := dictMinBuckets
	if d.frozen {
		n = len(d.buckets)
	}
	d.buckets = make([]*entry, n)
	d.count = 0
}
