package keyspace

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/persistence"
)

// Transactions: MULTI, EXEC, DISCARD, WATCH and UNWATCH.
//
// A client in MULTI has its commands checked (lookup, arity, auth, slots,
// no_multi) and queued with a copy of their arguments; a check that fails
// marks the transaction so EXEC aborts it with EXECABORT. EXEC runs the
// queued commands back to back on the shard goroutine, so nothing else
// interleaves, and their WAL records are written as one unit (one Batch
// record when there is more than one), so recovery, and later a replica,
// applies all of them or none.
//
// WATCH registers (database, key) pairs in the shard's watch table. Every
// mutation that writes a WAL record is a real change of its key, so the
// record helpers in journal.go call touchKey; FLUSHDB, FLUSHALL and SWAPDB
// call TouchAllInDB before they change a database. A touched watcher makes
// its client's next EXEC reply a null array.

// txState is a client's transaction and watch state, owned by its shard's
// goroutine.
type txState struct {
	Multi bool
	// DirtyExec is set when a command failed its checks while queued
	// (EXECABORT).
	DirtyExec bool
	// DirtyCAS is set when a watched key changed (EXEC replies null).
	DirtyCAS bool
	// flags is the union of the queued commands' flags; pauseFlags that
	// of their flags as run (scripts' declared flags), for CLIENT PAUSE.
	flags      Flag
	pauseFlags Flag
	// LogBound bounds the WAL bytes the queued write commands can log.
	LogBound int64
	Queued   []queuedCmd
	Watched  []*WatchedKey
}

// queuedCmd is a command waiting for EXEC with its own copy of the
// arguments (the batch they arrived in is recycled).
type queuedCmd struct {
	Cmd  *Command
	Args [][]byte
}

// WatchKey names a watched key in the shard's watch table. The database is
// an index: SWAPDB does not move watches, as in Redis.
type WatchKey struct {
	DB  int    // database index
	Key string // the key
}

// WatchedKey is one client's watch of one key.
type WatchedKey struct {
	C *Client // the watching client
	WatchKey
	// Expired is set when the key was logically expired when watched, so
	// its deletion by expiry is no change.
	Expired bool
}

// shardTx is a shard's transaction state.
type shardTx struct {
	// Watched maps a key to the watches on it.
	Watched map[WatchKey][]*WatchedKey
	// Recording is set while EXEC runs: records go to batch.
	Recording bool
	batch     persistence.BatchBuilder
	payload   []byte

	// closed holds disconnected clients that still have watches; the
	// shard goroutine removes them (Disconnected runs on a reactor).
	closedMu sync.Mutex
	closed   []*Client
	// closedN is len(closed), read without the lock.
	closedN atomic.Int32
}

// batchEntryOverhead bounds what a Batch entry adds to the logged bytes of one
// argument: db, opcode, length prefixes and a deadline.
const batchEntryOverhead = 32

// Transaction errors, worded as Redis words them: MULTI inside MULTI,
// WATCH inside MULTI, EXEC or DISCARD without MULTI, a command refused
// inside a transaction, and EXEC of a transaction that queued an error.
const (
	ErrNestedMulti   = "ERR MULTI calls can not be nested"
	ErrWatchInMulti  = "ERR WATCH inside MULTI is not allowed"
	ErrExecNoMulti   = "ERR EXEC without MULTI"
	ErrDiscardNoMult = "ERR DISCARD without MULTI"
	errNotInMulti    = "ERR Command not allowed inside a transaction"
	ErrExecAbort     = "EXECABORT Transaction discarded because of previous errors."
)

// txControl reports whether cmd runs at once inside MULTI instead of being
// queued.
func txControl(cmd *Command) bool {
	switch cmd.Name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return true
	}
	return false
}

// flagTx marks c's transaction as failed when c is in MULTI: a queued
// command was refused.
func (c *Client) flagTx() {
	if c.Tx.Multi {
		c.Tx.DirtyExec = true
	}
}

