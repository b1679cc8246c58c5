package keyspace

import (
	"math"
)

// Helpers the engine keeps for the collection types: the rule that a
// collection left empty is deleted, storing a fresh object under a key, and
// the clamp of the configured encoding thresholds.

// RemoveEmpty deletes e, whose collection has just become empty, as Redis
// deletes a key when its last element goes. The caller logs the mutation;
// its record's replay removes the key the same way.
func RemoveEmpty(db *DB, e *Entry) { db.Remove(e) }

// clampThreshold converts a CONFIG threshold to an int for the types'
// Config structs.
func clampThreshold(n int64) int {
	return int(min(max(n, 0), math.MaxInt32))
}

// StoreObj makes key hold obj with no deadline (the STORE variants
// replace the destination whole), creating it when absent.
func StoreObj(db *DB, e *Entry, key []byte, obj any) {
	if e == nil {
		db.Add(key, nil, obj, 0)
		return
	}
	db.SetObj(e, obj)
	db.SetDeadline(e, 0)
}
