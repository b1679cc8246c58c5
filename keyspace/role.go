package keyspace

// ROLE: every shard is a primary without replicas until replication
// exists. Its replication offset is the shard's WAL sequence
// (wal_last_sequence in INFO persistence): each shard is one node with its
// own log, so ROLE on a shard's port reports that shard's sequence, never a
// sum over shards. Without a WAL it is 0.
func roleCommand(x *Ctx) {
	x.W.ArrayHeader(3)
	x.W.BulkString("master")
	x.W.Int(int64(x.S.replOffset()))
	x.W.ArrayHeader(0)
}

// replOffset is the shard's replication offset: the sequence of the last
// record appended to its WAL, 0 without one.
func (sh *Shard) replOffset() uint64 {
	if j, ok := sh.journal.(*walJournal); ok {
		return j.wal.LastSequence()
	}
	return 0
}

// registerRoleCommand registers ROLE with the server family's metadata.
func registerRoleCommand(t commandTable) {
	t.add(&Command{Name: "role", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast, Group: "server", Categories: []string{"admin", "dangerous"}, Since: "2.8.12", Summary: "Returns the replication role.", Complexity: "O(1)", Handler: roleCommand})
}
