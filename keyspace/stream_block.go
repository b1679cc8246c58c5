package keyspace

// Blocking stream reads on the shard's blocking facility (blocking.go).
// XREAD BLOCK waits until one of its streams has an entry after the id it
// gave ("$" being the last id when it blocked); XREADGROUP BLOCK with ">"
// waits until its group has something to deliver, including a DELAY hold
// becoming due. A served client gets the one stream that woke it, as in
// Redis. A blocked XREADGROUP whose key disappears or stops being a stream
// is answered "-UNBLOCKED the stream key no longer exists", one whose group
// was destroyed "-NOGROUP ...". Serving runs the same code as the
// non-blocking read, so its records and events are those of XREADGROUP.

// streamDueTick signals the streams whose earliest hold is due, so that
// the XREADGROUP clients blocked on them are offered the entry, and
// re-arms the shard's timer for the next hold. blockTick calls it.
func (sh *Shard) streamDueTick() {
	if len(sh.StreamDue) == 0 {
		return
	}
	next := int64(0)
	signalled := false
	for bk, due := range sh.StreamDue {
		if due <= sh.NowMs {
			delete(sh.StreamDue, bk)
			sh.signalKey(bk.Db, bk.Key)
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
