package keyspace

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// entry is the fixed header of one key, at the start of its arena
// allocation; the key's bytes follow it, then (kindInline) the value's.
// A *entry points into arena memory: it is valid until the entry is freed
// or moved (DB.setString and DB.resizeVal may move it and return the new
// one), and it must never be kept across commands.
type entry struct {
	// expireAt is an absolute unix time in milliseconds, 0 when the key
	// has no deadline.
	expireAt int64
	klen     uint32
	// vk packs the value's length (kindInline) or its index in the
	// arena's ext (kindExt) or objs (kindObj) table in the low 29 bits,
	// and the kind and the raw flag in the high 3.
	vk uint32
	// meta packs, as Redis's 24-bit object clock does, either the access
	// clock (unix seconds modulo 2^24, for OBJECT IDLETIME and LRU
	// eviction) or, under an LFU policy, the LFU state (last decrement in
	// minutes modulo 2^16, then an 8-bit logarithmic counter) in the low
	// 24 bits, and the allocation's size class in the high 8.
	meta uint32
	// expIdx is the position of the entry in its database's expiring
	// slice plus one (0: not there), so deadlines are sampled and removed
	// in O(1).
	expIdx uint32
}

// entryHeader is the size of the header; keys start right after it.
const entryHeader = int(unsafe.Sizeof(entry{}))

// Value kinds of an entry.
const (
	kindInline uint8 = iota // a string stored after the key
	kindExt                 // a string in the arena's ext table
	kindObj                 // a value of another type in the arena's objs table
	// kindPacked is a small collection stored after the key in its compact
	// encoding (packed.go): a type tag, then the type's compact bytes.
	kindPacked
	kindMask uint8 = 3
	// flagRaw marks a string modified in place (APPEND, SETRANGE,
	// SETBIT): OBJECT ENCODING reports raw, as Redis does.
	flagRaw uint8 = 4
)

const (
	clockMask = 1<<24 - 1
	vlenBits  = 29
	vlenMask  = 1<<vlenBits - 1
	// maxSideIndex bounds the side tables' indexes, which share vk.
	maxSideIndex = vlenMask
)

// vlen is the inline value's length or the side table index.
func (e *entry) vlen() uint32 { return e.vk & vlenMask }

func (e *entry) setVlen(n uint32) { e.vk = e.vk&^vlenMask | n }

// kind is the value kind with the raw flag.
func (e *entry) kind() uint8 { return uint8(e.vk >> vlenBits) }

func (e *entry) setKind(k uint8) { e.vk = e.vk&vlenMask | uint32(k)<<vlenBits }

// class is the arena size class of the allocation.
func (e *entry) class() uint8 { return uint8(e.meta >> 24) }

func (e *entry) setClass(c uint8) { e.meta = e.meta&clockMask | uint32(c)<<24 }

// touch records an access at clock (an accessTime).
func (e *entry) touch(clock uint32) { e.meta = e.meta&^clockMask | clock&clockMask }

// accessed is the access clock of the last touch.
func (e *entry) accessed() uint32 { return e.meta & clockMask }

// key returns the key's bytes; they alias the arena.
func (e *entry) key() []byte {
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(e), entryHeader)), e.klen)
}

// keyView returns the key as a string that aliases the arena: for
// arguments consumed at once (the WAL encoders copy it), never for keeping.
func (e *entry) keyView() string {
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(e), entryHeader)), int(e.klen))
}

// keyString returns a copy of the key as a string.
func (e *entry) keyString() string { return string(e.key()) }

// inlineCap is the room for an inline value in the entry's allocation.
func (e *entry) inlineCap() int {
	if e.class() == classDedicated {
		return 0
	}
	return classSize(e.class()) - entryHeader - int(e.klen)
}

// inlineVal returns the inline value, capped at its length.
func (e *entry) inlineVal() []byte {
	p := (*byte)(unsafe.Add(unsafe.Pointer(e), entryHeader+int(e.klen)))
	n := e.vlen()
	return unsafe.Slice(p, n)[:n:n]
}

// isObj reports whether the entry holds a value other than a string.
func (e *entry) isObj() bool { return e.kind()&kindMask == kindObj }

// table is an open-addressing hash index of one database: each slot is 0
// or the high 32 bits of a key's hash beside the entry's 32-bit handle,
// so the table holds no pointers, a probe compares hashes without
// touching entries, and a resize never reads the arena. A key's home
// slot is the top bits of its hash; collisions go to the following slots
// (linear probing), deletions shift later slots back instead of leaving
// tombstones. Ordering homes by the hash's high bits makes a cursor a
// position in hash space, which stays meaningful when the table doubles
// or halves: that is the SCAN guarantee, and what lets a snapshot walk a
// table that keeps resizing (see snapshot.go).
type table struct {
	seed  maphash.Seed
	slots []uint64
	// mapped says slots were mapped outside the Go heap (tables of a
	// page or more), to be unmapped when replaced.
	mapped bool
	count  int
	shift  uint8 // 32 - log2(len(slots))
}

const tableMinSlots = 16

