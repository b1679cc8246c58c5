package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/cluster/control"
	"github.com/ruvio/ruvio/config"
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
  migrate --slots A-B --to-group G|--to-member NAME [--from-shard I] [--to-shard J] [--no-wait]
                           move slots A-B (all on one shard) to shard J of group G (or of the
                           group member NAME belongs to), atomically; waits for the outcome
                           unless --no-wait
  abort-migration --id N   end migration N, leaving its slots where they were
  add-group --member NAME  make NAME (a replica, or a member that just joined) the primary of a
                           new group without slots; then rebalance moves a share onto it
  rebalance                spread the slots evenly over every group's shards, one migration at a time
  drain --group G          move every slot of group G to the other groups (then remove its members)

With tls.cluster = true on the members, add --tls --cacert ca.crt --cert c.crt --key c.key.

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
	group := fs.Int("group", -1, "group to fail over (failover) or to drain (drain)")
	to := fs.String("to", "", "replica to promote (failover; default: the most advanced)")
	name := fs.String("member", "", "member to remove (remove) or to make a new group's primary (add-group)")
	slots := fs.String("slots", "", "slot range A-B, or one slot (migrate)")
	toGroup := fs.Int("to-group", -1, "group that receives the slots (migrate)")
	toMember := fs.String("to-member", "", "a member of the group that receives the slots (migrate; instead of --to-group)")
	fromShard := fs.Int("from-shard", -1, "shard that owns the slots (migrate; default: found)")
	toShard := fs.Int("to-shard", -1, "shard of the receiving group (migrate; default: the one with the fewest slots)")
	noWait := fs.Bool("no-wait", false, "return once the migration has begun (migrate)")
	wait := fs.Duration("wait", 10*time.Minute, "how long to wait for a migration's outcome (migrate)")
	id := fs.Uint64("id", 0, "migration to abort (abort-migration)")
	useTLS := fs.Bool("tls", false, "connect over TLS (the members run with tls.cluster = true)")
	cacert := fs.String("cacert", "", "CA certificate (PEM) the member's certificate is verified against (--tls)")
	cert := fs.String("cert", "", "client certificate (PEM) to present (--tls)")
	key := fs.String("key", "", "the client certificate's key (PEM) (--tls)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	c := control.NewClient(*addr, *timeout)
	if *useTLS {
		t := config.TLSConfig{CACertFile: *cacert, ClientCertFile: *cert, ClientKeyFile: *key}
		conf, err := t.ClientConfig()
		if err != nil {
			return fmt.Errorf("--tls: %w", err)
		}
		c = control.NewTLSClient(*addr, *timeout, conf)
	}
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
	case "migrate":
		r, err := parseSlotRange(*slots)
		if err != nil {
			return err
		}
		if *toMember != "" {
			st, err := c.Status()
			if err != nil {
				return err
			}
			g := st.State.GroupOf(*toMember)
			if g == nil {
				return fmt.Errorf("member %s is in no group", *toMember)
			}
			*toGroup = g.ID
		}
		if *toGroup < 0 {
			return errors.New("migrate needs --to-group or --to-member")
		}
		m, err := c.Migrate(control.MigrateArgs{Slots: r, To: *toGroup, FromShard: *fromShard, ToShard: *toShard})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "migration %d: slots %d-%d from group %d shard %d to group %d shard %d\n", m.ID, r.Start, r.End, m.From, m.FromShard, m.To, m.ToShard)
		if *noWait {
			return nil
		}
		return awaitMigration(c, m, *wait, out)
	case "add-group":
		if *name == "" {
			return errors.New("add-group needs --member")
		}
		if err := c.AddGroup(*name); err != nil {
			return err
		}
		fmt.Fprintf(out, "member %s is the primary of a new group (no slots yet: ruvio cluster rebalance moves a share onto it)\n", *name)
		return nil
	case "rebalance":
		return rebalance(c, nil, *wait, out)
	case "drain":
		if *group < 0 {
			return errors.New("drain needs --group")
		}
		return rebalance(c, map[int]bool{*group: true}, *wait, out)
	case "abort-migration":
		if *id == 0 {
			return errors.New("abort-migration needs --id")
		}
		if err := c.AbortMigration(*id); err != nil {
			return err
		}
		fmt.Fprintf(out, "migration %d aborted\n", *id)
		return nil
	}
	return fmt.Errorf("unknown command %q (ruvio cluster --help lists them)", cmd)
}

// parseSlotRange reads "A-B" or "A".
func parseSlotRange(s string) (cluster.SlotRange, error) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		b = a
	}
	lo, err1 := strconv.ParseUint(a, 10, 16)
	hi, err2 := strconv.ParseUint(b, 10, 16)
	if s == "" || err1 != nil || err2 != nil || lo > hi || hi >= cluster.SlotCount {
		return cluster.SlotRange{}, fmt.Errorf("--slots %q is not a range A-B of slots 0-%d", s, cluster.SlotCount-1)
	}
	return cluster.SlotRange{Start: uint16(lo), End: uint16(hi)}, nil
}

// awaitMigration polls the state until migration m has ended and says
// whether it committed (its slots belong to the receiving group).
func awaitMigration(c *control.Client, m control.Migration, limit time.Duration, out io.Writer) error {
	deadline := time.Now().Add(limit)
	for {
		st, err := c.Status()
		if err == nil && !slices.ContainsFunc(st.State.Migrations, func(x control.Migration) bool { return x.ID == m.ID }) {
			g := st.State.Groups[m.To]
			if m.ToShard < len(g.ShardSlots) && slices.ContainsFunc(g.ShardSlots[m.ToShard], func(r cluster.SlotRange) bool {
				return r.Start <= m.Slots.Start && m.Slots.End <= r.End
			}) {
				fmt.Fprintf(out, "migration %d committed: slots %d-%d belong to group %d shard %d\n", m.ID, m.Slots.Start, m.Slots.End, m.To, m.ToShard)
				return nil
			}
			return fmt.Errorf("migration %d was aborted: the slots stay with group %d (the members' logs say why)", m.ID, m.From)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("migration %d still running after %v (ruvio cluster status follows it)", m.ID, limit)
		}
		time.Sleep(200 * time.Millisecond)
	}
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
		if len(g.ShardSlots) > 1 {
			for i, p := range g.ShardSlots {
				var rs []string
				for _, s := range p {
					rs = append(rs, fmt.Sprintf("%d-%d", s.Start, s.End))
				}
				fmt.Fprintf(out, "      shard %d: %s\n", i, strings.Join(rs, ","))
			}
		}
	}
	if len(st.Migrations) > 0 {
		fmt.Fprintln(out, "\nmigrations:")
		for _, m := range st.Migrations {
			fmt.Fprintf(out, "  %d slots %d-%d group %d shard %d -> group %d shard %d\n", m.ID, m.Slots.Start, m.Slots.End, m.From, m.FromShard, m.To, m.ToShard)
		}
	}
}
