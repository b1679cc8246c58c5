package keyspace

import (
	"slices"
	"time"
)

// CmdStat counts the calls of one command on one shard, for INFO
// commandstats, LATENCY HISTOGRAM and the metrics endpoint. Only the
// shard goroutine touches a shard's; others read copies (metrics.go).
type CmdStat struct {
	Calls, Failed, Rejected int64
	Elapsed                 time.Duration
	// Hist is the latency histogram (latency.go), kept while
	// latency-tracking is on.
	Hist LatencyHist
}

// commandStats is a shard's per-command and per-error-code counters.
type commandStats struct {
	ByID   []CmdStat
	Errors map[string]int64
	// ErrorReplies counts every error reply (total_error_replies).
	ErrorReplies int64
}

// assignIDs numbers every command and subcommand, for per-command
// counters indexed without a map lookup. It returns the count.
func (t CommandTable) assignIDs() int {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	id := 0
	for _, n := range names {
		c := t[n]
		c.ID = id
		id++
		for _, sc := range c.Subcommands {
			sc.ID = id
			id++
		}
	}
	return id
}

// countError records an error reply; reply is the message after '-'.
func (st *commandStats) countError(reply []byte) {
	st.ErrorReplies++
	code := reply
	for i, c := range reply {
		if c == ' ' || c == '\r' {
			code = reply[:i]
			break
		}
	}
	if st.Errors == nil {
		st.Errors = map[string]int64{}
	}
	// Redis caps the distinct codes it tracks; so does this.
	if _, ok := st.Errors[string(code)]; !ok && len(st.Errors) >= 128 {
		return
	}
	st.Errors[string(code)]++
}

// reject counts a known command refused before it ran.
func (sh *Shard) reject(cmd *Command, args [][]byte, reply []byte) {
	sh.CmdStats.ByID[cmd.Called(args).ID].Rejected++
	sh.CmdStats.countError(reply)
}

// ResetCommandStats zeroes the counters (CONFIG RESETSTAT).
func (sh *Shard) ResetCommandStats() {
	clear(sh.CmdStats.ByID)
	sh.CmdStats.Errors = nil
	sh.CmdStats.ErrorReplies = 0
}
