package keyspace

import (
	"math/rand/v2"
	"unsafe"
)

// DB is one logical database of a shard: a hash index of keys over the
// shard's arena plus the list of keys that have a deadline, for the active
// expiry cycle.
type DB struct {
	id int
	a  *arena
	t  table
	// expiring holds the handles of the entries with a deadline.
	expiring []uint32
	// clockMs, when set, is the shard's clock (unix milliseconds); new
	// entries take their access time from it.
	clockMs *int64
	// lfu, when set, reports whether an LFU policy is selected: new
	// entries then start an LFU counter instead of an access clock.
	lfu func() bool
	// mem is the bytes the database's entries take in the arena and its
	// side tables (exact, kept as entries change).
	mem int64
	// blk, when set, is told of every new key clients may wait on.
	blk *blocking
}

// newDB returns a database with an arena of its own.
func newDB(id int) *DB { return newDBIn(id, newArena()) }

// newDBIn returns a database whose entries live in a.
func newDBIn(id int, a *arena) *DB {
	return &DB{id: id, a: a, t: newTable()}
}

// Len is the number of keys, expired ones not yet collected included.
func (db *DB) Len() int { return db.t.count }

// Expires is the number of keys with a deadline.
func (db *DB) Expires() int { return len(db.expiring) }

// handle is e's arena handle.
func (db *DB) handle(e *entry) uint32 { return db.a.handleOf(unsafe.Pointer(e)) }

// entryAt returns the entry of handle h.
func (db *DB) entryAt(h uint32) *entry { return (*entry)(db.a.ptr(h)) }

// find returns the entry for key, or nil.
func (db *DB) find(key []byte) *entry {
	_, e := db.t.find(db.a, key)
	return e
}

// findString is find for a string key.
func (db *DB) findString(key string) *entry {
	return db.find(unsafe.Slice(unsafe.StringData(key), len(key)))
}

// val returns e's string bytes (nil for an object). They alias the
// keyspace: copy them before the entry can change.
func (db *DB) val(e *entry) []byte {
	switch e.kind() & kindMask {
	case kindInline:
		return e.inlineVal()
	case kindExt:
		return db.a.ext[e.vlen()]
	}
	return nil
}

// obj returns e's object, or nil for a string. Every access to an object
// goes through here, so the object is marked for the settle that brings
// the database's accounted bytes up to date after the command (memacct.go).
func (db *DB) obj(e *entry) any {
	switch e.kind() & kindMask {
	case kindObj:
		i := e.vlen()
		db.a.objAcct.mark(db, e, i)
		return db.a.objs[i]
	case kindPacked:
		return db.unpack(e)
	}
	return nil
}

// size is the bytes e takes: its allocation and any side value.
func (db *DB) size(e *entry) int64 {
	n := int64(classSize(e.class()))
	if e.class() == classDedicated {
		n = int64(db.a.sizes[db.handle(e)>>offBits])
	}
	switch e.kind() & kindMask {
	case kindExt:
		n += int64(cap(db.a.ext[e.vlen()]))
	case kindObj:
		n += db.a.objAcct.accounted(e.vlen())
	}
	return n
}

// setDeadline gives e a deadline (0 removes it), keeping the expiring
// index in step.
func (db *DB) setDeadline(e *entry, at int64) {
	e.expireAt = at
	if at != 0 && e.expIdx == 0 {
		db.expiring = append(db.expiring, db.handle(e))
		e.expIdx = uint32(len(db.expiring))
	} else if at == 0 && e.expIdx != 0 {
		db.unindex(e)
	}
}

func (db *DB) unindex(e *entry) {
	i := int(e.expIdx) - 1
	last := len(db.expiring) - 1
	if i != last {
		moved := db.expiring[last]
		db.expiring[i] = moved
		db.entryAt(moved).expIdx = uint32(i + 1)
	}
	db.expiring = db.expiring[:last]
	e.expIdx = 0
}

