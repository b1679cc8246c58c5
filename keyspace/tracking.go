package keyspace

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/codec"
)

// Client-side caching (CLIENT TRACKING), per shard. A tracking client and
// the keys it reads are on its connection's shard; in a multi-shard
// process it reads only keys of that shard (others are MOVED), so each
// shard's table is complete for its clients. A redirect target must be a
// client of the same shard: its invalidations are written by the shard
// that changes the key.
//
// Nothing is paid while no client of a shard tracks: the shard's state is
// nil and the command path tests one pointer.

// clientTracking is a client's tracking mode; shard goroutine only.
type clientTracking struct {
	redirect                     int64
	bcast, optin, optout, noloop bool
	// caching is CLIENT CACHING YES (OPTIN) or NO (OPTOUT) given for the
	// next command.
	caching     bool
	brokenRedir bool
	prefixes    []string
}

// shardTracking is a shard's tracking tables.
type shardTracking struct {
	clients map[int64]*Client
	// keys maps a key read by default-mode clients to their ids.
	keys map[string]map[int64]struct{}
	// prefixes maps a BCAST prefix to its clients.
	prefixes map[string][]*Client
	// dirty is the keys changed since the last process, with the client
	// that changed them (nil for expiry).
	dirty []dirtyKey
}

type dirtyKey struct {
	key string
	by  *Client
}

// trackingMessage is the channel RESP2 redirect targets receive
// invalidations on.
const trackingChannel = "__redis__:invalidate"

// lookupClient returns the open client with id, or nil.
func (r *clientRegistry) lookupClient(id int64) *Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clients[id]
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
func clientTrackingCommand(x *Ctx) {
	var redir int64
	var bcast, optin, optout, noloop bool
	var prefixes []string
	args := x.Args
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case eqFold(args[j], "redirect") && more:
			j++
			if redir != 0 {
				x.W.Error("ERR A client can only redirect to a single other client")
				return
			}
			n, ok := parseInt(args[j])
			if !ok {
				x.W.Error(errNotInt)
				return
			}
			t := x.S.srv.clients.lookupClient(n)
			if t == nil {
				x.W.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			if t.Shard != x.C.Shard {
				x.W.Error("ERR The client ID you want redirect to is connected to another shard; redirect to a client of the same port")
				return
			}
			redir = n
		case eqFold(args[j], "bcast"):
			bcast = true
		case eqFold(args[j], "optin"):
			optin = true
		case eqFold(args[j], "optout"):
			optout = true
		case eqFold(args[j], "noloop"):
			noloop = true
		case eqFold(args[j], "prefix") && more:
			j++
			prefixes = append(prefixes, string(args[j]))
		default:
			x.W.Error(errSyntax)
			return
		}
	}
	c := x.C
	switch {
	case eqFold(args[2], "on"):
		if !bcast && len(prefixes) > 0 {
			x.W.Error("ERR PREFIX option requires BCAST mode to be enabled")
			return
		}
		if c.trk != nil && c.trk.bcast != bcast {
			x.W.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if bcast && (optin || optout) {
			x.W.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
			return
		}
		if optin && optout {
			x.W.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
			return
		}
		if c.trk != nil && (optin && c.trk.optout || optout && c.trk.optin) {
			x.W.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		}
		if bcast {
			if msg := prefixCollision(c.trk, prefixes); msg != "" {
				x.W.Error(msg)
				return
			}
		}
		x.S.trackOn(c, clientTracking{redirect: redir, bcast: bcast, optin: optin, optout: optout, noloop: noloop}, prefixes)
	case eqFold(args[2], "off"):
		x.S.trackOff(c)
	default:
		x.W.Error(errSyntax)
		return
	}
	x.W.OK()
}

// prefixCollision returns Redis's error when a new prefix is a prefix of
// another one, of the client's or of the new ones.
func prefixCollision(cur *clientTracking, prefixes []string) string {
	overlap := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	for i, p := range prefixes {
		if cur != nil {
			for _, q := range cur.prefixes {
				if p != q && overlap(p, q) {
					return "ERR Prefix '" + p + "' overlaps with an existing prefix '" + q + "'. Prefixes for a single client must not overlap."
				}
			}
		}
		for j := i + 1; j < len(prefixes); j++ {
			if p != prefixes[j] && overlap(p, prefixes[j]) {
				return "ERR Prefix '" + p + "' overlaps with another provided prefix '" + prefixes[j] + "'. Prefixes for a single client must not overlap."
			}
		}
	}
	return ""
}

