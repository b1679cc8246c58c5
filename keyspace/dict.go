package keyspace

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/bits"
	"unsafe"

	"github.com/ruvio/ruvio/internal/prefetch"
)

// Entry is the fixed header of one key, at the start of its arena
// allocation; the key's bytes follow it, then (kindInline) the value's.
// A *Entry points into arena memory: it is valid until the entry is freed
// or moved (DB.SetString and DB.ResizeVal may move it and return the new
// one), and it must never be kept across commands.
type Entry struct {
	// ExpireAt is an absolute unix time in milliseconds, 0 when the key
	// has no deadline.
	ExpireAt int64
	klen     uint32
	// vk packs the value's length (kindInline) or its index in the
	// arena's ext (kindExt) or objs (KindObj) table in the low 29 bits,
	// and the kind and the raw flag in the high 3.
	vk uint32
	// meta packs, as Redis's 24-bit object clock does, either the access
	// clock (unix seconds modulo 2^24, for OBJECT IDLETIME and LRU
	// eviction) or, under an LFU policy, the LFU state (last decrement in
	// minutes modulo 2^16, then an 8-bit logarithmic counter) in the low
	// 24 bits, and the allocation's size class in the high 8.
	meta uint32
	// ExpIdx is the position of the entry in its database's expiring
	// slice plus one (0: not there), so deadlines are sampled and removed
	// in O(1).
	ExpIdx uint32
}

// EntryHeader is the size of the header; keys start right after it.
const EntryHeader = int(unsafe.Sizeof(Entry{}))

// Value kinds of an entry.
const (
	kindInline uint8 = iota // a string stored after the key
	kindExt                 // a string in the arena's ext table
	KindObj                 // a value of another type in the arena's objs table
	// KindPacked is a small collection stored after the key in its compact
	// encoding (packed.go): a type tag, then the type's compact bytes.
	KindPacked
	KindMask uint8 = 3
	// FlagRaw marks a string modified in place (APPEND, SETRANGE,
	// SETBIT): OBJECT ENCODING reports raw, as Redis does.
	FlagRaw uint8 = 4
)

const (
	// ClockMask selects the access clock (or LFU state) in the low 24
	// bits of an entry's meta word.
	ClockMask = 1<<24 - 1
	vlenBits  = 29
	vlenMask  = 1<<vlenBits - 1
	// maxSideIndex bounds the side tables' indexes, which share vk.
	maxSideIndex = vlenMask
)

// Vlen is the inline value's length or the side table index.
func (e *Entry) Vlen() uint32 { return e.vk & vlenMask }

func (e *Entry) setVlen(n uint32) { e.vk = e.vk&^vlenMask | n }

// Kind is the value kind with the raw flag.
func (e *Entry) Kind() uint8 { return uint8(e.vk >> vlenBits) }

// SetKind sets the value kind and raw flag, keeping the length or index.
func (e *Entry) SetKind(k uint8) { e.vk = e.vk&vlenMask | uint32(k)<<vlenBits }

// class is the arena size class of the allocation.
func (e *Entry) class() uint8 { return uint8(e.meta >> 24) }

func (e *Entry) setClass(c uint8) { e.meta = e.meta&ClockMask | uint32(c)<<24 }

// Touch records an access at clock (an AccessTime).
func (e *Entry) Touch(clock uint32) { e.meta = e.meta&^ClockMask | clock&ClockMask }

// accessed is the access clock of the last touch.
func (e *Entry) accessed() uint32 { return e.meta & ClockMask }

// Key returns the key's bytes; they alias the arena.
func (e *Entry) Key() []byte {
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(e), EntryHeader)), e.klen)
}

// KeyView returns the key as a string that aliases the arena: for
// arguments consumed at once (the WAL encoders copy it), never for keeping.
func (e *Entry) KeyView() string {
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(e), EntryHeader)), int(e.klen))
}

// KeyString returns a copy of the key as a string.
func (e *Entry) KeyString() string { return string(e.Key()) }

// inlineCap is the room for an inline value in the entry's allocation.
func (e *Entry) inlineCap() int {
	if e.class() == classDedicated {
		return 0
	}
	return ClassSize(e.class()) - EntryHeader - int(e.klen)
}

// inlineVal returns the inline value, capped at its length.
func (e *Entry) inlineVal() []byte {
	p := (*byte)(unsafe.Add(unsafe.Pointer(e), EntryHeader+int(e.klen)))
	n := e.Vlen()
	return unsafe.Slice(p, n)[:n:n]
}

// IsObj reports whether the entry holds a value other than a string.
func (e *Entry) IsObj() bool { return e.Kind()&KindMask == KindObj }

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
	Slots []uint64
	// mapped says slots were mapped outside the Go heap (tables of a
	// page or more), to be unmapped when replaced.
	mapped bool
	Count  int
	shift  uint8 // 32 - log2(len(slots))
	// shrinkBelow, when set, is the count under which the table tries to
	// shrink again: its last shrink stopped short because its keys crowd
	// part of the hash space (see resize).
	shrinkBelow int
}

