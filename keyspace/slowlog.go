package keyspace

import (
	"slices"
	"strconv"
	"time"
)

// The slow log: commands that ran for at least slowlog-log-slower-than
// microseconds, newest first, at most slowlog-max-len of them. Each shard
// keeps its own, as each node of a Redis Cluster does (SLOWLOG is sent to
// all nodes by cluster clients). Shard goroutine only.

// Limits of what an entry keeps of a command, as in Redis.
const (
	slowlogMaxArgs  = 32  // arguments; the last slot says how many more there were
	slowlogMaxBytes = 128 // bytes of one argument; the rest is counted
)

// slowlogEntry is one logged command.
type slowlogEntry struct {
	id         int64
	unixSec    int64
	durationUs int64
	args       []string
	addr, name string
}

// slowlog is a shard's slow log.
type slowlog struct {
	// entries is newest first.
	entries []slowlogEntry
	nextID  int64
}

// slowlogAfter logs a command that took d, when the slow log is on and d
// reaches its threshold. EXEC is skip_slowlog: its commands are logged
// one by one instead.
func (sh *Shard) slowlogAfter(x *Ctx, cmd *Command, args [][]byte, d time.Duration, threshold int64) {
	if cmd.Flags&FlagSkipSlowlog != 0 || d.Microseconds() < threshold {
		return
	}
	sl := &sh.slow
	e := slowlogEntry{
		id:         sl.nextID,
		unixSec:    sh.srv.now().Unix(),
		durationUs: d.Microseconds(),
		args:       slowlogArgs(args),
		addr:       x.C.RemoteAddr,
		name:       x.C.Name(),
	}
	sl.nextID++
	sl.entries = append(sl.entries, slowlogEntry{})
	copy(sl.entries[1:], sl.entries)
	sl.entries[0] = e
	sl.trim(sh.srv.opts.Live.SlowlogMaxLen())
}

// trim drops the oldest entries over max.
func (sl *slowlog) trim(max int64) {
	if int64(len(sl.entries)) > max {
		clear(sl.entries[max:])
		sl.entries = sl.entries[:max]
	}
}

// slowlogArgs is what an entry keeps of args: at most slowlogMaxArgs, the
// last of them then "... (N more arguments)", each cut to slowlogMaxBytes
// followed by "... (N more bytes)", secrets redacted.
func slowlogArgs(args [][]byte) []string {
	n := min(len(args), slowlogMaxArgs)
	out := make([]string, n)
	redact := redactedArgs(args)
	for i := 0; i < n; i++ {
		switch {
		case n != len(args) && i == n-1:
			out[i] = "... (" + strconv.Itoa(len(args)-n+1) + " more arguments)"
		case redact(i):
			out[i] = "(redacted)"
		case len(args[i]) > slowlogMaxBytes:
			out[i] = string(args[i][:slowlogMaxBytes]) + "... (" + strconv.Itoa(len(args[i])-slowlogMaxBytes) + " more bytes)"
		default:
			out[i] = string(args[i])
		}
	}
	return out
}

// redactedArgs returns which arguments of a command hold secrets that the
// slow log must not show: passwords of AUTH and HELLO ... AUTH, every
// argument of ACL SETUSER after the subcommand, and the values of
// CONFIG SET for masterauth, masteruser and requirepass.
func redactedArgs(args [][]byte) func(i int) bool {
	none := func(int) bool { return false }
	if len(args) < 2 {
		return none
	}
	switch {
	case eqFold(args[0], "auth"):
		return func(i int) bool { return i >= 1 }
	case eqFold(args[0], "hello"):
		// Walk the options as HELLO parses them, so that a SETNAME value
		// spelled "auth" is not taken for the option and every AUTH pair
		// is hidden.
		var hide []int
		for j := 2; j < len(args); j++ {
			switch {
			case eqFold(args[j], "auth") && j+2 < len(args):
				hide = append(hide, j+1, j+2)
				j += 2
			case eqFold(args[j], "setname") && j+1 < len(args):
				j++
			default:
				j = len(args)
			}
		}
		if len(hide) > 0 {
			return func(i int) bool { return slices.Contains(hide, i) }
		}
	case eqFold(args[0], "acl") && eqFold(args[1], "setuser"):
		return func(i int) bool { return i >= 2 }
	case eqFold(args[0], "config") && eqFold(args[1], "set"):
		return func(i int) bool {
			if i < 3 || (i-3)%2 != 0 {
				return false
			}
			p := args[i-1]
			return eqFold(p, "masterauth") || eqFold(p, "masteruser") || eqFold(p, "requirepass")
		}
	}
	return none
}

func slowlogCommand(x *Ctx) { runSubcommand(x, "SLOWLOG") }

// SLOWLOG GET [count]
func slowlogGetCommand(x *Ctx) {
	entries := x.S.slow.entries
	count := int64(10)
	if len(x.Args) > 3 {
		x.W.Error(errWrongArgs("slowlog|get"))
		return
	}
	if len(x.Args) == 3 {
		n, ok := parseInt(x.Args[2])
		if !ok {
			x.W.Error(errNotInt)
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
		w.Int(e.id)
		w.Int(e.unixSec)
		w.Int(e.durationUs)
		w.BulkStrings(e.args)
		w.BulkString(e.addr)
		w.BulkString(e.name)
	}
}

// SLOWLOG LEN
func slowlogLenCommand(x *Ctx) { x.W.Int(int64(len(x.S.slow.entries))) }

// SLOWLOG RESET
func slowlogResetCommand(x *Ctx) {
	sl := &x.S.slow
	clear(sl.entries)
	sl.entries = sl.entries[:0]
	x.W.OK()
}

// SLOWLOG HELP
func slowlogHelpCommand(x *Ctx) {
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
func registerSlowlogFamily(t commandTable) {
	const grp = "server"
	stale := FlagLoading | FlagStale
	admin := FlagAdmin | stale
	t.add(&Command{Name: "slowlog", Arity: -2, Group: grp, Since: "2.2.12", Summary: "A container for slow log commands.", Complexity: "Depends on subcommand.", Handler: slowlogCommand,
		Subcommands: []*Command{
			{Name: "get", Arity: -2, Flags: admin, Group: grp, Since: "2.2.12", Summary: "Returns the slow log's entries.", Complexity: "O(N) where N is the number of entries returned", Handler: slowlogGetCommand,
				Tips: []string{tipAllNodes, tipNondeterministic}},
			{Name: "len", Arity: 2, Flags: admin, Group: grp, Since: "2.2.12", Summary: "Returns the number of entries in the slow log.", Complexity: "O(1)", Handler: slowlogLenCommand,
				Tips: []string{tipAllNodes, tipAggSum, tipNondeterministic}},
			{Name: "reset", Arity: 2, Flags: admin, Group: grp, Since: "2.2.12", Summary: "Clears all entries from the slow log.", Complexity: "O(N) where N is the number of entries in the slowlog", Handler: slowlogResetCommand,
				Tips: []string{tipAllNodes, tipAllSucceeded}},
			{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "6.2.0", Summary: "Show helpful text about the different subcommands.", Complexity: "O(1)", Handler: slowlogHelpCommand},
		}})
}