// trackOn enables tracking for c, or changes its options.
func (sh *Shard) trackOn(c *Client, opts clientTracking, prefixes []string) {
	t := sh.trk
	if t == nil {
		t = &shardTracking{clients: map[int64]*Client{}, keys: map[string]map[int64]struct{}{}, prefixes: map[string][]*Client{}}
		sh.trk = t
	}
	if c.trk == nil {
		c.trk = &clientTracking{}
	}
	ct := c.trk
	ct.redirect, ct.bcast, ct.optin, ct.optout, ct.noloop = opts.redirect, opts.bcast, opts.optin, opts.optout, opts.noloop
	ct.brokenRedir = false
	t.clients[c.ID] = c
	if ct.bcast {
		if len(prefixes) == 0 && len(ct.prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			if slices.Contains(ct.prefixes, p) {
				continue
			}
			ct.prefixes = append(ct.prefixes, p)
			t.prefixes[p] = append(t.prefixes[p], c)
		}
	}
}

// trackOff disables tracking for c. Its keys stay in the table until they
// change; a client no longer tracking is skipped then.
func (sh *Shard) trackOff(c *Client) {
	if c.trk == nil {
		return
	}
	if t := sh.trk; t != nil {
		delete(t.clients, c.ID)
		for _, p := range c.trk.prefixes {
			t.removePrefixClient(p, c)
		}
	}
	c.trk = nil
}

func (t *shardTracking) removePrefixClient(p string, c *Client) {
	list := t.prefixes[p]
	if i := slices.Index(list, c); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(t.prefixes, p)
	} else {
		t.prefixes[p] = list
	}
}

