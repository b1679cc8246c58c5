package commands

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/keyspace"
)

// LATENCY: the latency monitor's events (latency-monitor-threshold) and
// the per-command latency histograms (latency-tracking), as Redis 7.0
// replies. Both are the shard's (keyspace/latency.go), as its slow log is.

func latencyCommand(x *keyspace.Ctx) { runSubcommand(x, "LATENCY") }

// LATENCY LATEST
func latencyLatestCommand(x *keyspace.Ctx) {
	mon := &x.S.Latency
	names := mon.Events()
	x.W.ArrayHeader(len(names))
	for _, n := range names {
		_, s := mon.Event(n)
		last := s.Latest()
		x.W.ArrayHeader(4)
		x.W.BulkString(n)
		x.W.Int(last.UnixSec)
		x.W.Int(last.Ms)
		x.W.Int(s.MaxMs)
	}
}

// LATENCY HISTORY event
func latencyHistoryCommand(x *keyspace.Ctx) {
	_, s := x.S.Latency.Event(string(x.Args[2]))
	if s == nil {
		x.W.ArrayHeader(0)
		return
	}
	h := s.History()
	x.W.ArrayHeader(len(h))
	for _, e := range h {
		x.W.ArrayHeader(2)
		x.W.Int(e.UnixSec)
		x.W.Int(e.Ms)
	}
}

// LATENCY RESET [event ...]
func latencyResetCommand(x *keyspace.Ctx) {
	x.W.Int(int64(x.S.Latency.Reset(x.Args[2:]...)))
}

// latencyGraphCols is the width of LATENCY GRAPH's chart, as Redis's.
const latencyGraphCols = 80

// LATENCY GRAPH event
func latencyGraphCommand(x *keyspace.Ctx) {
	name, s := x.S.Latency.Event(string(x.Args[2]))
	if s == nil {
		x.W.Error("ERR No samples available for event '" + string(x.Args[2]) + "'")
		return
	}
	x.W.Verbatim("txt", latencyGraph(name, s.History(), s.MaxMs, x.S.Srv.Now().Unix()))
}

