package keyspace

// Small collections live in their entry's arena slot, in their compact
// encoding, like strings: a type tag byte, then the bytes the type's
// Compact returns (a hash's listpack, a set's intset or listpack, a sorted
// set's listpack). Such a key costs one slot and no Go object: no
// side-table slot, no object header, nothing for the collector to trace
// or to keep headroom for, which is what makes a million small hashes
// smaller than Redis's.
//
// The commands see objects only. DB.Obj unpacks a packed entry on access:
// the bytes are copied into a new object, which takes the entry's place
// as a KindObj value and is marked; the settle after the command (the
// accounting pass of memacct.go) packs every marked collection that is
// still compact and at most maxPacked bytes back into its entry,
// reallocating the slot when the size class changes, and frees the
// object. Between commands every small collection is therefore packed,
// and an entry moves only inside a settle or a command, never while a
// *entry is held.

// maxPacked bounds the compact encodings kept in a slot: larger ones stay
// objects, so a command on a collection of a few kilobytes does not copy
// it twice.
const maxPacked = 2048

// Type tags of packed entries: the first byte of a packed value, naming
// the type whose valueType.unpack reads the rest.
const (
	packedHash byte = 1 + iota
	packedSet
	packedZSet
	// packedTags bounds the tags.
	packedTags
)

// packable is implemented by the collections that can be packed into
// their entry.
type packable interface {
	// packTag is the type tag of the packed form.
	packTag() byte
	// compact returns the compact encoding, or nothing when the
	// collection is not in one.
	compact() []byte
	// reset empties the wrapper, for reuse by a later unpack.
	reset()
}

// packedBytes returns o's compact encoding and tag when o can be packed.
func packedBytes(o any) (byte, []byte, bool) {
	p, ok := o.(packable)
	if !ok {
		return 0, nil, false
	}
	b := p.compact()
	if len(b) == 0 || len(b) > maxPacked {
		return 0, nil, false
	}
	return p.packTag(), b, true
}

// spareObjs keeps the wrappers of collections packed back into their
// slots, per packed tag, so that unpacking one allocates no wrapper.
// Nothing keeps a wrapper past the settle that packs its collection:
// replies copy what they send, snapshots encode at once, COPY clones.
type spareObjs struct {
	byTag [packedTags][]packable
}

// maxSpare bounds each list of spare wrappers.
const maxSpare = 64

// put keeps o's wrapper for reuse.
func (s *spareObjs) put(o any) {
	p, ok := o.(packable)
	if !ok {
		return
	}
	list := &s.byTag[p.packTag()]
	if len(*list) < maxSpare {
		p.reset()
		*list = append(*list, p)
	}
}

// take returns a spare wrapper of tag's type, or nil when there is none.
func (s *spareObjs) take(tag byte) packable {
	list := &s.byTag[tag]
	n := len(*list)
	if n == 0 {
		return nil
	}
	o := (*list)[n-1]
	(*list)[n-1] = nil
	*list = (*list)[:n-1]
	return o
}

// takeWrapper returns a spare *T wrapper kept under tag, or a new one when
// there is none: the packable types' unpack functions share it so that
// unpacking a small collection reuses a wrapper instead of allocating one.
func takeWrapper[T any, P interface {
	*T
	packable
}](s *spareObjs, tag byte) P {
	if o, ok := s.take(tag).(P); ok && o != nil {
		return o
	}
	return new(T)
}

// unpack turns packed entry e into an object entry in place (the slot
// stays) and returns the object, marked for the settle. Under a read-only
// command the object reads the slot's bytes in place (the command changes
// nothing, and nothing frees or moves the entry before the settle);
// otherwise it gets a copy it may change.
func (db *DB) unpack(e *Entry) any {
	v := e.inlineVal()
	b := v[1:len(v):len(v)]
	acct := &db.A.ObjAcct
	if !acct.readOnly {
		b = append([]byte(nil), b...)
	}
	var o any
	if vt := values.byPackTag[v[0]]; vt != nil {
		o = vt.unpack(&acct.spare, b)
	} else {
		panic("keyspace: packed entry of unknown type")
	}
	i := db.A.putObj(o)
	e.SetKind(KindObj)
	e.setVlen(i)
	db.Mem += db.A.ObjAcct.Accounted(i)
	db.A.ObjAcct.mark(db, e, i)
	return o
}

// pack stores e's object, a collection, in the entry when it is compact
// and small enough, frees the object and reports true. The caller has
// cleared the object's mark; its accounted size is still in db.mem.
func (db *DB) pack(e *Entry) bool {
	i := e.Vlen()
	tag, b, ok := packedBytes(db.A.Objs[i])
	if !ok || !fitsInline(int(e.klen), 1+len(b)) {
		return false
	}
	db.Mem -= db.Size(e)
	n := 1 + len(b)
	if e.class() == classDedicated || SizeClass(EntryHeader+int(e.klen)+n) != e.class() {
		e = db.reslot(e, n)
	}
	o := db.A.Objs[i]
	db.A.dropObj(i)
	e.SetKind(KindPacked)
	e.setVlen(uint32(n))
	v := e.inlineVal()
	v[0] = tag
	copy(v[1:], b) // b may be these very bytes (read in place)
	db.A.ObjAcct.spare.put(o)
	db.Mem += db.Size(e)
	return true
}

// reslot moves e, whose value is not inline, to a slot with room for a
// vlen-byte inline value, relinking it in the table and the expiring
// index; it returns the new entry.
func (db *DB) reslot(e *Entry, vlen int) *Entry {
	key := e.Key()
	old := db.Handle(e)
	slot := db.T.slotOf(key, old)
	ne := db.Alloc(key, vlen, true)
	h, c := db.Handle(ne), ne.class()
	*ne = *e
	ne.setClass(c)
	db.T.Slots[slot] = db.T.Slots[slot]&^0xffffffff | uint64(h)
	if ne.ExpIdx != 0 {
		db.Expiring[ne.ExpIdx-1] = h
	}
	db.A.Release(old, e.class())
	return ne
}
