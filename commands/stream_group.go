package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"strconv"

	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/stream"
)

// The consumer-group half of the stream family: XGROUP, XACK, XPENDING,
// XCLAIM, XAUTOCLAIM, and XINFO (stream.go has the rest and the command
// table entries).

// consumerFor returns the consumer called name in g, seen now, creating
// it (with its event) when absent; created reports a creation.
func consumerFor(x *keyspace.Ctx, key []byte, g *stream.Group, name []byte) (c *stream.Consumer, created bool) {
	now := x.S.NowMs
	if c = g.Consumer(name); c != nil {
		c.SeenTime = now
		return c, false
	}
	c = g.CreateConsumer(name, now)
	x.Notify(evStream, "xgroup-createconsumer", key)
	return c, true
}

// XGROUP <subcommand> ...
func xgroupCommand(x *keyspace.Ctx) { streamContainer(x, "XGROUP") }

// XINFO <subcommand> ...
func xinfoCommand(x *keyspace.Ctx) { streamContainer(x, "XINFO") }

// streamContainer dispatches a subcommand of XGROUP or XINFO, doing for
// the subcommand's keys and flags what the dispatcher did for the
// container.
func streamContainer(x *keyspace.Ctx, container string) {
	sub := x.Cmd.Sub(x.Args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + keyspace.TruncArg(x.Args[1]) + "'. Try " + container + " HELP.")
		return
	}
	if !keyspace.ArityOK(sub.Arity, len(x.Args)) {
		x.W.Error(keyspace.ErrWrongArgs(sub.FullName()))
		return
	}
	if sub.FirstKey > 0 && x.S.Srv.Shards() > 1 && !x.S.CheckSlotsOrReply(x, sub, x.Args) {
		return
	}
	if sub.Flags&keyspace.FlagWrite != 0 {
		if j := x.S.Journal; j != nil {
			if err := j.Err(); err != nil {
				x.W.Error("MISCONF Errors writing to the write-ahead log of shard " + strconv.Itoa(x.S.Idx) + ": " + err.Error() + ". Writes are refused until an operator restarts the server")
				return
			}
		}
		if x.S.Snap != nil {
			x.S.SnapshotTouch(x.DB, x.Args[2])
		}
	}
	x.Cmd = sub
	sub.Handler(x)
}

// subcommandSyntaxError is Redis's reply to bad arguments of a subcommand.
func subcommandSyntaxError(x *keyspace.Ctx, container string) {
	x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + keyspace.TruncArg(x.Args[1]) + "'. Try " + container + " HELP.")
}

// XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER key group ...
func xgroupSubCommand(x *keyspace.Ctx) {
	args := x.Args
	sub := x.Cmd.Name
	create, setid := sub == "create", sub == "setid"
	mkstream := false
	entriesRead := int64(stream.InvalidEntriesRead)
	for i := 5; i < len(args); {
		switch {
		case create && keyspace.EqFold(args[i], "mkstream"):
			mkstream = true
			i++
		case (create || setid) && keyspace.EqFold(args[i], "entriesread") && i+1 < len(args):
			n, ok := keyspace.ParseInt(args[i+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			if n < 0 && n != stream.InvalidEntriesRead {
				x.W.Error("ERR value for ENTRIESREAD must be positive or -1")
				return
			}
			entriesRead = n
			i += 2
		default:
			subcommandSyntaxError(x, "XGROUP")
			return
		}
	}
	key, gname := args[2], args[3]
	e, o, ok := lookupStream(x, key, false)
	if !ok {
		return
	}
	var g *stream.Group
	if !mkstream {
		if e == nil {
			x.W.Error(errXGroupNoKey)
			return
		}
		if g = o.S.Group(gname); g == nil && sub != "create" && sub != "destroy" {
			x.W.Error("NOGROUP No such consumer group '" + string(gname) + "' for key name '" + string(key) + "'")
			return
		}
	}
	db := x.DB.ID
	switch {
	case create && len(args) <= 8:
		var id stream.ID
		if len(args[4]) == 1 && args[4][0] == '$' {
			if o != nil {
				id = o.S.LastID()
			}
		} else if id, ok = parseStreamIDOrReply(x, args[4], 0, true); !ok {
			return
		}
		if e == nil {
			o = &keyspace.StreamObj{S: stream.New()}
			x.DB.Add(key, nil, o, 0)
			x.Notify(keyspace.EvNew, "new", key)
		}
		g = o.S.CreateGroup(gname, id, entriesRead)
		if g == nil {
			x.W.Error("BUSYGROUP Consumer Group name already exists")
			return
		}
		x.S.LogStreamGroup(db, persistence.OpStreamGroupCreate, key, g)
		x.W.OK()
		x.Notify(evStream, "xgroup-create", key)
	case setid && (len(args) == 5 || len(args) == 7):
		var id stream.ID
		if len(args[4]) == 1 && args[4][0] == '$' {
			id = o.S.LastID()
		} else if id, ok = parseStreamIDOrReply(x, args[4], 0, false); !ok {
			return
		}
		g.SetLastID(id, entriesRead)
		x.S.LogStreamGroup(db, persistence.OpStreamGroupSetID, key, g)
		x.W.OK()
		x.Notify(evStream, "xgroup-setid", key)
	case sub == "destroy" && len(args) == 4:
		if g == nil {
			x.W.Int(0)
			return
		}
		o.S.DestroyGroup(gname)
		x.S.LogStreamNames(db, persistence.OpStreamGroupDestroy, key, 0, gname)
		x.W.Int(1)
		x.Notify(evStream, "xgroup-destroy", key)
	case sub == "createconsumer" && len(args) == 5:
		if g.Consumer(args[4]) != nil {
			x.W.Int(0)
			return
		}
		c := g.CreateConsumer(args[4], x.S.NowMs)
		x.S.LogStreamNames(db, persistence.OpStreamConsumerCreate, key, c.SeenTime, gname, args[4])
		x.W.Int(1)
		x.Notify(evStream, "xgroup-createconsumer", key)
	case sub == "delconsumer" && len(args) == 5:
		pending, found := g.DeleteConsumer(args[4])
		if found {
			x.S.LogStreamNames(db, persistence.OpStreamConsumerDel, key, 0, gname, args[4])
			x.Notify(evStream, "xgroup-delconsumer", key)
		}
		x.W.Int(int64(pending))
	default:
		subcommandSyntaxError(x, "XGROUP")
	}
}

// XGROUP HELP
func xgroupHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "XGROUP",
		"CREATE <key> <groupname> <id|$> [option]",
		"    Create a new consumer group. Options are:",
		"    * MKSTREAM",
		"      Create the empty stream if it does not exist.",
		"    * ENTRIESREAD entries_read",
		"      Set the group's entries_read counter (internal use).",
		"CREATECONSUMER <key> <groupname> <consumer>",
		"    Create a new consumer in the specified group.",
		"DELCONSUMER <key> <groupname> <consumer>",
		"    Remove the specified consumer.",
		"DESTROY <key> <groupname>",
		"    Remove the specified group.",
		"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
		"    Set the current group ID and entries_read counter.",
	)
}