// latencyGraph draws samples (oldest first) as Redis's LATENCY GRAPH does:
// a title with the high, the low and the all-time high, a rule, then one
// column per sample (the newest latencyGraphCols), four rows high, above
// its age (s, m, h or d) written vertically.
func latencyGraph(event string, samples []keyspace.LatencySample, allTime, now int64) string {
	if len(samples) > latencyGraphCols {
		samples = samples[len(samples)-latencyGraphCols:]
	}
	lo, hi := samples[0].Ms, samples[0].Ms
	for _, e := range samples {
		lo, hi = min(lo, e.Ms), max(hi, e.Ms)
	}
	var b strings.Builder
	b.WriteString(event + " - high " + strconv.FormatInt(hi, 10) + " ms, low " + strconv.FormatInt(lo, 10) +
		" ms (all time high " + strconv.FormatInt(allTime, 10) + " ms)\n")
	b.WriteString(strings.Repeat("-", latencyGraphCols) + "\n")
	const rows = 4
	level := func(ms int64) int64 {
		if hi == lo {
			return rows * 2
		}
		// Two steps per row: '_' is the lower half, '#' the whole.
		return 1 + (ms-lo)*(rows*2-1)/(hi-lo)
	}
	for r := int64(rows - 1); r >= 0; r-- {
		for _, e := range samples {
			switch l := level(e.Ms); {
			case l >= 2*r+2:
				b.WriteByte('#')
			case l == 2*r+1:
				b.WriteByte('_')
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	labels := make([]string, len(samples))
	width := 0
	for i, e := range samples {
		labels[i] = latencyAge(now - e.UnixSec)
		width = max(width, len(labels[i]))
	}
	for r := range width {
		for _, l := range labels {
			if r < len(l) {
				b.WriteByte(l[r])
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// latencyAge writes an age in seconds as LATENCY GRAPH labels it.
func latencyAge(sec int64) string {
	sec = max(sec, 0)
	switch {
	case sec < 60:
		return strconv.FormatInt(sec, 10) + "s"
	case sec < 3600:
		return strconv.FormatInt(sec/60, 10) + "m"
	case sec < 86400:
		return strconv.FormatInt(sec/3600, 10) + "h"
	default:
		return strconv.FormatInt(sec/86400, 10) + "d"
	}
}

// LATENCY DOCTOR
func latencyDoctorCommand(x *keyspace.Ctx) {
	x.W.Verbatim("txt", latencyReport(x.S))
}

// latencyReport is LATENCY DOCTOR's text: what the monitor recorded on
// this shard, event by event, with what to look at. It says only what the
// figures show.
func latencyReport(sh *keyspace.Shard) string {
	mon := &sh.Latency
	names := mon.Events()
	thr := sh.Srv.Opts.Live.LatencyMonitorThreshold()
	if len(names) == 0 && thr == 0 {
		return "Latency monitoring is disabled on this shard (latency-monitor-threshold is 0). " +
			"Use CONFIG SET latency-monitor-threshold <milliseconds> to enable it.\n"
	}
	if len(names) == 0 {
		return "No latency spike of " + strconv.FormatInt(thr, 10) +
			" ms or more was observed on this shard since the monitor was enabled or reset.\n"
	}
	var b strings.Builder
	b.WriteString("Latency spikes observed on this shard (latency-monitor-threshold " + strconv.FormatInt(thr, 10) + " ms):\n\n")
	var advice []string
	for i, n := range names {
		_, s := mon.Event(n)
		h := s.History()
		var sum int64
		for _, e := range h {
			sum += e.Ms
		}
		avg := sum / int64(max(len(h), 1))
		b.WriteString(strconv.Itoa(i+1) + ". " + n + ": " + strconv.Itoa(len(h)) + " latency spikes (average " +
			strconv.FormatInt(avg, 10) + "ms). Worst all time event " + strconv.FormatInt(s.MaxMs, 10) + "ms.\n")
		switch n {
		case keyspace.LatencyEventCommand:
			advice = append(advice, "- Slow commands: SLOWLOG GET lists them; avoid O(N) commands on large values (KEYS, SMEMBERS, HGETALL, LRANGE over large ranges, SORT).")
		case keyspace.LatencyEventFastCommand:
			advice = append(advice, "- O(1) or O(log N) commands were slow: the process may be short of CPU (other processes, a busy host, too few CPUs for the shards and reactors).")
		case keyspace.LatencyEventExpireCycle:
			advice = append(advice, "- The active expiry cycle was slow: many keys expiring at the same time; spread their TTLs.")
		case keyspace.LatencyEventEviction:
			advice = append(advice, "- Eviction was slow: the shard is over its maxmemory share; raise maxmemory or write less at once.")
		case keyspace.LatencyEventSnapshotStep:
			advice = append(advice, "- Snapshot steps were slow: large values (a step writes whole keys); see INFO persistence for the snapshot's progress.")
		case keyspace.LatencyEventFsyncAlways, keyspace.LatencyEventFsyncBackground:
			advice = append(advice, "- WAL fsyncs were slow: the disk of the data directory is slow or shared; a local SSD, or fsync everysec, helps (INFO persistence: wal_avg_fsync_latency_us).")
		}
	}
	if len(advice) > 0 {
		b.WriteString("\nWhat to look at:\n\n")
		for _, a := range slices.Compact(advice) {
			b.WriteString(a + "\n")
		}
	}
	return b.String()
}

// LATENCY HISTOGRAM [command ...]
func latencyHistogramCommand(x *keyspace.Ctx) {
	sh := x.S
	var cmds []*keyspace.Command
	add := func(c *keyspace.Command) {
		if c != nil && sh.CmdStats.ByID[c.ID].Hist.Count() > 0 {
			cmds = append(cmds, c)
		}
	}
	if len(x.Args) == 2 {
		names := make([]string, 0, len(sh.Srv.Cmds))
		for n := range sh.Srv.Cmds {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			add(sh.Srv.Cmds[n])
			for _, sc := range sh.Srv.Cmds[n].Subcommands {
				add(sc)
			}
		}
	} else {
		for _, a := range x.Args[2:] {
			c := lookupCommandName(sh.Srv.Cmds, string(a))
			if c == nil {
				continue
			}
			add(c)
			for _, sc := range c.Subcommands {
				add(sc)
			}
		}
	}
	x.W.MapHeader(len(cmds))
	for _, c := range cmds {
		x.W.BulkString(c.FullName())
		writeLatencyHist(x, &sh.CmdStats.ByID[c.ID].Hist)
	}
}

// lookupCommandName finds a command or a subcommand by its full name
// ("get", "config|get"), case-insensitive.
func lookupCommandName(t keyspace.CommandTable, name string) *keyspace.Command {
	parent, sub, isSub := strings.Cut(strings.ToLower(name), "|")
	c := t[parent]
	if c == nil || !isSub {
		return c
	}
	return c.Sub([]byte(sub))
}

// writeLatencyHist writes one command's entry of LATENCY HISTOGRAM: its
// calls, and the cumulative count at each power of two microseconds where
// it grows.
func writeLatencyHist(x *keyspace.Ctx, h *keyspace.LatencyHist) {
	w := x.W
	w.MapHeader(2)
	w.BulkString("calls")
	w.Int(h.Count())
	w.BulkString("histogram_usec")
	n := 0
	for _, c := range h {
		if c > 0 {
			n++
		}
	}
	w.MapHeader(n)
	var cum int64
	for i, c := range h {
		if c == 0 {
			continue
		}
		cum += c
		up := keyspace.LatencyBucketUpperUs(i)
		if up < 0 {
			up = keyspace.LatencyBucketUpperUs(i-1) * 2
		}
		w.Int(up)
		w.Int(cum)
	}
}

// LATENCY HELP
func latencyHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "LATENCY",
		"DOCTOR",
		"    Return a human readable latency analysis report.",
		"GRAPH <event>",
		"    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]",
		"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied.",
	)
}

// infoLatencystats writes INFO latencystats: the percentiles of
// latency-tracking-info-percentiles for each command with a histogram on
// this shard. A percentile is the upper bound of the power-of-two bucket
// it falls in.
func infoLatencystats(x *keyspace.Ctx, ib *infoBuilder) {
	sh := x.S
	if !sh.Srv.Opts.Live.LatencyTracking() {
		return
	}
	ps := sh.Srv.Opts.Live.LatencyPercentiles()
	names := make([]string, 0, len(sh.Srv.Cmds))
	for n := range sh.Srv.Cmds {
		names = append(names, n)
	}
	slices.Sort(names)
	line := func(c *keyspace.Command) {
		h := &sh.CmdStats.ByID[c.ID].Hist
		if h.Count() == 0 {
			return
		}
		b := append(ib.b, "latency_percentiles_usec_"...)
		b = append(b, c.FullName()...)
		b = append(b, ':')
		for i, p := range ps {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, 'p')
			b = strconv.AppendFloat(b, p, 'f', -1, 64)
			b = append(b, '=')
			b = strconv.AppendFloat(b, float64(h.PercentileUs(p)), 'f', 3, 64)
		}
		ib.b = append(b, "\r\n"...)
	}
	for _, n := range names {
		c := sh.Srv.Cmds[n]
		line(c)
		for _, sc := range c.Subcommands {
			line(sc)
		}
	}
}

// registerLatencyFamily adds LATENCY to t.
func registerLatencyFamily(t keyspace.CommandTable) {
	const grp = "server"
	stale := keyspace.FlagLoading | keyspace.FlagStale
	admin := keyspace.FlagAdmin | keyspace.FlagNoScript | stale
	tips := []string{tipNondeterministic, tipAllNodes, tipSpecialResponse}
	t.Add(&keyspace.Command{Name: "latency", Arity: -2, Group: grp, Since: "2.8.13", Summary: "A container for latency diagnostics commands.", Complexity: "Depends on subcommand.", Handler: latencyCommand,
		Subcommands: []*keyspace.Command{
			{Name: "doctor", Arity: 2, Flags: admin, Group: grp, Since: "2.8.13", Summary: "Returns a human-readable latency analysis report.", Complexity: "O(1)", Handler: latencyDoctorCommand, Tips: tips},
			{Name: "graph", Arity: 3, Flags: admin, Group: grp, Since: "2.8.13", Summary: "Returns a latency graph for an event.", Complexity: "O(1)", Handler: latencyGraphCommand, Tips: tips},
			{Name: "help", Arity: 2, Flags: stale, Group: grp, Since: "2.8.13", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: latencyHelpCommand},
			{Name: "histogram", Arity: -2, Flags: admin, Group: grp, Since: "7.0.0", Summary: "Returns the cumulative distribution of latencies of a subset or all commands.", Complexity: "O(N) where N is the number of commands with latency information being retrieved.", Handler: latencyHistogramCommand, Tips: tips},
			{Name: "history", Arity: 3, Flags: admin, Group: grp, Since: "2.8.13", Summary: "Returns timestamp-latency samples for an event.", Complexity: "O(1)", Handler: latencyHistoryCommand, Tips: tips},
			{Name: "latest", Arity: 2, Flags: admin, Group: grp, Since: "2.8.13", Summary: "Returns the latest latency samples for all events.", Complexity: "O(1)", Handler: latencyLatestCommand, Tips: tips},
			{Name: "reset", Arity: -2, Flags: admin, Group: grp, Since: "2.8.13", Summary: "Resets the latency data for one or more events.", Complexity: "O(1)", Handler: latencyResetCommand,
				Tips: []string{tipAllNodes, tipAllSucceeded}},
		}})
}
