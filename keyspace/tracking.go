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

// ClientTracking is a client's tracking mode; shard goroutine only.
type ClientTracking struct {
	Redirect                     int64 // REDIRECT: the client invalidations go to (0: this one)
	Bcast, Optin, Optout, Noloop bool  // the BCAST, OPTIN, OPTOUT and NOLOOP options
	// Caching is CLIENT CACHING YES (OPTIN) or NO (OPTOUT) given for the
	// next command.
	Caching     bool
	BrokenRedir bool     // the Redirect target is gone (CLIENT LIST flag R)
	Prefixes    []string // the BCAST prefixes ("" for every key)
}

// shardTracking is a shard's tracking tables.
type shardTracking struct {
	Clients map[int64]*Client
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

// LookupClient returns the open client with id, or nil.
func (r *clientRegistry) LookupClient(id int64) *Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clients[id]
}

// IsClosed reports whether the connection is gone or cut off (detached):
// nothing registers the client again.
func (c *Client) IsClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// TrackOn enables tracking for c, or changes its options.
func (sh *Shard) TrackOn(c *Client, opts ClientTracking, prefixes []string) {
	if c.IsClosed() {
		return // gone: its shard has released it, or will
	}
	t := sh.Trk
	if t == nil {
		t = &shardTracking{Clients: map[int64]*Client{}, keys: map[string]map[int64]struct{}{}, prefixes: map[string]*bcastPrefix{}}
		sh.Trk = t
	}
	if c.Trk == nil {
		c.Trk = &ClientTracking{}
	}
	ct := c.Trk
	ct.Redirect, ct.Bcast, ct.Optin, ct.Optout, ct.Noloop = opts.Redirect, opts.Bcast, opts.Optin, opts.Optout, opts.Noloop
	ct.BrokenRedir = false
	t.Clients[c.ID] = c
	flags := int32(trackFlagOn)
	if ct.Bcast {
		flags |= trackFlagBcast
	}
	c.trkFlags.Store(flags)
	c.trkRedir.Store(ct.Redirect)
	if ct.Bcast {
		if len(prefixes) == 0 && len(ct.Prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			if slices.Contains(ct.Prefixes, p) {
				continue
			}
			ct.Prefixes = append(ct.Prefixes, p)
			c.mem.track.Add(int64(len(p)) + trackPrefixMem)
			ps := t.prefixes[p]
			if ps == nil {
				ps = &bcastPrefix{}
				t.prefixes[p] = ps
			}
			ps.clients = append(ps.clients, c)
		}
	}
}

// TrackOff disables tracking for c. Its keys stay in the table until they
// change; a client no longer tracking is skipped then.
func (sh *Shard) TrackOff(c *Client) {
	if c.Trk == nil {
		return
	}
	if t := sh.Trk; t != nil {
		delete(t.Clients, c.ID)
		for _, p := range c.Trk.Prefixes {
			t.removePrefixClient(p, c)
		}
	}
	c.Trk = nil
	c.trkFlags.Store(0)
	c.mem.track.Store(0)
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
	parked := c.Blk != nil && c.Blk.Batch == nil
	if ok && !parked && cmd.Flags&FlagWrite != 0 {
		switch cmd.Name {
		case "flushdb", "flushall":
			sh.trackFlush()
		default:
			sh.keyIdx = cmd.KeyIndexes(args, sh.keyIdx[:0])
			for _, i := range sh.keyIdx {
				sh.trackInvalidate(string(args[i]), x.C, c, true)
			}
		}
	}
	if ct := c.Trk; ct != nil && ok && cmd.Flags&FlagReadOnly != 0 && !ct.Bcast {
		switch {
		case x.C != c:
			// A read inside a script: the caller's declared keys are
			// remembered, whatever the script read.
			sh.trackRemember(c, nil, sh.Scr.CallArgs)
		case cmd.Name == "eval_ro" || cmd.Name == "evalsha_ro" || cmd.Name == "fcall_ro":
			// Only the reads the script makes count.
		default:
			sh.trackRemember(c, cmd, args)
		}
	}
	if sh.callDepth > 0 {
		return
	}
	if ct := c.Trk; ct != nil && cmd.Name != "client" && !c.Tx.Multi {
		// CLIENT CACHING covers the next command, or the whole of a
		// transaction it precedes (cleared after EXEC), as in Redis.
		ct.Caching = false
	}
	sh.trackLimit()
	sh.trackFlushSelf()
}

