package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"

	"github.com/ruvio/ruvio/persistence"
)

// MULTI
func multiCommand(x *keyspace.Ctx) {
	c := x.C
	if c.Tx.Multi {
		x.W.Error(keyspace.ErrNestedMulti)
		return
	}
	c.Tx.Multi = true
	c.MultiCount.Store(0)
	x.W.OK()
}

// DISCARD
func discardCommand(x *keyspace.Ctx) {
	if !x.C.Tx.Multi {
		x.W.Error(keyspace.ErrDiscardNoMult)
		return
	}
	x.S.DiscardTx(x.C)
	x.W.OK()
}

// EXEC
func execCommand(x *keyspace.Ctx) {
	sh, c, w := x.S, x.C, x.W
	if !c.Tx.Multi {
		w.Error(keyspace.ErrExecNoMulti)
		return
	}
	if sh.MultiShard() && !sh.TxOneSlot(c) {
		// As a cluster node: the transaction is dropped, not flagged.
		sh.DiscardTx(c)
		w.Error(keyspace.ErrCrossSlot)
		return
	}
	if msg := sh.TxSlotRefusal(c); msg != "" {
		// The slot moved (or the lease lapsed) since the commands were
		// queued: dropped, as Redis Cluster drops a redirected EXEC.
		sh.DiscardTx(c)
		w.Error(msg)
		return
	}
	if sh.WatchedKeyExpired(c) {
		c.Tx.DirtyCAS = true
	}
	if c.Tx.DirtyExec {
		w.Error(keyspace.ErrExecAbort)
		sh.DiscardTx(c)
		return
	}
	if c.Tx.DirtyCAS {
		w.NullArray()
		sh.DiscardTx(c)
		return
	}
	if sh.Journal != nil && c.Tx.LogBound > persistence.MaxPayloadSize {
		// One record could not hold the unit, and a failed append would
		// stop the shard's writes: refuse the transaction instead.
		sh.DiscardTx(c)
		w.Error("EXECABORT Transaction discarded because of: ERR the transaction's writes may exceed one write-ahead log record (" + strconv.FormatInt(persistence.MaxPayloadSize, 10) + " bytes)")
		return
	}
	sh.UnwatchAll(c)
	queued := c.Tx.Queued
	args, cmd := x.Args, x.Cmd
	w.ArrayHeader(len(queued))
	sh.BeginUnit()
	x.NoBlock = true
	for i := range queued {
		q := &queued[i]
		x.DB = sh.DBs[c.DB]
		x.Args = q.Args
		x.Cmd = q.Cmd
		// Permissions are checked again at EXEC, as Redis does: the user
		// may have changed since the command was queued.
		if !sh.CheckACLQueued(x, q.Cmd, q.Args) {
			continue
		}
		sh.Call(x, q.Cmd, q.Args)
	}
	x.NoBlock = false
	sh.EndUnit()
	x.Args, x.Cmd, x.DB = args, cmd, sh.DBs[c.DB]
	sh.DiscardTx(c)
}

// WATCH key [key ...]
func watchCommand(x *keyspace.Ctx) {
	sh, c := x.S, x.C
	if c.Tx.Multi {
		x.W.Error(keyspace.ErrWatchInMulti)
		return
	}
	// No point watching once a watched key changed.
	if c.Tx.DirtyCAS {
		x.W.OK()
		return
	}
	if c.IsClosed() {
		// Gone already: its shard has released it, or will.
		x.W.OK()
		return
	}
	if sh.Tx.Watched == nil {
		sh.Tx.Watched = make(map[keyspace.WatchKey][]*keyspace.WatchedKey)
	}
	db := x.DB
next:
	for _, k := range x.Args[1:] {
		// Already watched by c: found among the key's watchers, so that
		// WATCH of many keys is not quadratic in them.
		key := keyspace.WatchKey{DB: db.ID, Key: string(k)}
		for _, wk := range sh.Tx.Watched[key] {
			if wk.C == c {
				continue next
			}
		}
		e := db.Find(k)
		wk := &keyspace.WatchedKey{C: c, WatchKey: key, Expired: e != nil && e.Expired(sh.NowMs)}
		c.Tx.Watched = append(c.Tx.Watched, wk)
		c.NoteWatchedKey(wk.Key)
		sh.Tx.Watched[wk.WatchKey] = append(sh.Tx.Watched[wk.WatchKey], wk)
	}
	x.W.OK()
}

// UNWATCH
func unwatchCommand(x *keyspace.Ctx) {
	x.S.UnwatchAll(x.C)
	x.C.Tx.DirtyCAS = false
	x.C.DirtyCAS.Store(false)
	x.W.OK()
}

func registerTransactionFamily(t keyspace.CommandTable) {
	const grp = "transactions"
	ctl := keyspace.FlagNoScript | keyspace.FlagLoading | keyspace.FlagStale | keyspace.FlagFast | keyspace.FlagAllowBusy
	t.Add(
		&keyspace.Command{Name: "multi", Arity: 1, Flags: ctl, Group: grp, Since: "1.2.0", Summary: "Starts a transaction.", Complexity: "O(1)", Handler: multiCommand},
		&keyspace.Command{Name: "exec", Arity: 1, Flags: keyspace.FlagNoScript | keyspace.FlagLoading | keyspace.FlagStale | keyspace.FlagSkipSlowlog, Group: grp, Since: "1.2.0", Summary: "Executes all commands in a transaction.", Complexity: "Depends on commands in the transaction", Handler: execCommand},
		&keyspace.Command{Name: "discard", Arity: 1, Flags: ctl, Group: grp, Since: "2.0.0", Summary: "Discards a transaction.", Complexity: "O(N), when N is the number of queued commands", Handler: discardCommand},
		&keyspace.Command{Name: "watch", Arity: -2, Flags: ctl, FirstKey: 1, LastKey: -1, Step: 1, Group: grp, Since: "2.2.0", Summary: "Monitors changes to keys to determine the execution of a transaction.", Complexity: "O(1) for every key.", Handler: watchCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRO, 1, -1, 1)}},
		&keyspace.Command{Name: "unwatch", Arity: 1, Flags: ctl, Group: grp, Since: "2.2.0", Summary: "Forgets about watched keys of a transaction.", Complexity: "O(1)", Handler: unwatchCommand},
	)
}
