package keyspace

import (
	"github.com/ruvio/ruvio/config"
	"slices"
	"sync"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/codec"
)

// Pub/Sub scope. Classic channels and patterns live in the shard that
// accepted the subscriber's connection: PUBLISH reaches the subscribers
// connected to the publisher's shard, nothing is stored and nothing
// crosses to other shards (with one shard this is Redis). Shard channels
// live on the shard that owns the channel's slot; SSUBSCRIBE, SUNSUBSCRIBE
// and SPUBLISH of another shard's channel get MOVED, like keys.
//
// Every subscriber of a shard's tables is a client of that shard, so the
// shard goroutine that publishes also owns each subscriber's command
// state. A message goes out after the replies of the subscriber's commands
// that ran before it: appended to the subscriber's batch when one is
// waiting in the shard's current group, else collected per client and
// written through the connection's AsyncWriter once per drain, counted by
// its OutputMeter and bounded by the output buffer limit. Under fsync=always a message can overtake the reply
// of a subscriber's own command that still waits for its fsync.

// pubsubKind tells the three kinds of subscription apart.
type pubsubKind uint8

const (
	subChannel pubsubKind = iota
	subPattern
	subShard
)

// clientSubs is one client's subscriptions, in subscription order. It is
// written by the client's shard goroutine and read by others (the shard
// at disconnection, ACL checks) under the shard's pubsub mutex.
type clientSubs struct {
	lists [3][]string
}

func (cs *clientSubs) has(k pubsubKind, name string) bool {
	return slices.Contains(cs.lists[k], name)
}

func (cs *clientSubs) remove(k pubsubKind, name string) bool {
	i := slices.Index(cs.lists[k], name)
	if i < 0 {
		return false
	}
	cs.lists[k] = slices.Delete(cs.lists[k], i, i+1)
	return true
}

// pubsubState is a shard's subscription tables: channel (or pattern) to
// its subscribers in subscription order.
type pubsubState struct {
	mu     sync.Mutex
	tables [3]map[string][]*Client
}

func (p *pubsubState) table(k pubsubKind) map[string][]*Client {
	if p.tables[k] == nil {
		p.tables[k] = make(map[string][]*Client)
	}
	return p.tables[k]
}

// Subscriptions returns the channels, patterns and shard channels c is
// subscribed to, in subscription order (for ACL channel checks).
func (s *Server) Subscriptions(c *Client) (channels, patterns, shardChannels []string) {
	if c.Shard < 0 || c.Shard >= len(s.shards) {
		return nil, nil, nil
	}
	p := &s.shards[c.Shard].pubsub
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.subs == nil {
		return nil, nil, nil
	}
	return slices.Clone(c.subs.lists[subChannel]), slices.Clone(c.subs.lists[subPattern]), slices.Clone(c.subs.lists[subShard])
}

// dropSubscriptions removes c from its shard's tables (a closed client,
// RESET); any goroutine, under the tables' mutex.
func (s *Server) dropSubscriptions(c *Client) {
	if c.Shard < 0 || c.Shard >= len(s.shards) {
		return
	}
	p := &s.shards[c.Shard].pubsub
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.subs == nil {
		return
	}
	for k := range c.subs.lists {
		for _, name := range c.subs.lists[k] {
			p.removeSubscriber(pubsubKind(k), name, c)
		}
		c.subs.lists[k] = nil
	}
}

func (p *pubsubState) removeSubscriber(k pubsubKind, name string, c *Client) {
	t := p.tables[k]
	list := t[name]
	if i := slices.Index(list, c); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(t, name)
	} else {
		t[name] = list
	}
}

// subscribe adds c to the subscribers of name; false when it already was.
// Shard goroutine only.
func (sh *Shard) subscribe(c *Client, k pubsubKind, name string) bool {
	p := &sh.pubsub
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.isClosed() {
		// detach sets the flag before it drops the subscriptions under
		// this mutex: none is added after that drop.
		return false
	}
	if c.subs == nil {
		c.subs = &clientSubs{}
	}
	if c.subs.has(k, name) {
		return false
	}
	c.subs.lists[k] = append(c.subs.lists[k], name)
	t := p.table(k)
	t[name] = append(t[name], c)
	if c.subCount.Add(1) == 1 {
		// A subscribed client is held to the pubsub class's output limits.
		c.SetOutputClass(config.OutputPubSub)
	}
	c.subN[k].Add(1)
	return true
}

