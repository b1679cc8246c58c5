package keyspace

import (
	"math/rand/v2"
	"unsafe"
)

// DB is one logical database of a shard: a hash index of keys over the
// shard's arena plus the list of keys that have a deadline, for the active
// expiry cycle.
type DB struct {
	ID int    // the database's number (SELECT index)
	A  *arena // the shard's arena, which holds the entries
	T  table  // the hash index of the keys
	// Expiring holds the handles of the entries with a deadline.
	Expiring []uint32
	// clockMs, when set, is the shard's clock (unix milliseconds); new
	// entries take their access time from it.
	clockMs *int64
	// lfu, when set, reports whether an LFU policy is selected: new
	// entries then start an LFU counter instead of an access clock.
	lfu func() bool
	// Mem is the bytes the database's entries take in the arena and its
	// side tables (exact, kept as entries change).
	Mem int64
	// blk, when set, is told of every new key clients may wait on.
	blk *blocking
	// hashQueue orders the hashes with field deadlines by their earliest
	// one, for the active expiry of fields (value_hash_ttl.go).
	hashQueue dueHeap
	// hashQueueLive is the queue's length after its last compaction.
	hashQueueLive int
}

// newDBIn returns a database whose entries live in a.
func newDBIn(id int, a *arena) *DB {
	return &DB{ID: id, A: a, T: newTable()}
}

// Len is the number of keys, expired ones not yet collected included.
func (db *DB) Len() int { return db.T.Count }

// Expires is the number of keys with a deadline.
func (db *DB) Expires() int { return len(db.Expiring) }

// Handle is e's arena handle.
func (db *DB) Handle(e *Entry) uint32 { return db.A.HandleOf(unsafe.Pointer(e)) }

// EntryAt returns the entry of handle h.
func (db *DB) EntryAt(h uint32) *Entry { return (*Entry)(db.A.Ptr(h)) }

// Find returns the entry for key, or nil.
func (db *DB) Find(key []byte) *Entry {
	_, e := db.T.Find(db.A, key)
	return e
}

// FindString is find for a string key.
func (db *DB) FindString(key string) *Entry {
	return db.Find(unsafe.Slice(unsafe.StringData(key), len(key)))
}

// Val returns e's string bytes (nil for an object). They alias the
// keyspace: copy them before the entry can change.
func (db *DB) Val(e *Entry) []byte {
	switch e.Kind() & KindMask {
	case kindInline:
		return e.inlineVal()
	case kindExt:
		return db.A.ext[e.Vlen()]
	}
	return nil
}

// Obj returns e's object, or nil for a string. Every access to an object
// goes through here, so the object is marked for the settle that brings
// the database's accounted bytes up to date after the command (memacct.go).
func (db *DB) Obj(e *Entry) any {
	switch e.Kind() & KindMask {
	case KindObj:
		i := e.Vlen()
		db.A.ObjAcct.mark(db, e, i)
		return db.A.Objs[i]
	case KindPacked:
		return db.unpack(e)
	}
	return nil
}

// Size is the bytes e takes: its allocation and any side value.
func (db *DB) Size(e *Entry) int64 {
	n := int64(ClassSize(e.class()))
	if e.class() == classDedicated {
		n = int64(db.A.sizes[db.Handle(e)>>offBits])
	}
	switch e.Kind() & KindMask {
	case kindExt:
		n += int64(cap(db.A.ext[e.Vlen()]))
	case KindObj:
		n += db.A.ObjAcct.Accounted(e.Vlen())
	}
	return n
}

// SetDeadline gives e a deadline (0 removes it), keeping the expiring
// index in step.
func (db *DB) SetDeadline(e *Entry, at int64) {
	e.ExpireAt = at
	if at != 0 && e.ExpIdx == 0 {
		db.Expiring = append(db.Expiring, db.Handle(e))
		e.ExpIdx = uint32(len(db.Expiring))
	} else if at == 0 && e.ExpIdx != 0 {
		db.unindex(e)
	}
}

func (db *DB) unindex(e *Entry) {
	i := int(e.ExpIdx) - 1
	last := len(db.Expiring) - 1
	if i != last {
		moved := db.Expiring[last]
		db.Expiring[i] = moved
		db.EntryAt(moved).ExpIdx = uint32(i + 1)
	}
	db.Expiring = db.Expiring[:last]
	e.ExpIdx = 0
}

