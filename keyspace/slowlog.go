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

// SlowlogEntry is one logged command.
type SlowlogEntry struct {
	ID         int64    // the entry's number in the shard's log, from 0
	UnixSec    int64    // when it was logged (unix seconds)
	DurationUs int64    // how long the command ran (microseconds)
	Args       []string // the call, as SlowlogArgs keeps it
	Addr, Name string   // the client's address and name
}

// Slowlog is a shard's slow log.
type Slowlog struct {
	// Entries is newest first.
	Entries []SlowlogEntry
	nextID  int64
}

// slowlogAfter logs a command that took d, when the slow log is on and d
// reaches its threshold. EXEC is skip_slowlog: its commands are logged
// one by one instead.
func (sh *Shard) slowlogAfter(x *Ctx, cmd *Command, args [][]byte, d time.Duration, threshold int64) {
	if cmd.Flags&FlagSkipSlowlog != 0 || d.Microseconds() < threshold {
		return
	}
	sl := &sh.Slow
	e := SlowlogEntry{
		ID:         sl.nextID,
		UnixSec:    sh.Srv.Now().Unix(),
		DurationUs: d.Microseconds(),
		Args:       SlowlogArgs(args),
		Addr:       x.C.RemoteAddr,
		Name:       x.C.Name(),
	}
	sl.nextID++
	sl.Entries = append(sl.Entries, SlowlogEntry{})
	copy(sl.Entries[1:], sl.Entries)
	sl.Entries[0] = e
	sl.Trim(sh.Srv.Opts.Live.SlowlogMaxLen())
}

// Trim drops the oldest entries over max.
func (sl *Slowlog) Trim(max int64) {
	if int64(len(sl.Entries)) > max {
		clear(sl.Entries[max:])
		sl.Entries = sl.Entries[:max]
	}
}

// SlowlogArgs is what an entry keeps of args: at most slowlogMaxArgs, the
// last of them then "... (N more arguments)", each cut to slowlogMaxBytes
// followed by "... (N more bytes)", secrets redacted.
func SlowlogArgs(args [][]byte) []string {
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
// slow log must not show: passwords of AUTH, HELLO ... AUTH and MIGRATE
// ... AUTH or AUTH2 (with AUTH2's user, as Redis hides it), every
// argument of ACL SETUSER after the subcommand, and the values of
// CONFIG SET for masterauth, masteruser and requirepass.
func redactedArgs(args [][]byte) func(i int) bool {
	none := func(int) bool { return false }
	if len(args) < 2 {
		return none
	}
	switch {
	case EqFold(args[0], "auth"):
		return func(i int) bool { return i >= 1 }
	case EqFold(args[0], "hello"):
		// Walk the options as HELLO parses them, so that a SETNAME value
		// spelled "auth" is not taken for the option and every AUTH pair
		// is hidden.
		var hide []int
		for j := 2; j < len(args); j++ {
			switch {
			case EqFold(args[j], "auth") && j+2 < len(args):
				hide = append(hide, j+1, j+2)
				j += 2
			case EqFold(args[j], "setname") && j+1 < len(args):
				j++
			default:
				j = len(args)
			}
		}
		if len(hide) > 0 {
			return func(i int) bool { return slices.Contains(hide, i) }
		}
	case EqFold(args[0], "migrate"):
		// AUTH's password, AUTH2's user and password, up to KEYS.
		var hide []int
		for j := 6; j < len(args); j++ {
			more := len(args) - 1 - j
			switch {
			case EqFold(args[j], "auth") && more >= 1:
				hide = append(hide, j+1)
				j++
			case EqFold(args[j], "auth2") && more >= 2:
				hide = append(hide, j+1, j+2)
				j += 2
			case EqFold(args[j], "keys"):
				j = len(args)
			}
		}
		if len(hide) > 0 {
			return func(i int) bool { return slices.Contains(hide, i) }
		}
	case EqFold(args[0], "acl") && EqFold(args[1], "setuser"):
		return func(i int) bool { return i >= 2 }
	case EqFold(args[0], "config") && EqFold(args[1], "set"):
		return func(i int) bool {
			if i < 3 || (i-3)%2 != 0 {
				return false
			}
			p := args[i-1]
			return EqFold(p, "masterauth") || EqFold(p, "masteruser") || EqFold(p, "requirepass")
		}
	}
	return none
}
