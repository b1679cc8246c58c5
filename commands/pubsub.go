package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"slices"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/codec"
)

// Reply kinds, as the first element of each frame.
var subscribeWords = [3]struct{ sub, unsub string }{
	keyspace.SubChannel: {"subscribe", "unsubscribe"},
	keyspace.SubPattern: {"psubscribe", "punsubscribe"},
	keyspace.SubShard:   {"ssubscribe", "sunsubscribe"},
}

// writeConfirm writes one (un)subscribe confirmation: a push frame in
// RESP3, an array in RESP2. A nil name is the reply of an unsubscribe-all
// with nothing to remove.
func writeConfirm(w *codec.Writer, c *keyspace.Client, word string, name []byte, nameNil bool, k keyspace.PubsubKind) {
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
	w.Int(c.ConfirmCount(k))
}

func subscribeFamily(x *keyspace.Ctx, k keyspace.PubsubKind) {
	w := x.Push()
	for _, a := range x.Args[1:] {
		x.S.Subscribe(x.C, k, string(a))
		writeConfirm(w, x.C, subscribeWords[k].sub, a, false, k)
	}
}

func unsubscribeFamily(x *keyspace.Ctx, k keyspace.PubsubKind) {
	w := x.Push()
	word := subscribeWords[k].unsub
	if len(x.Args) > 1 {
		for _, a := range x.Args[1:] {
			x.S.Unsubscribe(x.C, k, string(a))
			writeConfirm(w, x.C, word, a, false, k)
		}
		return
	}
	names := x.S.SubscriptionsOf(x.C, k)
	if len(names) == 0 {
		writeConfirm(w, x.C, word, nil, true, k)
		return
	}
	for _, n := range names {
		x.S.Unsubscribe(x.C, k, n)
		writeConfirm(w, x.C, word, []byte(n), false, k)
	}
}

// SUBSCRIBE channel [channel ...]
func subscribeCommand(x *keyspace.Ctx) { subscribeFamily(x, keyspace.SubChannel) }

// PSUBSCRIBE pattern [pattern ...]
func psubscribeCommand(x *keyspace.Ctx) { subscribeFamily(x, keyspace.SubPattern) }

// SSUBSCRIBE shardchannel [shardchannel ...]
func ssubscribeCommand(x *keyspace.Ctx) { subscribeFamily(x, keyspace.SubShard) }

// UNSUBSCRIBE [channel ...]
func unsubscribeCommand(x *keyspace.Ctx) { unsubscribeFamily(x, keyspace.SubChannel) }

// PUNSUBSCRIBE [pattern ...]
func punsubscribeCommand(x *keyspace.Ctx) { unsubscribeFamily(x, keyspace.SubPattern) }

// SUNSUBSCRIBE [shardchannel ...]
func sunsubscribeCommand(x *keyspace.Ctx) { unsubscribeFamily(x, keyspace.SubShard) }

// PUBLISH channel message
func publishCommand(x *keyspace.Ctx) {
	x.W.Int(int64(x.S.Publish(x.Args[1], x.Args[2], false)))
}

// SPUBLISH shardchannel message
func spublishCommand(x *keyspace.Ctx) {
	x.W.Int(int64(x.S.Publish(x.Args[1], x.Args[2], true)))
}

// PUBSUB <subcommand>
func pubsubCommand(x *keyspace.Ctx) {
	sub := x.Cmd.Sub(x.Args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + string(x.Args[1]) + "'. Try PUBSUB HELP.")
		return
	}
	if !keyspace.ArityOK(sub.Arity, len(x.Args)) {
		x.W.Error(keyspace.ErrWrongArgs("pubsub|" + sub.Name))
		return
	}
	sub.Handler(x)
}

func channelList(x *keyspace.Ctx, k keyspace.PubsubKind) {
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrWrongArgs("pubsub|" + x.Cmd.Name))
		return
	}
	p := &x.S.Pubsub
	p.Mu.Lock()
	var out []string
	for name := range p.Tables[k] {
		if len(x.Args) == 2 || acl.Match(x.Args[2], name, false) {
			out = append(out, name)
		}
	}
	p.Mu.Unlock()
	slices.Sort(out)
	x.W.BulkStrings(out)
}

func numSub(x *keyspace.Ctx, k keyspace.PubsubKind) {
	p := &x.S.Pubsub
	x.W.ArrayHeader(2 * (len(x.Args) - 2))
	p.Mu.Lock()
	defer p.Mu.Unlock()
	for _, a := range x.Args[2:] {
		x.W.Bulk(a)
		x.W.Int(int64(len(p.Tables[k][string(a)])))
	}
}

// PUBSUB CHANNELS [pattern]
func pubsubChannelsCommand(x *keyspace.Ctx) { channelList(x, keyspace.SubChannel) }

// PUBSUB SHARDCHANNELS [pattern]
func pubsubShardChannelsCommand(x *keyspace.Ctx) { channelList(x, keyspace.SubShard) }

// PUBSUB NUMSUB [channel ...]
func pubsubNumSubCommand(x *keyspace.Ctx) { numSub(x, keyspace.SubChannel) }

// PUBSUB SHARDNUMSUB [shardchannel ...]
func pubsubShardNumSubCommand(x *keyspace.Ctx) { numSub(x, keyspace.SubShard) }

