package keyspace

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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
// call touchAllInDB before they change a database. A touched watcher makes
// its client's next EXEC reply a null array.

// txState is a client's transaction and watch state, owned by its shard's
// goroutine.
type txState struct {
	multi bool
	// dirtyExec: a command failed its checks while queued (EXECABORT).
	dirtyExec bool
	// dirtyCAS: a watched key changed (EXEC replies null).
	dirtyCAS bool
	// flags is the union of the queued commands' flags; pauseFlags that
	// of their flags as run (scripts' declared flags), for CLIENT PAUSE.
	flags      Flag
	pauseFlags Flag
	// logBound bounds the WAL bytes the queued write commands can log.
	logBound int64
	queued   []queuedCmd
	watched  []*watchedKey
}

// queuedCmd is a command waiting for EXEC with its own copy of the
// arguments (the batch they arrived in is recycled).
type queuedCmd struct {
	cmd  *Command
	args [][]byte
}

// watchKey names a watched key in the shard's watch table. The database is
// an index: SWAPDB does not move watches, as in Redis.
type watchKey struct {
	db  int
	key string
}

// watchedKey is one client's watch of one key.
type watchedKey struct {
	c *Client
	watchKey
	// expired: the key was logically expired when watched, so its deletion
	// by expiry is no change.
	expired bool
}

// shardTx is a shard's transaction state.
type shardTx struct {
	// watched maps a key to the watches on it.
	watched map[watchKey][]*watchedKey
	// recording is set while EXEC runs: records go to batch.
	recording bool
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

const (
	errNestedMulti   = "ERR MULTI calls can not be nested"
	errWatchInMulti  = "ERR WATCH inside MULTI is not allowed"
	errExecNoMulti   = "ERR EXEC without MULTI"
	errDiscardNoMult = "ERR DISCARD without MULTI"
	errNotInMulti    = "ERR Command not allowed inside a transaction"
	errExecAbort     = "EXECABORT Transaction discarded because of previous errors."
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
	if c.tx.multi {
		c.tx.dirtyExec = true
	}
}

// queue stores a copy of a command for EXEC.
func (c *Client) queue(cmd *Command, args [][]byte) {
	// No point keeping commands of a transaction that will not run.
	if !c.tx.dirtyExec && !c.tx.dirtyCAS {
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
		c.tx.queued = append(c.tx.queued, queuedCmd{cmd: cmd, args: cp})
		c.tx.flags |= cmd.Flags
		if cmd.Flags&FlagWrite != 0 {
			// A record holds at most the arguments plus a few bytes of
			// framing, deadline and lengths per argument.
			c.tx.logBound += int64(n) + batchEntryOverhead*int64(len(args))
		}
	}
	c.multiCount.Store(int32(len(c.tx.queued)))
}

// discardTx ends c's transaction, if any, and drops its watches.
func (sh *Shard) discardTx(c *Client) {
	for i := range c.tx.queued {
		c.tx.queued[i] = queuedCmd{}
	}
	c.tx.queued = c.tx.queued[:0]
	c.tx.multi, c.tx.dirtyExec, c.tx.dirtyCAS, c.tx.flags, c.tx.logBound = false, false, false, 0, 0
	c.tx.pauseFlags = 0
	c.multiCount.Store(-1)
	c.dirtyCAS.Store(false)
	sh.unwatchAll(c)
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
	sh.discardTx(x.C)
}

// subcommandOK checks, for a container command queued in MULTI, that its
// subcommand exists and gets its arity, replying the error otherwise (a
// command that runs at once leaves that to its handler, whose texts match).
func subcommandOK(x *Ctx, cmd *Command, args [][]byte) bool {
	if len(cmd.Subcommands) == 0 || len(args) < 2 {
		return true
	}
	sub := cmd.sub(args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + truncArg(args[1]) + "'. Try " + strings.ToUpper(cmd.Name) + " HELP.")
		return false
	}
	if !arityOK(sub.Arity, len(args)) {
		x.W.Error(errWrongArgs(sub.FullName()))
		return false
	}
	return true
}

// MULTI
func multiCommand(x *Ctx) {
	c := x.C
	if c.tx.multi {
		x.W.Error(errNestedMulti)
		return
	}
	c.tx.multi = true
	c.multiCount.Store(0)
	x.W.OK()
}

