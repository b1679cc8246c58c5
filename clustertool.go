package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ruvio/ruvio/cluster/control"
)

// clusterTool is "ruvio cluster status|failover|remove": it asks a
// cluster's control plane, through any member's control port, for the
// topology, a failover of a group, or the removal of a member.
func clusterTool(args []string, out io.Writer) error {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		fmt.Fprintln(out, `usage: ruvio cluster <command> --control host:port [flags]

commands:
  status                   print the members, the groups, their slots and primaries
  failover --group G [--to NAME]
                           fence group G's primary and promote a replica once its lease has ended
  remove --member NAME     remove a member that is not a primary (fail it over first)

A cluster forms when its members start with cluster.members; a new member joins by
starting with cluster.join (see docs/operations.md, "A cluster across hosts").`)
		if len(args) == 0 {
			return errors.New("a command is needed")
		}
		return flag.ErrHelp
	}
	cmd := args[0]
	fs := flag.NewFlagSet("ruvio cluster "+cmd, flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("control", "127.0.0.1:16379", "control address (host:control_port) of any member")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for each answer")
	group := fs.Int("group", -1, "group to fail over (failover)")
	to := fs.String("to", "", "replica to promote (failover; default: the most advanced)")
	name := fs.String("member", "", "member to remove (remove)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	c := control.NewClient(*addr, *timeout)
	defer c.Close()
	switch cmd {
	case "status":
		st, err := c.Status()
		if err != nil {
			return err
		}
		printStatus(out, st)
		return nil
	case "failover":
		if *group < 0 {
			return errors.New("failover needs --group")
		}
		if err := c.Failover(*group, *to); err != nil {
			return err
		}
		fmt.Fprintf(out, "group %d: failover started (the primary is fenced; a replica is promoted when its lease ends)\n", *group)
		return nil
	case "remove":
		if *name == "" {
			return errors.New("remove needs --member")
		}
		if err := c.Remove(*name); err != nil {
			return err
		}
		fmt.Fprintf(out, "member %s removed\n", *name)
		return nil
	}
	return fmt.Errorf("unknown command %q (ruvio cluster --help lists them)", cmd)
}

// printStatus writes the topology as a table.
func printStatus(out io.Writer, r control.StatusReply) {
	st := r.State
	fmt.Fprintf(out, "leader: %s\nepoch: %d\ncreated: %v\nvoters: %s\n\n", r.Leader, st.Epoch, st.Created, strings.Join(r.Voters, ","))
	fmt.Fprintln(out, "members:")
	for _, m := range st.Members {
		health := "ok"
		if slices.Contains(r.Failed, m.Name) {
			health = "failed"
		}
		fmt.Fprintf(out, "  %-12s %s:%d control %s shards %d %s\n", m.Name, m.Host, m.Port, m.Control, m.Shards(), health)
	}
	fmt.Fprintln(out, "\ngroups:")
	for _, g := range st.Groups {
		var slots []string
		for _, s := range g.Slots {
			slots = append(slots, fmt.Sprintf("%d-%d", s.Start, s.End))
		}
		fmt.Fprintf(out, "  %d slots %s primary %s replicas %s epoch %d\n", g.ID, strings.Join(slots, ","), g.Primary, strings.Join(g.Replicas, ","), g.Epoch)
	}
}
