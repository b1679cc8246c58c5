package keyspace

import (
	"github.com/ruvio/ruvio/acl"
)

// The CHANGES feed a shard keeps: a ring of notes of SET, SETV, LEASE and
// RELEASE, in memory only, allocated at the first CHANGES START. The command
// and the notes' writers are in commands/keyjobs_changes.go.

// ChangeNote is one note. Its key is a copy (entries live in the arena and
// change in place), carved from the feed's key chunks and reused by the
// note that later takes its place in the ring, so recording a note
// allocates nothing in the steady state.
type ChangeNote struct {
	Key []byte // the key the command wrote
	// Detail is the lease token (LEASE, RELEASE) or the new version
	// (SETV), when HasDetail is set; a SET note has none.
	Detail int64
	// Cmd is the note's command, one of the note kinds of
	// commands/keyjobs_changes.go.
	Cmd       uint8
	HasDetail bool // Detail is set
}

// ChangeFeed is a shard's ring of notes. Cursors are int64: the note
// written after cursor c has cursor c+1. The first cursor of a feed is the
// arming time in milliseconds shifted left by 20 bits, so cursors of a
// feed armed after a restart are above every cursor of the previous one
// and an old cursor is reported as fallen out rather than silently reused.
type ChangeFeed struct {
	// Notes is the ring: the note of cursor c is at c modulo its length.
	Notes []ChangeNote
	// Chunk is the unused rest of the block that new key copies are
	// carved from.
	Chunk []byte
	Base  int64 // cursor returned by the first START; no note has it
	Last  int64 // cursor of the newest note (Base when none)
}

// ChangesSkip is what CHANGES remembers for a connection whose user reads
// a filtered feed: the notes after cursor From, up to and including
// cursor To, hold nothing it may read. Without it a reader whose keys are seldom
// written could never move its cursor (it only ever learns the cursors of
// notes it sees), would scan the same hidden notes at every call and
// would fall out of the ring. Users is the snapshot the permissions came
// from: a changed user scans again.
type ChangesSkip struct {
	From, To int64      // the hidden notes: cursors From+1 up to To
	Users    *acl.Users // the ACL snapshot the skip was computed with
}