// unsubscribe removes c from the subscribers of name; false when it was
// not one. Shard goroutine only.
func (sh *Shard) unsubscribe(c *Client, k pubsubKind, name string) bool {
	p := &sh.pubsub
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.subs == nil || !c.subs.remove(k, name) {
		return false
	}
	p.removeSubscriber(k, name, c)
	if c.subCount.Add(-1) == 0 {
		c.SetOutputClass(config.OutputNormal)
	}
	c.subN[k].Add(-1)
	return true
}

// subscriptionsOf returns a copy of c's subscriptions of kind k.
func (sh *Shard) subscriptionsOf(c *Client, k pubsubKind) []string {
	sh.pubsub.mu.Lock()
	defer sh.pubsub.mu.Unlock()
	if c.subs == nil {
		return nil
	}
	return slices.Clone(c.subs.lists[k])
}

// Reply kinds, as the first element of each frame.
var subscribeWords = [3]struct{ sub, unsub string }{
	subChannel: {"subscribe", "unsubscribe"},
	subPattern: {"psubscribe", "punsubscribe"},
	subShard:   {"ssubscribe", "sunsubscribe"},
}

// confirmCount is the count a (un)subscribe confirmation carries: classic
// channels and patterns together, or shard channels alone, as in Redis 7.0.
func (c *Client) confirmCount(k pubsubKind) int64 {
	if k == subShard {
		return int64(c.subN[subShard].Load())
	}
	return int64(c.subN[subChannel].Load() + c.subN[subPattern].Load())
}

// writeConfirm writes one (un)subscribe confirmation: a push frame in
// RESP3, an array in RESP2. A nil name is the reply of an unsubscribe-all
// with nothing to remove.
func writeConfirm(w *codec.Writer, c *Client, word string, name []byte, nameNil bool, k pubsubKind) {
	if c.Proto >= 3 {
		w.PushHeader(3)
	} else {
		w.ArrayHeader(3)
	}
	w.BulkString(word)
	if nameNil {
		w.Null()
	} else {
		w.Bulk(name)
	}
	w.Int(c.confirmCount(k))
}

func subscribeFamily(x *Ctx, k pubsubKind) {
	w := x.push()
	for _, a := range x.Args[1:] {
		x.S.subscribe(x.C, k, string(a))
		writeConfirm(w, x.C, subscribeWords[k].sub, a, false, k)
	}
}

func unsubscribeFamily(x *Ctx, k pubsubKind) {
	w := x.push()
	word := subscribeWords[k].unsub
	if len(x.Args) > 1 {
		for _, a := range x.Args[1:] {
			x.S.unsubscribe(x.C, k, string(a))
			writeConfirm(w, x.C, word, a, false, k)
		}
		return
	}
	names := x.S.subscriptionsOf(x.C, k)
	if len(names) == 0 {
		writeConfirm(w, x.C, word, nil, true, k)
		return
	}
	for _, n := range names {
		x.S.unsubscribe(x.C, k, n)
		writeConfirm(w, x.C, word, []byte(n), false, k)
	}
}

// push returns where the running command writes out-of-band frames
// (confirmations, messages to itself): its reply, or, while CLIENT REPLY
// OFF or SKIP silences the reply, a buffer appended after it, since such
// frames are never silenced.
func (x *Ctx) push() *codec.Writer {
	if x.C.replyMode&(replyOff|replySkip) == 0 {
		return x.W
	}
	pw := &x.S.pushW
	pw.Proto = x.C.Proto
	return pw
}

// afterReply ends a command of a client whose reply mode is not ON: the
// reply is dropped as asked, frames kept aside by push are not.
func (sh *Shard) afterReply(c *Client, w *codec.Writer, before int) {
	c.afterReply(w, before)
	if len(sh.pushW.Buf) > 0 {
		w.Raw(sh.pushW.Buf)
		sh.pushW.Buf = sh.pushW.Buf[:0]
	}
}

