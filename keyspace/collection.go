package keyspace

import "math/rand/v2"

// Helpers shared by the collection families (hashes, lists, sets, sorted
// sets): typed lookups that answer WRONGTYPE, and the rule that a
// collection left empty is deleted.

// lookupTyped returns key's live entry and its object when it is a T. A
// missing key gives a nil entry and ok; a key of another type replies
// WRONGTYPE and gives !ok. read selects the read lookup, which counts
// keyspace hits and misses.
func lookupTyped[T any](x *Ctx, key []byte, read bool) (e *entry, obj T, ok bool) {
	if read {
		e = x.S.lookupRead(x.DB, key)
	} else {
		e = x.S.lookup(x.DB, key)
	}
	if e == nil {
		return nil, obj, true
	}
	obj, ok = x.DB.obj(e).(T)
	if !ok {
		x.W.Error(errWrongType)
		return nil, obj, false
	}
	return e, obj, true
}

// removeEmpty deletes e, whose collection has just become empty, as Redis
// deletes a key when its last element goes. The caller logs the mutation;
// its record's replay removes the key the same way.
func removeEmpty(db *DB, e *entry) { db.remove(e) }

// randSource is the process-wide random source as a rand.Source, for the
// types' random picks (HRANDFIELD and kin). Randomness never reaches the
// WAL: records state what was picked.
type randSource struct{}

// Uint64 returns a random number from math/rand/v2's global source.
func (randSource) Uint64() uint64 { return rand.Uint64() }