// Alloc makes an entry for key with room for an inline value of vlen
// bytes when inline is set (and it fits), else for the key alone.
func (db *DB) Alloc(key []byte, vlen int, inline bool) *Entry {
	n := EntryHeader + len(key)
	if inline {
		n += vlen
	}
	_, p, c := db.A.Alloc(n)
	e := (*Entry)(p)
	*e = Entry{klen: uint32(len(key)), meta: uint32(c) << 24}
	copy(e.Key(), key)
	return e
}

// fitsInline reports whether an entry for a key of klen bytes can hold a
// vlen-byte value inline.
func fitsInline(klen, vlen int) bool { return EntryHeader+klen+vlen <= MaxSmall }

// Add inserts a new entry for key, which must be absent, holding the
// string val (obj nil) or obj. val is copied.
func (db *DB) Add(key []byte, val []byte, obj any, at int64) *Entry {
	if obj == nil {
		return db.AddString(key, val, at)
	}
	e := db.Alloc(key, 0, false)
	e.SetKind(KindObj)
	i := db.A.putObj(obj)
	e.setVlen(i)
	e = db.insertNew(key, e, at)
	// The caller may go on filling obj: measure it again after the command.
	db.A.ObjAcct.mark(db, e, i)
	db.requeueHash(bstr(key), obj)
	return e
}

// AddString inserts a new string entry for key, which must be absent,
// with one allocation holding header, key and a copy of val.
func (db *DB) AddString(key, val []byte, at int64) *Entry {
	if fitsInline(len(key), len(val)) {
		return db.addInline(key, val, at)
	}
	return db.addExt(key, CopyBytes(val), at)
}

// AddStringOwned is AddString for a val the caller gives away (a buffer
// nothing else refers to or writes): a value too long to live inline is
// kept as it is instead of copied, so a large value is held once. Separate
// from AddString so that the values AddString copies do not escape.
func (db *DB) AddStringOwned(key, val []byte, at int64) *Entry {
	if fitsInline(len(key), len(val)) {
		return db.addInline(key, val, at)
	}
	// Clipped: the accounting counts capacity.
	return db.addExt(key, val[:len(val):len(val)], at)
}

// addInline inserts a string entry holding a copy of val in its slot.
func (db *DB) addInline(key, val []byte, at int64) *Entry {
	e := db.Alloc(key, len(val), true)
	e.setVlen(uint32(len(val)))
	copy(e.inlineVal(), val)
	return db.insertNew(key, e, at)
}

// addExt inserts a string entry whose value is buf, kept beside the arena.
func (db *DB) addExt(key, buf []byte, at int64) *Entry {
	e := db.Alloc(key, 0, false)
	e.SetKind(kindExt)
	e.setVlen(db.A.putExt(buf))
	return db.insertNew(key, e, at)
}

// insertNew links a new entry into the table and the expiry index.
func (db *DB) insertNew(key []byte, e *Entry, at int64) *Entry {
	if db.clockMs != nil {
		if db.lfu != nil && db.lfu() {
			e.Touch(LFUState(LFUMinutes(*db.clockMs), lfuInitVal))
		} else {
			e.Touch(AccessTime(*db.clockMs))
		}
	}
	if db.blk != nil && len(db.blk.Waiting) != 0 {
		db.blk.Signal(db.ID, key)
	}
	db.grow(1)
	db.T.put(uint64(db.T.hash(key))<<32 | uint64(db.Handle(e)))
	db.Mem += db.Size(e)
	if at != 0 {
		db.SetDeadline(e, at)
	}
	return e
}

// grow makes room for n more keys within the load bound.
func (db *DB) grow(n int) {
	if (db.T.Count+n)*4 <= len(db.T.Slots)*3 {
		return
	}
	db.T.resize(sizeFor(db.T.Count + n))
}

// reserve sizes the table for n entries at once, sparing the rehashes of
// growing one doubling at a time (recovery knows the count up front).
func (db *DB) reserve(n int) {
	if s := sizeFor(n); s > len(db.T.Slots) {
		db.T.resize(s)
	}
}

// dropValue releases e's side value, leaving it an empty inline string.
func (db *DB) dropValue(e *Entry) {
	switch e.Kind() & KindMask {
	case kindExt:
		db.A.dropExt(e.Vlen())
	case KindObj:
		db.A.dropObj(e.Vlen())
	}
	e.vk = 0 // kindInline, empty
}