// alloc makes an entry for key with room for an inline value of vlen
// bytes when inline is set (and it fits), else for the key alone.
func (db *DB) alloc(key []byte, vlen int, inline bool) *entry {
	n := entryHeader + len(key)
	if inline {
		n += vlen
	}
	_, p, c := db.a.alloc(n)
	e := (*entry)(p)
	*e = entry{klen: uint32(len(key)), meta: uint32(c) << 24}
	copy(e.key(), key)
	return e
}

// fitsInline reports whether an entry for a key of klen bytes can hold a
// vlen-byte value inline.
func fitsInline(klen, vlen int) bool { return entryHeader+klen+vlen <= maxSmall }

// add inserts a new entry for key, which must be absent, holding the
// string val (obj nil) or obj. val is copied.
func (db *DB) add(key []byte, val []byte, obj any, at int64) *entry {
	if obj == nil {
		return db.addString(key, val, at)
	}
	e := db.alloc(key, 0, false)
	e.setKind(kindObj)
	i := db.a.putObj(obj)
	e.setVlen(i)
	e = db.insertNew(key, e, at)
	// The caller may go on filling obj: measure it again after the command.
	db.a.objAcct.mark(db, e, i)
	return e
}

// addString inserts a new string entry for key, which must be absent,
// with one allocation holding header, key and a copy of val.
func (db *DB) addString(key, val []byte, at int64) *entry {
	if fitsInline(len(key), len(val)) {
		return db.addInline(key, val, at)
	}
	return db.addExt(key, copyBytes(val), at)
}

// addStringOwned is addString for a val the caller gives away (a buffer
// nothing else refers to or writes): a value too long to live inline is
// kept as it is instead of copied, so a large value is held once. Separate
// from addString so that the values addString copies do not escape.
func (db *DB) addStringOwned(key, val []byte, at int64) *entry {
	if fitsInline(len(key), len(val)) {
		return db.addInline(key, val, at)
	}
	// Clipped: the accounting counts capacity.
	return db.addExt(key, val[:len(val):len(val)], at)
}

// addInline inserts a string entry holding a copy of val in its slot.
func (db *DB) addInline(key, val []byte, at int64) *entry {
	e := db.alloc(key, len(val), true)
	e.setVlen(uint32(len(val)))
	copy(e.inlineVal(), val)
	return db.insertNew(key, e, at)
}

// addExt inserts a string entry whose value is buf, kept beside the arena.
func (db *DB) addExt(key, buf []byte, at int64) *entry {
	e := db.alloc(key, 0, false)
	e.setKind(kindExt)
	e.setVlen(db.a.putExt(buf))
	return db.insertNew(key, e, at)
}

// insertNew links a new entry into the table and the expiry index.
func (db *DB) insertNew(key []byte, e *entry, at int64) *entry {
	if db.clockMs != nil {
		if db.lfu != nil && db.lfu() {
			e.touch(lfuState(lfuMinutes(*db.clockMs), lfuInitVal))
		} else {
			e.touch(accessTime(*db.clockMs))
		}
	}
	if db.blk != nil && len(db.blk.waiting) != 0 {
		db.blk.signal(db.id, key)
	}
	db.grow(1)
	db.t.put(uint64(db.t.hash(key))<<32 | uint64(db.handle(e)))
	db.mem += db.size(e)
	if at != 0 {
		db.setDeadline(e, at)
	}
	return e
}

// grow makes room for n more keys within the load bound.
func (db *DB) grow(n int) {
	if (db.t.count+n)*4 <= len(db.t.slots)*3 {
		return
	}
	db.t.resize(sizeFor(db.t.count + n))
}

// reserve sizes the table for n entries at once, sparing the rehashes of
// growing one doubling at a time (recovery knows the count up front).
func (db *DB) reserve(n int) {
	if s := sizeFor(n); s > len(db.t.slots) {
		db.t.resize(s)
	}
}

// dropValue releases e's side value, leaving it an empty inline string.
func (db *DB) dropValue(e *entry) {
	switch e.kind() & kindMask {
	case kindExt:
		db.a.dropExt(e.vlen())
	case kindObj:
		db.a.dropObj(e.vlen())
	}
	e.vk = 0 // kindInline, empty
}

