package keyspace

import (
	"time"

	"github.com/ruvio/ruvio/codec"
)

// Work off the shard goroutine. A command that must wait for something
// slow that is not the shard's (MIGRATE's exchange with another server)
// does the shard's part of the work, parks its client, runs the slow part
// on a goroutine of its own, and finishes back on the shard goroutine:
//
//	o, ok := x.ParkOffLoop() // the handler then returns without replying
//	go func() {
//		res := slowPart()
//		o.Finish(func(x *Ctx) { ...change the keyspace, reply... })
//	}()
//
// The parking is the blocking facility's (blocking.go), as WAIT's is: a
// blocked client with no keys and no deadline. The replies before the
// command leave at once, the client's later commands and batches wait
// behind it, it shows as blocked (CLIENT LIST flag b, INFO
// blocked_clients), and a disconnect or CLIENT KILL forgets the wait.
// Unlike a blocking command it cannot be ended early: CLIENT UNBLOCK
// answers 0 for it, as Redis does for a client that is not in a blocking
// command, since the work off the loop runs to its end anyway (it has its
// own time limits).
//
// Finish posts its function to the shard (Shard.Post); it runs between
// batches, like a command: with the shard's time set, before the commit
// of its group, with a Ctx for the parked client whose reply fn writes.
// A write command's fn waits while CLIENT PAUSE holds writes.
// fn runs even when the client went away meanwhile (its reply is then
// dropped): what the work did elsewhere has happened, and fn's changes
// (MIGRATE's deletions) must follow it. fn's writes are logged and
// notified like a command's, a running snapshot copies the command's keys
// before they change, clients tracking them are told, and under fsync
// always the client's reply waits for fn's records.

// FlagParksOffLoop marks the commands that may park their client for work
// off the shard goroutine (MIGRATE), so that TryRun keeps them off the
// reactors, as it keeps blocking commands. COMMAND does not show it.
const FlagParksOffLoop = FlagMovableKeys << 9

// offLoopPauseRecheck is how often a Finish held by CLIENT PAUSE looks
// again.
const offLoopPauseRecheck = 10 * time.Millisecond

// OffLoop is a command's wait for work off the shard goroutine; see
// ParkOffLoop.
type OffLoop struct {
	sh *Shard
	c  *Client
	bc *blockedClient // nil when the client was gone when it parked
	db int
	// cmd and args are the command and a copy of its arguments, for the
	// snapshot's copy and tracking, valid whatever became of the batch.
	cmd  *Command
	args [][]byte
}

// ParkOffLoop parks the client of x for work off the shard goroutine and
// returns the wait, which Finish ends. The handler must not have replied
// and must return at once. It returns false, parking nothing, where a
// command cannot wait (inside MULTI/EXEC or a script: x.NoBlock, or
// without a batch): the handler then replies itself.
func (x *Ctx) ParkOffLoop() (*OffLoop, bool) {
	if x.NoBlock || x.Batch == nil {
		return nil, false
	}
	args := make([][]byte, len(x.Args))
	for i, a := range x.Args {
		args[i] = append([]byte(nil), a...)
	}
	o := &OffLoop{sh: x.S, c: x.C, db: x.DB.ID, cmd: x.Cmd, args: args}
	if x.C.IsClosed() {
		// Nobody to reply to: the work still runs, and Finish with it.
		return o, true
	}
	x.S.block(x, BlockSpec{Serve: func(*Ctx, []byte) bool { return false }})
	o.bc = x.C.Blk
	o.bc.offLoop = true
	x.C.OffLoop.Store(true)
	return o, true
}

// Finish runs fn on the shard goroutine for the parked client, then lets
// the client's waiting commands run. Call it once, from any goroutine.
func (o *OffLoop) Finish(fn func(x *Ctx)) {
	o.sh.Post(func() { o.sh.finishOffLoop(o, fn) })
}

