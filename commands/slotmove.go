package commands

import (
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
)

// SLOTMOVE SYNC|SEQ|FREEZE id: the receiving side of a slot migration
// (cluster across hosts) on the sending shard's port. SYNC streams the
// shard's log as a full resync does (the replication package's frames:
// the newest snapshot, then every record after it); SEQ answers the last
// sequence of the shard's log; FREEZE holds the writes to the moving range
// until the migration ends and answers that sequence. Each checks that
// the migration sends from this shard (keyspace/migrate.go).
func slotmoveCommand(x *keyspace.Ctx) {
	sh := x.S
	id, err := strconv.ParseUint(string(x.Args[2]), 10, 64)
	if err != nil || id == 0 {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	sub := string(x.Args[1])
	switch {
	case strings.EqualFold(sub, "sync"):
		if err := sh.CheckSending(id); err != nil {
			x.W.Error(err.Error())
			return
		}
		if _, ok := sh.Journal.(*keyspace.WALJournal); !ok || sh.Srv.Opts.Replication == nil {
			x.W.Error("ERR moving slots needs the write-ahead log (persistence.wal = true)")
			return
		}
		x.C.SetOutputClass(config.OutputReplica)
		x.C.Replica.Store(true)
		sh.Srv.Opts.Replication.Serve(sh.Idx, fullResync, keyspace.ClientStream{C: x.C})
		// No reply: the stream's frames follow on the connection.
	case strings.EqualFold(sub, "seq"):
		if err := sh.CheckSending(id); err != nil {
			x.W.Error(err.Error())
			return
		}
		x.W.Int(int64(sh.Srv.LastSequence(sh.Idx)))
	case strings.EqualFold(sub, "freeze"):
		seq, err := sh.FreezeMigration(id)
		if err != nil {
			x.W.Error(err.Error())
			return
		}
		x.W.Int(int64(seq))
	default:
		x.W.Error(keyspace.ErrSyntax)
	}
}

// registerSlotMoveCommands registers SLOTMOVE.
func registerSlotMoveCommands(t keyspace.CommandTable) {
	t.Add(&keyspace.Command{Name: "slotmove", Arity: 3, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | keyspace.FlagNoMulti | keyspace.FlagStale, Group: "cluster", Since: "0.1.0", Summary: "Streams, probes or freezes a shard's slot range for a slot migration (internal to a cluster across hosts).", Complexity: "O(1)", Handler: slotmoveCommand})
}