// XACK key group id [id ...]
func xackCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	_, o, ok := lookupStream(x, key, true)
	if !ok {
		return
	}
	var g *stream.Group
	if o != nil {
		g = o.S.Group(x.Args[2])
	}
	if g == nil {
		x.W.Int(0)
		return
	}
	ids := make([]stream.ID, 0, len(x.Args)-3)
	for _, a := range x.Args[3:] {
		id, ok := parseStreamIDOrReply(x, a, 0, true)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	acked := ids[:0]
	for _, id := range ids {
		if g.Ack(id) {
			acked = append(acked, id)
		}
	}
	if len(acked) > 0 {
		x.S.LogStreamIDs(x.DB.ID, persistence.OpStreamAck, key, x.Args[2], acked)
	}
	x.W.Int(int64(len(acked)))
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
func xpendingCommand(x *keyspace.Ctx) {
	args := x.Args
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	var start, end stream.ID
	var count, minIdle int64
	var consumer []byte
	if len(args) >= 6 {
		at := 3
		if keyspace.EqFold(args[3], "idle") {
			n, ok := keyspace.ParseInt(args[4])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			minIdle = n
			if len(args) < 8 {
				x.W.Error(keyspace.ErrSyntax)
				return
			}
			at += 2
		}
		n, ok := keyspace.ParseInt(args[at+2])
		if !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
		count = max(n, 0)
		if start, ok = parseIntervalIDOrReply(x, args[at], 0, false); !ok {
			return
		}
		if end, ok = parseIntervalIDOrReply(x, args[at+1], math.MaxUint64, true); !ok {
			return
		}
		if at+3 < len(args) {
			consumer = args[at+3]
		}
	}
	_, g, ok := lookupGroupOrReply(x, args[1], args[2])
	if !ok {
		return
	}
	w := x.W
	if len(args) == 3 {
		w.ArrayHeader(4)
		w.Int(int64(g.PendingCount()))
		if g.PendingCount() == 0 {
			w.Null()
			w.Null()
			w.NullArray()
			return
		}
		g.Pending(stream.MinID, stream.MaxID, func(p *stream.Pending) bool { writeStreamID(w, p.ID); return false })
		g.PendingRev(stream.MinID, stream.MaxID, func(p *stream.Pending) bool { writeStreamID(w, p.ID); return false })
		var cs []*stream.Consumer
		for _, c := range g.Consumers() {
			if c.PendingCount() > 0 {
				cs = append(cs, c)
			}
		}
		w.ArrayHeader(len(cs))
		for _, c := range cs {
			w.ArrayHeader(2)
			w.BulkString(c.Name)
			w.BulkInt(int64(c.PendingCount()))
		}
		return
	}
	now := x.S.NowMs
	var out []*stream.Pending
	visit := func(p *stream.Pending) bool {
		if int64(len(out)) >= count {
			return false
		}
		if minIdle != 0 && now-p.DeliveryTime < minIdle {
			return true
		}
		out = append(out, p)
		return true
	}
	if consumer != nil {
		c := g.Consumer(consumer)
		if c == nil {
			w.ArrayHeader(0)
			return
		}
		if count > 0 {
			c.Pending(start, end, visit)
		}
	} else if count > 0 {
		g.Pending(start, end, visit)
	}
	w.ArrayHeader(len(out))
	for _, p := range out {
		w.ArrayHeader(4)
		writeStreamID(w, p.ID)
		w.BulkString(p.Consumer.Name)
		w.Int(max(now-p.DeliveryTime, 0))
		w.Int(int64(p.DeliveryCount))
	}
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id]
func xclaimCommand(x *keyspace.Ctx) {
	args := x.Args
	key, gname := args[1], args[2]
	o, g, ok := lookupGroupOrReply(x, key, gname)
	if !ok {
		return
	}
	minIdle, ok := parseIntOrReply(x, args[4], "ERR Invalid min-idle-time argument for XCLAIM")
	if !ok {
		return
	}
	minIdle = max(minIdle, 0)
	var ids []stream.ID
	j := 5
	for ; j < len(args); j++ {
		id, _, ok := stream.ParseID(args[j], 0, false)
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	now := x.S.NowMs
	retry := int64(-1)
	deliveryTime := int64(-1)
	force, justID := false, false
	var lastID stream.ID
	for ; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := args[j]
		switch {
		case keyspace.EqFold(opt, "force"):
			force = true
		case keyspace.EqFold(opt, "justid"):
			justID = true
		case keyspace.EqFold(opt, "idle") && more > 0:
			j++
			n, ok := parseIntOrReply(x, args[j], "ERR Invalid IDLE option argument for XCLAIM")
			if !ok {
				return
			}
			deliveryTime = now - n
		case keyspace.EqFold(opt, "time") && more > 0:
			j++
			n, ok := parseIntOrReply(x, args[j], "ERR Invalid TIME option argument for XCLAIM")
			if !ok {
				return
			}
			deliveryTime = n
		case keyspace.EqFold(opt, "retrycount") && more > 0:
			j++
			n, ok := parseIntOrReply(x, args[j], "ERR Invalid RETRYCOUNT option argument for XCLAIM")
			if !ok {
				return
			}
			retry = n
		case keyspace.EqFold(opt, "lastid") && more > 0:
			j++
			if lastID, ok = parseStreamIDOrReply(x, args[j], 0, true); !ok {
				return
			}
		default:
			x.W.Error("ERR Unrecognized XCLAIM option '" + string(opt) + "'")
			return
		}
	}
	db := x.DB.ID
	unit := shardBeginStreamUnit(x.S)
	if g.LastID.Less(lastID) {
		g.LastID = lastID
		x.S.LogStreamGroup(db, persistence.OpStreamGroupSetID, key, g)
	}
	if deliveryTime == -1 || deliveryTime < 0 || deliveryTime > now {
		deliveryTime = now
	}
	var c *stream.Consumer
	var claimed, gone []stream.ID
	var es []stream.Entry
	for _, id := range ids {
		p := g.PendingEntry(id)
		e, exists := o.S.Get(id)
		if !exists {
			if p != nil {
				g.Ack(id)
				gone = append(gone, id)
			}
			continue
		}
		fresh := false
		if p == nil {
			if !force {
				continue
			}
			fresh = true
		}
		if !fresh && minIdle > 0 && now-p.DeliveryTime < minIdle {
			continue
		}
		if c == nil {
			var created bool
			if c, created = consumerFor(x, key, g, args[3]); created {
				x.S.LogStreamNames(db, persistence.OpStreamConsumerCreate, key, now, gname, args[3])
			}
		}
		var dc uint64
		if !fresh {
			dc = p.DeliveryCount
		}
		switch {
		case retry >= 0:
			dc = uint64(retry)
		case !justID:
			dc++
		}
		g.SetPending(id, c, deliveryTime, dc)
		claimed = append(claimed, id)
		es = append(es, e)
	}
	if len(gone) > 0 {
		x.S.LogStreamIDs(db, persistence.OpStreamAck, key, gname, gone)
	}
	if c != nil {
		x.S.LogStreamClaim(db, key, g, c, claimed)
	}
	if unit {
		x.S.EndUnit()
	}
	w := x.W
	w.ArrayHeader(len(claimed))
	for k, id := range claimed {
		if justID {
			writeStreamID(w, id)
		} else {
			writeStreamEntry(w, es[k])
		}
	}
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
func xautoclaimCommand(x *keyspace.Ctx) {
	args := x.Args
	key, gname := args[1], args[2]
	minIdle, ok := parseIntOrReply(x, args[4], "ERR Invalid min-idle-time argument for XAUTOCLAIM")
	if !ok {
		return
	}
	minIdle = max(minIdle, 0)
	start, ok := parseIntervalIDOrReply(x, args[5], 0, false)
	if !ok {
		return
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case keyspace.EqFold(args[j], "count") && more > 0:
			n, ok := parseRangeLongOrReply(x, args[j+1], 1, math.MaxInt64/16, "ERR COUNT must be > 0")
			if !ok {
				return
			}
			count = n
			j++
		case keyspace.EqFold(args[j], "justid"):
			justID = true
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	o, g, ok := lookupGroupOrReply(x, key, gname)
	if !ok {
		return
	}
	now := x.S.NowMs
	attempts := count * 10
	var claim, gone []stream.ID
	next := stream.ID{}
	stopped := false
	g.Pending(start, stream.MaxID, func(p *stream.Pending) bool {
		if stopped {
			next = p.ID
			return false
		}
		if attempts == 0 || count == 0 {
			next = p.ID
			return false
		}
		attempts--
		if _, exists := o.S.Get(p.ID); !exists {
			gone = append(gone, p.ID)
			count--
			return true
		}
		if minIdle > 0 && now-p.DeliveryTime < minIdle {
			return true
		}
		claim = append(claim, p.ID)
		count--
		return true
	})
	db := x.DB.ID
	unit := shardBeginStreamUnit(x.S)
	for _, id := range gone {
		g.Ack(id)
	}
	if len(gone) > 0 {
		x.S.LogStreamIDs(db, persistence.OpStreamAck, key, gname, gone)
	}
	var c *stream.Consumer
	if len(claim) > 0 {
		var created bool
		if c, created = consumerFor(x, key, g, args[3]); created {
			x.S.LogStreamNames(db, persistence.OpStreamConsumerCreate, key, now, gname, args[3])
		}
		for _, id := range claim {
			p := g.PendingEntry(id)
			dc := p.DeliveryCount
			if !justID {
				dc++
			}
			g.SetPending(id, c, now, dc)
		}
		x.S.LogStreamClaim(db, key, g, c, claim)
	}
	if unit {
		x.S.EndUnit()
	}
	w := x.W
	w.ArrayHeader(3)
	writeStreamID(w, next)
	w.ArrayHeader(len(claim))
	for _, id := range claim {
		if justID {
			writeStreamID(w, id)
			continue
		}
		e, _ := o.S.Get(id)
		writeStreamEntry(w, e)
	}
	w.ArrayHeader(len(gone))
	for _, id := range gone {
		writeStreamID(w, id)
	}
}

// XINFO STREAM|GROUPS|CONSUMERS key ...
func xinfoSubCommand(x *keyspace.Ctx) {
	args := x.Args
	key := args[2]
	_, o, ok := lookupStream(x, key, true)
	if !ok {
		return
	}
	if o == nil {
		x.W.Error(keyspace.ErrNoSuchKey)
		return
	}
	s := o.S
	w := x.W
	now := x.S.NowMs
	switch x.Cmd.Name {
	case "consumers":
		g := s.Group(args[3])
		if g == nil {
			x.W.Error("NOGROUP No such consumer group '" + string(args[3]) + "' for key name '" + string(key) + "'")
			return
		}
		cs := g.Consumers()
		w.ArrayHeader(len(cs))
		for _, c := range cs {
			w.MapHeader(3)
			w.BulkString("name")
			w.BulkString(c.Name)
			w.BulkString("pending")
			w.Int(int64(c.PendingCount()))
			w.BulkString("idle")
			w.Int(max(now-c.SeenTime, 0))
		}
	case "groups":
		gs := s.Groups()
		w.ArrayHeader(len(gs))
		for _, g := range gs {
			w.MapHeader(6)
			w.BulkString("name")
			w.BulkString(g.Name)
			w.BulkString("consumers")
			w.Int(int64(g.NumConsumers()))
			w.BulkString("pending")
			w.Int(int64(g.PendingCount()))
			w.BulkString("last-delivered-id")
			writeStreamID(w, g.LastID)
			writeGroupCounters(w, s, g)
		}
	case "stream":
		xinfoStream(x, s)
	}
}

// writeGroupCounters replies a group's entries-read and lag (null when
// unknown).
func writeGroupCounters(w *codec.Writer, s *stream.Stream, g *stream.Group) {
	w.BulkString("entries-read")
	if g.EntriesRead != stream.InvalidEntriesRead {
		w.Int(g.EntriesRead)
	} else {
		w.Null()
	}
	w.BulkString("lag")
	if lag, ok := s.Lag(g); ok {
		w.Int(lag)
	} else {
		w.Null()
	}
}

// xinfoStream replies XINFO STREAM key [FULL [COUNT count]]. While DELAY
// holds entries of the stream, the map ends with held-entries, their count;
// otherwise the reply is Redis's field for field.
func xinfoStream(x *keyspace.Ctx, s *stream.Stream) {
	opts := x.Args[3:]
	full := len(opts) > 0
	count := int64(10)
	if full {
		if (len(opts) != 1 && len(opts) != 3) || !keyspace.EqFold(opts[0], "full") || (len(opts) == 3 && !keyspace.EqFold(opts[1], "count")) {
			subcommandSyntaxError(x, "XINFO")
			return
		}
		if len(opts) == 3 {
			n, ok := keyspace.ParseInt(opts[2])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return
			}
			if n < 0 {
				n = 10
			}
			count = n
		}
	}
	w := x.W
	held := s.HeldCount(x.S.NowMs)
	fields := 10
	if full {
		fields = 9
	}
	if held > 0 {
		fields++
	}
	w.MapHeader(fields)
	w.BulkString("length")
	w.Int(s.Len())
	w.BulkString("radix-tree-keys")
	w.Int(int64(s.Nodes()))
	w.BulkString("radix-tree-nodes")
	w.Int(int64(s.Nodes()))
	w.BulkString("last-generated-id")
	writeStreamID(w, s.LastID())
	w.BulkString("max-deleted-entry-id")
	writeStreamID(w, s.MaxDeletedID())
	w.BulkString("entries-added")
	w.Int(int64(s.EntriesAdded()))
	w.BulkString("recorded-first-entry-id")
	writeStreamID(w, s.FirstID())
	if !full {
		w.BulkString("groups")
		w.Int(int64(s.NumGroups()))
		w.BulkString("first-entry")
		writeEdgeEntry(w, s, false)
		w.BulkString("last-entry")
		writeEdgeEntry(w, s, true)
	} else {
		w.BulkString("entries")
		var es []stream.Entry
		s.Range(stream.MinID, stream.MaxID, false, func(e stream.Entry) bool {
			es = append(es, e)
			return count == 0 || int64(len(es)) < count
		})
		writeStreamEntries(w, es)
		w.BulkString("groups")
		gs := s.Groups()
		w.ArrayHeader(len(gs))
		for _, g := range gs {
			w.MapHeader(7)
			w.BulkString("name")
			w.BulkString(g.Name)
			w.BulkString("last-delivered-id")
			writeStreamID(w, g.LastID)
			writeGroupCounters(w, s, g)
			w.BulkString("pel-count")
			w.Int(int64(g.PendingCount()))
			w.BulkString("pending")
			var ps []*stream.Pending
			g.Pending(stream.MinID, stream.MaxID, func(p *stream.Pending) bool {
				ps = append(ps, p)
				return count == 0 || int64(len(ps)) < count
			})
			w.ArrayHeader(len(ps))
			for _, p := range ps {
				w.ArrayHeader(4)
				writeStreamID(w, p.ID)
				w.BulkString(p.Consumer.Name)
				w.Int(p.DeliveryTime)
				w.Int(int64(p.DeliveryCount))
			}
			w.BulkString("consumers")
			cs := g.Consumers()
			w.ArrayHeader(len(cs))
			for _, c := range cs {
				w.MapHeader(4)
				w.BulkString("name")
				w.BulkString(c.Name)
				w.BulkString("seen-time")
				w.Int(c.SeenTime)
				w.BulkString("pel-count")
				w.Int(int64(c.PendingCount()))
				w.BulkString("pending")
				ps = ps[:0]
				c.Pending(stream.MinID, stream.MaxID, func(p *stream.Pending) bool {
					ps = append(ps, p)
					return count == 0 || int64(len(ps)) < count
				})
				w.ArrayHeader(len(ps))
				for _, p := range ps {
					w.ArrayHeader(3)
					writeStreamID(w, p.ID)
					w.Int(p.DeliveryTime)
					w.Int(int64(p.DeliveryCount))
				}
			}
		}
	}
	if held > 0 {
		w.BulkString("held-entries")
		w.Int(int64(held))
	}
}

// writeEdgeEntry replies the first (or last) entry, or null.
func writeEdgeEntry(w *codec.Writer, s *stream.Stream, last bool) {
	found := false
	s.Range(stream.MinID, stream.MaxID, last, func(e stream.Entry) bool {
		writeStreamEntry(w, e)
		found = true
		return false
	})
	if !found {
		w.Null()
	}
}

// XINFO HELP
func xinfoHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "XINFO",
		"CONSUMERS <key> <groupname>",
		"    Show consumers of <groupname>.",
		"GROUPS <key>",
		"    Show the stream consumer groups.",
		"STREAM <key> [FULL [COUNT <count>]",
		"    Show information about the stream.",
	)
}

// lookupGroupOrReply returns the stream at key (a read lookup) and its consumer
// group gname, replying NOGROUP when either is missing and WRONGTYPE when
// key holds another type; ok is false after a reply.
func lookupGroupOrReply(x *keyspace.Ctx, key, gname []byte) (*keyspace.StreamObj, *stream.Group, bool) {
	_, o, ok := lookupStream(x, key, true)
	if !ok {
		return nil, nil, false
	}
	var g *stream.Group
	if o != nil {
		g = o.S.Group(gname)
	}
	if g == nil {
		x.W.Error(noGroupError(key, gname))
		return nil, nil, false
	}
	return o, g, true
}