// free releases e's memory; e must already be out of the table and the
// expiring index.
func (db *DB) free(e *entry) {
	db.dropValue(e)
	db.a.release(db.handle(e), e.class())
}

// setString replaces e's value with a copy of val and returns the entry,
// which moves when the value no longer fits its allocation.
func (db *DB) setString(e *entry, val []byte) *entry {
	if e.kind() == kindInline && len(val) <= e.inlineCap() {
		// The hot case: the slot, and so the accounted size, stays.
		e.setVlen(uint32(len(val)))
		copy(e.inlineVal(), val)
		return e
	}
	db.mem -= db.size(e)
	db.dropValue(e)
	if len(val) <= e.inlineCap() {
		e.setVlen(uint32(len(val)))
		copy(e.inlineVal(), val)
	} else if fitsInline(int(e.klen), len(val)) {
		e = db.move(e, len(val))
		e.setVlen(uint32(len(val)))
		copy(e.inlineVal(), val)
	} else {
		e.setKind(kindExt)
		e.setVlen(db.a.putExt(copyBytes(val)))
	}
	db.mem += db.size(e)
	return e
}

// setStringOwned is setString for a val the caller gives away, as for
// addStringOwned.
func (db *DB) setStringOwned(e *entry, val []byte) *entry {
	if len(val) <= e.inlineCap() || fitsInline(int(e.klen), len(val)) {
		return db.setString(e, val) // inline: copied into the slot
	}
	db.mem -= db.size(e)
	db.dropValue(e)
	e.setKind(kindExt)
	e.setVlen(db.a.putExt(val[:len(val):len(val)]))
	db.mem += db.size(e)
	return e
}

// setObj replaces e's value with obj. An entry holding an object never
// moves.
func (db *DB) setObj(e *entry, obj any) {
	db.mem -= db.size(e)
	if e.isObj() {
		db.a.objs[e.vlen()] = obj
		db.a.objAcct.remeasure(e.vlen(), obj)
	} else {
		db.dropValue(e)
		e.setKind(kindObj)
		e.setVlen(db.a.putObj(obj))
	}
	db.a.objAcct.mark(db, e, e.vlen())
	db.mem += db.size(e)
}

// resizeVal makes e's string value n bytes long (n >= its length),
// keeping its bytes and zero-filling the rest, marks it modified in
// place, and returns the entry, which moves when the value outgrows its
// allocation. The caller writes through db.val.
func (db *DB) resizeVal(e *entry, n int) *entry {
	db.mem -= db.size(e)
	cur := db.val(e)
	switch {
	case e.kind()&kindMask == kindInline && n <= e.inlineCap():
		old := int(e.vlen())
		e.setVlen(uint32(n))
		clear(e.inlineVal()[old:])
	case e.kind()&kindMask == kindExt && n <= cap(cur):
		db.a.ext[e.vlen()] = cur[:n]
		clear(db.a.ext[e.vlen()][len(cur):])
	case e.kind()&kindMask == kindInline && fitsInline(int(e.klen), n+n/4):
		old := int(e.vlen())
		e = db.move(e, n+n/4)
		e.setVlen(uint32(n))
		clear(e.inlineVal()[old:])
	default:
		b := make([]byte, n, growCap(n))
		copy(b, cur)
		db.dropValue(e)
		e.setKind(kindExt)
		e.setVlen(db.a.putExt(b))
	}
	e.setKind(e.kind() | flagRaw)
	db.mem += db.size(e)
	return e
}

// maxGrowSlack bounds the room resizeVal leaves past a grown string, as
// Redis's greedy growth adds at most 1 MB: half again of a 512 MB bitmap
// would be 256 MB nobody asked for.
const maxGrowSlack = 1 << 20

// growCap is the capacity for a string grown to n bytes: room for appends
// to come, half of n again and at most maxGrowSlack.
func growCap(n int) int { return n + min(n/2, maxGrowSlack) + 8 }