// free releases e's memory; e must already be out of the table and the
// expiring index.
func (db *DB) free(e *Entry) {
	db.dropValue(e)
	db.A.Release(db.Handle(e), e.class())
}

// SetString replaces e's value with a copy of val and returns the entry,
// which moves when the value no longer fits its allocation.
func (db *DB) SetString(e *Entry, val []byte) *Entry {
	if e.Kind() == kindInline && len(val) <= e.inlineCap() {
		// The hot case: the slot, and so the accounted size, stays.
		e.setVlen(uint32(len(val)))
		copy(e.inlineVal(), val)
		return e
	}
	db.Mem -= db.Size(e)
	db.dropValue(e)
	if len(val) <= e.inlineCap() {
		e.setVlen(uint32(len(val)))
		copy(e.inlineVal(), val)
	} else if fitsInline(int(e.klen), len(val)) {
		e = db.move(e, len(val))
		e.setVlen(uint32(len(val)))
		copy(e.inlineVal(), val)
	} else {
		e.SetKind(kindExt)
		e.setVlen(db.A.putExt(CopyBytes(val)))
	}
	db.Mem += db.Size(e)
	return e
}

// setStringOwned is SetString for a val the caller gives away, as for
// AddStringOwned.
func (db *DB) setStringOwned(e *Entry, val []byte) *Entry {
	if len(val) <= e.inlineCap() || fitsInline(int(e.klen), len(val)) {
		return db.SetString(e, val) // inline: copied into the slot
	}
	db.Mem -= db.Size(e)
	db.dropValue(e)
	e.SetKind(kindExt)
	e.setVlen(db.A.putExt(val[:len(val):len(val)]))
	db.Mem += db.Size(e)
	return e
}

// SetObj replaces e's value with obj. An entry holding an object never
// moves.
func (db *DB) SetObj(e *Entry, obj any) {
	db.Mem -= db.Size(e)
	if e.IsObj() {
		db.A.Objs[e.Vlen()] = obj
		db.A.ObjAcct.remeasure(e.Vlen(), obj)
	} else {
		db.dropValue(e)
		e.SetKind(KindObj)
		e.setVlen(db.A.putObj(obj))
	}
	db.A.ObjAcct.mark(db, e, e.Vlen())
	db.Mem += db.Size(e)
	db.requeueHash(e.KeyString(), obj)
}

// ResizeVal makes e's string value n bytes long (n >= its length),
// keeping its bytes and zero-filling the rest, marks it modified in
// place, and returns the entry, which moves when the value outgrows its
// allocation. The caller writes through db.val.
func (db *DB) ResizeVal(e *Entry, n int) *Entry {
	db.Mem -= db.Size(e)
	cur := db.Val(e)
	switch {
	case e.Kind()&KindMask == kindInline && n <= e.inlineCap():
		old := int(e.Vlen())
		e.setVlen(uint32(n))
		clear(e.inlineVal()[old:])
	case e.Kind()&KindMask == kindExt && n <= cap(cur):
		db.A.ext[e.Vlen()] = cur[:n]
		clear(db.A.ext[e.Vlen()][len(cur):])
	case e.Kind()&KindMask == kindInline && fitsInline(int(e.klen), n+n/4):
		old := int(e.Vlen())
		e = db.move(e, n+n/4)
		e.setVlen(uint32(n))
		clear(e.inlineVal()[old:])
	default:
		b := make([]byte, n, growCap(n))
		copy(b, cur)
		db.dropValue(e)
		e.SetKind(kindExt)
		e.setVlen(db.A.putExt(b))
	}
	e.SetKind(e.Kind() | FlagRaw)
	db.Mem += db.Size(e)
	return e
}

// MaxGrowSlack bounds the room ResizeVal leaves past a grown string, as
// Redis's greedy growth adds at most 1 MB: half again of a 512 MB bitmap
// would be 256 MB nobody asked for.
const MaxGrowSlack = 1 << 20

// growCap is the capacity for a string grown to n bytes: room for appends
// to come, half of n again and at most MaxGrowSlack.
func growCap(n int) int { return n + min(n/2, MaxGrowSlack) + 8 }

