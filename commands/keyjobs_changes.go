package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"

	"github.com/ruvio/ruvio/acl"
)

// CHANGES is a per-shard, in-memory feed of SET, SETV, LEASE and RELEASE
// notes. It costs nothing until the first CHANGES START on a shard, which
// allocates a ring of changes_capacity notes; it is not the WAL and is
// empty (and disarmed) after a restart.

// Note kinds.
const (
	noteSet uint8 = iota
	noteSetV
	noteLease
	noteRelease
)

var noteNames = [...]string{noteSet: "SET", noteSetV: "SETV", noteLease: "LEASE", noteRelease: "RELEASE"}

// changesMaxReply bounds the notes one CHANGES call returns.
const changesMaxReply = 1024

// changesScanMax bounds the notes one CHANGES call of a filtered reader
// looks at, so a reader whose keys are rare does not stall the shard on a
// large ring; the next call goes on from where the scan stopped.
const changesScanMax = 65536

// shardNoteChange records a note when the shard's feed is armed; otherwise it
// returns at once.
func shardNoteChange(sh *keyspace.Shard, cmd uint8, key string, detail int64, hasDetail bool) {
	// A plain look at the slot rather than stateOf: this runs on every SET,
	// and a shard whose feed was never armed has nothing to make or do.
	if st, _ := sh.FamilyState.(*shardState); st != nil && st.changes != nil {
		changeFeedAdd(st.changes, cmd, key, detail, hasDetail)
	}
}

// changeFeedAdd writes a note into the ring, over the oldest, reusing that
// note's key copy when it is large enough.
func changeFeedAdd(f *changeFeed, cmd uint8, key string, detail int64, hasDetail bool) {
	f.Last++
	n := &f.Notes[uint64(f.Last)%uint64(len(f.Notes))]
	k := n.Key[:0]
	if cap(k) < len(key) {
		k = changeFeedCarve(f, len(key))
	}
	*n = changeNote{Key: append(k, key...), Detail: detail, Cmd: cmd, HasDetail: hasDetail}
}

// changeChunk is the size of the blocks key copies are carved from.
const changeChunk = 64 << 10

// changeFeedCarve returns an empty slice with room for n bytes.
func changeFeedCarve(f *changeFeed, n int) []byte {
	if n > changeChunk/8 {
		return make([]byte, 0, n)
	}
	if len(f.Chunk) < n {
		f.Chunk = make([]byte, changeChunk)
	}
	k := f.Chunk[:0:n]
	f.Chunk = f.Chunk[n:]
	return k
}

// changeFeedOldest is the cursor of the oldest note still held (last+1 when none).
func changeFeedOldest(f *changeFeed) int64 {
	return max(f.Base+1, f.Last-int64(len(f.Notes))+1)
}

// CHANGES START | CHANGES cursor
func changesCommand(x *keyspace.Ctx) {
	sh := x.S
	st := stateOf(sh)
	arg := x.Args[1]
	if keyspace.EqFold(arg, "start") {
		if st.changes == nil {
			n := sh.Srv.Opts.Config.Keyspace.ChangesCapacity
			if n < 1 {
				n = 65536
			}
			base := sh.NowMs << 20
			st.changes = &changeFeed{Notes: make([]changeNote, n), Chunk: make([]byte, changeChunk), Base: base, Last: base}
		}
		x.W.Int(st.changes.Last)
		return
	}
	cursor, ok := keyspace.ParseInt(arg)
	if !ok {
		x.W.Error("ERR CHANGES takes START or a cursor returned by this shard")
		return
	}
	f := st.changes
	if f == nil {
		x.W.Error("ERR CHANGES is not started on this shard (the feed is empty after a restart); resync and call CHANGES START")
		return
	}
	if cursor > f.Last {
		x.W.Error("ERR CHANGES cursor " + strconv.FormatInt(cursor, 10) + " is ahead of this shard's feed (last " + strconv.FormatInt(f.Last, 10) + "); resync and call CHANGES START")
		return
	}
	r := changesReader(x)
	from := cursor
	if r != nil {
		from = changesSkipResume(clientStateOf(r).changesSkip, cursor, r.ACLUsers, f)
	}
	if from < changeFeedOldest(f)-1 {
		x.W.Error("ERR CHANGES cursor " + strconv.FormatInt(cursor, 10) + " has fallen out of the buffer (oldest held " + strconv.FormatInt(changeFeedOldest(f), 10) + "); resync and call CHANGES START")
		return
	}
	if r != nil {
		changesFiltered(x, f, cursor, from, r)
		return
	}
	n := min(f.Last-cursor, changesMaxReply)
	x.W.ArrayHeader(int(n))
	for c := cursor + 1; c <= cursor+n; c++ {
		writeChangeNote(x, c, &f.Notes[uint64(c)%uint64(len(f.Notes))])
	}
}

