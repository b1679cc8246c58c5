package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"strings"

	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/stream"
)

// The stream family (XADD, XRANGE, XREAD, consumer groups, …) on
// types/stream; the group commands are in stream_group.go, blocking reads
// in stream_block.go, replay in keyspace/value_stream_replay.go. Every mutation writes
// physical records (persistence opcodes 100–111): XADD logs the id it assigned, its DELAY hold as an absolute due
// time and the trim it caused as "everything up to this id"; group reads log
// the ids delivered and the group's new position; claims log the resulting
// pending records. A command that writes several records wraps them in one
// unit, so recovery applies it whole. A stream is never deleted for being
// empty, as in Redis.
//
// The contract's differences from Redis 7.0: MAXLEN and MINID trim exactly
// with "~" as with "=" (LIMIT still caps the entries removed under "~"),
// and XADD takes DELAY milliseconds: the entry is stored at once, but
// XREADGROUP ">" delivers it to a group only once it is due (docs/streams.md).

// evStream is the keyspace-event class of stream commands ('t').
const evStream = config.NotifyStream

// Reply texts.
const (
	errInvalidStreamID = "ERR Invalid stream ID specified as stream command argument"
	errXGroupNoKey     = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
)

// parseStreamIDOrReply parses an id: "-", "+", "ms" (seq missingSeq) or
// "ms-seq"; strict refuses "-" and "+". It replies on error.
func parseStreamIDOrReply(x *keyspace.Ctx, b []byte, missingSeq uint64, strict bool) (stream.ID, bool) {
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if strict {
			x.W.Error(errInvalidStreamID)
			return stream.ID{}, false
		}
		if b[0] == '-' {
			return stream.MinID, true
		}
		return stream.MaxID, true
	}
	id, _, ok := stream.ParseID(b, missingSeq, false)
	if !ok {
		x.W.Error(errInvalidStreamID)
	}
	return id, ok
}

// parseIntervalIDOrReply parses a range bound: an id, "-", "+", or "(" and an id
// for an exclusive bound, which it moves inwards (start up, end down).
func parseIntervalIDOrReply(x *keyspace.Ctx, b []byte, missingSeq uint64, isEnd bool) (stream.ID, bool) {
	if len(b) > 1 && b[0] == '(' {
		id, ok := parseStreamIDOrReply(x, b[1:], missingSeq, true)
		if !ok {
			return id, false
		}
		if isEnd {
			if id, ok = id.Prev(); !ok {
				x.W.Error("ERR invalid end ID for the interval")
			}
		} else if id, ok = id.Next(); !ok {
			x.W.Error("ERR invalid start ID for the interval")
		}
		return id, ok
	}
	return parseStreamIDOrReply(x, b, missingSeq, false)
}

// writeStreamID replies an id as a bulk string.
func writeStreamID(w *codec.Writer, id stream.ID) {
	var buf [44]byte
	w.Bulk(id.Append(buf[:0]))
}

// writeStreamEntry replies [id, [field, value, ...]].
func writeStreamEntry(w *codec.Writer, e stream.Entry) {
	w.ArrayHeader(2)
	writeStreamID(w, e.ID)
	w.ArrayHeader(2 * e.NumFields())
	e.Fields(func(f, v []byte) {
		w.Bulk(f)
		w.Bulk(v)
	})
}

// writeStreamEntries replies an array of entries.
func writeStreamEntries(w *codec.Writer, es []stream.Entry) {
	w.ArrayHeader(len(es))
	for _, e := range es {
		writeStreamEntry(w, e)
	}
}

// lookupStream returns the stream at key (nil when absent); ok is false
// when WRONGTYPE was replied.
func lookupStream(x *keyspace.Ctx, key []byte, read bool) (e *keyspace.Entry, o *keyspace.StreamObj, ok bool) {
	return lookupTypedOrReply[*keyspace.StreamObj](x, key, read)
}

// noGroupError is the NOGROUP reply of XCLAIM, XAUTOCLAIM and XPENDING.
func noGroupError(key, group []byte) string {
	return "NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "'"
}