// SUBSCRIBE channel [channel ...]
func subscribeCommand(x *Ctx) { subscribeFamily(x, subChannel) }

// PSUBSCRIBE pattern [pattern ...]
func psubscribeCommand(x *Ctx) { subscribeFamily(x, subPattern) }

// SSUBSCRIBE shardchannel [shardchannel ...]
func ssubscribeCommand(x *Ctx) { subscribeFamily(x, subShard) }

// UNSUBSCRIBE [channel ...]
func unsubscribeCommand(x *Ctx) { unsubscribeFamily(x, subChannel) }

// PUNSUBSCRIBE [pattern ...]
func punsubscribeCommand(x *Ctx) { unsubscribeFamily(x, subPattern) }

// SUNSUBSCRIBE [shardchannel ...]
func sunsubscribeCommand(x *Ctx) { unsubscribeFamily(x, subShard) }

// PUBLISH channel message
func publishCommand(x *Ctx) {
	x.W.Int(int64(x.S.publish(x.Args[1], x.Args[2], false)))
}

// SPUBLISH shardchannel message
func spublishCommand(x *Ctx) {
	x.W.Int(int64(x.S.publish(x.Args[1], x.Args[2], true)))
}

// publish sends message to the subscribers of channel on this shard and
// returns how many received it (a client subscribed through a channel and
// a pattern counts twice, as in Redis). Shard goroutine only.
func (sh *Shard) publish(channel, message []byte, sharded bool) int {
	p := &sh.pubsub
	k, word := subChannel, "message"
	if sharded {
		k, word = subShard, "smessage"
	}
	p.mu.Lock()
	subs := append(sh.deliverTo[:0], p.tables[k][string(channel)]...)
	var pats []string
	var patSubs [][]*Client
	if !sharded {
		for pat, list := range p.tables[subPattern] {
			if acl.Match(pat, channel, false) {
				pats = append(pats, pat)
				patSubs = append(patSubs, slices.Clone(list))
			}
		}
	}
	p.mu.Unlock()
	n := len(subs)
	if n > 0 {
		f := sh.newFrames()
		for i, c := range subs {
			sh.deliver(c, f.get(c.Proto, word, "", channel, message))
			subs[i] = nil
		}
		sh.keepFrames(f)
	}
	sh.deliverTo = subs[:0]
	for i, pat := range pats {
		f := sh.newFrames()
		for _, c := range patSubs[i] {
			sh.deliver(c, f.get(c.Proto, "pmessage", pat, channel, message))
			n++
		}
		sh.keepFrames(f)
	}
	return n
}

// frames builds a message frame once per protocol for the subscribers of
// one publication. deliver copies the bytes, so the buffers are the
// shard's, reused from one publication to the next.
type frames struct {
	resp2, resp3 []byte
	built2       bool
	built3       bool
}

func (sh *Shard) newFrames() frames {
	return frames{resp2: sh.frameBufs[0][:0], resp3: sh.frameBufs[1][:0]}
}

func (sh *Shard) keepFrames(f frames) {
	if cap(f.resp2) <= 64<<10 && cap(f.resp3) <= 64<<10 {
		sh.frameBufs[0], sh.frameBufs[1] = f.resp2[:0], f.resp3[:0]
	}
}

func (f *frames) get(proto int, word, pat string, channel, message []byte) []byte {
	if !f.built2 {
		f.built2 = true
		w := codec.Writer{Proto: 2, Buf: f.resp2}
		if pat != "" {
			w.ArrayHeader(4)
			w.BulkString(word)
			w.BulkString(pat)
		} else {
			w.ArrayHeader(3)
			w.BulkString(word)
		}
		w.Bulk(channel)
		w.Bulk(message)
		f.resp2 = w.Buf
	}
	if proto < 3 {
		return f.resp2
	}
	if !f.built3 {
		// A push frame differs from the array only in its type byte.
		f.built3 = true
		f.resp3 = append(f.resp3, f.resp2...)
		f.resp3[0] = '>'
	}
	return f.resp3
}