// Queue stores a copy of a command for EXEC.
func (c *Client) Queue(cmd *Command, args [][]byte) {
	// No point keeping commands of a transaction that will not run.
	if !c.Tx.DirtyExec && !c.Tx.DirtyCAS {
		n := 0
		for _, a := range args {
			n += len(a)
		}
		buf := make([]byte, 0, n)
		cp := make([][]byte, len(args))
		for i, a := range args {
			buf = append(buf, a...)
			cp[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
		}
		c.Tx.Queued = append(c.Tx.Queued, queuedCmd{Cmd: cmd, Args: cp})
		c.mem.multi.Add(int64(n) + ArgMem*int64(len(args)) + queuedCmdMem)
		c.Tx.flags |= cmd.Flags
		if cmd.Flags&FlagWrite != 0 {
			// A record holds at most the arguments plus a few bytes of
			// framing, deadline and lengths per argument.
			c.Tx.LogBound += int64(n) + batchEntryOverhead*int64(len(args))
		}
	}
	c.MultiCount.Store(int32(len(c.Tx.Queued)))
}

// DiscardTx ends c's transaction, if any, and drops its watches.
func (sh *Shard) DiscardTx(c *Client) {
	for i := range c.Tx.Queued {
		c.Tx.Queued[i] = queuedCmd{}
	}
	c.Tx.Queued = c.Tx.Queued[:0]
	c.mem.multi.Store(0)
	c.Tx.Multi, c.Tx.DirtyExec, c.Tx.DirtyCAS, c.Tx.flags, c.Tx.LogBound = false, false, false, 0, 0
	c.Tx.pauseFlags = 0
	c.MultiCount.Store(-1)
	c.DirtyCAS.Store(false)
	sh.UnwatchAll(c)
}

// execAbort replaces the refusal of an EXEC (written from before on) by
// EXECABORT naming it, and ends the transaction.
func (sh *Shard) execAbort(x *Ctx, before int) {
	w := x.W
	msg := string(w.Buf[before:])
	w.Buf = w.Buf[:before]
	if len(msg) > 0 {
		msg = msg[1:] // '-' or '!'
	}
	for len(msg) > 0 && (msg[len(msg)-1] == '\n' || msg[len(msg)-1] == '\r') {
		msg = msg[:len(msg)-1]
	}
	w.Error("EXECABORT Transaction discarded because of: " + msg)
	sh.DiscardTx(x.C)
}

// subcommandOK checks, for a container command queued in MULTI, that its
// subcommand exists and gets its arity, replying the error otherwise (a
// command that runs at once leaves that to its handler, whose texts match).
func subcommandOK(x *Ctx, cmd *Command, args [][]byte) bool {
	if len(cmd.Subcommands) == 0 || len(args) < 2 {
		return true
	}
	sub := cmd.Sub(args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + TruncArg(args[1]) + "'. Try " + strings.ToUpper(cmd.Name) + " HELP.")
		return false
	}
	if !ArityOK(sub.Arity, len(args)) {
		x.W.Error(ErrWrongArgs(sub.FullName()))
		return false
	}
	return true
}

// TxOneSlot reports whether the keys of every queued command of c hash to
// one slot (Redis Cluster refuses EXEC otherwise).
func (sh *Shard) TxOneSlot(c *Client) bool {
	topo := sh.Srv.Topology()
	slot := -1
	for _, q := range c.Tx.Queued {
		sh.keyIdx = q.Cmd.KeyIndexes(q.Args, sh.keyIdx[:0])
		for _, i := range sh.keyIdx {
			s16, _ := topo.ShardOfKey(q.Args[i])
			s := int(s16)
			if slot < 0 {
				slot = s
			} else if s != slot {
				return false
			}
		}
	}
	return true
}

// TxSlotRefusal is, in a cluster across hosts, the error for an EXEC whose
// queued commands' slot this shard no longer serves as it did when they
// were queued (the slot moved, or the write lease lapsed): MOVED or
// CLUSTERDOWN, as Redis Cluster refuses such an EXEC; "" otherwise.
func (sh *Shard) TxSlotRefusal(c *Client) string {
	if !sh.Srv.Cluster.multi {
		return ""
	}
	topo := sh.Srv.Topology()
	write := false
	slot := -1
	for _, q := range c.Tx.Queued {
		if sh.EffectiveFlags(q.Cmd, q.Args)&FlagWrite != 0 {
			write = true
		}
		if slot < 0 {
			if sh.keyIdx = q.Cmd.KeyIndexes(q.Args, sh.keyIdx[:0]); len(sh.keyIdx) > 0 {
				slot = int(cluster.KeySlot(q.Args[sh.keyIdx[0]]))
			}
		}
	}
	if slot < 0 {
		return ""
	}
	return sh.Srv.SlotRefusal(topo, uint16(slot), sh.Idx, write, c)
}