// finishOffLoop is Finish on the shard goroutine.
func (sh *Shard) finishOffLoop(o *OffLoop, fn func(x *Ctx)) {
	bc := o.bc
	db := sh.DBs[o.db]
	write := o.cmd.Flags&FlagWrite != 0
	if write && sh.PauseActive() {
		// CLIENT PAUSE holds writes: fn waits for the pause's end (or
		// CLIENT UNPAUSE), as a write sent now would.
		time.AfterFunc(offLoopPauseRecheck, func() { sh.Post(func() { sh.finishOffLoop(o, fn) }) })
		return
	}
	if sh.Snap != nil && write {
		sh.snapshotBeforeWrite(o.cmd, o.args, db)
	}
	live := bc != nil && o.c.Blk == bc && !bc.done && bc.Batch != nil && !o.c.Killed() && !o.c.IsClosed()
	if !live {
		var w codec.Writer
		x := &Ctx{S: sh, C: o.c, DB: db, Args: o.args, W: &w, Cmd: o.cmd}
		fn(x)
		if sh.Trk != nil {
			sh.offLoopTrack(o)
		}
		if len(sh.Blk.ready) > 0 {
			sh.serveReady()
		}
		return
	}
	x := sh.blockCtx(bc)
	before := len(x.W.Buf)
	fn(x)
	if sh.Journal != nil && sh.logFail == nil {
		// The reply depends on the records fn wrote.
		sh.noteDep(x.Batch, before, write)
	}
	sh.slowlogUnblocked(x, bc, time.Time{})
	sh.countBlockedError(bc, before)
	bc.silence(x.W, before)
	*x = Ctx{}
	if sh.Trk != nil {
		sh.offLoopTrack(o)
	}
	sh.unblocked(bc)
	if len(sh.Blk.ready) > 0 {
		// fn's writes may serve clients blocked on the keys.
		sh.serveReady()
	}
	sh.ResumeBlocked()
}

// WritesRefused is the error a write gets now ("" when writes are
// accepted): the log has failed, or the server became a replica or lost
// its write lease. fn checks it before it writes, as the command's own
// checks ran before the wait.
func (sh *Shard) WritesRefused() string { return sh.writesRefused() }

// offLoopTrack tells the clients tracking the keys of a write finished
// off the loop that they changed, whatever the reply (fn may have changed
// some keys and failed on others); a key left alone is at worst read again.
func (sh *Shard) offLoopTrack(o *OffLoop) {
	if o.cmd.Flags&FlagWrite == 0 {
		return
	}
	sh.keyIdx = o.cmd.KeyIndexes(o.args, sh.keyIdx[:0])
	for _, i := range sh.keyIdx {
		sh.trackInvalidate(string(o.args[i]), o.c, o.c, true)
	}
	sh.trackLimit()
	sh.trackFlushSelf()
}

// Key guards. A command whose work spans the time between two of its runs
// on the shard (MIGRATE: serialize, exchange off the loop, then delete)
// guards the keys it read, and learns before it acts again which of them
// any write changed meanwhile. Every change passes the "key modified" hook
// (touchKey: every logged mutation, expiry and eviction included) or, for
// a whole database, TouchAllInDB; both mark the guarded keys. A guard
// costs one map entry per key while it is held, and nothing to other
// writes while no guard is held but a length check.

// KeyGuard notes which of its keys changed since it was set.
type KeyGuard struct {
	sh      *Shard
	db      int
	keys    []string
	changed []bool
}

// guardRef is one guarded key: its guard and its index there.
type guardRef struct {
	g *KeyGuard
	i int
}

// GuardKeys starts guarding keys of database db. Release it when done.
func (sh *Shard) GuardKeys(db int, keys [][]byte) *KeyGuard {
	g := &KeyGuard{sh: sh, db: db, keys: make([]string, len(keys)), changed: make([]bool, len(keys))}
	if sh.guards == nil {
		sh.guards = make(map[WatchKey][]guardRef)
	}
	for i, k := range keys {
		g.keys[i] = string(k)
		wk := WatchKey{DB: db, Key: g.keys[i]}
		sh.guards[wk] = append(sh.guards[wk], guardRef{g: g, i: i})
	}
	return g
}

// Changed reports whether the key at index i was written, deleted,
// expired or evicted since the guard was set.
func (g *KeyGuard) Changed(i int) bool { return g.changed[i] }

// Release stops guarding the keys; shard goroutine only.
func (g *KeyGuard) Release() {
	sh := g.sh
	for _, k := range g.keys {
		wk := WatchKey{DB: g.db, Key: k}
		refs := sh.guards[wk]
		n := 0
		for _, r := range refs {
			if r.g != g {
				refs[n] = r
				n++
			}
		}
		clear(refs[n:])
		if n == 0 {
			delete(sh.guards, wk)
		} else {
			sh.guards[wk] = refs[:n]
		}
	}
}

// guardTouch marks the guards of key of database db.
func (sh *Shard) guardTouch(db int, key string) {
	for _, r := range sh.guards[WatchKey{DB: db, Key: key}] {
		r.g.changed[r.i] = true
	}
}

// guardTouchDB marks every guarded key of database db (FLUSHDB, FLUSHALL,
// SWAPDB).
func (sh *Shard) guardTouchDB(db int) {
	for wk, refs := range sh.guards {
		if wk.DB == db {
			for _, r := range refs {
				r.g.changed[r.i] = true
			}
		}
	}
}