const tableMinSlots = 16

func newTable() table {
	return table{seed: maphash.MakeSeed(), Slots: make([]uint64, tableMinSlots), shift: 32 - 4}
}

func (t *table) hash(key []byte) uint32 { return uint32(maphash.Bytes(t.seed, key) >> 32) }

// home is the home slot of a hash.
func (t *table) home(h uint32) int { return int(h >> t.shift) }

// homeOf is the home slot of key.
func (t *table) homeOf(key []byte) int { return t.home(t.hash(key)) }

// Find returns the slot index holding key, or -1.
func (t *table) Find(a *arena, key []byte) (int, *Entry) {
	h := t.hash(key)
	mask := len(t.Slots) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		s := t.Slots[i]
		if s == 0 {
			return -1, nil
		}
		if uint32(s>>32) == h {
			e := (*Entry)(a.Ptr(uint32(s)))
			if bytes.Equal(e.Key(), key) {
				return i, e
			}
		}
	}
}

// warmMin is the fewest commands a batch has for warmKeys to pay, and
// warmSlots the smallest table it is worth it for (one that outgrows the
// core's own caches).
const (
	warmMin   = 4
	warmSlots = 1 << 15
)

// warmKeys reads ahead, for each command of b from first on, the index
// slot and the entry of its first argument taken as a key of db, before
// any of them runs. A large table's slot and entry are each a cache miss;
// read one command at a time they are waited for in turn. Here every
// slot is prefetched, then every entry, so the misses overlap and the
// commands find them in cache. An argument that is no key, or a database
// a SELECT in the batch leaves, only costs the prefetches.
func (sh *Shard) warmKeys(b *Batch, first int, db *DB) {
	t := db.T
	// The commands read ahead (those with a key); whether each is on a
	// hash, set or sorted set (a member follows its key), whose entry the
	// member reads below need; and those entries.
	var (
		cmds    [maxWarm]int
		coll    [maxWarm]bool
		entries [maxWarm]*Entry
	)
	n := 0
	for i := first; i < len(b.Ends) && n < maxWarm; i++ {
		if args := b.Command(i); len(args) >= 2 {
			cmds[n] = i
			coll[n] = len(args) >= 3 && collectionCommand(args[0])
			n++
		}
	}
	if len(t.Slots) >= warmSlots {
		var (
			homes  [maxWarm]int
			hashes [maxWarm]uint32
		)
		for k, i := range cmds[:n] {
			hashes[k] = t.hash(b.Command(i)[1])
			homes[k] = t.home(hashes[k])
			prefetch.Line(unsafe.Pointer(&t.Slots[homes[k]]))
		}
		// The entries. The slot at home is the key's unless another key
		// took it first; then a collection command's key is probed for,
		// since its member's reads below need its entry (a benchmark's
		// one hash among many strings would otherwise never be read
		// ahead), and any other command only loses its read ahead.
		for k, h := range homes[:n] {
			s := t.Slots[h]
			if s != 0 && uint32(s>>32) == hashes[k] {
				e := (*Entry)(db.A.Ptr(uint32(s)))
				// The header and key, then what follows them: an
				// entry may straddle two lines.
				prefetch.Line(unsafe.Pointer(e))
				prefetch.Line(unsafe.Add(unsafe.Pointer(e), 63))
				if coll[k] {
					entries[k] = e
				}
			} else if s != 0 && coll[k] {
				_, entries[k] = t.Find(db.A, b.Command(cmds[k])[1])
			}
		}
	} else {
		// A small index is in cache: only the keys of collection
		// commands are looked up, for the reads below.
		for k, i := range cmds[:n] {
			if coll[k] {
				_, entries[k] = t.Find(db.A, b.Command(i)[1])
			}
		}
	}
	// For a command on a large hash, set or sorted set, the bucket of its
	// member (the argument after the key; a sorted set's last: ZADD key
	// score member), then the member's entry, then its bytes: prefetched,
	// each step for every command before the next.
	var (
		objs   [maxWarm]memberWarmer
		hashes [maxWarm]uint32
		heads  [maxWarm]int32
	)
	m := 0
	for k, i := range cmds[:n] {
		e := entries[k]
		if e == nil || e.Kind()&KindMask != KindObj {
			continue
		}
		args := b.Command(i) // a collection command's: a member follows the key
		var w memberWarmer
		member := args[2]
		switch o := db.A.Objs[e.Vlen()].(type) {
		case *HashObj:
			w = &o.H
		case *SetObj:
			w = &o.S
		case *ZsetObj:
			w, member = &o.Z, args[len(args)-1]
		default:
			continue
		}
		objs[m], hashes[m] = w, w.PrefetchBucket(member)
		m++
	}
	for i := range m {
		heads[i] = objs[i].PrefetchEntry(hashes[i])
	}
	for i := range m {
		objs[i].PrefetchKey(heads[i])
	}
}

