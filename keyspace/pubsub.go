package keyspace

import (
	"slices"
	"sync"

	"github.com/ruvio/ruvio/config"

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

// PubsubKind tells the three kinds of subscription apart.
type PubsubKind uint8

// Subscription kinds.
const (
	SubChannel PubsubKind = iota // SUBSCRIBE
	SubPattern                   // PSUBSCRIBE
	SubShard                     // SSUBSCRIBE
)

// clientSubs is one client's subscriptions, in subscription order. It is
// written by the client's shard goroutine and read by others (the shard
// at disconnection, ACL checks) under the shard's pubsub mutex.
type clientSubs struct {
	lists [3][]string
}

func (cs *clientSubs) has(k PubsubKind, name string) bool {
	return slices.Contains(cs.lists[k], name)
}

func (cs *clientSubs) Remove(k PubsubKind, name string) bool {
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
	Mu     sync.Mutex
	Tables [3]map[string][]*Client
}

func (p *pubsubState) table(k PubsubKind) map[string][]*Client {
	if p.Tables[k] == nil {
		p.Tables[k] = make(map[string][]*Client)
	}
	return p.Tables[k]
}

// Subscriptions returns the channels, patterns and shard channels c is
// subscribed to, in subscription order (for ACL channel checks).
func (s *Server) Subscriptions(c *Client) (channels, patterns, shardChannels []string) {
	if c.Shard < 0 || c.Shard >= len(s.ShardList) {
		return nil, nil, nil
	}
	p := &s.ShardList[c.Shard].Pubsub
	p.Mu.Lock()
	defer p.Mu.Unlock()
	if c.subs == nil {
		return nil, nil, nil
	}
	return slices.Clone(c.subs.lists[SubChannel]), slices.Clone(c.subs.lists[SubPattern]), slices.Clone(c.subs.lists[SubShard])
}

// dropSubscriptions removes c from its shard's tables (a closed client,
// RESET); any goroutine, under the tables' mutex.
func (s *Server) dropSubscriptions(c *Client) {
	if c.Shard < 0 || c.Shard >= len(s.ShardList) {
		return
	}
	p := &s.ShardList[c.Shard].Pubsub
	p.Mu.Lock()
	defer p.Mu.Unlock()
	if c.subs == nil {
		return
	}
	for k := range c.subs.lists {
		for _, name := range c.subs.lists[k] {
			p.removeSubscriber(PubsubKind(k), name, c)
		}
		c.subs.lists[k] = nil
	}
}

func (p *pubsubState) removeSubscriber(k PubsubKind, name string, c *Client) {
	t := p.Tables[k]
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

// Subscribe adds c to the subscribers of name; false when it already was.
// Shard goroutine only.
func (sh *Shard) Subscribe(c *Client, k PubsubKind, name string) bool {
	p := &sh.Pubsub
	p.Mu.Lock()
	defer p.Mu.Unlock()
	if c.IsClosed() {
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
	if c.SubCount.Add(1) == 1 {
		// A subscribed client is held to the pubsub class's output limits.
		c.SetOutputClass(config.OutputPubSub)
	}
	c.subN[k].Add(1)
	c.mem.subs.Add(int64(len(name)) + subscriptionMem)
	return true
}

// Unsubscribe removes c from the subscribers of name; false when it was
// not one. Shard goroutine only.
func (sh *Shard) Unsubscribe(c *Client, k PubsubKind, name string) bool {
	p := &sh.Pubsub
	p.Mu.Lock()
	defer p.Mu.Unlock()
	if c.subs == nil || !c.subs.Remove(k, name) {
		return false
	}
	p.removeSubscriber(k, name, c)
	if c.SubCount.Add(-1) == 0 {
		c.SetOutputClass(config.OutputNormal)
	}
	c.subN[k].Add(-1)
	c.mem.subs.Add(-int64(len(name)) - subscriptionMem)
	return true
}

// SubscriptionsOf returns a copy of c's subscriptions of kind k.
func (sh *Shard) SubscriptionsOf(c *Client, k PubsubKind) []string {
	sh.Pubsub.Mu.Lock()
	defer sh.Pubsub.Mu.Unlock()
	if c.subs == nil {
		return nil
	}
	return slices.Clone(c.subs.lists[k])
}

// ConfirmCount is the count a (un)subscribe confirmation carries: classic
// channels and patterns together, or shard channels alone, as in Redis 7.0.
func (c *Client) ConfirmCount(k PubsubKind) int64 {
	if k == SubShard {
		return int64(c.subN[SubShard].Load())
	}
	return int64(c.subN[SubChannel].Load() + c.subN[SubPattern].Load())
}

// Push returns where the running command writes out-of-band frames
// (confirmations, messages to itself): its reply, or, while CLIENT REPLY
// OFF or SKIP silences the reply, a buffer appended after it, since such
// frames are never silenced.
func (x *Ctx) Push() *codec.Writer {
	if x.C.ReplyMode&(ReplyOff|replySkip) == 0 {
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

// Publish sends message to the subscribers of channel on this shard and
// returns how many received it (a client subscribed through a channel and
// a pattern counts twice, as in Redis). Shard goroutine only.
func (sh *Shard) Publish(channel, message []byte, sharded bool) int {
	p := &sh.Pubsub
	k, word := SubChannel, "message"
	if sharded {
		k, word = SubShard, "smessage"
	}
	p.Mu.Lock()
	subs := append(sh.deliverTo[:0], p.Tables[k][string(channel)]...)
	var pats []string
	var patSubs [][]*Client
	if !sharded {
		for pat, list := range p.Tables[SubPattern] {
			if acl.Match(pat, channel, false) {
				pats = append(pats, pat)
				patSubs = append(patSubs, slices.Clone(list))
			}
		}
	}
	p.Mu.Unlock()
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
	if x := &sh.Ctx; x.Batch != nil && x.C == c {
		x.Push().Raw(frame)
		return
	}
	// A blocked client being served: after the reply of its command.
	if x := &sh.Blk.x; x.Batch != nil && x.C == c {
		x.W.Raw(frame)
		return
	}
	if b := c.queued; b != nil && c.queuedGen == sh.groupGen {
		b.Out.Raw(frame)
		if limit := sh.Srv.OutputLimit(c); limit > 0 && c.Out.Pending()+int64(len(b.Out.Buf)) > limit {
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
			c.pushBuf = sh.Srv.GetPushBuffer(c.pushHint)
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
		if sc := cmd.Sub(args[1]); sc != nil {
			name = sc.FullName()
		}
	}
	return "ERR Can't execute '" + name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
}

// ResetPubSub drops every subscription of c (RESET).
func (sh *Shard) ResetPubSub(c *Client) {
	if c.SubCount.Load() == 0 {
		return
	}
	sh.Srv.dropSubscriptions(c)
	c.SubCount.Store(0)
	c.SetOutputClass(config.OutputNormal)
	for k := range c.subN {
		c.subN[k].Store(0)
	}
	c.mem.subs.Store(0)
}

// PubsubCounts is INFO's pubsub_channels, pubsub_patterns and
// pubsubshard_channels for this shard.
func (sh *Shard) PubsubCounts() (channels, patterns, shardChannels int64) {
	p := &sh.Pubsub
	p.Mu.Lock()
	defer p.Mu.Unlock()
	return int64(len(p.Tables[SubChannel])), int64(len(p.Tables[SubPattern])), int64(len(p.Tables[SubShard]))
}

// OutputLimit is the hard output buffer limit of c's class
// (client-output-buffer-limit: pubsub while it has subscriptions, else
// normal); 0 means none.
func (s *Server) OutputLimit(c *Client) int64 {
	return s.Opts.Live.OutputBufferLimit(c.OutputClass()).Hard
}