// DISCARD
func discardCommand(x *Ctx) {
	if !x.C.tx.multi {
		x.W.Error(errDiscardNoMult)
		return
	}
	x.S.discardTx(x.C)
	x.W.OK()
}

// EXEC
func execCommand(x *Ctx) {
	sh, c, w := x.S, x.C, x.W
	if !c.tx.multi {
		w.Error(errExecNoMulti)
		return
	}
	if sh.multiShard() && !sh.txOneSlot(c) {
		// As a cluster node: the transaction is dropped, not flagged.
		sh.discardTx(c)
		w.Error(errCrossSlot)
		return
	}
	if sh.watchedKeyExpired(c) {
		c.tx.dirtyCAS = true
	}
	if c.tx.dirtyExec {
		w.Error(errExecAbort)
		sh.discardTx(c)
		return
	}
	if c.tx.dirtyCAS {
		w.NullArray()
		sh.discardTx(c)
		return
	}
	if sh.journal != nil && c.tx.logBound > persistence.MaxPayloadSize {
		// One record could not hold the unit, and a failed append would
		// stop the shard's writes: refuse the transaction instead.
		sh.discardTx(c)
		w.Error("EXECABORT Transaction discarded because of: ERR the transaction's writes may exceed one write-ahead log record (" + strconv.FormatInt(persistence.MaxPayloadSize, 10) + " bytes)")
		return
	}
	sh.unwatchAll(c)
	queued := c.tx.queued
	args, cmd := x.Args, x.Cmd
	w.ArrayHeader(len(queued))
	sh.beginUnit()
	x.NoBlock = true
	for i := range queued {
		q := &queued[i]
		x.DB = sh.dbs[c.DB]
		x.Args = q.args
		x.Cmd = q.cmd
		// Permissions are checked again at EXEC, as Redis does: the user
		// may have changed since the command was queued.
		if !sh.checkACLQueued(x, q.cmd, q.args) {
			continue
		}
		sh.call(x, q.cmd, q.args)
	}
	x.NoBlock = false
	sh.endUnit()
	x.Args, x.Cmd, x.DB = args, cmd, sh.dbs[c.DB]
	sh.discardTx(c)
}