func newTable() table {
	return table{seed: maphash.MakeSeed(), slots: make([]uint64, tableMinSlots), shift: 32 - 4}
}

func (t *table) hash(key []byte) uint32 { return uint32(maphash.Bytes(t.seed, key) >> 32) }

// home is the home slot of a hash.
func (t *table) home(h uint32) int { return int(h >> t.shift) }

// homeOf is the home slot of key.
func (t *table) homeOf(key []byte) int { return t.home(t.hash(key)) }

// find returns the slot index holding key, or -1.
func (t *table) find(a *arena, key []byte) (int, *entry) {
	h := t.hash(key)
	mask := len(t.slots) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1, nil
		}
		if uint32(s>>32) == h {
			e := (*entry)(a.ptr(uint32(s)))
			if bytes.Equal(e.key(), key) {
				return i, e
			}
		}
	}
}

// slotOf returns the slot holding handle h of key.
func (t *table) slotOf(key []byte, h uint32) int {
	mask := len(t.slots) - 1
	for i := t.homeOf(key); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			panic("keyspace: entry missing from its table")
		}
		if uint32(s) == h {
			return i
		}
	}
}

// put adds a slot value (hash<<32 | handle) for a key that is absent.
func (t *table) put(s uint64) {
	mask := len(t.slots) - 1
	i := t.home(uint32(s >> 32))
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
	t.count++
}

// removeAt empties slot i, shifting back the slots after it that would
// otherwise be unreachable from their homes.
func (t *table) removeAt(i int) {
	mask := len(t.slots) - 1
	j := i
	for {
		j = (j + 1) & mask
		s := t.slots[j]
		if s == 0 {
			break
		}
		k := t.home(uint32(s >> 32))
		// The slot at j stays when its home lies cyclically in (i, j].
		if i <= j {
			if i < k && k <= j {
				continue
			}
		} else if i < k || k <= j {
			continue
		}
		t.slots[i] = s
		i = j
	}
	t.slots[i] = 0
	t.count--
}

// resize rebuilds the table with n slots (a power of two).
func (t *table) resize(n int) {
	n = max(n, tableMinSlots)
	old, oldMapped := t.slots, t.mapped
	t.slots, t.mapped = allocSlots(n)
	t.shift = uint8(32 - bits.TrailingZeros(uint(n)))
	t.count = 0
	for _, s := range old {
		if s != 0 {
			t.put(s)
		}
	}
	if oldMapped {
		freeSlots(old)
	}
}

// allocSlots returns n zeroed slots: from the Go heap for a small table,
// mapped outside it from a page up, so that a large index, like the
// entries, costs the collector nothing and does not raise its heap goal.
func allocSlots(n int) ([]uint64, bool) {
	if n*8 < pageSize {
		return make([]uint64, n), false
	}
	p, err := mapMemory(n * 8)
	if err != nil {
		panic(fmt.Sprintf("keyspace: cannot map %d bytes for a table: %v", n*8, err))
	}
	return unsafe.Slice((*uint64)(p), n), true
}

func freeSlots(s []uint64) {
	if err := unmapMemory(unsafe.Pointer(unsafe.SliceData(s)), len(s)*8); err != nil {
		panic(fmt.Sprintf("keyspace: unmapping a table: %v", err))
	}
}

// sizeFor is the slot count that holds n keys within the load bound.
func sizeFor(n int) int {
	size := tableMinSlots
	for size*3 < n*4 {
		size *= 2
	}
	return size
}

// maybeShrink halves the table while it is less than 1/8 full.
func (t *table) maybeShrink() {
	if len(t.slots) <= tableMinSlots || t.count*8 >= len(t.slots) {
		return
	}
	t.resize(max(sizeFor(t.count), tableMinSlots))
}

// eachHome calls fn for the handle of every key whose home is slot b.
func (t *table) eachHome(b int, fn func(h uint32)) {
	mask := len(t.slots) - 1
	for i := b; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return
		}
		if t.home(uint32(s>>32)) == b {
			fn(uint32(s))
		}
	}
}

// eachInRange calls fn for the handle of every key whose hash lies in
// [lo, hi), a range of the 32-bit hash space; fn must not change the table.
func (t *table) eachInRange(lo, hi uint64, fn func(h uint32)) {
	mask := len(t.slots) - 1
	for b := int(lo >> t.shift); b <= int((hi-1)>>t.shift); b++ {
		for i := b; ; i = (i + 1) & mask {
			s := t.slots[i]
			if s == 0 {
				break
			}
			if h := s >> 32; t.home(uint32(h)) == b && h >= lo && h < hi {
				fn(uint32(s))
			}
		}
	}
}

// scan calls fn for every key whose home is the bucket the cursor names
// and returns the next cursor (0 when the scan is complete). A cursor is
// a position in the 32-bit hash space; buckets are visited in hash order,
// so a key present for the whole scan is returned at least once however
// the table is resized between calls.
func (t *table) scan(cursor uint64, fn func(h uint32)) uint64 {
	b := int(uint32(cursor) >> t.shift)
	t.eachHome(b, fn)
	next := uint64(b+1) << t.shift
	if next >= 1<<32 {
		return 0
	}
	return next
}