// trackCaller is the client a command runs for: the caller of the script
// for the commands of a script.
func (sh *Shard) trackCaller(x *Ctx) *Client {
	if ss := &sh.Scr; ss.Caller != nil && x.C == ss.Lua {
		return ss.Caller
	}
	return x.C
}

// trackRemember records that c read the keys of cmd, or with cmd nil the
// keys a script invocation (EVAL, EVALSHA, FCALL: numkeys at 2) declares,
// unless its OPTIN or OPTOUT mode says this command does not count.
func (sh *Shard) trackRemember(c *Client, cmd *Command, args [][]byte) {
	ct := c.Trk
	if ct.Optin && !ct.Caching || ct.Optout && ct.Caching || cmd != nil && cmd.Flags&FlagPubSub != 0 {
		return
	}
	t := sh.Trk
	if cmd != nil {
		sh.keyIdx = cmd.KeyIndexes(args, sh.keyIdx[:0])
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
	if sh.Ctx.Batch != nil {
		return sh.Ctx.C
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
	t := sh.Trk
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
		tc := t.Clients[id]
		if tc == nil || tc.Trk == nil || tc.Trk.Bcast || tc.Trk.Noloop && caller != nil && tc == caller {
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
	t := sh.Trk
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
			if tc.Trk.Noloop {
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
	t := sh.Trk
	clear(t.keys)
	t.items = 0
	for _, tc := range t.Clients {
		sh.sendInvalidate(tc, nil)
	}
}

// trackLimit applies tracking-table-max-keys: keys over it are forgotten
// and their clients told to drop them.
func (sh *Shard) trackLimit() {
	t := sh.Trk
	if len(t.keys) == 0 {
		return
	}
	v, _ := sh.Srv.Opts.Live.Value("tracking-table-max-keys")
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
	if tc.IsClosed() {
		sh.TrackOff(tc)
		return
	}
	ct := tc.Trk
	target := tc
	if ct.Redirect != 0 {
		target = sh.Srv.ClientRegistry.LookupClient(ct.Redirect)
		if target == nil || target.IsClosed() {
			if !ct.BrokenRedir {
				ct.BrokenRedir = true
				tc.trkFlags.Store(tc.trkFlags.Load() | trackFlagBrokenRedir)
			}
			if tc.Proto >= 3 {
				w := codec.Writer{Proto: 3}
				w.PushHeader(2)
				w.BulkString("tracking-redir-broken")
				w.Int(ct.Redirect)
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
	case ct.Redirect != 0 && target.SubCount.Load() != 0:
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
		sh.Trk.self = append(sh.Trk.self, frame...)
		sh.Trk.selfTo = to
		return
	}
	sh.deliver(to, frame)
}

// trackFlushSelf sends the frames kept aside by sendTracking.
func (sh *Shard) trackFlushSelf() {
	t := sh.Trk
	if len(t.self) == 0 {
		return
	}
	sh.deliver(t.selfTo, t.self)
	t.self, t.selfTo = t.self[:0], nil
}

// trackSweep drops closed clients from the tables and the state itself
// once nobody tracks, so that the command path pays nothing again.
func (sh *Shard) trackSweep() {
	t := sh.Trk
	for _, c := range t.Clients {
		if c.IsClosed() {
			sh.TrackOff(c)
		}
	}
	if len(t.Clients) == 0 && !t.pending && len(t.self) == 0 {
		sh.Trk = nil
	}
}

// trackingStats is what INFO reports of the shard's tracking tables.
type trackingStats struct {
	Clients, Keys, Items, Prefixes int64
}

// TrackingInfo counts the shard's tracking tables (INFO reports the shard
// it runs on, like every keyless command). Shard goroutine only.
func (sh *Shard) TrackingInfo() trackingStats {
	t := sh.Trk
	if t == nil {
		return trackingStats{}
	}
	st := trackingStats{Keys: int64(len(t.keys)), Items: t.items, Prefixes: int64(len(t.prefixes))}
	for _, c := range t.Clients {
		if !c.IsClosed() {
			st.Clients++
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
	n, ok := ParseInt(args[2])
	if !ok {
		return dst
	}
	for i := 3; int64(i-3) < n && i < len(args); i++ {
		dst = append(dst, i)
	}
	return dst
}
