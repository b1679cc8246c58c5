package commands

import (
	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/keyspace"
)

// The state the families keep per shard and per connection. The engine
// holds it for them in Shard.FamilyState and Client.FamilyState and never
// looks inside; only the shard's goroutine touches it.

// shardState is what the families keep for one shard.
type shardState struct {
	// changes is the CHANGES feed, nil until the first CHANGES START.
	changes *changeFeed
	// changesFound is scratch space for the cursors of the notes a
	// filtered CHANGES reply shows.
	changesFound []int64
	// geoPoints is a geo search's result scratch, reused so that a search
	// allocates nothing: on a shard holding a large sorted set every
	// allocation brings the next collection (which scans that set) nearer.
	geoPoints []geoPoint
	// geoKeys and geoSorted are a geo search's sort scratch.
	geoKeys   []geoDistKey
	geoSorted []geoPoint // the points in distance order
}

// stateIn returns the *T held in slot, storing a new zero T there at its
// first use. The shard and the connection each keep the families' state in
// such a slot, which the engine holds and never reads.
func stateIn[T any](slot *any) *T {
	if st, ok := (*slot).(*T); ok {
		return st
	}
	st := new(T)
	*slot = st
	return st
}

// stateOf returns the families' state of sh, made at its first use.
func stateOf(sh *keyspace.Shard) *shardState {
	return stateIn[shardState](&sh.FamilyState)
}

// clientState is what the families keep for one connection.
type clientState struct {
	// changesSkip lets a CHANGES reader whose key patterns hide notes move
	// past them.
	changesSkip changesSkip
}

// clientStateOf returns the families' state of c, made at its first use.
func clientStateOf(c *keyspace.Client) *clientState {
	return stateIn[clientState](&c.FamilyState)
}

// changeNote is one note. Its key is a copy (entries live in the arena and
// change in place), carved from the feed's key chunks and reused by the
// note that later takes its place in the ring, so recording a note
// allocates nothing in the steady state.
type changeNote struct {
	Key []byte // the key the command wrote
	// Detail is the lease token (LEASE, RELEASE) or the new version
	// (SETV), when HasDetail is set; a SET note has none.
	Detail int64
	// Cmd is the note's command, one of the note kinds of
	// commands/keyjobs_changes.go.
	Cmd       uint8
	HasDetail bool // Detail is set
}

// changeFeed is a shard's ring of notes. Cursors are int64: the note
// written after cursor c has cursor c+1. The first cursor of a feed is the
// arming time in milliseconds shifted left by 20 bits, so cursors of a
// feed armed after a restart are above every cursor of the previous one
// and an old cursor is reported as fallen out rather than silently reused.
type changeFeed struct {
	// Notes is the ring: the note of cursor c is at c modulo its length.
	Notes []changeNote
	// Chunk is the unused rest of the block that new key copies are
	// carved from.
	Chunk []byte
	Base  int64 // cursor returned by the first START; no note has it
	Last  int64 // cursor of the newest note (Base when none)
}

// changesSkip is what CHANGES remembers for a connection whose user reads
// a filtered feed: the notes after cursor From, up to and including
// cursor To, hold nothing it may read. Without it a reader whose keys are seldom
// written could never move its cursor (it only ever learns the cursors of
// notes it sees), would scan the same hidden notes at every call and
// would fall out of the ring. Users is the snapshot the permissions came
// from: a changed user scans again.
type changesSkip struct {
	From, To int64      // the hidden notes: cursors From+1 up to To
	Users    *acl.Users // the ACL snapshot the skip was computed with
}

// geoPoint is one search result.
type geoPoint struct {
	Member   []byte  // the sorted set member
	Lon, Lat float64 // its position, decoded from its score
	Dist     float64 // metres until the reply converts it: the search's approximation (NaN if none), exact once Exact is set
	Hav      float64 // the haversine term of the distance, when the search computed it (else NaN)
	Score    float64 // the member's score: its 52-bit geohash (WITHHASH)
	Exact    bool    // Dist is the exact distance, not the approximation
	Idx      int     // position in collection order, for ties
}

// geoDistKey is a point's place in a sort by distance: sorting these
// small keys and then moving the points once is much cheaper than
// sorting the points themselves.
type geoDistKey struct {
	Dist float64 // the point's Dist
	Idx  int     // the point's index in the slice being sorted
}