// CLIENT CACHING YES|NO
func clientCachingCommand(x *Ctx) {
	ct := x.C.trk
	if ct == nil {
		x.W.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch {
	case eqFold(x.Args[2], "yes"):
		if !ct.optin {
			x.W.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case eqFold(x.Args[2], "no"):
		if !ct.optout {
			x.W.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		x.W.Error(errSyntax)
		return
	}
	ct.caching = true
	x.W.OK()
}

// CLIENT GETREDIR
func clientGetredirCommand(x *Ctx) {
	if x.C.trk == nil {
		x.W.Int(-1)
		return
	}
	x.W.Int(x.C.trk.redirect)
}

// CLIENT TRACKINGINFO
func clientTrackinginfoCommand(x *Ctx) {
	ct := x.C.trk
	flags := []string{"off"}
	redir := int64(-1)
	var prefixes []string
	if ct != nil {
		flags[0] = "on"
		if ct.bcast {
			flags = append(flags, "bcast")
		}
		if ct.optin {
			flags = append(flags, "optin")
			if ct.caching {
				flags = append(flags, "caching-yes")
			}
		}
		if ct.optout {
			flags = append(flags, "optout")
			if ct.caching {
				flags = append(flags, "caching-no")
			}
		}
		if ct.noloop {
			flags = append(flags, "noloop")
		}
		if ct.brokenRedir {
			flags = append(flags, "broken_redirect")
		}
		redir = ct.redirect
		prefixes = slices.Clone(ct.prefixes)
		slices.Sort(prefixes)
	}
	w := x.W
	w.MapHeader(3)
	w.BulkString("flags")
	w.SetHeader(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("redirect")
	w.Int(redir)
	w.BulkString("prefixes")
	w.BulkStrings(prefixes)
}

// trackAfter runs after each command while some client of the shard
// tracks: it marks the keys a write changed, remembers those a tracking
// client read, and sends the invalidations due.
func (sh *Shard) trackAfter(x *Ctx, cmd *Command, args [][]byte, before int) {
	t := sh.trk
	c := x.C
	w := x.W
	ok := len(w.Buf) <= before || w.Buf[before] != '-'
	// A command that just blocked wrote nothing yet: its keys are
	// invalidated when it is served (serveReady).
	parked := c.blk != nil && c.blk.batch == nil
	if ok && !parked && cmd.Flags&FlagWrite != 0 {
		switch cmd.Name {
		case "flushdb", "flushall":
			sh.trackFlush()
		default:
			sh.keyIdx = cmd.keyIndexes(args, sh.keyIdx[:0])
			for _, i := range sh.keyIdx {
				t.dirty = append(t.dirty, dirtyKey{key: string(args[i]), by: c})
			}
		}
	}
	if ct := c.trk; ct != nil {
		if ok && cmd.Flags&FlagReadOnly != 0 && !ct.bcast && !(ct.optin && !ct.caching) && !(ct.optout && ct.caching) {
			sh.keyIdx = cmd.keyIndexes(args, sh.keyIdx[:0])
			for _, i := range sh.keyIdx {
				k := string(args[i])
				ids := t.keys[k]
				if ids == nil {
					ids = map[int64]struct{}{}
					t.keys[k] = ids
				}
				ids[c.ID] = struct{}{}
			}
		}
		// CLIENT CACHING covers the next command, or the whole of a
		// transaction it precedes (cleared after EXEC), as in Redis.
		if cmd.Name != "client" && !c.tx.multi {
			ct.caching = false
		}
	}
	sh.trackProcess()
	sh.trackLimit()
}

// trackRemoved notes a key deleted by expiry or eviction, which no
// command names; trackProcess sends its invalidations.
func (sh *Shard) trackRemoved(key string) {
	sh.trk.dirty = append(sh.trk.dirty, dirtyKey{key: key})
}

// trackProcess sends the invalidations for the dirty keys.
func (sh *Shard) trackProcess() {
	t := sh.trk
	if len(t.dirty) == 0 {
		return
	}
	var bcast map[*Client][]string
	for _, d := range t.dirty {
		if ids, ok := t.keys[d.key]; ok {
			delete(t.keys, d.key)
			for id := range ids {
				tc := t.clients[id]
				if tc == nil || tc.trk == nil || tc.trk.bcast || tc.trk.noloop && tc == d.by {
					continue
				}
				sh.sendInvalidate(tc, []string{d.key})
			}
		}
		for p, list := range t.prefixes {
			if !strings.HasPrefix(d.key, p) {
				continue
			}
			for _, tc := range list {
				if tc.trk.noloop && tc == d.by {
					continue
				}
				if bcast == nil {
					bcast = map[*Client][]string{}
				}
				if keys := bcast[tc]; !slices.Contains(keys, d.key) {
					bcast[tc] = append(keys, d.key)
				}
			}
		}
	}
	t.dirty = t.dirty[:0]
	for tc, keys := range bcast {
		sh.sendInvalidate(tc, keys)
	}
}

// trackFlush sends every tracking client a null invalidation (FLUSHDB,
// FLUSHALL) and forgets the remembered keys.
func (sh *Shard) trackFlush() {
	t := sh.trk
	clear(t.keys)
	for _, tc := range t.clients {
		sh.sendInvalidate(tc, nil)
	}
}

// trackLimit applies tracking-table-max-keys: keys over it are forgotten
// and their clients told to drop them.
func (sh *Shard) trackLimit() {
	t := sh.trk
	if len(t.keys) == 0 {
		return
	}
	v, _ := sh.srv.opts.Live.Value("tracking-table-max-keys")
	limit, err := strconv.Atoi(v)
	if err != nil || limit <= 0 || len(t.keys) <= limit {
		return
	}
	for k := range t.keys {
		if len(t.keys) <= limit {
			break
		}
		t.dirty = append(t.dirty, dirtyKey{key: k})
		sh.trackProcess()
	}
}

// sendInvalidate tells tc (or its redirect target) to drop keys; nil
// keys means every key (a flush).
func (sh *Shard) sendInvalidate(tc *Client, keys []string) {
	if tc.isClosed() {
		sh.trackOff(tc)
		return
	}
	ct := tc.trk
	target := tc
	if ct.redirect != 0 {
		target = sh.srv.clients.lookupClient(ct.redirect)
		if target == nil || target.isClosed() {
			ct.brokenRedir = true
			if tc.Proto >= 3 {
				w := codec.Writer{Proto: 3}
				w.PushHeader(2)
				w.BulkString("tracking-redir-broken")
				w.Int(ct.redirect)
				sh.deliver(tc, w.Buf)
			}
			return
		}
	}
	w := codec.Writer{Proto: target.Proto}
	switch {
	case target.Proto >= 3:
		w.PushHeader(2)
		w.BulkString("invalidate")
	case ct.redirect != 0 && target.subCount.Load() != 0:
		w.ArrayHeader(3)
		w.BulkString("message")
		w.BulkString(trackingChannel)
	default:
		// RESP2 without a subscribed redirect target: no way to tell.
		return
	}
	if keys == nil {
		w.Null()
	} else {
		w.BulkStrings(keys)
	}
	sh.deliver(target, w.Buf)
}

// trackSweep drops closed clients from the tables and the state itself
// once nobody tracks, so that the command path pays nothing again.
func (sh *Shard) trackSweep() {
	t := sh.trk
	for _, c := range t.clients {
		if c.isClosed() {
			sh.trackOff(c)
		}
	}
	if len(t.clients) == 0 && len(t.dirty) == 0 {
		sh.trk = nil
	}
}

// trackingStats is what INFO reports of the shard's tracking tables.
type trackingStats struct {
	clients, keys, items, prefixes int64
}

// trackingInfo counts the shard's tracking tables (INFO reports the shard
// it runs on, like every keyless command). Shard goroutine only.
func (sh *Shard) trackingInfo() trackingStats {
	t := sh.trk
	if t == nil {
		return trackingStats{}
	}
	st := trackingStats{keys: int64(len(t.keys)), prefixes: int64(len(t.prefixes))}
	for _, c := range t.clients {
		if !c.isClosed() {
			st.clients++
		}
	}
	for _, ids := range t.keys {
		st.items += int64(len(ids))
	}
	return st
}
