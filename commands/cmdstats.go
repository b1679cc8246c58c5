package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"slices"
	"strconv"
)

// infoCommandstats writes the cmdstat_<name> lines of this shard.
func infoCommandstats(x *keyspace.Ctx, ib *infoBuilder) {
	sh := x.S
	names := make([]string, 0, len(sh.Srv.Cmds))
	for n := range sh.Srv.Cmds {
		names = append(names, n)
	}
	slices.Sort(names)
	line := func(c *keyspace.Command) {
		st := sh.CmdStats.ByID[c.ID]
		if st.Calls == 0 && st.Rejected == 0 && st.Failed == 0 {
			return
		}
		usec := st.Elapsed.Microseconds()
		per := 0.0
		if st.Calls > 0 {
			per = float64(st.Elapsed.Nanoseconds()) / 1000 / float64(st.Calls)
		}
		ib.str("cmdstat_"+c.FullName(), "calls="+strconv.FormatInt(st.Calls, 10)+
			",usec="+strconv.FormatInt(usec, 10)+
			",usec_per_call="+strconv.FormatFloat(per, 'f', 2, 64)+
			",rejected_calls="+strconv.FormatInt(st.Rejected, 10)+
			",failed_calls="+strconv.FormatInt(st.Failed, 10))
	}
	for _, n := range names {
		c := sh.Srv.Cmds[n]
		line(c)
		for _, sc := range c.Subcommands {
			line(sc)
		}
	}
}

// infoErrorstats writes the errorstat_<CODE> lines of this shard.
func infoErrorstats(x *keyspace.Ctx, ib *infoBuilder) {
	codes := make([]string, 0, len(x.S.CmdStats.Errors))
	for c := range x.S.CmdStats.Errors {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		ib.str("errorstat_"+c, "count="+strconv.FormatInt(x.S.CmdStats.Errors[c], 10))
	}
}
