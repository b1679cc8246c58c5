package keyspace

// lookup returns the live entry for key, or nil, and records the access
// (OBJECT IDLETIME). A key whose deadline has passed is deleted here (lazy
// expiry) and the deletion is logged, so a replay of the log sees the same
// sequence of states.
func (sh *Shard) lookup(db *DB, key []byte) *entry {
	e := sh.lookupNoTouch(db, key)
	if e != nil {
		if sh.srv.opts.Live.LFU() {
			sh.lfuTouch(e)
		} else {
			e.touch(accessTime(sh.nowMs))
		}
	}
	return e
}

// lookupNoTouch is lookup without recording an access, for the commands
// that Redis looks keys up for with LOOKUP_NOTOUCH: EXISTS, TYPE, TTL and
// its kin, OBJECT.
func (sh *Shard) lookupNoTouch(db *DB, key []byte) *entry {
	e := db.find(key)
	if e == nil {
		return nil
	}
	if e.expired(sh.nowMs) {
		if !sh.expiryPaused() {
			sh.expireEntry(db, e)
		}
		return nil
	}
	return e
}

// A replica's expireEntry leaves the entry: only its primary's deletion
// record removes it (the replica's log holds nothing of its own), and
// lookups treat it as absent meanwhile.

// accessTime converts a clock reading (unix milliseconds) to an entry's
// access time.
func accessTime(ms int64) uint32 { return uint32(ms/1000) & clockMask }

// idleSeconds is how long ago, in seconds, e was last accessed.
func (sh *Shard) idleSeconds(e *entry) int64 {
	return int64((accessTime(sh.nowMs) - e.accessed()) & clockMask)
}

// lookupRead is lookup for reads: it counts hits and misses.
func (sh *Shard) lookupRead(db *DB, key []byte) *entry {
	e := sh.countRead(sh.lookup(db, key))
	if e == nil {
		sh.notify(evKeyMiss, "keymiss", db.id, key)
	}
	return e
}

// lookupReadNoTouch is lookupRead without recording an access.
func (sh *Shard) lookupReadNoTouch(db *DB, key []byte) *entry {
	e := sh.countRead(sh.lookupNoTouch(db, key))
	if e == nil {
		sh.notify(evKeyMiss, "keymiss", db.id, key)
	}
	return e
}

// countRead counts a read lookup's hit or miss and returns e.
func (sh *Shard) countRead(e *entry) *entry {
	if e == nil {
		sh.srv.stats.keyspaceMisses.Add(1)
	} else {
		sh.srv.stats.keyspaceHits.Add(1)
	}
	return e
}

// expireEntry deletes an entry whose deadline passed.
func (sh *Shard) expireEntry(db *DB, e *entry) {
	if sh.srv.isReplica() {
		return
	}
	if sh.snap != nil {
		sh.snapshotTouch(db, e.key())
	}
	sh.logDel(db.id, e.keyView())
	// The key lives in the entry's slot: announce it before the slot is freed.
	sh.notify(evExpired, "expired", db.id, e.key())
	if sh.trk != nil {
		sh.trackRemoved(e.keyString())
	}
	db.remove(e)
	sh.stats.expiredKeys.Add(1)
	sh.srv.stats.expiredKeys.Add(1)
}

// copyBytes returns a private copy of b: arguments alias the batch's
// buffer, which is reused after the reply is written.
func copyBytes(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	return out
}

// storeString sets key to a string value with deadline at (keepTTL keeps
// the current deadline instead) and logs it. It returns the entry.
func (sh *Shard) storeString(db *DB, key, val []byte, at int64, keepTTL bool) *entry {
	return sh.storeStringIn(db, sh.lookup(db, key), key, val, at, keepTTL)
}

// storeStringIn is storeString for a caller that has already looked key up:
// e is its live entry, or nil when the key is absent.
func (sh *Shard) storeStringIn(db *DB, e *entry, key, val []byte, at int64, keepTTL bool) *entry {
	if e == nil {
		return sh.storedString(db, db.addString(key, val, at), key, val, at, keepTTL, true)
	}
	return sh.storedString(db, db.setString(e, val), key, val, at, keepTTL, false)
}

// storeStringOwned is storeStringIn for a val the caller gives away
// (DB.addStringOwned): a large value is kept rather than copied.
func (sh *Shard) storeStringOwned(db *DB, e *entry, key, val []byte, at int64, keepTTL bool) *entry {
	if e == nil {
		return sh.storedString(db, db.addStringOwned(key, val, at), key, val, at, keepTTL, true)
	}
	return sh.storedString(db, db.setStringOwned(e, val), key, val, at, keepTTL, false)
}

// storedString completes a store into e (created, or replaced): the new
// key's notification or the deadline, and the log record.
func (sh *Shard) storedString(db *DB, e *entry, key, val []byte, at int64, keepTTL, created bool) *entry {
	if created {
		sh.notify(evNew, "new", db.id, key)
	} else if !keepTTL {
		db.setDeadline(e, at)
	}
	sh.logSet(db.id, e.keyView(), val, e.expireAt)
	return e
}

// setDeadline changes a live entry's deadline and logs it. A deadline in
// the past deletes the key (and logs the deletion), as Redis does.
func (sh *Shard) setDeadline(db *DB, e *entry, at int64) {
	if at != 0 && at <= sh.nowMs {
		sh.logDel(db.id, e.keyView())
		db.remove(e)
		return
	}
	db.setDeadline(e, at)
	sh.logExpire(db.id, e.keyView(), at)
}

// deleteKey removes a live key and logs it; false when it was absent.
func (sh *Shard) deleteKey(db *DB, key []byte) bool {
	e := sh.lookup(db, key)
	if e == nil {
		return false
	}
	sh.logDel(db.id, e.keyView())
	db.remove(e)
	return true
}

// activeExpireCycle samples keys with deadlines and deletes the expired
// ones, within a time budget, like Redis's active expiry: it repeats while
// more than a quarter of a sample was expired.
func (sh *Shard) activeExpireCycle() {
	effort := sh.srv.opts.Live.ActiveExpireEffort()
	perLoop := 20 + 5*(effort-1)
	budget := int64(25+2*(effort-1)) * 1000 // microseconds per second of CPU at hz
	hz := int64(max(sh.srv.opts.Live.Hz(), 1))
	deadline := sh.srv.now().UnixMicro() + budget/hz
	for range sh.dbs {
		db := sh.dbs[sh.expireCursor%len(sh.dbs)]
		sh.expireCursor++
		for iter := 0; ; iter++ {
			n := len(db.expiring)
			if n == 0 {
				break
			}
			sample := min(perLoop, n)
			expired := 0
			for i := 0; i < sample && len(db.expiring) > 0; i++ {
				e := db.entryAt(db.expiring[randIndex(len(db.expiring))])
				if e.expired(sh.nowMs) {
					sh.expireEntry(db, e)
					expired++
				}
			}
			if expired*4 <= sample {
				break
			}
			if iter%16 == 15 && sh.srv.now().UnixMicro() > deadline {
				return
			}
		}
	}
}