// UnwatchAll drops every watch of c.
func (sh *Shard) UnwatchAll(c *Client) {
	if len(c.Tx.Watched) == 0 {
		return
	}
	for i, wk := range c.Tx.Watched {
		ws := sh.Tx.Watched[wk.WatchKey]
		for j, o := range ws {
			if o == wk {
				last := len(ws) - 1
				ws[j] = ws[last]
				ws[last] = nil
				ws = ws[:last]
				break
			}
		}
		if len(ws) == 0 {
			delete(sh.Tx.Watched, wk.WatchKey)
		} else {
			sh.Tx.Watched[wk.WatchKey] = ws
		}
		c.Tx.Watched[i] = nil
	}
	c.Tx.Watched = c.Tx.Watched[:0]
	c.mem.watch.Store(0)
}

// WatchedKeyExpired reports whether a key c watched while it was live has
// expired since (EXEC then fails, as the expiry is a change).
func (sh *Shard) WatchedKeyExpired(c *Client) bool {
	for _, wk := range c.Tx.Watched {
		if wk.Expired {
			continue
		}
		if e := sh.DBs[wk.DB].FindString(wk.Key); e != nil && e.Expired(sh.NowMs) {
			return true
		}
	}
	return false
}

// dirty marks c's transaction as failed by a watched change.
func (c *Client) dirty() {
	c.Tx.DirtyCAS = true
	c.DirtyCAS.Store(true)
}

// touchKey is the "key modified" hook: every mutation of key in database db
// calls it (through the WAL record helpers) after changing the data.
func (sh *Shard) touchKey(db int, key string) {
	if len(sh.Blk.Waiting) != 0 {
		sh.signalKey(db, key)
	}
	if len(sh.guards) != 0 {
		sh.guardTouch(db, key)
	}
	if len(sh.Tx.Watched) == 0 {
		return
	}
	ws := sh.Tx.Watched[WatchKey{DB: db, Key: key}]
	if len(ws) == 0 {
		return
	}
	var broken []*Client
	for _, wk := range ws {
		if wk.Expired {
			// Deleting a key that was already logically expired changes
			// nothing: from now on it is watched as absent. Deletions log
			// (and so touch) just before the entry leaves the arena, while
			// its key is still readable: still present but expired is
			// that deletion too.
			if e := sh.DBs[db].FindString(key); e == nil || e.Expired(sh.NowMs) {
				wk.Expired = false
			}
			continue
		}
		broken = append(broken, wk.C)
	}
	for _, c := range broken {
		c.dirty()
		// A dirty client needs no more notices.
		sh.UnwatchAll(c)
	}
}

// TouchAllInDB is the hook for commands that replace a whole database:
// FLUSHDB and FLUSHALL (replaced is nil) and SWAPDB (replaced is the
// database taking db's place). It runs before the change, and breaks the
// watches of keys that exist in either, except where a logically expired
// key stays expired or goes away.
func (sh *Shard) TouchAllInDB(db int, replaced *DB) {
	if len(sh.Blk.Waiting) != 0 {
		sh.signalDB(db)
	}
	if len(sh.guards) != 0 {
		sh.guardTouchDB(db)
	}
	if len(sh.Tx.Watched) == 0 {
		return
	}
	now := sh.NowMs
	var broken []*Client
	for k, ws := range sh.Tx.Watched {
		if k.DB != db {
			continue
		}
		inEmptied := sh.DBs[db].FindString(k.Key) != nil
		var repl *Entry
		if replaced != nil {
			repl = replaced.FindString(k.Key)
		}
		if !inEmptied && repl == nil {
			continue
		}
		for _, wk := range ws {
			switch {
			case wk.Expired && repl == nil:
				wk.Expired = false
				continue
			case wk.Expired && repl.Expired(now):
				continue
			case !wk.Expired && !inEmptied && repl.Expired(now):
				wk.Expired = true
				continue
			}
			broken = append(broken, wk.C)
		}
	}
	for _, c := range broken {
		c.dirty()
	}
}

