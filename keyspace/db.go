package keyspace

import (
	"math/rand/v2"
	"unsafe"
)

// DB is one logical database of a shard: a hash table of keys plus the
// list of keys that have a deadline, for the active expiry cycle.
type DB struct {
	id       int
	dict     *dict
	expiring []*entry
	// clockMs, when set, is the shard's clock (unix milliseconds); new
	// entries take their access time from it.
	clockMs *int64
}

func newDB(id int) *DB {
	return &DB{id: id, dict: newDict()}
}

// Len is the number of keys, expired ones not yet collected included.
func (db *DB) Len() int { return db.dict.count }

// Expires is the number of keys with a deadline.
func (db *DB) Expires() int { return len(db.expiring) }

// setDeadline gives e a deadline (0 removes it), keeping the expiring
// index in step.
func (db *DB) setDeadline(e *entry, at int64) {
	e.expireAt = at
	if at != 0 && e.expIdx == 0 {
		db.expiring = append(db.expiring, e)
		e.expIdx = int32(len(db.expiring))
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
		moved.expIdx = int32(i + 1)
	}
	db.expiring[last] = nil
	db.expiring = db.expiring[:last]
	e.expIdx = 0
}

// add inserts a new entry for key, which must be absent.
func (db *DB) add(key []byte, val []byte, obj any, at int64) *entry {
	return db.insertNew(&entry{key: string(key), val: val, obj: obj}, at)
}

// addString inserts a new string entry for key, which must be absent,
// with one allocation holding both the key and a copy of val. The value
// slice is capped at its length, so growing it never touches the key.
func (db *DB) addString(key, val []byte, at int64) *entry {
	buf := make([]byte, len(key)+len(val))
	copy(buf, key)
	copy(buf[len(key):], val)
	return db.insertNew(&entry{key: unsafe.String(unsafe.SliceData(buf), len(key)), val: buf[len(key):len(buf):len(buf)]}, at)
}

// insertNew links a new entry into the table and the expiry index.
func (db *DB) insertNew(e *entry, at int64) *entry {
	if db.clockMs != nil {
		e.touch(accessTime(*db.clockMs))
	}
	db.dict.insert(e)
	if at != 0 {
		db.setDeadline(e, at)
	}
	return e
}

// delete removes key and reports whether it was there.
func (db *DB) delete(key string) *entry {
	e := db.dict.remove(key)
	if e != nil && e.expIdx != 0 {
		db.unindex(e)
	}
	return e
}

// flush drops every key.
func (db *DB) flush() {
	db.dict.clear()
	db.expiring = nil
}

// randomEntry returns a random entry or nil when empty.
func (db *DB) randomEntry() *entry {
	if db.dict.count == 0 {
		return nil
	}
	d := db.dict
	for {
		b := d.buckets[rand.IntN(len(d.buckets))]
		if b == nil {
			continue
		}
		n := 0
		for e := b; e != nil; e = e.next {
			n++
		}
		k := rand.IntN(n)
		for e := b; e != nil; e = e.next {
			if k == 0 {
				return e
			}
			k--
		}
	}
}

// expired reports whether e's deadline has passed at now.
func (e *entry) expired(now int64) bool {
	return e.expireAt != 0 && e.expireAt <= now
}

func randIndex(n int) int { return rand.IntN(n) }