// writeChangeNote writes one note: [cursor, command, key, detail].
func writeChangeNote(x *keyspace.Ctx, c int64, nt *changeNote) {
	x.W.ArrayHeader(4)
	x.W.Int(c)
	x.W.BulkString(noteNames[nt.Cmd])
	x.W.Bulk(nt.Key)
	if nt.HasDetail {
		x.W.Int(nt.Detail)
	} else {
		x.W.Null()
	}
}

// changesReader returns the client whose user's key patterns filter what
// CHANGES shows it, or nil when the user may read every key (the default
// user, "~*", "%R~*", allkeys): a note names a key and what was done to
// it, so a user sees only the notes of keys it may read. A script's call
// reads with its caller's rights.
func changesReader(x *keyspace.Ctx) *keyspace.Client {
	c := x.C
	if x.S.Scr.Caller != nil && c == x.S.Scr.Lua {
		c = x.S.Scr.Caller
	}
	u := c.ACLUser
	if u == nil || u.Unrestricted() {
		return nil
	}
	req := x.S.ACLRequest(x.Cmd, x.Args)
	all := u.CheckUnrestrictedKeys(req, acl.Read)
	req.Args = nil
	if all {
		return nil
	}
	return c
}

// changesSkipResume is where a reader with cursor, permissions from users, goes on
// scanning f: past the notes it was last found unable to read when it
// comes back with the same cursor and permissions, else after cursor.
func changesSkipResume(sk changesSkip, cursor int64, users *acl.Users, f *changeFeed) int64 {
	if sk.Users == users && sk.From == cursor && sk.To > cursor && sk.To <= f.Last {
		return sk.To
	}
	return cursor
}

// changesFiltered is CHANGES cursor for reader c: the notes after cursor
// whose key c's user may read, at most changesMaxReply of them, scanned
// from start (cursor, or past hidden notes), changesScanMax notes at most.
func changesFiltered(x *keyspace.Ctx, f *changeFeed, cursor, start int64, c *keyspace.Client) {
	u := c.ACLUser
	sh := x.S
	found := stateOf(sh).changesFound[:0]
	scanned := start
	for n := start + 1; n <= f.Last && len(found) < changesMaxReply && n-start <= changesScanMax; n++ {
		if u.CheckKey(f.Notes[uint64(n)%uint64(len(f.Notes))].Key, acl.Read) {
			found = append(found, n)
		}
		scanned = n
	}
	stateOf(sh).changesFound = found
	last := cursor
	if len(found) > 0 {
		last = found[len(found)-1]
	}
	if scanned > last {
		clientStateOf(c).changesSkip = changesSkip{From: last, To: scanned, Users: c.ACLUsers}
	} else if st, _ := c.FamilyState.(*clientState); st != nil {
		// A connection that never skipped has nothing to clear.
		st.changesSkip = changesSkip{}
	}
	x.W.ArrayHeader(len(found))
	for _, n := range found {
		writeChangeNote(x, n, &f.Notes[uint64(n)%uint64(len(f.Notes))])
	}
}