// deliver sends an out-of-band frame (a message, an invalidation) to c, a
// client of this shard, after the replies of c's commands that already
// ran. The bytes are copied. Shard goroutine only.
func (sh *Shard) deliver(c *Client, frame []byte) {
	if c.Killed() {
		return
	}
	// c's own running batch, or one of its batches waiting in the group
	// being built: append after its replies.
	if x := &sh.ctx; x.Batch != nil && x.C == c {
		x.push().Raw(frame)
		return
	}
	// A blocked client being served: after the reply of its command.
	if x := &sh.blk.x; x.Batch != nil && x.C == c {
		x.W.Raw(frame)
		return
	}
	if b := c.queued; b != nil && c.queuedGen == sh.groupGen {
		b.Out.Raw(frame)
		if limit := sh.srv.OutputLimit(c); limit > 0 && c.Out.Pending()+int64(len(b.Out.Buf)) > limit {
			sh.cutOff(b)
		}
		return
	}
	// Otherwise collect the client's frames and hand them over once per
	// drain (flushPushes): one write per subscriber, not per message.
	if len(c.pushBuf) == 0 {
		sh.pushPending = append(sh.pushPending, c)
		if c.pushBuf == nil && c.pushHint > len(frame) {
			// Sized from the last drain: a subscriber of a busy channel
			// gets one buffer per drain, not a doubling series, and a
			// recycled one once its connection wrote the last.
			c.pushBuf = sh.srv.GetPushBuffer(c.pushHint)
		}
	}
	c.pushBuf = append(c.pushBuf, frame...)
}

// flushPushes hands every client its frames collected since the last
// flush. Shard goroutine only.
func (sh *Shard) flushPushes() {
	for i, c := range sh.pushPending {
		sh.flushPush(c)
		sh.pushPending[i] = nil
	}
	sh.pushPending = sh.pushPending[:0]
}

// maxPushHint bounds the buffer deliver allocates ahead for a client.
const maxPushHint = 256 << 10

// flushPush hands c its collected frames; the writer counts them in the
// client's output and cuts it off past the limit.
func (sh *Shard) flushPush(c *Client) {
	b := c.pushBuf
	if len(b) == 0 {
		return
	}
	c.pushBuf = nil // the writer keeps b
	c.pushHint = min(len(b)+len(b)/4, maxPushHint)
	if c.Killed() {
		return
	}
	switch w := c.Conn.(type) {
	case PushWriter:
		w.WritePushAsync(b)
	case AsyncWriter:
		w.WriteAsync(b)
	}
}

// minPushBuffer is the smallest buffer the push pool keeps: smaller
// ones cost less to allocate than to recycle.
const minPushBuffer = 512

// GetPushBuffer returns an empty buffer of at least capacity n for a
// client's pushed frames, recycled when one is at hand.
func (s *Server) GetPushBuffer(n int) []byte {
	if n >= minPushBuffer {
		if p, ok := s.pushBufs.Get().(*[]byte); ok {
			if b := *p; cap(b) >= n {
				return b[:0]
			}
		}
	}
	return make([]byte, 0, n)
}

// PutPushBuffer gives back a buffer of pushed frames its connection has
// written (PushWriter); b must not be used afterwards.
func (s *Server) PutPushBuffer(b []byte) {
	if cap(b) < minPushBuffer || cap(b) > maxPushHint+maxPushHint/4 {
		return
	}
	b = b[:0]
	s.pushBufs.Put(&b)
}

// PUBSUB <subcommand>
func pubsubCommand(x *Ctx) {
	sub := x.Cmd.sub(x.Args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + string(x.Args[1]) + "'. Try PUBSUB HELP.")
		return
	}
	if !arityOK(sub.Arity, len(x.Args)) {
		x.W.Error(errWrongArgs("pubsub|" + sub.Name))
		return
	}
	sub.Handler(x)
}

