package keyspace

// Accounting of objects (collections and key-job values) in used_memory.
//
// An object changes in place, without telling its database, so its bytes
// cannot be added once when it is stored, as a string's are. Instead each
// object has an accounted size beside it in the arena, the figure its
// database's mem includes. Every access to an object goes through DB.obj,
// which marks it; after each command (and each replayed record) settle
// measures every marked object again (the types keep running sizes, so a
// measurement is a few additions, never a walk of the collection) and
// moves the difference into its database's mem. Between commands the
// running figure is therefore exact, whatever the command did to the
// object: a write, an encoding conversion, a deletion of elements.
// Removing a key subtracts its accounted size, so deletions, expiry,
// eviction and FLUSH need nothing more.

// objDirty marks an accounted size whose object awaits a settle.
const objDirty = int64(1) << 62

// objRef names a marked object, the database it was marked in and the
// handle of its entry.
type objRef struct {
	db  *DB
	h   uint32
	idx uint32
}

// objAccounts holds the accounted sizes of a shard's objects, indexed as
// the arena's objs, and the objects marked since the last settle.
type objAccounts struct {
	sizes []int64
	Dirty []objRef
	// freeAfterSettle are object indexes freed while marked: they are
	// reused only once no pending mark names them.
	freeAfterSettle []uint32
	// readOnly is set while a read-only command runs: packed collections
	// it unpacks may read their slot's bytes in place (packed.go).
	readOnly bool
	// spare holds the wrappers of collections packed again, for the next
	// unpack (packed.go).
	spare spareObjs
}

// ObjectSize is the bytes an object is accounted for: its side-table
// slot (an interface value, 16 bytes) and the heap it holds, as MEMORY
// USAGE reports it; 64 for a value that cannot measure itself.
func ObjectSize(o any) int64 { return MeasureObject(o, 0) }

// MeasureObject is ObjectSize with a collection looked at through at most
// samples elements (0: all), for MEMORY USAGE.
func MeasureObject(o any, samples int64) int64 {
	if mu, ok := o.(memoryUsager); ok {
		return 16 + mu.memoryUsage(samples)
	}
	return 64
}

// mark records that object i of db, held by e, may change before the
// next settle.
func (a *objAccounts) mark(db *DB, e *Entry, i uint32) {
	if a.sizes[i]&objDirty != 0 {
		return
	}
	a.sizes[i] |= objDirty
	a.Dirty = append(a.Dirty, objRef{db: db, h: db.Handle(e), idx: i})
}

// moved records that object i now belongs to the entry of handle h in
// db (MOVE, RENAME), so a pending settle credits the right database.
func (a *objAccounts) moved(i uint32, db *DB, h uint32) {
	if a.sizes[i]&objDirty == 0 {
		return
	}
	for k := range a.Dirty {
		if a.Dirty[k].idx == i {
			a.Dirty[k].db, a.Dirty[k].h = db, h
		}
	}
}

// Accounted is object i's size as its database's mem includes it.
func (a *objAccounts) Accounted(i uint32) int64 { return a.sizes[i] &^ objDirty }

// remeasure sets the accounted size of object i, now o, keeping its mark;
// the caller adjusts the database's mem around it.
func (a *objAccounts) remeasure(i uint32, o any) {
	a.sizes[i] = ObjectSize(o) | a.sizes[i]&objDirty
}

// Settle measures every marked object and brings its database's mem to
// the new figure; a collection small enough goes back into its entry in
// its compact encoding (packed.go).
func (a *objAccounts) Settle(ar *arena) {
	if len(a.Dirty) == 0 {
		return
	}
	for k := range a.Dirty {
		r := a.Dirty[k]
		// Dropped here rather than by clear: clearing a slice of
		// pointers is a runtime call, a tenth of a one-key settle.
		a.Dirty[k].db = nil
		old := a.sizes[r.idx]
		if old&objDirty == 0 {
			continue // freed since it was marked
		}
		a.sizes[r.idx] = old &^ objDirty
		if r.db.pack(r.db.EntryAt(r.h)) {
			continue
		}
		n := ObjectSize(ar.Objs[r.idx])
		r.db.Mem += n - old&^objDirty
		a.sizes[r.idx] = n
	}
	a.Dirty = a.Dirty[:0]
	if len(a.freeAfterSettle) != 0 {
		ar.ObjFree = append(ar.ObjFree, a.freeAfterSettle...)
		a.freeAfterSettle = a.freeAfterSettle[:0]
	}
}

// SettleMem brings the shard's running used_memory up to date with the
// objects touched since the last settle.
func (sh *Shard) SettleMem() {
	if len(sh.Arena.ObjAcct.Dirty) != 0 {
		sh.Arena.ObjAcct.Settle(sh.Arena)
	}
}