// move reallocates e, an inline string, with room for a vlen-byte value,
// keeping its header, key and value, and relinks it; it returns the new
// entry. The caller keeps db.mem.
func (db *DB) move(e *entry, vlen int) *entry {
	key := e.key()
	old := db.handle(e)
	slot := db.t.slotOf(key, old)
	ne := db.alloc(key, vlen, true)
	h, c := db.handle(ne), ne.class()
	*ne = *e
	ne.setClass(c)
	copy(ne.inlineVal(), e.inlineVal())
	db.t.slots[slot] = db.t.slots[slot]&^0xffffffff | uint64(h)
	if ne.expIdx != 0 {
		db.expiring[ne.expIdx-1] = h
	}
	db.a.release(old, e.class())
	return ne
}

// transfer moves e's value to a new entry for key in dst, which shares
// db's arena and has no entry for key, and frees e. Side values change
// owner without a copy. It returns the new entry.
func (db *DB) transfer(e *entry, dst *DB, key []byte) *entry {
	if e.kind()&kindMask == kindPacked && !fitsInline(len(key), int(e.vlen())) {
		db.unpack(e) // too long a key to keep it packed
	}
	at, clock := e.expireAt, e.accessed()
	db.unlink(e)
	var ne *entry
	switch {
	case e.kind()&kindMask == kindExt || e.kind()&kindMask == kindObj:
		ne = dst.alloc(key, 0, false)
		ne.setVlen(e.vlen())
	case fitsInline(len(key), int(e.vlen())):
		ne = dst.alloc(key, int(e.vlen()), true)
		ne.setVlen(e.vlen())
		copy(ne.inlineVal(), e.inlineVal())
	default:
		ne = dst.alloc(key, 0, false)
		ne.setVlen(db.a.putExt(copyBytes(e.inlineVal())))
		e.setKind(kindExt | e.kind()&flagRaw)
	}
	ne.setKind(e.kind())
	db.a.release(db.handle(e), e.class())
	dst.insertNew(key, ne, at)
	ne.touch(clock)
	if ne.isObj() {
		// A pending settle must credit the new database and entry.
		db.a.objAcct.moved(ne.vlen(), dst, dst.handle(ne))
	}
	return ne
}

// unlink removes e from the table and the expiring index without freeing
// it.
func (db *DB) unlink(e *entry) {
	db.t.removeAt(db.t.slotOf(e.key(), db.handle(e)))
	if e.expIdx != 0 {
		db.unindex(e)
	}
	db.mem -= db.size(e)
	db.t.maybeShrink()
}

// remove deletes e and frees it.
func (db *DB) remove(e *entry) {
	db.unlink(e)
	db.free(e)
}

// delete removes key and reports whether it was there.
func (db *DB) delete(key []byte) bool {
	e := db.find(key)
	if e == nil {
		return false
	}
	db.remove(e)
	return true
}

// flush drops every key.
func (db *DB) flush() {
	for _, s := range db.t.slots {
		if s != 0 {
			db.free(db.entryAt(uint32(s)))
		}
	}
	db.t.count = 0
	if db.t.mapped {
		freeSlots(db.t.slots)
		db.t.mapped = false
	}
	db.t.slots = nil
	db.t.resize(tableMinSlots)
	db.expiring = nil
	db.mem = 0
}

// randomEntry returns a random entry or nil when empty.
func (db *DB) randomEntry() *entry {
	if db.t.count == 0 {
		return nil
	}
	mask := len(db.t.slots) - 1
	for i := rand.IntN(len(db.t.slots)); ; i = (i + 1) & mask {
		if s := db.t.slots[i]; s != 0 {
			return db.entryAt(uint32(s))
		}
	}
}

// each calls fn for every entry, in table order; fn must not add or
// remove keys.
func (db *DB) each(fn func(e *entry)) {
	for _, s := range db.t.slots {
		if s != 0 {
			fn(db.entryAt(uint32(s)))
		}
	}
}

// overhead is the bytes of the database's index structures.
func (db *DB) overhead() int64 {
	return int64(len(db.t.slots))*8 + int64(cap(db.expiring))*4
}

// expired reports whether e's deadline has passed at now.
func (e *entry) expired(now int64) bool {
	return e.expireAt != 0 && e.expireAt <= now
}

func randIndex(n int) int { return rand.IntN(n) }