// collectionCommand reports whether name may be a command on a hash, set
// or sorted set: it starts with H, Z or S but not SE (the SET family).
func collectionCommand(name []byte) bool {
	if len(name) < 2 {
		return false
	}
	switch name[0] | 0x20 {
	case 'h', 'z':
		return true
	case 's':
		return name[1]|0x20 != 'e'
	}
	return false
}

// memberWarmer is a collection that can read ahead of a member lookup.
type memberWarmer interface {
	PrefetchBucket(member []byte) uint32
	PrefetchEntry(hash uint32) int32
	PrefetchKey(i int32)
}

// maxWarm bounds the keys warmKeys reads ahead: more than the misses a
// core keeps in flight gains nothing.
const maxWarm = 32

// slotOf returns the slot holding handle h of key.
func (t *table) slotOf(key []byte, h uint32) int {
	mask := len(t.Slots) - 1
	for i := t.homeOf(key); ; i = (i + 1) & mask {
		s := t.Slots[i]
		if s == 0 {
			panic("keyspace: entry missing from its table")
		}
		if uint32(s) == h {
			return i
		}
	}
}

// put adds a slot value (hash<<32 | handle) for a key that is absent and
// returns how many slots past its home it went.
func (t *table) put(s uint64) (probe int) {
	mask := len(t.Slots) - 1
	i := t.home(uint32(s >> 32))
	for t.Slots[i] != 0 {
		i = (i + 1) & mask
		probe++
	}
	t.Slots[i] = s
	t.Count++
	return probe
}

// removeAt empties slot i, shifting back the slots after it that would
// otherwise be unreachable from their homes.
func (t *table) removeAt(i int) {
	mask := len(t.Slots) - 1
	j := i
	for {
		j = (j + 1) & mask
		s := t.Slots[j]
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
		t.Slots[i] = s
		i = j
	}
	t.Slots[i] = 0
	t.Count--
}

// resize rebuilds the table with n slots (a power of two).
func (t *table) resize(n int) {
	n = max(n, tableMinSlots)
	old, oldMapped := t.Slots, t.mapped
	if n > len(old) {
		t.shrinkBelow = 0
	}
	for {
		t.Slots, t.mapped = allocSlots(n)
		t.shift = uint8(32 - bits.TrailingZeros(uint(n)))
		t.Count = 0
		crowded := false
		for _, s := range old {
			if s != 0 && t.put(s) > maxShrinkProbe && n < len(old) {
				crowded = true
				break
			}
		}
		if !crowded {
			break
		}
		// A shrink into a table the keys crowd: try one twice the size
		// (at most the old size, which held them).
		if t.mapped {
			freeSlots(t.Slots)
		}
		n *= 2
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
	if len(t.Slots) <= tableMinSlots || t.Count*8 >= len(t.Slots) || t.Count >= t.shrinkBelow && t.shrinkBelow > 0 {
		return
	}
	t.resize(max(sizeFor(t.Count), tableMinSlots))
	t.shrinkBelow = 0
	if t.Count*8 < len(t.Slots) {
		t.shrinkBelow = t.Count / 2
	}
}

// maxShrinkProbe is the longest probe a shrinking resize accepts: keys
// deleted in hash order (SCAN and DEL, a slot range's cleanup) leave the
// others crowding the rest of the hash space, and a table sized for their
// count would overflow there into runs as long as the table.
const maxShrinkProbe = 64

// eachHome calls fn for the handle of every key whose home is slot b.
func (t *table) eachHome(b int, fn func(h uint32)) {
	mask := len(t.Slots) - 1
	for i := b; ; i = (i + 1) & mask {
		s := t.Slots[i]
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
	mask := len(t.Slots) - 1
	for b := int(lo >> t.shift); b <= int((hi-1)>>t.shift); b++ {
		for i := b; ; i = (i + 1) & mask {
			s := t.Slots[i]
			if s == 0 {
				break
			}
			if h := s >> 32; t.home(uint32(h)) == b && h >= lo && h < hi {
				fn(uint32(s))
			}
		}
	}
}

// Scan calls fn for every key whose home is the bucket the cursor names
// and returns the next cursor (0 when the scan is complete). A cursor is
// a position in the 32-bit hash space; buckets are visited in hash order,
// so a key present for the whole scan is returned at least once however
// the table is resized between calls.
func (t *table) Scan(cursor uint64, fn func(h uint32)) uint64 {
	b := int(uint32(cursor) >> t.shift)
	t.eachHome(b, fn)
	next := uint64(b+1) << t.shift
	if next >= 1<<32 {
		return 0
	}
	return next
}
