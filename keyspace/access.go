package keyspace

// Lookup returns the live entry for key, or nil, and records the access
// (OBJECT IDLETIME). A key whose deadline has passed is deleted here (lazy
// expiry) and the deletion is logged, so a replay of the log sees the same
// sequence of states.
func (sh *Shard) Lookup(db *DB, key []byte) *Entry {
	e := sh.LookupNoTouch(db, key)
	if e != nil {
		if sh.hot.countdown > 0 {
			sh.hot.countdown--
		} else {
			sh.sampleHotKey(db, key)
		}
		if sh.Srv.Opts.Live.LFU() {
			sh.lfuTouch(e)
		} else {
			e.Touch(AccessTime(sh.NowMs))
		}
	}
	return e
}

// LookupNoTouch is lookup without recording an access, for the commands
// that Redis looks keys up for with LOOKUP_NOTOUCH: EXISTS, TYPE, TTL and
// its kin, OBJECT.
func (sh *Shard) LookupNoTouch(db *DB, key []byte) *Entry {
	e := db.Find(key)
	if e == nil {
		return nil
	}
	if e.Expired(sh.NowMs) {
		if !sh.expiryPaused() {
			sh.ExpireEntry(db, e)
		}
		return nil
	}
	return e
}

// A replica's ExpireEntry leaves the entry: only its primary's deletion
// record removes it (the replica's log holds nothing of its own), and
// lookups treat it as absent meanwhile. The exception is a client's write
// command on a writable replica (replica-read-only no): it removes the
// entry, in memory only, as Redis's writable replica does for a write, so
// that the write does not add a second entry beside the expired one. The primary's deletion, when it comes, finds
// nothing or the client's new key, as on Redis.

// AccessTime converts a clock reading (unix milliseconds) to an entry's
// access time.
func AccessTime(ms int64) uint32 { return uint32(ms/1000) & ClockMask }

// IdleSeconds is how long ago, in seconds, e was last accessed.
func (sh *Shard) IdleSeconds(e *Entry) int64 {
	return int64((AccessTime(sh.NowMs) - e.accessed()) & ClockMask)
}

// LookupRead is lookup for reads: it counts hits and misses.
func (sh *Shard) LookupRead(db *DB, key []byte) *Entry {
	e := sh.countRead(sh.Lookup(db, key))
	if e == nil {
		sh.Notify(evKeyMiss, "keymiss", db.ID, key)
	}
	return e
}

// LookupReadNoTouch is LookupRead without recording an access.
func (sh *Shard) LookupReadNoTouch(db *DB, key []byte) *Entry {
	e := sh.countRead(sh.LookupNoTouch(db, key))
	if e == nil {
		sh.Notify(evKeyMiss, "keymiss", db.ID, key)
	}
	return e
}

// countRead counts a read lookup's hit or miss and returns e.
func (sh *Shard) countRead(e *Entry) *Entry {
	if e == nil {
		sh.Srv.Stats.KeyspaceMisses.Add(1)
	} else {
		sh.Srv.Stats.KeyspaceHits.Add(1)
	}
	return e
}

// ExpireEntry deletes an entry whose deadline passed.
func (sh *Shard) ExpireEntry(db *DB, e *Entry) {
	if sh.Srv.IsReplica() && (!sh.writing || sh.Srv.Opts.Live.ReplicaReadOnly()) {
		return
	}
	if sh.Srv.Cluster.multi && sh.receivingSlot(e.Key()) {
		// The sender's deletion arrives as a record, as on a replica.
		return
	}
	if sh.Snap != nil {
		sh.SnapshotTouch(db, e.Key())
	}
	sh.LogDel(db.ID, e.KeyView())
	// The key lives in the entry's slot: announce it before the slot is freed.
	sh.Notify(evExpired, "expired", db.ID, e.Key())
	if sh.Trk != nil {
		sh.trackRemoved(e.KeyString())
	}
	db.Remove(e)
	sh.Stats.ExpiredKeys.Add(1)
	sh.Srv.Stats.ExpiredKeys.Add(1)
}

// CopyBytes returns a private copy of b: arguments alias the batch's
// buffer, which is reused after the reply is written.
func CopyBytes(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	return out
}

