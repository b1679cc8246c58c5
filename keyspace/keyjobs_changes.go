package keyspace

import (
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

// changeNote is one note. Its key is a copy (entries live in the arena and
// change in place), carved from the feed's key chunks and reused by the
// note that later takes its place in the ring, so recording a note
// allocates nothing in the steady state.
type changeNote struct {
	key       []byte
	detail    int64
	cmd       uint8
	hasDetail bool
}

// changeFeed is a shard's ring of notes. Cursors are int64: the note
// written after cursor c has cursor c+1. The first cursor of a feed is the
// arming time in milliseconds shifted left by 20 bits, so cursors of a
// feed armed after a restart are above every cursor of the previous one
// and an old cursor is reported as fallen out rather than silently reused.
type changeFeed struct {
	notes []changeNote
	// chunk is the unused rest of the block that new key copies are
	// carved from.
	chunk []byte
	base  int64 // cursor returned by the first START; no note has it
	last  int64 // cursor of the newest note (base when none)
}

// noteChange records a note when the shard's feed is armed; otherwise it
// returns at once.
func (sh *Shard) noteChange(cmd uint8, key string, detail int64, hasDetail bool) {
	if sh.changes != nil {
		sh.changes.add(cmd, key, detail, hasDetail)
	}
}

func (f *changeFeed) add(cmd uint8, key string, detail int64, hasDetail bool) {
	f.last++
	n := &f.notes[uint64(f.last)%uint64(len(f.notes))]
	k := n.key[:0]
	if cap(k) < len(key) {
		k = f.carve(len(key))
	}
	*n = changeNote{key: append(k, key...), detail: detail, cmd: cmd, hasDetail: hasDetail}
}

// changeChunk is the size of the blocks key copies are carved from.
const changeChunk = 64 << 10

// carve returns an empty slice with room for n bytes.
func (f *changeFeed) carve(n int) []byte {
	if n > changeChunk/8 {
		return make([]byte, 0, n)
	}
	if len(f.chunk) < n {
		f.chunk = make([]byte, changeChunk)
	}
	k := f.chunk[:0:n]
	f.chunk = f.chunk[n:]
	return k
}

// oldest is the cursor of the oldest note still held (last+1 when none).
func (f *changeFeed) oldest() int64 {
	return max(f.base+1, f.last-int64(len(f.notes))+1)
}

// CHANGES START | CHANGES cursor
func changesCommand(x *Ctx) {
	sh := x.S
	arg := x.Args[1]
	if eqFold(arg, "start") {
		if sh.changes == nil {
			n := sh.srv.opts.Config.Keyspace.ChangesCapacity
			if n < 1 {
				n = 65536
			}
			base := sh.nowMs << 20
			sh.changes = &changeFeed{notes: make([]changeNote, n), chunk: make([]byte, changeChunk), base: base, last: base}
		}
		x.W.Int(sh.changes.last)
		return
	}
	cursor, ok := parseInt(arg)
	if !ok {
		x.W.Error("ERR CHANGES takes START or a cursor returned by this shard")
		return
	}
	f := sh.changes
	if f == nil {
		x.W.Error("ERR CHANGES is not started on this shard (the feed is empty after a restart); resync and call CHANGES START")
		return
	}
	if cursor > f.last {
		x.W.Error("ERR CHANGES cursor " + strconv.FormatInt(cursor, 10) + " is ahead of this shard's feed (last " + strconv.FormatInt(f.last, 10) + "); resync and call CHANGES START")
		return
	}
	r := changesReader(x)
	from := cursor
	if r != nil {
		from = r.changesSkip.resume(cursor, r.aclUsers, f)
	}
	if from < f.oldest()-1 {
		x.W.Error("ERR CHANGES cursor " + strconv.FormatInt(cursor, 10) + " has fallen out of the buffer (oldest held " + strconv.FormatInt(f.oldest(), 10) + "); resync and call CHANGES START")
		return
	}
	if r != nil {
		changesFiltered(x, f, cursor, from, r)
		return
	}
	n := min(f.last-cursor, changesMaxReply)
	x.W.ArrayHeader(int(n))
	for c := cursor + 1; c <= cursor+n; c++ {
		writeChangeNote(x, c, &f.notes[uint64(c)%uint64(len(f.notes))])
	}
}

// writeChangeNote writes one note: [cursor, command, key, detail].
func writeChangeNote(x *Ctx, c int64, nt *changeNote) {
	x.W.ArrayHeader(4)
	x.W.Int(c)
	x.W.BulkString(noteNames[nt.cmd])
	x.W.Bulk(nt.key)
	if nt.hasDetail {
		x.W.Int(nt.detail)
	} else {
		x.W.Null()
	}
}

// changesReader returns the client whose user's key patterns filter what
// CHANGES shows it, or nil when the user may read every key (the default
// user, "~*", "%R~*", allkeys): a note names a key and what was done to
// it, so a user sees only the notes of keys it may read. A script's call
// reads with its caller's rights.
func changesReader(x *Ctx) *Client {
	c := x.C
	if x.S.scr.caller != nil && c == x.S.scr.lua {
		c = x.S.scr.caller
	}
	u := c.aclUser
	if u == nil || u.Unrestricted() {
		return nil
	}
	req := x.S.aclRequest(x.Cmd, x.Args)
	all := u.CheckUnrestrictedKeys(req, acl.Read)
	req.Args = nil
	if all {
		return nil
	}
	return c
}

// changesSkip is what CHANGES remembers for a connection whose user reads
// a filtered feed: the notes after cursor from, up to and including
// cursor to, hold nothing it may read. Without it a reader whose keys are seldom
// written could never move its cursor (it only ever learns the cursors of
// notes it sees), would scan the same hidden notes at every call and
// would fall out of the ring. users is the snapshot the permissions came
// from: a changed user scans again.
type changesSkip struct {
	from, to int64
	users    *acl.Users
}

// resume is where a reader with cursor, permissions from users, goes on
// scanning f: past the notes it was last found unable to read when it
// comes back with the same cursor and permissions, else after cursor.
func (sk changesSkip) resume(cursor int64, users *acl.Users, f *changeFeed) int64 {
	if sk.users == users && sk.from == cursor && sk.to > cursor && sk.to <= f.last {
		return sk.to
	}
	return cursor
}

// changesFiltered is CHANGES cursor for reader c: the notes after cursor
// whose key c's user may read, at most changesMaxReply of them, scanned
// from start (cursor, or past hidden notes), changesScanMax notes at most.
func changesFiltered(x *Ctx, f *changeFeed, cursor, start int64, c *Client) {
	u := c.aclUser
	sh := x.S
	found := sh.changesFound[:0]
	scanned := start
	for n := start + 1; n <= f.last && len(found) < changesMaxReply && n-start <= changesScanMax; n++ {
		if u.CheckKey(f.notes[uint64(n)%uint64(len(f.notes))].key, acl.Read) {
			found = append(found, n)
		}
		scanned = n
	}
	sh.changesFound = found
	last := cursor
	if len(found) > 0 {
		last = found[len(found)-1]
	}
	if scanned > last {
		c.changesSkip = changesSkip{from: last, to: scanned, users: c.aclUsers}
	} else {
		c.changesSkip = changesSkip{}
	}
	x.W.ArrayHeader(len(found))
	for _, n := range found {
		writeChangeNote(x, n, &f.notes[uint64(n)%uint64(len(f.notes))])
	}
}