func channelList(x *Ctx, k pubsubKind) {
	if len(x.Args) > 3 {
		x.W.Error(errWrongArgs("pubsub|" + x.Cmd.Name))
		return
	}
	p := &x.S.pubsub
	p.mu.Lock()
	var out []string
	for name := range p.tables[k] {
		if len(x.Args) == 2 || acl.Match(x.Args[2], name, false) {
			out = append(out, name)
		}
	}
	p.mu.Unlock()
	slices.Sort(out)
	x.W.BulkStrings(out)
}

func numSub(x *Ctx, k pubsubKind) {
	p := &x.S.pubsub
	x.W.ArrayHeader(2 * (len(x.Args) - 2))
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range x.Args[2:] {
		x.W.Bulk(a)
		x.W.Int(int64(len(p.tables[k][string(a)])))
	}
}

// PUBSUB CHANNELS [pattern]
func pubsubChannelsCommand(x *Ctx) { channelList(x, subChannel) }

// PUBSUB SHARDCHANNELS [pattern]
func pubsubShardChannelsCommand(x *Ctx) { channelList(x, subShard) }

// PUBSUB NUMSUB [channel ...]
func pubsubNumSubCommand(x *Ctx) { numSub(x, subChannel) }

// PUBSUB SHARDNUMSUB [shardchannel ...]
func pubsubShardNumSubCommand(x *Ctx) { numSub(x, subShard) }

// PUBSUB NUMPAT
func pubsubNumPatCommand(x *Ctx) {
	p := &x.S.pubsub
	p.mu.Lock()
	n := len(p.tables[subPattern])
	p.mu.Unlock()
	x.W.Int(int64(n))
}

func pubsubHelpCommand(x *Ctx) {
	lines := []string{
		"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CHANNELS [<pattern>]",
		"    Return the currently active channels of this shard matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns on this shard.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers on this shard for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)",
		"HELP",
		"    Prints this help.",
	}
	x.W.ArrayHeader(len(lines))
	for _, l := range lines {
		x.W.SimpleString(l)
	}
}

// subscribedModeAllowed reports whether a RESP2 client with subscriptions
// may run cmd: only the (P|S)(UN)SUBSCRIBE family, PING, QUIT and RESET.
func subscribedModeAllowed(cmd *Command) bool {
	switch cmd.Name {
	case "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe",
		"ping", "quit", "reset":
		return true
	}
	return false
}

// subscribedModeError is Redis 7.0's refusal of other commands in RESP2
// subscribed mode.
func subscribedModeError(cmd *Command, args [][]byte) string {
	name := cmd.Name
	if len(cmd.Subcommands) > 0 && len(args) > 1 {
		if sc := cmd.sub(args[1]); sc != nil {
			name = sc.FullName()
		}
	}
	return "ERR Can't execute '" + name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
}

// resetPubSub drops every subscription of c (RESET).
func (sh *Shard) resetPubSub(c *Client) {
	if c.subCount.Load() == 0 {
		return
	}
	sh.srv.dropSubscriptions(c)
	c.subCount.Store(0)
	c.SetOutputClass(config.OutputNormal)
	for k := range c.subN {
		c.subN[k].Store(0)
	}
}

// publishSummary is PUBLISH's COMMAND DOCS summary: the scope differs from
// a Redis Cluster, where a message reaches every node.
const publishSummary = "Posts a message to a channel. The message reaches the subscribers connected to the same shard (port) as the publisher; it is not stored and not sent to other shards."

