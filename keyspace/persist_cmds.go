package keyspace

// SAVE: write a snapshot of this shard now, blocking it until the file is
// durable, as Redis's SAVE blocks the server.
func saveCommand(x *Ctx) {
	sh := x.S
	if _, ok := sh.journal.(*walJournal); !ok {
		x.W.Error("ERR persistence is disabled (persistence.wal = false)")
		return
	}
	if sh.snap != nil || sh.snapFinishing {
		x.W.Error("ERR Background save already in progress")
		return
	}
	if err := sh.startSnapshot(); err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	sh.finishSnapshotNow()
	if sh.snapStatus.lastStatus != "ok" {
		x.W.Error("ERR snapshot failed, see the server log")
		return
	}
	sh.nowMs = sh.srv.now().UnixMilli()
	x.W.OK()
}

// BGSAVE [SCHEDULE]: start a snapshot of this shard in the background.
func bgsaveCommand(x *Ctx) {
	sh := x.S
	if len(x.Args) > 2 || len(x.Args) == 2 && !eqFold(x.Args[1], "schedule") {
		x.W.Error(errSyntax)
		return
	}
	if _, ok := sh.journal.(*walJournal); !ok {
		x.W.Error("ERR persistence is disabled (persistence.wal = false)")
		return
	}
	if sh.snap != nil || sh.snapFinishing {
		if len(x.Args) == 2 {
			x.W.SimpleString("Background saving scheduled")
			return
		}
		x.W.Error("ERR Background save already in progress")
		return
	}
	if err := sh.startSnapshot(); err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	x.W.SimpleString("Background saving started")
}

// LASTSAVE: unix time of this shard's last successful snapshot (the start
// time when there has been none).
func lastsaveCommand(x *Ctx) {
	t := x.S.snapStatus.lastTime
	if t == 0 {
		t = x.S.srv.started.Unix()
	}
	x.W.Int(t)
}

func registerPersistenceFamily(t commandTable) {
	const grp = "server"
	t.add(
		&Command{Name: "save", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoAsyncLoading | FlagNoMulti, Group: grp, Since: "1.0.0", Summary: "Synchronously saves the shard's data to disk as a snapshot.", Complexity: "O(N) where N is the total number of keys in the shard", Handler: saveCommand},
		&Command{Name: "bgsave", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagNoAsyncLoading, Group: grp, Since: "1.0.0", Summary: "Asynchronously saves the shard's data to disk as a snapshot.", Complexity: "O(1) to start; the snapshot runs between commands", Handler: bgsaveCommand},
		&Command{Name: "lastsave", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, Categories: []string{"admin", "dangerous"}, Group: grp, Since: "1.0.0", Summary: "Returns the Unix timestamp of the last successful snapshot of the shard.", Complexity: "O(1)", Handler: lastsaveCommand},
	)
}
