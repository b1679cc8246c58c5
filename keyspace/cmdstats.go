package keyspace

import (
	"slices"
	"strconv"
	"time"
)

// cmdStat counts the calls of one command on one shard, for INFO
// commandstats. Only the shard goroutine touches it.
type cmdStat struct {
	calls, failed, rejected int64
	elapsed                 time.Duration
}

// commandStats is a shard's per-command and per-error-code counters.
type commandStats struct {
	byID   []cmdStat
	errors map[string]int64
	// errorReplies counts every error reply (total_error_replies).
	errorReplies int64
}

// assignIDs numbers every command and subcommand, for per-command
// counters indexed without a map lookup. It returns the count.
func (t commandTable) assignIDs() int {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	id := 0
	for _, n := range names {
		c := t[n]
		c.id = id
		id++
		for _, sc := range c.Subcommands {
			sc.id = id
			id++
		}
	}
	return id
}

// countError records an error reply; reply is the message after '-'.
func (st *commandStats) countError(reply []byte) {
	st.errorReplies++
	code := reply
	for i, c := range reply {
		if c == ' ' || c == '\r' {
			code = reply[:i]
			break
		}
	}
	if st.errors == nil {
		st.errors = map[string]int64{}
	}
	// Redis caps the distinct codes it tracks; so does this.
	if _, ok := st.errors[string(code)]; !ok && len(st.errors) >= 128 {
		return
	}
	st.errors[string(code)]++
}

// reject counts a known command refused before it ran.
func (sh *Shard) reject(cmd *Command, args [][]byte, reply []byte) {
	sh.cmdStats.byID[cmd.called(args).id].rejected++
	sh.cmdStats.countError(reply)
}

// infoCommandstats writes the cmdstat_<name> lines of this shard.
func infoCommandstats(x *Ctx, ib *infoBuilder) {
	sh := x.S
	names := make([]string, 0, len(sh.srv.cmds))
	for n := range sh.srv.cmds {
		names = append(names, n)
	}
	slices.Sort(names)
	line := func(c *Command) {
		st := sh.cmdStats.byID[c.id]
		if st.calls == 0 && st.rejected == 0 && st.failed == 0 {
			return
		}
		usec := st.elapsed.Microseconds()
		per := 0.0
		if st.calls > 0 {
			per = float64(st.elapsed.Nanoseconds()) / 1000 / float64(st.calls)
		}
		ib.str("cmdstat_"+c.FullName(), "calls="+strconv.FormatInt(st.calls, 10)+
			",usec="+strconv.FormatInt(usec, 10)+
			",usec_per_call="+strconv.FormatFloat(per, 'f', 2, 64)+
			",rejected_calls="+strconv.FormatInt(st.rejected, 10)+
			",failed_calls="+strconv.FormatInt(st.failed, 10))
	}
	for _, n := range names {
		c := sh.srv.cmds[n]
		line(c)
		for _, sc := range c.Subcommands {
			line(sc)
		}
	}
}

// infoErrorstats writes the errorstat_<CODE> lines of this shard.
func infoErrorstats(x *Ctx, ib *infoBuilder) {
	codes := make([]string, 0, len(x.S.cmdStats.errors))
	for c := range x.S.cmdStats.errors {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		ib.str("errorstat_"+c, "count="+strconv.FormatInt(x.S.cmdStats.errors[c], 10))
	}
}

// resetCommandStats zeroes the counters (CONFIG RESETSTAT).
func (sh *Shard) resetCommandStats() {
	clear(sh.cmdStats.byID)
	sh.cmdStats.errors = nil
	sh.cmdStats.errorReplies = 0
}