// move reallocates e, an inline string, with room for a vlen-byte value,
// keeping its header, key and value, and relinks it; it returns the new
// entry. The caller keeps db.mem.
func (db *DB) move(e *Entry, vlen int) *Entry {
	key := e.Key()
	old := db.Handle(e)
	slot := db.T.slotOf(key, old)
	ne := db.Alloc(key, vlen, true)
	h, c := db.Handle(ne), ne.class()
	*ne = *e
	ne.setClass(c)
	copy(ne.inlineVal(), e.inlineVal())
	db.T.Slots[slot] = db.T.Slots[slot]&^0xffffffff | uint64(h)
	if ne.ExpIdx != 0 {
		db.Expiring[ne.ExpIdx-1] = h
	}
	db.A.Release(old, e.class())
	return ne
}

// Transfer moves e's value to a new entry for key in dst, which shares
// db's arena and has no entry for key, and frees e. Side values change
// owner without a copy. It returns the new entry.
func (db *DB) Transfer(e *Entry, dst *DB, key []byte) *Entry {
	if e.Kind()&KindMask == KindPacked && !fitsInline(len(key), int(e.Vlen())) {
		db.unpack(e) // too long a key to keep it packed
	}
	at, clock := e.ExpireAt, e.accessed()
	db.unlink(e)
	var ne *Entry
	switch {
	case e.Kind()&KindMask == kindExt || e.Kind()&KindMask == KindObj:
		ne = dst.Alloc(key, 0, false)
		ne.setVlen(e.Vlen())
	case fitsInline(len(key), int(e.Vlen())):
		ne = dst.Alloc(key, int(e.Vlen()), true)
		ne.setVlen(e.Vlen())
		copy(ne.inlineVal(), e.inlineVal())
	default:
		ne = dst.Alloc(key, 0, false)
		ne.setVlen(db.A.putExt(CopyBytes(e.inlineVal())))
		e.SetKind(kindExt | e.Kind()&FlagRaw)
	}
	ne.SetKind(e.Kind())
	db.A.Release(db.Handle(e), e.class())
	dst.insertNew(key, ne, at)
	ne.Touch(clock)
	if ne.IsObj() {
		// A pending settle must credit the new database and entry.
		db.A.ObjAcct.moved(ne.Vlen(), dst, dst.Handle(ne))
		dst.requeueHash(string(key), db.A.Objs[ne.Vlen()])
	}
	return ne
}

// unlink removes e from the table and the expiring index without freeing
// it.
func (db *DB) unlink(e *Entry) {
	db.T.removeAt(db.T.slotOf(e.Key(), db.Handle(e)))
	if e.ExpIdx != 0 {
		db.unindex(e)
	}
	db.Mem -= db.Size(e)
	db.T.maybeShrink()
}

// Remove deletes e and frees it.
func (db *DB) Remove(e *Entry) {
	db.unlink(e)
	db.free(e)
}

// Delete removes key and reports whether it was there.
func (db *DB) Delete(key []byte) bool {
	e := db.Find(key)
	if e == nil {
		return false
	}
	db.Remove(e)
	return true
}

// Flush drops every key.
func (db *DB) Flush() {
	for _, s := range db.T.Slots {
		if s != 0 {
			db.free(db.EntryAt(uint32(s)))
		}
	}
	db.T.Count = 0
	if db.T.mapped {
		freeSlots(db.T.Slots)
		db.T.mapped = false
	}
	db.T.Slots = nil
	db.T.resize(tableMinSlots)
	db.Expiring = nil
	db.hashQueue, db.hashQueueLive = nil, 0
	db.Mem = 0
}

// RandomEntry returns a random entry or nil when empty.
func (db *DB) RandomEntry() *Entry {
	if db.T.Count == 0 {
		return nil
	}
	mask := len(db.T.Slots) - 1
	for i := rand.IntN(len(db.T.Slots)); ; i = (i + 1) & mask {
		if s := db.T.Slots[i]; s != 0 {
			return db.EntryAt(uint32(s))
		}
	}
}

// Each calls fn for every entry, in table order; fn must not add or
// remove keys.
func (db *DB) Each(fn func(e *Entry)) {
	for _, s := range db.T.Slots {
		if s != 0 {
			fn(db.EntryAt(uint32(s)))
		}
	}
}

// overhead is the bytes of the database's index structures.
func (db *DB) overhead() int64 {
	return int64(len(db.T.Slots))*8 + int64(cap(db.Expiring))*4
}

// Expired reports whether e's deadline has passed at now.
func (e *Entry) Expired(now int64) bool {
	return e.ExpireAt != 0 && e.ExpireAt <= now
}

func randIndex(n int) int { return rand.IntN(n) }
