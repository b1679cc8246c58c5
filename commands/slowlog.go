package commands

import (
	"github.com/ruvio/ruvio/keyspace"
)

func slowlogCommand(x *keyspace.Ctx) { runSubcommand(x, "SLOWLOG") }

// SLOWLOG GET [count]
func slowlogGetCommand(x *keyspace.Ctx) {
	entries := x.S.Slow.Entries
	count := int64(10)
	if len(x.Args) > 3 {
		x.W.Error(keyspace.ErrWrongArgs("slowlog|get"))
		return
	}
	if len(x.Args) == 3 {
		n, ok := keyspace.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
		if n < -1 {
			x.W.Error("ERR count should be greater than or equal to -1")
			return
		}
		count = n
		if n == -1 {
			count = int64(len(entries))
		}
	}
	n := int(min(count, int64(len(entries))))
	w := x.W
	w.ArrayHeader(n)
	for _, e := range entries[:n] {
		w.ArrayHeader(6)
		w.Int(e.ID)
		w.Int(e.UnixSec)
		w.Int(e.DurationUs)
		w.BulkStrings(e.Args)
		w.BulkString(e.Addr)
		w.BulkString(e.Name)
	}
}

// SLOWLOG LEN
func slowlogLenCommand(x *keyspace.Ctx) { x.W.Int(int64(len(x.S.Slow.Entries))) }

// SLOWLOG RESET
func slowlogResetCommand(x *keyspace.Ctx) {
	sl := &x.S.Slow
	clear(sl.Entries)
	sl.Entries = sl.Entries[:0]
	x.W.OK()
}

// SLOWLOG HELP
func slowlogHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "SLOWLOG",
		"GET [<count>]",
		"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"    Entries are made of:",
		"    id, timestamp, time in microseconds, arguments array, client IP and port,",
		"    client name",
		"LEN",
		"    Return the length of the slowlog.",
		"RESET",
		"    Reset the slowlog.",
	)
}

// registerSlowlogFamily adds SLOWLOG to t.
func registerSlowlogFamily(t keyspace.CommandTable) {
	const grp = "server"
	stale := keyspace.FlagLoading | keyspace.FlagStale
	admin := keyspace.FlagAdmin | stale
	t.Add(&keyspace.Command{Name: "slowlog", Arity: -2, Group: grp, Since: "2.2.12", Summary: "A container for slow log commands.", Complexity: "Depends on subcommand.", Handler: slowlogCommand,
		Subcommands: []*keyspace.Command{
			{Name: "get", Arity: -2, Flags: admin, Group: grp, Since: "2.2.12", Summary: "Returns the slow log's entries.", Complexity: "O(N) where N is the number of entries returned", Handler: slowlogGetCommand,
				Tips: []string{tipAllNodes, tipNondeterministic}},
			{Name: "len", Arity: 2, Flags: admin, Group: grp, Since: "2.2.12", Summary: "Returns the number of entries in the slow log.", Complexity: "O(1)", Handler: slowlogLenCommand,
				Tips: []string{tipAllNodes, tipAggSum, tipNondeterministic}},
			{Name: "reset", Arity: 2, Flags: admin, Group: grp, Since: "2.2.12", Summary: "Clears all entries from the slow log.", Complexity: "O(N) where N is the number of entries in the slowlog", Handler: slowlogResetCommand,
				Tips: []string{tipAllNodes, tipAllSucceeded}},
			{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "6.2.0", Summary: "Show helpful text about the different subcommands.", Complexity: "O(1)", Handler: slowlogHelpCommand},
		}})
}