// PUBSUB NUMPAT
func pubsubNumPatCommand(x *keyspace.Ctx) {
	p := &x.S.Pubsub
	p.Mu.Lock()
	n := len(p.Tables[keyspace.SubPattern])
	p.Mu.Unlock()
	x.W.Int(int64(n))
}

func pubsubHelpCommand(x *keyspace.Ctx) {
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

// publishSummary is PUBLISH's COMMAND DOCS summary: the scope differs from
// a Redis Cluster, where a message reaches every node.
const publishSummary = "Posts a message to a channel. The message reaches the subscribers connected to the same shard (port) as the publisher; it is not stored and not sent to other shards."

func registerPubSubFamily(t keyspace.CommandTable) {
	const grp = "pubsub"
	stale := keyspace.FlagLoading | keyspace.FlagStale
	sub := keyspace.FlagPubSub | keyspace.FlagNoScript | stale
	t.Add(
		&keyspace.Command{Name: "subscribe", Arity: -2, Flags: sub, Group: grp, Since: "2.0.0", Summary: "Listens for messages published to channels.", Complexity: "O(N) where N is the number of channels to subscribe to.", Handler: subscribeCommand},
		&keyspace.Command{Name: "psubscribe", Arity: -2, Flags: sub, Group: grp, Since: "2.0.0", Summary: "Listens for messages published to channels that match one or more patterns.", Complexity: "O(N) where N is the number of patterns to subscribe to.", Handler: psubscribeCommand},
		&keyspace.Command{Name: "unsubscribe", Arity: -1, Flags: sub, Group: grp, Since: "2.0.0", Summary: "Stops listening to messages posted to channels.", Complexity: "O(N) where N is the number of channels to unsubscribe.", Handler: unsubscribeCommand},
		&keyspace.Command{Name: "punsubscribe", Arity: -1, Flags: sub, Group: grp, Since: "2.0.0", Summary: "Stops listening to messages published to channels that match one or more patterns.", Complexity: "O(N) where N is the number of patterns to unsubscribe.", Handler: punsubscribeCommand},
		&keyspace.Command{Name: "publish", Arity: 3, Flags: keyspace.FlagPubSub | stale | keyspace.FlagFast | keyspace.FlagMayReplicate, Group: grp, Since: "2.0.0", Summary: publishSummary, Complexity: "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).", Handler: publishCommand},
		&keyspace.Command{Name: "ssubscribe", Arity: -2, Flags: sub, FirstKey: 1, LastKey: -1, Step: 1, Group: grp, Since: "7.0.0", Summary: "Listens for messages published to shard channels.", Complexity: "O(N) where N is the number of shard channels to subscribe to.", Handler: ssubscribeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyNotKey, 1, -1, 1)}},
		&keyspace.Command{Name: "sunsubscribe", Arity: -1, Flags: sub, FirstKey: 1, LastKey: -1, Step: 1, Group: grp, Since: "7.0.0", Summary: "Stops listening to messages posted to shard channels.", Complexity: "O(N) where N is the number of shard channels to unsubscribe.", Handler: sunsubscribeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyNotKey, 1, -1, 1)}},
		&keyspace.Command{Name: "spublish", Arity: 3, Flags: keyspace.FlagPubSub | stale | keyspace.FlagFast | keyspace.FlagMayReplicate, FirstKey: 1, LastKey: 1, Step: 1, Group: grp, Since: "7.0.0", Summary: "Posts a message to a shard channel, on the shard that owns the channel's slot.", Complexity: "O(N) where N is the number of clients subscribed to the receiving shard channel.", Handler: spublishCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyNotKey, 1, 0, 1)}},
		&keyspace.Command{Name: "pubsub", Arity: -2, Group: grp, Since: "2.8.0", Summary: "A container for Pub/Sub commands.", Complexity: "Depends on subcommand.", Handler: pubsubCommand,
			Subcommands: []*keyspace.Command{
				{Name: "channels", Arity: -2, Flags: keyspace.FlagPubSub | stale, Group: grp, Since: "2.8.0", Summary: "Returns the active channels of this shard.", Complexity: "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)", Handler: pubsubChannelsCommand},
				{Name: "numsub", Arity: -2, Flags: keyspace.FlagPubSub | stale, Group: grp, Since: "2.8.0", Summary: "Returns a count of subscribers to channels on this shard.", Complexity: "O(N) for the NUMSUB subcommand, where N is the number of requested channels", Handler: pubsubNumSubCommand},
				{Name: "numpat", Arity: 2, Flags: keyspace.FlagPubSub | stale, Group: grp, Since: "2.8.0", Summary: "Returns a count of unique pattern subscriptions on this shard.", Complexity: "O(1)", Handler: pubsubNumPatCommand},
				{Name: "shardchannels", Arity: -2, Flags: keyspace.FlagPubSub | stale, Group: grp, Since: "7.0.0", Summary: "Returns the active shard channels.", Complexity: "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).", Handler: pubsubShardChannelsCommand},
				{Name: "shardnumsub", Arity: -2, Flags: keyspace.FlagPubSub | stale, Group: grp, Since: "7.0.0", Summary: "Returns the count of subscribers of shard channels.", Complexity: "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels", Handler: pubsubShardNumSubCommand},
				{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "6.2.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: pubsubHelpCommand},
			}},
	)
}
