package commands

import (
	"github.com/ruvio/ruvio/keyspace"

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

// shardBlockStreamRead parks x's client on the streams of req for timeout ms
// (0: forever).
func shardBlockStreamRead(sh *keyspace.Shard, x *keyspace.Ctx, req *streamReadReq, timeout int64) {
	var deadline int64
	if timeout > 0 {
		deadline = sh.NowMs + timeout
		if deadline < sh.NowMs {
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
			shardWatchStreamHolds(sh, x.DB, k, true)
		}
	}
	x.Block(keyspace.BlockSpec{
		Keys:       req.keys,
		DeadlineMs: deadline,
		Serve:      func(x *keyspace.Ctx, key []byte) bool { return shardServeBlockedStream(sh, x, req, key) },
	})
}

// shardServeBlockedStream offers key to a client blocked by req: it replies and
// returns true when the stream has something for it (or its wait must end
// with an error), and returns false to keep it waiting.
func shardServeBlockedStream(sh *keyspace.Shard, x *keyspace.Ctx, req *streamReadReq, key []byte) bool {
	i := 0
	for i < len(req.keys) && !bytes.Equal(req.keys[i], key) {
		i++
	}
	if i == len(req.keys) {
		return false
	}
	var s *stream.Stream
	if e := sh.Lookup(x.DB, key); e != nil {
		if o, ok := x.DB.Obj(e).(*keyspace.StreamObj); ok {
			s = o.S
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
		unit := shardBeginStreamUnit(sh)
		var ok bool
		r, ok = shardGroupRead(sh, x, key, s, g, req, i)
		if unit {
			sh.EndUnit()
		}
		if !ok {
			shardWatchStreamHolds(sh, x.DB, key, true)
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

// shardStreamHeld is called by XADD … DELAY. The record helpers' touchKey hook
// signals the key to blocked readers already; a new hold must also be
// remembered, so that a reader waiting on key is woken when it is due.
func shardStreamHeld(sh *keyspace.Shard, db *keyspace.DB, key []byte) {
	shardWatchStreamHolds(sh, db, key, false)
}

// shardWatchStreamHolds remembers when the earliest hold of the stream at key
// that is not yet due becomes due, if clients wait on key (or always, for
// a client about to block): the shard's
// tick signals the key then (keyspace's WakeKeyAt), which wakes a blocked
// XREADGROUP.
func shardWatchStreamHolds(sh *keyspace.Shard, db *keyspace.DB, key []byte, always bool) {
	bk := keyspace.BlockKey{DB: db.ID, Key: string(key)}
	if _, waited := sh.Blk.Waiting[bk]; !waited && !always {
		return
	}
	e := sh.Lookup(db, key)
	if e == nil {
		return
	}
	o, ok := db.Obj(e).(*keyspace.StreamObj)
	if !ok {
		return
	}
	due, ok := o.S.NextDue(sh.NowMs)
	if !ok {
		return
	}
	sh.WakeKeyAt(bk.DB, bk.Key, due)
}
