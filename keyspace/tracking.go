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
	// keys maps a key read by default-mode clients to their ids; items
	// counts the (key, client) pairs.
	keys  map[string]map[int64]struct{}
	items int64
	// prefixes maps a BCAST prefix to its clients and the keys changed
	// under it since the last broadcast; pending is set when any has keys.
	prefixes map[string]*bcastPrefix
	pending  bool
	// self holds the invalidation frames for the client whose command is
	// running, sent after the reply of its outermost command.
	self   []byte
	selfTo *Client
}

// bcastPrefix is one BCAST prefix: its clients and the keys changed under
// it, each with the client that changed it last (nil: expiry, eviction).
type bcastPrefix struct {
	clients []*Client
	keys    map[string]*Client
}

// CLIENT LIST flags of a tracking client (Client.trkFlags).
const (
	trackFlagOn          = 1 << iota // t: tracking
	trackFlagBrokenRedir             // R: the redirect target is gone
	trackFlagBcast                   // B: BCAST mode
)

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
	if c.isClosed() {
		return // gone: its shard has released it, or will
	}
	t := sh.trk
	if t == nil {
		t = &shardTracking{clients: map[int64]*Client{}, keys: map[string]map[int64]struct{}{}, prefixes: map[string]*bcastPrefix{}}
		sh.trk = t
	}
	if c.trk == nil {
		c.trk = &clientTracking{}
	}
	ct := c.trk
	ct.redirect, ct.bcast, ct.optin, ct.optout, ct.noloop = opts.redirect, opts.bcast, opts.optin, opts.optout, opts.noloop
	ct.brokenRedir = false
	t.clients[c.ID] = c
	flags := int32(trackFlagOn)
	if ct.bcast {
		flags |= trackFlagBcast
	}
	c.trkFlags.Store(flags)
	c.trkRedir.Store(ct.redirect)
	if ct.bcast {
		if len(prefixes) == 0 && len(ct.prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			if slices.Contains(ct.prefixes, p) {
				continue
			}
			ct.prefixes = append(ct.prefixes, p)
			ps := t.prefixes[p]
			if ps == nil {
				ps = &bcastPrefix{}
				t.prefixes[p] = ps
			}
			ps.clients = append(ps.clients, c)
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
	c.trkFlags.Store(0)
}

func (t *shardTracking) removePrefixClient(p string, c *Client) {
	ps := t.prefixes[p]
	if ps == nil {
		return
	}
	if i := slices.Index(ps.clients, c); i >= 0 {
		ps.clients = slices.Delete(ps.clients, i, i+1)
	}
	if len(ps.clients) == 0 {
		delete(t.prefixes, p)
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
// tracks, nested ones (of EXEC and scripts) included: it invalidates the
// keys a write changed and remembers those a tracking client read.
// Invalidations meant for the client running the command go out after
// the reply of its outermost command, never inside an EXEC array.
func (sh *Shard) trackAfter(x *Ctx, cmd *Command, args [][]byte, before int) {
	c := sh.trackCaller(x)
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
				sh.trackInvalidate(string(args[i]), x.C, c, true)
			}
		}
	}
	if ct := c.trk; ct != nil && ok && cmd.Flags&FlagReadOnly != 0 && !ct.bcast {
		switch {
		case x.C != c:
			// A read inside a script: the caller's declared keys are
			// remembered, whatever the script read.
			sh.trackRemember(c, nil, sh.scr.callArgs)
		case cmd.Name == "eval_ro" || cmd.Name == "evalsha_ro" || cmd.Name == "fcall_ro":
			// Only the reads the script makes count.
		default:
			sh.trackRemember(c, cmd, args)
		}
	}
	if sh.callDepth > 0 {
		return
	}
	if ct := c.trk; ct != nil && cmd.Name != "client" && !c.tx.multi {
		// CLIENT CACHING covers the next command, or the whole of a
		// transaction it precedes (cleared after EXEC), as in Redis.
		ct.caching = false
	}
	sh.trackLimit()
	sh.trackFlushSelf()
}

// trackCaller is the client a command runs for: the caller of the script
// for the commands of a script.
func (sh *Shard) trackCaller(x *Ctx) *Client {
	if ss := &sh.scr; ss.caller != nil && x.C == ss.lua {
		return ss.caller
	}
	return x.C
}

// trackRemember records that c read the keys of cmd, or with cmd nil the
// keys a script invocation (EVAL, EVALSHA, FCALL: numkeys at 2) declares,
// unless its OPTIN or OPTOUT mode says this command does not count.
func (sh *Shard) trackRemember(c *Client, cmd *Command, args [][]byte) {
	ct := c.trk
	if ct.optin && !ct.caching || ct.optout && ct.caching || cmd != nil && cmd.Flags&FlagPubSub != 0 {
		return
	}
	t := sh.trk
	if cmd != nil {
		sh.keyIdx = cmd.keyIndexes(args, sh.keyIdx[:0])
	} else {
		sh.keyIdx = scriptKeyIndexes(args, sh.keyIdx[:0])
	}
	for _, i := range sh.keyIdx {
		ids := t.keys[string(args[i])]
		if ids == nil {
			ids = map[int64]struct{}{}
			t.keys[string(args[i])] = ids
		}
		if _, dup := ids[c.ID]; !dup {
			ids[c.ID] = struct{}{}
			t.items++
		}
	}
}