// shardBeginStreamUnit makes the records of a command one unit unless one is
// already being collected (EXEC, scripts); the caller ends it when told.
func shardBeginStreamUnit(sh *keyspace.Shard) bool {
	if sh.Journal == nil || sh.Tx.Recording {
		return false
	}
	sh.BeginUnit()
	return true
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] [DELAY ms] <*|ms-*|ms-seq> field value [field value ...]
func xaddCommand(x *keyspace.Ctx) {
	var t trimArgs
	idPos, ok := parseTrimArgsOrReply(x, &t, true)
	if !ok {
		return
	}
	fields := x.Args[idPos+1:]
	if len(fields) < 2 || len(fields)%2 != 0 {
		x.W.Error(keyspace.ErrWrongArgs("xadd"))
		return
	}
	if t.idGiven && !t.seqAuto && t.id.IsZero() {
		x.W.Error("ERR The ID specified in XADD must be greater than 0-0")
		return
	}
	key := x.Args[1]
	e, o, ok := lookupStream(x, key, false)
	if !ok {
		return
	}
	if e == nil {
		if t.noMkStream {
			x.W.Null()
			return
		}
		o = &keyspace.StreamObj{S: stream.New()}
	}
	s := o.S
	if s.LastID() == stream.MaxID {
		x.W.Error("ERR The stream has exhausted the last possible ID, unable to add more items")
		return
	}
	var id stream.ID
	switch {
	case !t.idGiven:
		id, ok = s.NextAutoID(uint64(max(x.S.NowMs, 0)))
	case t.seqAuto:
		id, ok = s.NextSeqID(t.id.Ms)
	default:
		id, ok = t.id, s.LastID().Less(t.id)
	}
	if !ok {
		x.W.Error("ERR The ID specified in XADD is equal or smaller than the target stream top item")
		return
	}
	if e == nil {
		x.DB.Add(key, nil, o, 0)
		x.Notify(keyspace.EvNew, "new", key)
	}
	if err := s.Add(x.S.StreamConfig(), id, fields); err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	var due int64
	if t.delay > 0 {
		due = x.S.NowMs + t.delay
		s.AddHold(id, due)
	}
	var trimmed int64
	var through stream.ID
	if t.strategy != trimNone {
		trimmed, through = s.Trim(t.maxLen, t.minID, t.strategy == trimMinID, t.limit)
	}
	x.S.LogStreamAdd(x.DB.ID, key, id, due, through, fields)
	writeStreamID(x.W, id)
	x.Notify(evStream, "xadd", key)
	if trimmed > 0 {
		x.Notify(evStream, "xtrim", key)
	}
	if due != 0 {
		shardStreamHeld(x.S, x.DB, key)
	}
}

// Trim strategies.
const (
	trimNone = iota
	trimMaxLen
	trimMinID
)

// trimArgs is what XADD and XTRIM parse.
type trimArgs struct {
	strategy   int
	maxLen     int64
	minID      stream.ID
	limit      int64 // 0: no limit
	approx     bool
	noMkStream bool
	delay      int64
	idGiven    bool
	seqAuto    bool
	id         stream.ID
}

