package keyspace

// Due DELAY holds: the shard's tick wakes the clients blocked on a stream
// group once a held entry becomes due (commands/stream_block.go parks them).

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