// trackRemoved notes a key deleted by expiry or eviction, which no
// command names.
func (sh *Shard) trackRemoved(key string) {
	sh.trackInvalidate(key, nil, sh.trackRunning(), true)
}

// trackRunning is the client whose command is running, nil between
// commands.
func (sh *Shard) trackRunning() *Client {
	if sh.ctx.Batch != nil {
		return sh.ctx.C
	}
	return nil
}

// trackInvalidate handles a change of key: the default-mode clients that
// read it get one invalidation each now, and forget it, except a NOLOOP
// client that is caller (the client whose command made the change); when
// bcast, the key is noted for the BCAST clients of every prefix it has,
// who hear of it once the shard's drain ends (trackBroadcast), except a
// NOLOOP client that is by, the client that changed it last (the script
// client for a script's writes, nil for expiry and eviction).
func (sh *Shard) trackInvalidate(key string, by, caller *Client, bcast bool) {
	t := sh.trk
	if bcast && len(t.prefixes) > 0 {
		for p, ps := range t.prefixes {
			if strings.HasPrefix(key, p) {
				if ps.keys == nil {
					ps.keys = map[string]*Client{}
				}
				ps.keys[key] = by
				t.pending = true
			}
		}
	}
	ids, ok := t.keys[key]
	if !ok {
		return
	}
	delete(t.keys, key)
	t.items -= int64(len(ids))
	for id := range ids {
		tc := t.clients[id]
		if tc == nil || tc.trk == nil || tc.trk.bcast || tc.trk.noloop && caller != nil && tc == caller {
			continue
		}
		sh.sendInvalidate(tc, []string{key})
	}
}

// trackBroadcast sends the BCAST clients the keys changed under each of
// their prefixes since the last call: one message per prefix and client,
// keys in byte order, without the keys a NOLOOP client changed last. It
// runs when the shard's drain ends, so the changes of a transaction, a
// script or a pipeline read together reach a client together.
func (sh *Shard) trackBroadcast() {
	t := sh.trk
	if !t.pending {
		return
	}
	t.pending = false
	prefixes := make([]string, 0, len(t.prefixes))
	for p, ps := range t.prefixes {
		if len(ps.keys) > 0 {
			prefixes = append(prefixes, p)
		}
	}
	slices.Sort(prefixes)
	for _, p := range prefixes {
		ps := t.prefixes[p]
		keys := make([]string, 0, len(ps.keys))
		for k := range ps.keys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, tc := range ps.clients {
			send := keys
			if tc.trk.noloop {
				send = make([]string, 0, len(keys))
				for _, k := range keys {
					if ps.keys[k] != tc {
						send = append(send, k)
					}
				}
				if len(send) == 0 {
					continue
				}
			}
			sh.sendInvalidate(tc, send)
		}
		clear(ps.keys)
	}
}

// trackFlush sends every tracking client a null invalidation (FLUSHDB,
// FLUSHALL) and forgets the remembered keys.
func (sh *Shard) trackFlush() {
	t := sh.trk
	clear(t.keys)
	t.items = 0
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
		sh.trackInvalidate(k, nil, nil, false)
	}
}

// sendInvalidate tells tc (or its redirect target) to drop keys; nil
// keys means every key (a flush). A frame for the client whose command
// is running waits for the reply of its outermost command.
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
			if !ct.brokenRedir {
				ct.brokenRedir = true
				tc.trkFlags.Store(tc.trkFlags.Load() | trackFlagBrokenRedir)
			}
			if tc.Proto >= 3 {
				w := codec.Writer{Proto: 3}
				w.PushHeader(2)
				w.BulkString("tracking-redir-broken")
				w.Int(ct.redirect)
				sh.sendTracking(tc, w.Buf)
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
	sh.sendTracking(target, w.Buf)
}

// sendTracking delivers a tracking frame, keeping aside one for the client
// whose command is running until its outermost command has replied.
func (sh *Shard) sendTracking(to *Client, frame []byte) {
	if sh.callDepth > 0 && to == sh.trackRunning() {
		sh.trk.self = append(sh.trk.self, frame...)
		sh.trk.selfTo = to
		return
	}
	sh.deliver(to, frame)
}

// trackFlushSelf sends the frames kept aside by sendTracking.
func (sh *Shard) trackFlushSelf() {
	t := sh.trk
	if len(t.self) == 0 {
		return
	}
	sh.deliver(t.selfTo, t.self)
	t.self, t.selfTo = t.self[:0], nil
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
	if len(t.clients) == 0 && !t.pending && len(t.self) == 0 {
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
	st := trackingStats{keys: int64(len(t.keys)), items: t.items, prefixes: int64(len(t.prefixes))}
	for _, c := range t.clients {
		if !c.isClosed() {
			st.clients++
		}
	}
	return st
}

// scriptKeyIndexes appends the positions of the keys a script invocation
// declares (numkeys at position 2) to dst.
func scriptKeyIndexes(args [][]byte, dst []int) []int {
	if len(args) < 3 {
		return dst
	}
	n, ok := parseInt(args[2])
	if !ok {
		return dst
	}
	for i := 3; int64(i-3) < n && i < len(args); i++ {
		dst = append(dst, i)
	}
	return dst
}