func registerPubSubFamily(t commandTable) {
	const grp = "pubsub"
	stale := FlagLoading | FlagStale
	sub := FlagPubSub | FlagNoScript | stale
	t.add(
		&Command{Name: "subscribe", Arity: -2, Flags: sub, Group: grp, Since: "2.0.0", Summary: "Listens for messages published to channels.", Complexity: "O(N) where N is the number of channels to subscribe to.", Handler: subscribeCommand},
		&Command{Name: "psubscribe", Arity: -2, Flags: sub, Group: grp, Since: "2.0.0", Summary: "Listens for messages published to channels that match one or more patterns.", Complexity: "O(N) where N is the number of patterns to subscribe to.", Handler: psubscribeCommand},
		&Command{Name: "unsubscribe", Arity: -1, Flags: sub, Group: grp, Since: "2.0.0", Summary: "Stops listening to messages posted to channels.", Complexity: "O(N) where N is the number of channels to unsubscribe.", Handler: unsubscribeCommand},
		&Command{Name: "punsubscribe", Arity: -1, Flags: sub, Group: grp, Since: "2.0.0", Summary: "Stops listening to messages published to channels that match one or more patterns.", Complexity: "O(N) where N is the number of patterns to unsubscribe.", Handler: punsubscribeCommand},
		&Command{Name: "publish", Arity: 3, Flags: FlagPubSub | stale | FlagFast | FlagMayReplicate, Group: grp, Since: "2.0.0", Summary: publishSummary, Complexity: "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).", Handler: publishCommand},
		&Command{Name: "ssubscribe", Arity: -2, Flags: sub, FirstKey: 1, LastKey: -1, Step: 1, Group: grp, Since: "7.0.0", Summary: "Listens for messages published to shard channels.", Complexity: "O(N) where N is the number of shard channels to subscribe to.", Handler: ssubscribeCommand},
		&Command{Name: "sunsubscribe", Arity: -1, Flags: sub, FirstKey: 1, LastKey: -1, Step: 1, Group: grp, Since: "7.0.0", Summary: "Stops listening to messages posted to shard channels.", Complexity: "O(N) where N is the number of shard channels to unsubscribe.", Handler: sunsubscribeCommand},
		&Command{Name: "spublish", Arity: 3, Flags: FlagPubSub | stale | FlagFast | FlagMayReplicate, FirstKey: 1, LastKey: 1, Step: 1, Group: grp, Since: "7.0.0", Summary: "Posts a message to a shard channel, on the shard that owns the channel's slot.", Complexity: "O(N) where N is the number of clients subscribed to the receiving shard channel.", Handler: spublishCommand},
		&Command{Name: "pubsub", Arity: -2, Group: grp, Since: "2.8.0", Summary: "A container for Pub/Sub commands.", Complexity: "Depends on subcommand.", Handler: pubsubCommand,
			Subcommands: []*Command{
				{Name: "channels", Arity: -2, Flags: FlagPubSub | stale, Group: grp, Since: "2.8.0", Summary: "Returns the active channels of this shard.", Complexity: "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)", Handler: pubsubChannelsCommand},
				{Name: "numsub", Arity: -2, Flags: FlagPubSub | stale, Group: grp, Since: "2.8.0", Summary: "Returns a count of subscribers to channels on this shard.", Complexity: "O(N) for the NUMSUB subcommand, where N is the number of requested channels", Handler: pubsubNumSubCommand},
				{Name: "numpat", Arity: 2, Flags: FlagPubSub | stale, Group: grp, Since: "2.8.0", Summary: "Returns a count of unique pattern subscriptions on this shard.", Complexity: "O(1)", Handler: pubsubNumPatCommand},
				{Name: "shardchannels", Arity: -2, Flags: FlagPubSub | stale, Group: grp, Since: "7.0.0", Summary: "Returns the active shard channels.", Complexity: "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).", Handler: pubsubShardChannelsCommand},
				{Name: "shardnumsub", Arity: -2, Flags: FlagPubSub | stale, Group: grp, Since: "7.0.0", Summary: "Returns the count of subscribers of shard channels.", Complexity: "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels", Handler: pubsubShardNumSubCommand},
				{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "6.2.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: pubsubHelpCommand},
			}},
	)
}

// pubsubCounts is INFO's pubsub_channels, pubsub_patterns and
// pubsubshard_channels for this shard.
func (sh *Shard) pubsubCounts() (channels, patterns, shardChannels int64) {
	p := &sh.pubsub
	p.mu.Lock()
	defer p.mu.Unlock()
	return int64(len(p.tables[subChannel])), int64(len(p.tables[subPattern])), int64(len(p.tables[subShard]))
}

// OutputLimit is the hard output buffer limit of c's class
// (client-output-buffer-limit: pubsub while it has subscriptions, else
// normal); 0 means none.
func (s *Server) OutputLimit(c *Client) int64 {
	return s.opts.Live.OutputBufferLimit(c.OutputClass()).Hard
}
