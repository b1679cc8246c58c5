package keyspace

import (
	"bytes"

	"github.com/ruvio/ruvio/types/stream"
)

// Blocking stream reads on the shard's blocking facility (blocking.go).
// XREAD BLOCK waits until one of its streams has an entry after the id it
// gave ("$" being the last id when it blocked); XREADGROUP BLOCK with ">"
// waits until its group has something to deliver, including a DELAY hold
// becoming due. A served client gets the one stream that woke it, as in
// Redis. A blocked XREADGROUP whose key disappears or stops being a stream
// is answered "-UNBLOCKED the stream key no longer exists", one whose group
// was destroyed "-NOGROUP ...". Serving runs the same code as the
// non-blocking read, so its records and events are those of XREADGROUP.

// streamBlockedCount is the COUNT of a blocked read without one, as in
// Redis: a client waiting from an old id is not sent a huge reply.
const streamBlockedCount = 1000

// blockStreamRead parks x's client on the streams of req for timeout ms
// (0: forever).
func (sh *Shard) blockStreamRead(x *Ctx, req *streamReadReq, timeout int64) {
	var deadline int64
	if timeout > 0 {
		deadline = sh.nowMs + timeout
		if deadline < sh.nowMs {
			deadline = 0
		}
	}
	if req.count == 0 {
		req.count = streamBlockedCount
	}
	// The request outlives the command: keep its own copies.
	keys := make([][]byte, len(req.keys))
	for i, k := range req.keys {
		keys[i] = bytes.Clone(k)
	}
	req.keys = keys
	req.group, req.consumer = bytes.Clone(req.group), bytes.Clone(req.consumer)
	if req.group != nil {
		for _, k := range req.keys {
			sh.watchStreamHolds(x.DB, k, true)
		}
	}
	x.Block(BlockSpec{
		Keys:       req.keys,
		DeadlineMs: deadline,
		Serve:      func(x *Ctx, key []byte) bool { return sh.serveBlockedStream(x, req, key) },
	})
}

// serveBlockedStream offers key to a client blocked by req: it replies and
// returns true when the stream has something for it (or its wait must end
// with an error), and returns false to keep it waiting.
func (sh *Shard) serveBlockedStream(x *Ctx, req *streamReadReq, key []byte) bool {
	i := 0
	for i < len(req.keys) && !bytes.Equal(req.keys[i], key) {
		i++
	}
	if i == len(req.keys) {
		return false
	}
	var s *stream.Stream
	if e := sh.lookup(x.DB, key); e != nil {
		if o, ok := x.DB.obj(e).(*streamObj); ok {
			s = o.s
		}
	}
	var r streamRead
	if req.group == nil {
		if s == nil || s.Len() == 0 || !req.ids[i].Less(s.LastEntryID()) {
			return false
		}
		start, _ := req.ids[i].Next()
		r.key = key
		s.Range(start, stream.MaxID, false, func(e stream.Entry) bool {
			r.entries = append(r.entries, e)
			return len(r.entries) < req.count
		})
	} else {
		if s == nil {
			x.W.Error("UNBLOCKED the stream key no longer exists")
			return true
		}
		g := s.Group(req.group)
		if g == nil {
			x.W.Error("NOGROUP the consumer group this client was blocked on no longer exists")
			return true
		}
		unit := sh.beginStreamUnit()
		var ok bool
		r, ok = sh.groupRead(x, key, s, g, req, i)
		if unit {
			sh.endUnit()
		}
		if !ok {
			sh.watchStreamHolds(x.DB, key, true)
			return false
		}
	}
	w := x.W
	if w.Proto >= 3 {
		w.MapHeader(1)
	} else {
		w.ArrayHeader(1)
		w.ArrayHeader(2)
	}
	w.Bulk(key)
	writeStreamEntries(w, r.entries)
	return true
}

// streamHeld is called by XADD … DELAY. The record helpers' touchKey hook
// signals the key to blocked readers already; a new hold must also be
// remembered, so that a reader waiting on key is woken when it is due.
func (sh *Shard) streamHeld(db *DB, key []byte) { sh.watchStreamHolds(db, key, false) }

// watchStreamHolds remembers when the earliest hold of the stream at key
// that is not yet due becomes due, if clients wait on key (or always, for
// a client about to block): the shard's
// tick signals the key then (streamDueTick), which wakes a blocked
// XREADGROUP.
func (sh *Shard) watchStreamHolds(db *DB, key []byte, always bool) {
	bk := blockKey{db: db.id, key: string(key)}
	if _, waited := sh.blk.waiting[bk]; !waited && !always {
		return
	}
	e := sh.lookup(db, key)
	if e == nil {
		return
	}
	o, ok := db.obj(e).(*streamObj)
	if !ok {
		return
	}
	due, ok := o.s.NextDue(sh.nowMs)
	if !ok {
		return
	}
	if sh.streamDue == nil {
		sh.streamDue = map[blockKey]int64{}
	}
	if d, ok := sh.streamDue[bk]; !ok || due < d {
		sh.streamDue[bk] = due
	}
	sh.armBlockTimer(due)
}

// streamDueTick signals the streams whose earliest hold is due, so that
// the XREADGROUP clients blocked on them are offered the entry, and
// re-arms the shard's timer for the next hold. blockTick calls it.
func (sh *Shard) streamDueTick() {
	if len(sh.streamDue) == 0 {
		return
	}
	next := int64(0)
	signalled := false
	for bk, due := range sh.streamDue {
		if due <= sh.nowMs {
			delete(sh.streamDue, bk)
			sh.signalKey(bk.db, bk.key)
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
		sh.armBlockTimer(next)
	}
}