// txOneSlot reports whether the keys of every queued command of c hash to
// one slot (Redis Cluster refuses EXEC otherwise).
func (sh *Shard) txOneSlot(c *Client) bool {
	topo := sh.srv.opts.Topology
	slot := -1
	for _, q := range c.tx.queued {
		sh.keyIdx = q.cmd.keyIndexes(q.args, sh.keyIdx[:0])
		for _, i := range sh.keyIdx {
			s16, _ := topo.ShardOfKey(q.args[i])
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

// WATCH key [key ...]
func watchCommand(x *Ctx) {
	sh, c := x.S, x.C
	if c.tx.multi {
		x.W.Error(errWatchInMulti)
		return
	}
	// No point watching once a watched key changed.
	if c.tx.dirtyCAS {
		x.W.OK()
		return
	}
	if c.isClosed() {
		// Gone already: its shard has released it, or will.
		x.W.OK()
		return
	}
	if sh.tx.watched == nil {
		sh.tx.watched = make(map[watchKey][]*watchedKey)
	}
	db := x.DB
next:
	for _, k := range x.Args[1:] {
		for _, wk := range c.tx.watched {
			if wk.db == db.id && wk.key == string(k) {
				continue next
			}
		}
		e := db.find(k)
		wk := &watchedKey{c: c, watchKey: watchKey{db: db.id, key: string(k)}, expired: e != nil && e.expired(sh.nowMs)}
		c.tx.watched = append(c.tx.watched, wk)
		sh.tx.watched[wk.watchKey] = append(sh.tx.watched[wk.watchKey], wk)
	}
	x.W.OK()
}

// UNWATCH
func unwatchCommand(x *Ctx) {
	x.S.unwatchAll(x.C)
	x.C.tx.dirtyCAS = false
	x.C.dirtyCAS.Store(false)
	x.W.OK()
}

// unwatchAll drops every watch of c.
func (sh *Shard) unwatchAll(c *Client) {
	if len(c.tx.watched) == 0 {
		return
	}
	for i, wk := range c.tx.watched {
		ws := sh.tx.watched[wk.watchKey]
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
			delete(sh.tx.watched, wk.watchKey)
		} else {
			sh.tx.watched[wk.watchKey] = ws
		}
		c.tx.watched[i] = nil
	}
	c.tx.watched = c.tx.watched[:0]
}

// watchedKeyExpired reports whether a key c watched while it was live has
// expired since (EXEC then fails, as the expiry is a change).
func (sh *Shard) watchedKeyExpired(c *Client) bool {
	for _, wk := range c.tx.watched {
		if wk.expired {
			continue
		}
		if e := sh.dbs[wk.db].findString(wk.key); e != nil && e.expired(sh.nowMs) {
			return true
		}
	}
	return false
}

// dirty marks c's transaction as failed by a watched change.
func (c *Client) dirty() {
	c.tx.dirtyCAS = true
	c.dirtyCAS.Store(true)
}

// touchKey is the "key modified" hook: every mutation of key in database db
// calls it (through the WAL record helpers) after changing the data.
func (sh *Shard) touchKey(db int, key string) {
	if len(sh.blk.waiting) != 0 {
		sh.signalKey(db, key)
	}
	if len(sh.tx.watched) == 0 {
		return
	}
	ws := sh.tx.watched[watchKey{db: db, key: key}]
	if len(ws) == 0 {
		return
	}
	var broken []*Client
	for _, wk := range ws {
		if wk.expired {
			// Deleting a key that was already logically expired changes
			// nothing: from now on it is watched as absent. Deletions log
			// (and so touch) just before the entry leaves the arena, while
			// its key is still readable: still present but expired is
			// that deletion too.
			if e := sh.dbs[db].findString(key); e == nil || e.expired(sh.nowMs) {
				wk.expired = false
			}
			continue
		}
		broken = append(broken, wk.c)
	}
	for _, c := range broken {
		c.dirty()
		// A dirty client needs no more notices.
		sh.unwatchAll(c)
	}
}

// touchAllInDB is the hook for commands that replace a whole database:
// FLUSHDB and FLUSHALL (replaced is nil) and SWAPDB (replaced is the
// database taking db's place). It runs before the change, and breaks the
// watches of keys that exist in either, except where a logically expired
// key stays expired or goes away.
func (sh *Shard) touchAllInDB(db int, replaced *DB) {
	if len(sh.blk.waiting) != 0 {
		sh.signalDB(db)
	}
	if len(sh.tx.watched) == 0 {
		return
	}
	now := sh.nowMs
	var broken []*Client
	for k, ws := range sh.tx.watched {
		if k.db != db {
			continue
		}
		inEmptied := sh.dbs[db].findString(k.key) != nil
		var repl *entry
		if replaced != nil {
			repl = replaced.findString(k.key)
		}
		if !inEmptied && repl == nil {
			continue
		}
		for _, wk := range ws {
			switch {
			case wk.expired && repl == nil:
				wk.expired = false
				continue
			case wk.expired && repl.expired(now):
				continue
			case !wk.expired && !inEmptied && repl.expired(now):
				wk.expired = true
				continue
			}
			broken = append(broken, wk.c)
		}
	}
	for _, c := range broken {
		c.dirty()
	}
}

// beginUnit starts collecting WAL records as one atomic unit.
func (sh *Shard) beginUnit() {
	if sh.journal != nil {
		sh.tx.recording = true
		sh.tx.batch.Reset()
	}
}

// flushUnit writes the records collected so far: one plain record when
// there is one (a record is atomic already), else one Batch record.
func (sh *Shard) flushUnit() {
	b := &sh.tx.batch
	switch b.Len() {
	case 0:
	case 1:
		db, op, p := b.Single()
		sh.journal.Append(db, op, p)
		sh.appends++
	default:
		sh.tx.payload = b.AppendPayload(sh.tx.payload[:0])
		sh.journal.Append(0, persistence.OpBatch, sh.tx.payload)
		sh.appends++
	}
	b.Reset()
}

// endUnit writes the unit's records and stops collecting.
func (sh *Shard) endUnit() {
	if !sh.tx.recording {
		return
	}
	sh.flushUnit()
	sh.tx.recording = false
	if cap(sh.tx.payload) > 1<<20 {
		sh.tx.payload = nil
	}
}

// applyBatch replays a Batch record (an EXEC's mutations): every entry is
// decoded before the first is applied, so a malformed batch changes
// nothing.
func (sh *Shard) applyBatch(r persistence.Record) error {
	entries, err := persistence.DecodeBatch(nil, r.Payload)
	if err != nil {
		return fmt.Errorf("%w: seq %d (%s): %v", errReplay, r.Seq, r.Op, err)
	}
	for i, e := range entries {
		if err := sh.applyRecord(persistence.Record{Seq: r.Seq, DB: e.DB, Op: e.Op, Payload: e.Payload}); err != nil {
			return fmt.Errorf("batch entry %d: %w", i, err)
		}
	}
	return nil
}

// forgetClosed hands a detached client to its shard, which releases it at
// its next drain or wake-up (reapClosed). Called from any goroutine.
func (sh *Shard) forgetClosed(c *Client) {
	sh.tx.closedMu.Lock()
	sh.tx.closed = append(sh.tx.closed, c)
	sh.tx.closedN.Store(int32(len(sh.tx.closed)))
	sh.tx.closedMu.Unlock()
}

// reapClosed releases the clients detached since the last call; shard
// goroutine.
func (sh *Shard) reapClosed() {
	if sh.tx.closedN.Load() == 0 {
		return
	}
	sh.tx.closedMu.Lock()
	cs := sh.tx.closed
	sh.tx.closed = nil
	sh.tx.closedN.Store(0)
	sh.tx.closedMu.Unlock()
	for _, c := range cs {
		sh.forget(c)
	}
}

// forget releases what a detached client c of this shard holds here: its
// transaction and watched keys, its wait and held batches, subscriptions
// a command registered before it saw the client closed, its tracking and
// MONITOR registrations. It may run more than once for c. Shard goroutine
// only.
func (sh *Shard) forget(c *Client) {
	sh.discardTx(c)
	sh.dropBlocked(c)
	sh.resetPubSub(c)
	sh.trackOff(c)
	sh.srv.stopMonitor(c)
}

// endClient ends c, a client of any shard, for every command that runs on
// this shard from now on (CLIENT KILL, QUIT): its queued commands are
// dropped unrun, it leaves CLIENT LIST, its subscriptions are gone, and
// its wait and other registrations are released now for another client of
// this shard, and for the caller itself (whose command is still running)
// or a client of another shard before that shard runs anything else. Its
// connection is closed once the replies already made are written.
func (x *Ctx) endClient(c *Client) {
	c.Kill()
	x.S.srv.detach(c)
	if c.Shard == x.S.idx && c != x.C {
		x.S.forget(c)
	}
}

func registerTransactionFamily(t commandTable) {
	const grp = "transactions"
	ctl := FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagAllowBusy
	t.add(
		&Command{Name: "multi", Arity: 1, Flags: ctl, Group: grp, Since: "1.2.0", Summary: "Starts a transaction.", Complexity: "O(1)", Handler: multiCommand},
		&Command{Name: "exec", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagSkipSlowlog, Group: grp, Since: "1.2.0", Summary: "Executes all commands in a transaction.", Complexity: "Depends on commands in the transaction", Handler: execCommand},
		&Command{Name: "discard", Arity: 1, Flags: ctl, Group: grp, Since: "2.0.0", Summary: "Discards a transaction.", Complexity: "O(N), when N is the number of queued commands", Handler: discardCommand},
		&Command{Name: "watch", Arity: -2, Flags: ctl, FirstKey: 1, LastKey: -1, Step: 1, Group: grp, Since: "2.2.0", Summary: "Monitors changes to keys to determine the execution of a transaction.", Complexity: "O(1) for every key.", Handler: watchCommand},
		&Command{Name: "unwatch", Arity: 1, Flags: ctl, Group: grp, Since: "2.2.0", Summary: "Forgets about watched keys of a transaction.", Complexity: "O(1)", Handler: unwatchCommand},
	)
}
