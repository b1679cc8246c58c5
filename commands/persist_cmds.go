package commands

import (
	"github.com/ruvio/ruvio/keyspace"
)

// SAVE: write a snapshot of this shard now, blocking it until the file is
// durable, as Redis's SAVE blocks the server.
func saveCommand(x *keyspace.Ctx) {
	sh := x.S
	if _, ok := sh.Journal.(*keyspace.WALJournal); !ok {
		x.W.Error("ERR persistence is disabled (persistence.wal = false)")
		return
	}
	if sh.Snap != nil || sh.SnapFinishing {
		x.W.Error("ERR Background save already in progress")
		return
	}
	if err := sh.StartSnapshot(); err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	sh.FinishSnapshotNow()
	if sh.SnapStatus.LastStatus != "ok" {
		x.W.Error("ERR snapshot failed, see the server log")
		return
	}
	sh.NowMs = sh.Srv.Now().UnixMilli()
	x.W.OK()
}

// BGSAVE [SCHEDULE]: start a snapshot of this shard in the background.
func bgsaveCommand(x *keyspace.Ctx) {
	sh := x.S
	if len(x.Args) > 2 || len(x.Args) == 2 && !keyspace.EqFold(x.Args[1], "schedule") {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	if _, ok := sh.Journal.(*keyspace.WALJournal); !ok {
		x.W.Error("ERR persistence is disabled (persistence.wal = false)")
		return
	}
	if sh.Snap != nil || sh.SnapFinishing {
		if len(x.Args) == 2 {
			x.W.SimpleString("Background saving scheduled")
			return
		}
		x.W.Error("ERR Background save already in progress")
		return
	}
	if err := sh.StartSnapshot(); err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	x.W.SimpleString("Background saving started")
}

// LASTSAVE: unix time of this shard's last successful snapshot (the start
// time when there has been none).
func lastsaveCommand(x *keyspace.Ctx) {
	t := x.S.SnapStatus.LastTime
	if t == 0 {
		t = x.S.Srv.Started.Unix()
	}
	x.W.Int(t)
}

func registerPersistenceFamily(t keyspace.CommandTable) {
	const grp = "server"
	t.Add(
		&keyspace.Command{Name: "save", Arity: 1, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | keyspace.FlagNoAsyncLoading | keyspace.FlagNoMulti, Group: grp, Since: "1.0.0", Summary: "Synchronously saves the shard's data to disk as a snapshot.", Complexity: "O(N) where N is the total number of keys in the shard", Handler: saveCommand},
		&keyspace.Command{Name: "bgsave", Arity: -1, Flags: keyspace.FlagAdmin | keyspace.FlagNoScript | keyspace.FlagNoAsyncLoading, Group: grp, Since: "1.0.0", Summary: "Asynchronously saves the shard's data to disk as a snapshot.", Complexity: "O(1) to start; the snapshot runs between commands", Handler: bgsaveCommand},
		&keyspace.Command{Name: "lastsave", Arity: 1, Flags: keyspace.FlagLoading | keyspace.FlagStale | keyspace.FlagFast, Categories: []string{"admin", "dangerous"}, Group: grp, Since: "1.0.0", Summary: "Returns the Unix timestamp of the last successful snapshot of the shard.", Complexity: "O(1)", Handler: lastsaveCommand, Tips: []string{tipNondeterministic}},
	)
}
