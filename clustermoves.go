package main

import (
	"fmt"
	"io"
	"time"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/cluster/control"
)

// The operations of "ruvio cluster" built on slot migration: rebalance the
// slots across every group's shards, and drain a group (move all its slots
// to the others) before its members are removed. Each step is one atomic
// migration, run and awaited in turn; rerunning either after an
// interruption goes on from where the cluster stands.

// slotUnit is one shard of one group: the unit slots are balanced over.
type slotUnit struct {
	group, shard int
	ranges       []cluster.SlotRange
	count        int
	target       int
}

// planStep picks the next move towards an even spread of the slots over
// the shards of the live groups not in drain (whose target is 0): from the
// shard furthest above its share to the one furthest below, at most one of
// the donor's ranges (its end) and no more than either needs.
func planStep(st control.State, drain map[int]bool) (control.MigrateArgs, bool) {
	var units []*slotUnit
	var live []*slotUnit
	for _, g := range st.Groups {
		if g.Primary == "" {
			continue
		}
		for i, p := range g.ShardSlots {
			u := &slotUnit{group: g.ID, shard: i, ranges: p}
			for _, r := range p {
				u.count += r.Len()
			}
			units = append(units, u)
			if !drain[g.ID] {
				live = append(live, u)
			}
		}
	}
	if len(live) == 0 {
		return control.MigrateArgs{}, false
	}
	base, extra := cluster.SlotCount/len(live), cluster.SlotCount%len(live)
	for i, u := range live {
		u.target = base
		if i < extra {
			u.target++
		}
	}
	var donor, receiver *slotUnit
	for _, u := range units {
		if over := u.count - u.target; over > 0 && (donor == nil || over > donor.count-donor.target) {
			donor = u
		}
		if under := u.target - u.count; under > 0 && !drain[u.group] && (receiver == nil || under > receiver.target-receiver.count) {
			receiver = u
		}
	}
	if donor == nil || receiver == nil || len(donor.ranges) == 0 {
		return control.MigrateArgs{}, false
	}
	last := donor.ranges[len(donor.ranges)-1]
	n := min(donor.count-donor.target, receiver.target-receiver.count, last.Len())
	r := cluster.SlotRange{Start: last.End - uint16(n-1), End: last.End}
	return control.MigrateArgs{Slots: r, To: receiver.group, FromShard: donor.shard, ToShard: receiver.shard}, true
}

// rebalance runs planStep's moves until the spread is even (or the drained
// groups are empty).
func rebalance(c *control.Client, drain map[int]bool, wait time.Duration, out io.Writer) error {
	moves := 0
	for failures := 0; ; {
		st, err := c.Status()
		if err != nil {
			return err
		}
		if len(st.State.Migrations) > 0 {
			m := st.State.Migrations[0]
			fmt.Fprintf(out, "waiting for migration %d to end\n", m.ID)
			if err := awaitMigration(c, m, wait, io.Discard); err != nil {
				fmt.Fprintf(out, "  %v\n", err)
			}
			continue
		}
		args, ok := planStep(st.State, drain)
		if !ok {
			fmt.Fprintf(out, "balanced after %d move(s)\n", moves)
			return nil
		}
		m, err := c.Migrate(args)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "migration %d: slots %d-%d from group %d shard %d to group %d shard %d\n", m.ID, args.Slots.Start, args.Slots.End, m.From, m.FromShard, m.To, m.ToShard)
		if err := awaitMigration(c, m, wait, out); err != nil {
			failures++
			if failures == 3 {
				return fmt.Errorf("three migrations failed; stopping: %w", err)
			}
			fmt.Fprintf(out, "  %v; trying again\n", err)
			time.Sleep(time.Second)
			continue
		}
		moves++
	}
}
