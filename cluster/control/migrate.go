package control

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ruvio/ruvio/cluster"
)

// This file holds the state machine's side of slot migration: beginning a
// move, and ending it by commit or abort. The data moves outside the log
// (the receiving primary copies the range and follows the sender's log);
// the log decides, once, who owns the range.

func (s *State) migrate(m *Migration) error {
	if !s.Created {
		return ErrNotCreated
	}
	if m == nil {
		return errors.New("no migration given")
	}
	shards := s.shardCount()
	r := m.Slots
	switch {
	case r.Start > r.End || int(r.End) >= cluster.SlotCount:
		return fmt.Errorf("slots %d-%d are not a range of 0-%d", r.Start, r.End, cluster.SlotCount-1)
	case m.From < 0 || m.From >= len(s.Groups) || m.To < 0 || m.To >= len(s.Groups):
		return fmt.Errorf("group %d or %d does not exist (%d groups)", m.From, m.To, len(s.Groups))
	case m.FromShard < 0 || m.FromShard >= shards || m.ToShard < 0 || m.ToShard >= shards:
		return fmt.Errorf("shard %d or %d does not exist (%d shards per member)", m.FromShard, m.ToShard, shards)
	case m.From == m.To && m.FromShard == m.ToShard:
		return errors.New("the range would move to the shard that owns it")
	}
	if s.Groups[m.To].Primary == "" {
		return fmt.Errorf("group %d is retired", m.To)
	}
	from := &s.Groups[m.From]
	if !covers(from.ShardSlots[m.FromShard], r) {
		return fmt.Errorf("group %d shard %d does not own all of slots %d-%d", m.From, m.FromShard, r.Start, r.End)
	}
	for _, o := range s.Migrations {
		if (o.From == m.From && o.FromShard == m.FromShard) || (o.To == m.To && o.ToShard == m.ToShard) ||
			(o.From == m.To && o.FromShard == m.ToShard) || (o.To == m.From && o.ToShard == m.FromShard) {
			return fmt.Errorf("migration %d (slots %d-%d) already involves one of these shards", o.ID, o.Slots.Start, o.Slots.End)
		}
	}
	s.Epoch++
	nm := *m
	nm.ID = s.Epoch
	nm.FromEpoch, nm.ToEpoch = from.Epoch, s.Groups[m.To].Epoch
	s.Migrations = append(s.Migrations, nm)
	return nil
}

func (s *State) endMigration(id uint64, commit bool) error {
	i := slices.IndexFunc(s.Migrations, func(m Migration) bool { return m.ID == id })
	if i < 0 {
		return fmt.Errorf("migration %d: %w", id, ErrNoMigration)
	}
	m := s.Migrations[i]
	if commit {
		from, to := &s.Groups[m.From], &s.Groups[m.To]
		if from.Epoch != m.FromEpoch || to.Epoch != m.ToEpoch {
			return fmt.Errorf("migration %d: %w", id, ErrStalePrimary)
		}
		from.ShardSlots[m.FromShard] = subtractRange(from.ShardSlots[m.FromShard], m.Slots)
		to.ShardSlots[m.ToShard] = addRange(to.ShardSlots[m.ToShard], m.Slots)
		from.Slots = unionRanges(from.ShardSlots)
		to.Slots = unionRanges(to.ShardSlots)
	}
	s.Migrations = slices.Delete(s.Migrations, i, i+1)
	s.Epoch++
	if commit {
		// The receiving group's config epoch becomes the newest, as Redis
		// bumps the importing node's: clients that see two claims for a
		// slot believe the higher epoch.
		s.Groups[m.To].Epoch = s.Epoch
	}
	return nil
}

// covers reports whether the ordered ranges rs hold every slot of r.
func covers(rs []cluster.SlotRange, r cluster.SlotRange) bool {
	for _, x := range rs {
		if x.Start <= r.Start && r.End <= x.End {
			return true
		}
	}
	return false
}

// subtractRange removes r from the ordered ranges rs.
func subtractRange(rs []cluster.SlotRange, r cluster.SlotRange) []cluster.SlotRange {
	out := []cluster.SlotRange{}
	for _, x := range rs {
		if x.End < r.Start || x.Start > r.End {
			out = append(out, x)
			continue
		}
		if x.Start < r.Start {
			out = append(out, cluster.SlotRange{Start: x.Start, End: r.Start - 1})
		}
		if x.End > r.End {
			out = append(out, cluster.SlotRange{Start: r.End + 1, End: x.End})
		}
	}
	return out
}

// addRange adds r to the ordered ranges rs, merging neighbours.
func addRange(rs []cluster.SlotRange, r cluster.SlotRange) []cluster.SlotRange {
	all := append(slices.Clone(rs), r)
	slices.SortFunc(all, func(a, b cluster.SlotRange) int { return int(a.Start) - int(b.Start) })
	var out []cluster.SlotRange
	for _, x := range all {
		if n := len(out); n > 0 && int(out[n-1].End)+1 >= int(x.Start) {
			out[n-1].End = max(out[n-1].End, x.End)
			continue
		}
		out = append(out, x)
	}
	return out
}

// unionRanges is the ordered, merged union of the parts.
func unionRanges(parts [][]cluster.SlotRange) []cluster.SlotRange {
	out := []cluster.SlotRange{}
	for _, p := range parts {
		for _, r := range p {
			out = addRange(out, r)
		}
	}
	return out
}

// migrating reports whether a migration involves group g.
func (s *State) migrating(g int) bool {
	return slices.ContainsFunc(s.Migrations, func(m Migration) bool { return m.From == g || m.To == g })
}

// addGroup makes member name the primary of a new group without slots. A
// replica leaves its group for it (its data, its former group's, is
// deleted once it serves as the new primary); its shard count must be the
// cluster's.
func (s *State) addGroup(name string) error {
	if !s.Created {
		return ErrNotCreated
	}
	m, ok := s.Member(name)
	if !ok {
		return fmt.Errorf("member %s: %w", name, ErrUnknown)
	}
	if n := s.shardCount(); m.Shards() != n {
		return fmt.Errorf("member %s has %d shards, the cluster %d: %w", name, m.Shards(), n, ErrShardCount)
	}
	if g := s.GroupOf(name); g != nil {
		if g.Primary == name {
			return fmt.Errorf("member %s is already the primary of group %d", name, g.ID)
		}
		if s.migrating(g.ID) {
			return fmt.Errorf("member %s: its group %d has a migration in progress", name, g.ID)
		}
		j := slices.Index(g.Replicas, name)
		g.Replicas = slices.Delete(g.Replicas, j, j+1)
	}
	s.Epoch++
	s.Groups = append(s.Groups, Group{
		ID:         len(s.Groups),
		Slots:      []cluster.SlotRange{},
		ShardSlots: make([][]cluster.SlotRange, m.Shards()),
		Primary:    name,
		Epoch:      s.Epoch,
	})
	for i := range s.Groups[len(s.Groups)-1].ShardSlots {
		s.Groups[len(s.Groups)-1].ShardSlots[i] = []cluster.SlotRange{}
	}
	return nil
}
