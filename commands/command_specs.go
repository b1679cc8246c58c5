package commands

import (
	"github.com/ruvio/ruvio/keyspace"
)

// Key specifications and command tips. Each command's own are in its
// registration record (KeySpecs, Tips). For the commands Redis 7.0 has they
// are Redis's, checked against a summary of its command descriptions by
// TestCommandTableMatchesRedis. The native commands each act on the one key
// they name, on the shard that owns it, so none needs a request policy;
// CHANGES reads the feed of the shard it is sent to (a cluster client sends
// it to each node itself), and its output depends on what other clients
// did. The Bloom filter commands (RedisBloom's names) name one key each:
// additions insert, queries read.

// rangeSpec is the common key spec: keys from argument index, up to
// lastKey (relative to index; negative counts from the end), every step.
func rangeSpec(flags keyspace.KeyFlag, index, lastKey, step int) keyspace.KeySpec {
	return keyspace.KeySpec{Flags: flags, Index: index, Find: keyspace.FindRange, LastKey: lastKey, KeyStep: step}
}

// Command tips, as COMMAND reports them.
const (
	tipNondeterministic      = "nondeterministic_output"
	tipNondeterministicOrder = "nondeterministic_output_order"
	tipAllNodes              = "request_policy:all_nodes"
	tipAllShards             = "request_policy:all_shards"
	tipMultiShard            = "request_policy:multi_shard"
	tipSpecialRequest        = "request_policy:special"
	tipAggSum                = "response_policy:agg_sum"
	tipAggMin                = "response_policy:agg_min"
	tipAllSucceeded          = "response_policy:all_succeeded"
	tipSpecialResponse       = "response_policy:special"
)

// withSpecs gives a command its key specs and tips where its family builds
// its registration record through a constructor, so that the record keeps
// all of the command's metadata in one place.
func withSpecs(c *keyspace.Command, keys []keyspace.KeySpec, tips []string) *keyspace.Command {
	c.KeySpecs, c.Tips = keys, tips
	return c
}

// deriveMovableKeys derives the movablekeys flag of every command and
// subcommand of t as Redis does: set when the legacy first/last/step
// triple cannot find every key its key specs find.
func deriveMovableKeys(t keyspace.CommandTable) {
	mark := func(c *keyspace.Command) {
		if _, _, _, movable := legacyKeyRange(c.KeySpecs); movable {
			c.Flags |= keyspace.FlagMovableKeys
		}
	}
	for _, c := range t {
		mark(c)
		for _, sc := range c.Subcommands {
			mark(sc)
		}
	}
}

// legacyKeyRange derives COMMAND's first/last/step triple from specs the
// way Redis does (the table's FirstKey, LastKey and Step must equal it),
// and whether the command has movable keys: keys the triple cannot
// describe (a spec that is not an index with a range, a range with a step
// other than 1 among several, specs that do not follow each other, or an
// incomplete spec).
func legacyKeyRange(specs []keyspace.KeySpec) (first, last, step int, movable bool) {
	if len(specs) == 0 {
		return 0, 0, 0, false
	}
	if len(specs) == 1 {
		s := specs[0]
		if s.Index > 0 && s.Find == keyspace.FindRange {
			last = s.LastKey
			if last >= 0 {
				last += s.Index
			}
			return s.Index, last, s.KeyStep, s.Flags&keyspace.KeyIncomplete != 0
		}
		return 0, 0, 0, true
	}
	first, prev := -1, 0
	for _, s := range specs {
		if s.Index <= 0 || s.Find != keyspace.FindRange || s.KeyStep != 1 || (prev != 0 && prev != s.Index-1) {
			movable = true
			continue
		}
		if s.Flags&keyspace.KeyIncomplete != 0 {
			movable = true
		}
		if first < 0 || s.Index < first {
			first = s.Index
		}
		abs := s.LastKey
		if abs >= 0 {
			abs += s.Index
		}
		if uint(abs) > uint(last) { // unsigned: a negative lastkey (from the end) wins
			last = abs
		}
		prev = last
	}
	if first < 0 {
		return 0, 0, 0, true
	}
	return first, last, 1, movable
}