// parseTrimArgsOrReply parses XADD's options and id (xadd) or XTRIM's options,
// replying on error. For XADD it returns the id's position. Trimming is
// exact with "~" too (the contract): LIMIT, allowed only with "~", caps the
// entries removed, and without LIMIT nothing caps them.
func parseTrimArgsOrReply(x *keyspace.Ctx, t *trimArgs, xadd bool) (int, bool) {
	args := x.Args
	i := 2
	limitGiven := false
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			return i, finishTrimArgsOrReply(x, t, xadd, limitGiven)
		case (keyspace.EqFold(opt, "maxlen") || keyspace.EqFold(opt, "minid")) && more > 0:
			if t.strategy != trimNone {
				x.W.Error("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
				return 0, false
			}
			isMax := keyspace.EqFold(opt, "maxlen")
			t.approx = false
			if next := args[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				t.approx = next[0] == '~'
				i++
			}
			if isMax {
				n, ok := keyspace.ParseInt(args[i+1])
				if !ok {
					x.W.Error(keyspace.ErrNotInt)
					return 0, false
				}
				if n < 0 {
					x.W.Error("ERR The MAXLEN argument must be >= 0.")
					return 0, false
				}
				t.maxLen, t.strategy = n, trimMaxLen
			} else {
				id, ok := parseStreamIDOrReply(x, args[i+1], 0, true)
				if !ok {
					return 0, false
				}
				t.minID, t.strategy = id, trimMinID
			}
			i++
		case keyspace.EqFold(opt, "limit") && more > 0:
			n, ok := keyspace.ParseInt(args[i+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return 0, false
			}
			if n < 0 {
				x.W.Error("ERR The LIMIT argument must be >= 0.")
				return 0, false
			}
			t.limit, limitGiven = n, true
			i++
		case xadd && keyspace.EqFold(opt, "nomkstream"):
			t.noMkStream = true
		case xadd && keyspace.EqFold(opt, "delay") && more > 0:
			n, ok := keyspace.ParseInt(args[i+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return 0, false
			}
			if n < 0 {
				x.W.Error("ERR The DELAY argument must be >= 0.")
				return 0, false
			}
			t.delay = n
			i++
		case xadd:
			id, seqAuto, ok := stream.ParseID(opt, 0, true)
			if !ok || (len(opt) == 1 && (opt[0] == '-' || opt[0] == '+')) {
				x.W.Error(errInvalidStreamID)
				return 0, false
			}
			t.id, t.seqAuto, t.idGiven = id, seqAuto, true
			return i, finishTrimArgsOrReply(x, t, xadd, limitGiven)
		default:
			x.W.Error(keyspace.ErrSyntax)
			return 0, false
		}
	}
	return i, finishTrimArgsOrReply(x, t, xadd, limitGiven)
}

func finishTrimArgsOrReply(x *keyspace.Ctx, t *trimArgs, xadd, limitGiven bool) bool {
	if t.limit != 0 && t.strategy == trimNone {
		x.W.Error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
		return false
	}
	if !xadd && t.strategy == trimNone {
		x.W.Error("ERR syntax error, XTRIM must be called with a trimming strategy")
		return false
	}
	if limitGiven && !t.approx {
		x.W.Error("ERR syntax error, LIMIT cannot be used without the special ~ option")
		return false
	}
	return true
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
func xtrimCommand(x *keyspace.Ctx) {
	var t trimArgs
	if _, ok := parseTrimArgsOrReply(x, &t, false); !ok {
		return
	}
	key := x.Args[1]
	_, o, ok := lookupTypedOrReplyZero[*keyspace.StreamObj](x, key, false)
	if !ok {
		return
	}
	n, through := o.S.Trim(t.maxLen, t.minID, t.strategy == trimMinID, t.limit)
	if n > 0 {
		x.S.LogStreamTrim(x.DB.ID, key, through)
		x.Notify(evStream, "xtrim", key)
	}
	x.W.Int(n)
}

// XDEL key id [id ...]
func xdelCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	_, o, ok := lookupTypedOrReplyZero[*keyspace.StreamObj](x, key, false)
	if !ok {
		return
	}
	ids := make([]stream.ID, 0, len(x.Args)-2)
	for _, a := range x.Args[2:] {
		id, ok := parseStreamIDOrReply(x, a, 0, true)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	deleted := ids[:0]
	for _, id := range ids {
		if o.S.Delete(id) {
			deleted = append(deleted, id)
		}
	}
	if len(deleted) > 0 {
		x.S.LogStreamIDs(x.DB.ID, persistence.OpStreamDel, key, nil, deleted)
		x.Notify(evStream, "xdel", key)
	}
	x.W.Int(int64(len(deleted)))
}

// XLEN key
func xlenCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReplyZero[*keyspace.StreamObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Int(o.S.Len())
}

// XRANGE key start end [COUNT count] / XREVRANGE key end start [COUNT count]
func xrangeCommand(x *keyspace.Ctx) {
	rev := x.Cmd.Name == "xrevrange"
	startArg, endArg := x.Args[2], x.Args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ok := parseIntervalIDOrReply(x, startArg, 0, false)
	if !ok {
		return
	}
	end, ok := parseIntervalIDOrReply(x, endArg, math.MaxUint64, true)
	if !ok {
		return
	}
	count := int64(-1)
	for j := 4; j < len(x.Args); j++ {
		if keyspace.EqFold(x.Args[j], "count") && j+1 < len(x.Args) {
			n, ok := keyspace.ParseInt(x.Args[j+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			count = max(n, 0)
			j++
			continue
		}
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	_, o, ok := lookupStream(x, x.Args[1], true)
	if !ok {
		return
	}
	if o == nil {
		x.W.ArrayHeader(0)
		return
	}
	if count == 0 {
		x.W.NullArray()
		return
	}
	var es []stream.Entry
	o.S.Range(start, end, rev, func(e stream.Entry) bool {
		es = append(es, e)
		return count < 0 || int64(len(es)) < count
	})
	writeStreamEntries(x.W, es)
}

// streamRead is one stream's part of an XREAD/XREADGROUP reply.
type streamRead struct {
	key     []byte
	entries []stream.Entry
	// history: XREADGROUP with an id; ids with missing entries reply
	// [id, nil].
	history bool
	ids     []stream.ID
	exists  []bool
}

// XREAD [COUNT count] [BLOCK ms] STREAMS key [key ...] id [id ...]
// XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [NOACK] STREAMS key [key ...] id [id ...]
func xreadCommand(x *keyspace.Ctx) {
	args := x.Args
	isGroup := x.Cmd.Name == "xreadgroup"
	name := strings.ToUpper(x.Cmd.Name)
	timeout := int64(-1)
	var count int64
	streamsArg := 0
	noack := false
	var groupName, consumer []byte
	for i := 1; i < len(args); i++ {
		more := len(args) - i - 1
		o := args[i]
		switch {
		case keyspace.EqFold(o, "block") && more > 0:
			if x.C == x.S.Scr.Lua {
				x.W.Error("ERR " + x.Cmd.Name + " command is not allowed with BLOCK option from scripts")
				return
			}
			i++
			n, ok := keyspace.ParseInt(args[i])
			if !ok {
				x.W.Error("ERR timeout is not an integer or out of range")
				return
			}
			if n < 0 {
				x.W.Error(keyspace.ErrNegTimeout)
				return
			}
			timeout = n
		case keyspace.EqFold(o, "count") && more > 0:
			i++
			n, ok := keyspace.ParseInt(args[i])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			count = max(n, 0)
		case keyspace.EqFold(o, "streams") && more > 0:
			streamsArg = i + 1
			if (len(args)-streamsArg)%2 != 0 {
				x.W.Error("ERR Unbalanced " + name + " list of streams: for each stream key an ID or '$' must be specified.")
				return
			}
			i = len(args)
		case keyspace.EqFold(o, "group") && more >= 2:
			if !isGroup {
				x.W.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return
			}
			groupName, consumer = args[i+1], args[i+2]
			i += 2
		case keyspace.EqFold(o, "noack"):
			if !isGroup {
				x.W.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return
			}
			noack = true
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	if streamsArg == 0 {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	if isGroup && groupName == nil {
		x.W.Error("ERR Missing GROUP option for XREADGROUP")
		return
	}
	n := (len(args) - streamsArg) / 2
	keys := args[streamsArg : streamsArg+n]
	ids := make([]stream.ID, n)
	newOnly := make([]bool, n)
	for i := range n {
		key := keys[i]
		_, o, ok := lookupStream(x, key, true)
		if !ok {
			return
		}
		if isGroup && (o == nil || o.S.Group(groupName) == nil) {
			x.W.Error("NOGROUP No such key '" + string(key) + "' or consumer group '" + string(groupName) + "' in XREADGROUP with GROUP option")
			return
		}
		a := args[streamsArg+n+i]
		switch {
		case len(a) == 1 && a[0] == '$':
			if isGroup {
				x.W.Error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
				return
			}
			if o != nil {
				ids[i] = o.S.LastID()
			}
		case len(a) == 1 && a[0] == '>':
			if !isGroup {
				x.W.Error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
				return
			}
			newOnly[i] = true
		default:
			id, ok := parseStreamIDOrReply(x, a, 0, true)
			if !ok {
				return
			}
			ids[i] = id
		}
	}
	req := &streamReadReq{keys: keys, ids: ids, newOnly: newOnly, group: groupName, consumer: consumer, count: int(min(count, math.MaxInt32)), noack: noack}
	if shardServeStreamRead(x.S, x, req) {
		return
	}
	if timeout < 0 || x.NoBlock {
		x.W.NullArray()
		return
	}
	shardBlockStreamRead(x.S, x, req, timeout)
}

// streamReadReq is a parsed XREAD / XREADGROUP.
type streamReadReq struct {
	keys     [][]byte
	ids      []stream.ID
	newOnly  []bool // XREADGROUP ">"
	group    []byte // nil for XREAD
	consumer []byte
	count    int
	noack    bool
}

// shardServeStreamRead answers a read if any stream has something for it and
// reports whether it did. XREADGROUP's deliveries are applied and logged as
// they are made.
func shardServeStreamRead(sh *keyspace.Shard, x *keyspace.Ctx, req *streamReadReq) bool {
	var out []streamRead
	unit := false
	if req.group != nil {
		unit = shardBeginStreamUnit(sh)
	}
	for i, key := range req.keys {
		// The keys were looked up (and counted) while parsing.
		e := sh.LookupNoTouch(x.DB, key)
		if e == nil {
			continue
		}
		o, _ := x.DB.Obj(e).(*keyspace.StreamObj)
		if o == nil {
			continue
		}
		s := o.S
		if req.group == nil {
			if s.Len() == 0 || !req.ids[i].Less(s.LastEntryID()) {
				continue
			}
			start, _ := req.ids[i].Next()
			r := streamRead{key: key}
			s.Range(start, stream.MaxID, false, func(e stream.Entry) bool {
				r.entries = append(r.entries, e)
				return req.count == 0 || len(r.entries) < req.count
			})
			out = append(out, r)
			continue
		}
		g := s.Group(req.group)
		if g == nil {
			continue
		}
		if r, ok := shardGroupRead(sh, x, key, s, g, req, i); ok {
			out = append(out, r)
		}
	}
	if unit {
		sh.EndUnit()
	}
	if len(out) == 0 {
		return false
	}
	w := x.W
	if w.Proto >= 3 {
		w.MapHeader(len(out))
	} else {
		w.ArrayHeader(len(out))
	}
	for _, r := range out {
		if w.Proto < 3 {
			w.ArrayHeader(2)
		}
		w.Bulk(r.key)
		if !r.history {
			writeStreamEntries(w, r.entries)
			continue
		}
		w.ArrayHeader(len(r.ids))
		k := 0
		for j, id := range r.ids {
			if r.exists[j] {
				writeStreamEntry(w, r.entries[k])
				k++
				continue
			}
			w.ArrayHeader(2)
			writeStreamID(w, id)
			w.NullArray()
		}
	}
	return true
}

// shardGroupRead serves one stream of an XREADGROUP; ok is false when the
// stream has nothing for it.
func shardGroupRead(sh *keyspace.Shard, x *keyspace.Ctx, key []byte, s *stream.Stream, g *stream.Group, req *streamReadReq, i int) (streamRead, bool) {
	now := sh.NowMs
	db := x.DB.ID
	if !req.newOnly[i] {
		// The consumer's own history: its pending entries after the id.
		c, created := consumerFor(x, key, g, req.consumer)
		if created {
			sh.LogStreamNames(db, persistence.OpStreamConsumerCreate, key, now, req.group, req.consumer)
		}
		r := streamRead{key: key, history: true}
		start, ok := req.ids[i].Next()
		if ok {
			c.Pending(start, stream.MaxID, func(p *stream.Pending) bool {
				r.ids = append(r.ids, p.ID)
				return req.count == 0 || len(r.ids) < req.count
			})
		}
		var touched []stream.ID
		for _, id := range r.ids {
			e, found := s.Get(id)
			r.exists = append(r.exists, found)
			if found {
				r.entries = append(r.entries, e)
				p := g.PendingEntry(id)
				p.DeliveryTime = now
				p.DeliveryCount++
				touched = append(touched, id)
			}
		}
		sh.LogStreamClaim(db, key, g, c, touched)
		return r, true
	}
	// Holds that are due change nothing any more; dropping them here, as
	// the replay of the read does at the same time, keeps both alike.
	s.PruneHolds(now)
	dueDeferred := false
	if len(g.Deferred) > 0 {
		for _, id := range g.Deferred {
			if d, held := s.HoldOf(id); !held || d <= now {
				dueDeferred = true
				break
			}
		}
	}
	if !dueDeferred && (s.Len() == 0 || !g.LastID.Less(s.LastEntryID())) {
		return streamRead{}, false
	}
	c, created := consumerFor(x, key, g, req.consumer)
	if created {
		sh.LogStreamNames(db, persistence.OpStreamConsumerCreate, key, now, req.group, req.consumer)
	}
	plan := s.PlanRead(g, req.count, now)
	delivered := make([]stream.ID, len(plan.Entries))
	for k, e := range plan.Entries {
		delivered[k] = e.ID
	}
	g.ApplyRead(c, delivered, plan.Deferred, plan.Resolved, plan.LastID, plan.EntriesRead, now, req.noack)
	sh.LogStreamRead(db, key, g, req.consumer, now, req.noack, delivered, &plan)
	if len(plan.Entries) == 0 {
		return streamRead{}, false
	}
	return streamRead{key: key, entries: plan.Entries}, true
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
func xsetidCommand(x *keyspace.Ctx) {
	args := x.Args
	id, ok := parseStreamIDOrReply(x, args[2], 0, true)
	if !ok {
		return
	}
	entriesAdded := int64(-1)
	var maxDel stream.ID
	for i := 3; i < len(args); i += 2 {
		more := len(args) - 1 - i
		switch {
		case keyspace.EqFold(args[i], "entriesadded") && more > 0:
			n, ok := parseBoundedIntOrReply(x, args[i+1], 0, math.MaxInt64, "ERR entries_added must be positive")
			if !ok {
				return
			}
			entriesAdded = n
		case keyspace.EqFold(args[i], "maxdeletedid") && more > 0:
			if maxDel, ok = parseStreamIDOrReply(x, args[i+1], 0, true); !ok {
				return
			}
			if id.Less(maxDel) {
				x.W.Error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	key := args[1]
	e, o, ok := lookupStream(x, key, false)
	if !ok {
		return
	}
	if e == nil {
		x.W.Error(keyspace.ErrNoSuchKey)
		return
	}
	s := o.S
	if s.Len() > 0 {
		if id.Less(s.LastEntryID()) {
			x.W.Error("ERR The ID specified in XSETID is smaller than the target stream top item")
			return
		}
		if entriesAdded != -1 && s.Len() > entriesAdded {
			x.W.Error("ERR The entries_added specified in XSETID is smaller than the target stream length")
			return
		}
	}
	added := s.EntriesAdded()
	if entriesAdded != -1 {
		added = uint64(entriesAdded)
	}
	md := s.MaxDeletedID()
	if !maxDel.IsZero() {
		md = maxDel
	}
	s.SetMeta(id, added, md)
	x.S.LogStreamSetID(x.DB.ID, key, s)
	x.W.OK()
	x.Notify(evStream, "xsetid", key)
}

// xreadKeys finds the keys of XREAD and XREADGROUP: the first half of the
// arguments after STREAMS.
func xreadKeys(args [][]byte, dst []int) []int {
	start := 1
	if len(args) > 0 && len(args[0]) == len("xreadgroup") {
		start = 4
	}
	for i := start; i < len(args); i++ {
		if keyspace.EqFold(args[i], "streams") {
			n := (len(args) - i - 1) / 2
			for k := i + 1; k <= i+n; k++ {
				dst = append(dst, k)
			}
			return dst
		}
	}
	return dst
}

func registerStreamFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	c := func(name string, arity int, flags keyspace.Flag, since, summary, complexity string, h keyspace.HandlerFunc) *keyspace.Command {
		return &keyspace.Command{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Group: "stream", Since: since, Summary: summary, Complexity: complexity, Handler: h}
	}
	sub := func(name string, arity int, flags keyspace.Flag, since, summary, complexity string, h keyspace.HandlerFunc) *keyspace.Command {
		cmd := &keyspace.Command{Name: name, Arity: arity, Flags: flags, FirstKey: 2, LastKey: 2, Step: 1, Group: "stream", Since: since, Summary: summary, Complexity: complexity, Handler: h}
		if name == "help" {
			cmd.FirstKey, cmd.LastKey, cmd.Step = 0, 0, 0
		}
		return cmd
	}
	xread := withSpecs(c("xread", -4, ro|keyspace.FlagBlocking, "5.0.0", "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.", "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.", xreadCommand), []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Keyword: "STREAMS", StartFrom: 1, Find: keyspace.FindRange, LastKey: -1, KeyStep: 1, Limit: 2}}, nil)
	xreadgroup := withSpecs(c("xreadgroup", -7, rw|keyspace.FlagBlocking, "5.0.0", "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.", "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.", xreadCommand), []keyspace.KeySpec{{Flags: keyspace.KeyRO | keyspace.KeyAccess, Keyword: "STREAMS", StartFrom: 4, Find: keyspace.FindRange, LastKey: -1, KeyStep: 1, Limit: 2}}, nil)
	for _, cmd := range []*keyspace.Command{xread, xreadgroup} {
		cmd.FirstKey, cmd.LastKey, cmd.Step = 0, 0, 0
		cmd.MovableKeys = xreadKeys
	}
	const lf = keyspace.FlagLoading | keyspace.FlagStale
	t.Add(
		withSpecs(c("xadd", -5, rw|deny|fast, "5.0.0", "Appends a new entry to a stream", "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.", xaddCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}, []string{tipNondeterministic}),
		withSpecs(c("xlen", 2, ro|fast, "5.0.0", "Return the number of entries in a stream", "O(1)", xlenCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, 0, 1)}, nil),
		withSpecs(c("xrange", -4, ro, "5.0.0", "Return a range of elements in a stream, with IDs matching the specified IDs interval", "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).", xrangeCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("xrevrange", -4, ro, "5.0.0", "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE", "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).", xrangeCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		xread, xreadgroup,
		withSpecs(c("xdel", -3, rw|fast, "5.0.0", "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.", "O(1) for each single item to delete in the stream, regardless of the stream size.", xdelCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, nil),
		withSpecs(c("xtrim", -4, rw, "5.0.0", "Trims the stream to (approximately if '~' is passed) a certain size", "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.", xtrimCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, []string{tipNondeterministic}),
		withSpecs(c("xsetid", -3, rw|deny|fast, "5.0.0", "An internal command for replicating stream values", "O(1)", xsetidCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}, nil),
		withSpecs(c("xack", -4, rw|fast, "5.0.0", "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.", "O(1) for each message ID processed.", xackCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}, nil),
		withSpecs(c("xpending", -3, ro, "5.0.0", "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.", "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.", xpendingCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, []string{tipNondeterministic}),
		withSpecs(c("xclaim", -6, rw|fast, "5.0.0", "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.", "O(log N) with N being the number of messages in the PEL of the consumer group.", xclaimCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}, []string{tipNondeterministic}),
		withSpecs(c("xautoclaim", -6, rw|fast, "6.2.0", "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.", "O(1) if COUNT is small.", xautoclaimCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}, []string{tipNondeterministic}),
		&keyspace.Command{Name: "xgroup", Arity: -2, Group: "stream", Since: "5.0.0", Summary: "A container for consumer groups commands", Complexity: "Depends on subcommand.", Handler: xgroupCommand,
			Subcommands: []*keyspace.Command{
				withSpecs(sub("create", -5, rw|deny, "5.0.0", "Create a consumer group.", "O(1)", xgroupSubCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}, nil),
				withSpecs(sub("createconsumer", 5, rw|deny, "6.2.0", "Create a consumer in a consumer group.", "O(1)", xgroupSubCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 2, 0, 1)}, nil),
				withSpecs(sub("delconsumer", 5, rw, "5.0.0", "Delete a consumer from a consumer group.", "O(1)", xgroupSubCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 2, 0, 1)}, nil),
				withSpecs(sub("destroy", 4, rw, "5.0.0", "Destroy a consumer group.", "O(N) where N is the number of entries in the group's pending entries list (PEL).", xgroupSubCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 2, 0, 1)}, nil),
				sub("help", 2, lf, "5.0.0", "Show helpful text about the different subcommands", "O(1)", xgroupHelpCommand),
				withSpecs(sub("setid", -5, rw, "5.0.0", "Set a consumer group to an arbitrary last delivered ID value.", "O(1)", xgroupSubCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 2, 0, 1)}, nil),
			}},
		&keyspace.Command{Name: "xinfo", Arity: -2, Group: "stream", Since: "5.0.0", Summary: "A container for stream introspection commands", Complexity: "Depends on subcommand.", Handler: xinfoCommand,
			Subcommands: []*keyspace.Command{
				withSpecs(sub("consumers", 4, ro, "5.0.0", "List the consumers in a consumer group", "O(1)", xinfoSubCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}, []string{tipNondeterministic}),
				withSpecs(sub("groups", 3, ro, "5.0.0", "List the consumer groups of a stream", "O(1)", xinfoSubCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}, nil),
				sub("help", 2, lf, "5.0.0", "Show helpful text about the different subcommands", "O(1)", xinfoHelpCommand),
				withSpecs(sub("stream", -3, ro, "5.0.0", "Get information about a stream", "O(1)", xinfoSubCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}, nil),
			}},
	)
}