// BeginUnit starts collecting WAL records as one atomic unit.
func (sh *Shard) BeginUnit() {
	if sh.Journal != nil {
		sh.Tx.Recording = true
		sh.Tx.batch.Reset()
	}
}

// flushUnit writes the records collected so far: one plain record when
// there is one (a record is atomic already), else one Batch record.
func (sh *Shard) flushUnit() {
	b := &sh.Tx.batch
	switch b.Len() {
	case 0:
	case 1:
		db, op, p := b.Single()
		sh.Journal.Append(db, op, p)
		sh.appends++
	default:
		sh.Tx.payload = b.AppendPayload(sh.Tx.payload[:0])
		sh.Journal.Append(0, persistence.OpBatch, sh.Tx.payload)
		sh.appends++
	}
	b.Reset()
}

// EndUnit writes the unit's records and stops collecting.
func (sh *Shard) EndUnit() {
	if !sh.Tx.Recording {
		return
	}
	sh.flushUnit()
	sh.Tx.Recording = false
	if cap(sh.Tx.payload) > 1<<20 {
		sh.Tx.payload = nil
	}
}

// applyBatch replays a Batch record (an EXEC's mutations): every entry is
// decoded before the first is applied, so a malformed batch changes
// nothing.
func (sh *Shard) applyBatch(r persistence.Record) error {
	entries, err := persistence.DecodeBatch(nil, r.Payload)
	if err != nil {
		return fmt.Errorf("%w: seq %d (%s): %v", ErrReplay, r.Seq, r.Op, err)
	}
	for i, e := range entries {
		if err := sh.ApplyRecord(persistence.Record{Seq: r.Seq, DB: e.DB, Op: e.Op, Payload: e.Payload}); err != nil {
			return fmt.Errorf("batch entry %d: %w", i, err)
		}
	}
	return nil
}

// forgetClosed hands a detached client to its shard, which releases it at
// its next drain or wake-up (ReapClosed). Called from any goroutine.
func (sh *Shard) forgetClosed(c *Client) {
	sh.Tx.closedMu.Lock()
	sh.Tx.closed = append(sh.Tx.closed, c)
	sh.Tx.closedN.Store(int32(len(sh.Tx.closed)))
	sh.Tx.closedMu.Unlock()
}

// ReapClosed releases the clients detached since the last call; shard
// goroutine.
func (sh *Shard) ReapClosed() {
	if sh.Tx.closedN.Load() == 0 {
		return
	}
	sh.Tx.closedMu.Lock()
	cs := sh.Tx.closed
	sh.Tx.closed = nil
	sh.Tx.closedN.Store(0)
	sh.Tx.closedMu.Unlock()
	open := sh.group != nil
	for _, c := range cs {
		sh.forget(c)
	}
	if !open && sh.group != nil {
		// Batches handed back (dropBlocked) opened a group: it is committed
		// now, as nothing else may follow soon. An open group (a drain's)
		// is committed by its owner.
		sh.commitRun()
	}
}

// forget releases what a detached client c of this shard holds here: its
// transaction and watched keys, its wait and held batches, subscriptions
// a command registered before it saw the client closed, its tracking and
// MONITOR registrations. It may run more than once for c. Shard goroutine
// only.
func (sh *Shard) forget(c *Client) {
	sh.DiscardTx(c)
	sh.dropBlocked(c)
	sh.ResetPubSub(c)
	sh.TrackOff(c)
	sh.Srv.StopMonitor(c)
}

// EndClient ends c, a client of any shard, for every command that runs on
// this shard from now on (CLIENT KILL, QUIT): its queued commands are
// dropped unrun, it leaves CLIENT LIST, its subscriptions are gone, and
// its wait and other registrations are released now for another client of
// this shard, and for the caller itself (whose command is still running)
// or a client of another shard before that shard runs anything else. Its
// connection is closed once the replies already made are written.
func (x *Ctx) EndClient(c *Client) {
	c.Kill()
	x.S.Srv.detach(c)
	if c.Shard == x.S.Idx && c != x.C {
		x.S.forget(c)
	}
}