// StoreString sets key to a string value with deadline at (keepTTL keeps
// the current deadline instead) and logs it. It returns the entry.
func (sh *Shard) StoreString(db *DB, key, val []byte, at int64, keepTTL bool) *Entry {
	return sh.StoreStringIn(db, sh.Lookup(db, key), key, val, at, keepTTL)
}

// StoreStringIn is StoreString for a caller that has already looked key up:
// e is its live entry, or nil when the key is absent.
func (sh *Shard) StoreStringIn(db *DB, e *Entry, key, val []byte, at int64, keepTTL bool) *Entry {
	if e == nil {
		return sh.storedString(db, db.AddString(key, val, at), key, val, at, keepTTL, true)
	}
	return sh.storedString(db, db.SetString(e, val), key, val, at, keepTTL, false)
}

// StoreStringOwned is StoreStringIn for a val the caller gives away
// (DB.AddStringOwned): a large value is kept rather than copied.
func (sh *Shard) StoreStringOwned(db *DB, e *Entry, key, val []byte, at int64, keepTTL bool) *Entry {
	if e == nil {
		return sh.storedString(db, db.AddStringOwned(key, val, at), key, val, at, keepTTL, true)
	}
	return sh.storedString(db, db.setStringOwned(e, val), key, val, at, keepTTL, false)
}

// storedString completes a store into e (created, or replaced): the new
// key's notification or the deadline, and the log record.
func (sh *Shard) storedString(db *DB, e *Entry, key, val []byte, at int64, keepTTL, created bool) *Entry {
	if created {
		sh.Notify(EvNew, "new", db.ID, key)
	} else if !keepTTL {
		db.SetDeadline(e, at)
	}
	sh.LogSet(db.ID, e.KeyView(), val, e.ExpireAt)
	return e
}

// SetDeadline changes a live entry's deadline and logs it. A deadline in
// the past deletes the key (and logs the deletion), as Redis does.
func (sh *Shard) SetDeadline(db *DB, e *Entry, at int64) {
	if at != 0 && at <= sh.NowMs {
		sh.LogDel(db.ID, e.KeyView())
		db.Remove(e)
		return
	}
	db.SetDeadline(e, at)
	sh.LogExpire(db.ID, e.KeyView(), at)
}

// DeleteKey removes a live key and logs it; false when it was absent.
func (sh *Shard) DeleteKey(db *DB, key []byte) bool {
	e := sh.Lookup(db, key)
	if e == nil {
		return false
	}
	sh.LogDel(db.ID, e.KeyView())
	db.Remove(e)
	return true
}

// ActiveExpireCycle samples keys with deadlines and deletes the expired
// ones, within a time budget, like Redis's active expiry: it repeats while
// more than a quarter of a sample was expired.
func (sh *Shard) ActiveExpireCycle() {
	effort := sh.Srv.Opts.Live.ActiveExpireEffort()
	perLoop := 20 + 5*(effort-1)
	budget := int64(25+2*(effort-1)) * 1000 // microseconds per second of CPU at hz
	hz := int64(max(sh.Srv.Opts.Live.Hz(), 1))
	deadline := sh.Srv.Now().UnixMicro() + budget/hz
	quota := hashFieldQuota
	for _, db := range sh.DBs {
		if len(db.hashQueue) > 0 && quota > 0 {
			quota = sh.activeExpireHashFields(db, quota, deadline)
		}
	}
	for range sh.DBs {
		db := sh.DBs[sh.expireCursor%len(sh.DBs)]
		sh.expireCursor++
		for iter := 0; ; iter++ {
			n := len(db.Expiring)
			if n == 0 {
				break
			}
			sample := min(perLoop, n)
			expired := 0
			for i := 0; i < sample && len(db.Expiring) > 0; i++ {
				e := db.EntryAt(db.Expiring[randIndex(len(db.Expiring))])
				if e.Expired(sh.NowMs) {
					sh.ExpireEntry(db, e)
					expired++
				}
			}
			if expired*4 <= sample {
				break
			}
			if iter%16 == 15 && sh.Srv.Now().UnixMicro() > deadline {
				return
			}
		}
	}
}
