package keyspace

// Timed wake-ups of the blocking facility: a family asks that the clients
// blocked on a key be offered it again at a given time, when something
// about the key changes with the clock alone (a stream entry's DELAY hold
// falling due, which lets a blocked XREADGROUP ">" deliver it). The
// shard's tick signals the key then, as a write would.

// WakeKeyAt makes the shard signal key of database db at dueMs (or at the
// earlier time already asked for it), waking the clients blocked on it,
// and arms the shard's timer for it.
func (sh *Shard) WakeKeyAt(db int, key string, dueMs int64) {
	bk := BlockKey{DB: db, Key: key}
	if sh.wakeAt == nil {
		sh.wakeAt = map[BlockKey]int64{}
	}
	if d, ok := sh.wakeAt[bk]; !ok || dueMs < d {
		sh.wakeAt[bk] = dueMs
	}
	sh.ArmBlockTimer(dueMs)
}

// wakeDueKeys signals the keys whose wake-up time has come, serves the
// clients that can now run, and re-arms the shard's timer for the next
// wake-up. blockTick calls it.
func (sh *Shard) wakeDueKeys() {
	if len(sh.wakeAt) == 0 {
		return
	}
	next := int64(0)
	signalled := false
	for bk, due := range sh.wakeAt {
		if due <= sh.NowMs {
			delete(sh.wakeAt, bk)
			sh.signalKey(bk.DB, bk.Key)
			signalled = true
			continue
		}
		if next == 0 || due < next {
			next = due
		}
	}
	if signalled {
		sh.serveReady()
	}
	if next != 0 {
		sh.ArmBlockTimer(next)
	}
}
