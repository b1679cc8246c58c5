package control

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/cluster"
)

func migrateCmd(r cluster.SlotRange, from, fromShard, to, toShard int) Command {
	return Command{Op: OpMigrate, Migration: &Migration{Slots: r, From: from, FromShard: fromShard, To: to, ToShard: toShard}}
}

func endCmd(id uint64, commit bool) Command {
	op := OpMigrateAbort
	if commit {
		op = OpMigrateCommit
	}
	return Command{Op: op, Migration: &Migration{ID: id}}
}

func TestMigrateCommitMovesTheRange(t *testing.T) {
	s := createdState(t, 1, 2, "A", "B", "C", "D") // g0 0-8191 (shards 0-4095, 4096-8191), g1 8192-16383
	epoch := s.Epoch
	mustApply(t, s, migrateCmd(cluster.SlotRange{Start: 100, End: 199}, 0, 0, 1, 1))
	if len(s.Migrations) != 1 || s.Migrations[0].ID != epoch+1 || s.Epoch != epoch+1 {
		t.Fatalf("after begin: epoch %d, migrations %+v", s.Epoch, s.Migrations)
	}
	m := s.Migrations[0]
	if m.FromEpoch != s.Groups[0].Epoch || m.ToEpoch != s.Groups[1].Epoch {
		t.Fatalf("migration epochs %+v, groups %d %d", m, s.Groups[0].Epoch, s.Groups[1].Epoch)
	}
	// Nothing moves at the beginning.
	if got := s.Groups[0].ShardSlots[0]; !reflect.DeepEqual(got, []cluster.SlotRange{{Start: 0, End: 4095}}) {
		t.Fatalf("group 0 shard 0 %v", got)
	}
	mustApply(t, s, endCmd(m.ID, true))
	if len(s.Migrations) != 0 || s.Epoch != epoch+2 || s.Groups[1].Epoch != s.Epoch {
		t.Fatalf("after commit: epoch %d, group 1 epoch %d, migrations %+v", s.Epoch, s.Groups[1].Epoch, s.Migrations)
	}
	if got, want := s.Groups[0].ShardSlots[0], []cluster.SlotRange{{Start: 0, End: 99}, {Start: 200, End: 4095}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("group 0 shard 0 %v, want %v", got, want)
	}
	if got, want := s.Groups[0].Slots, []cluster.SlotRange{{Start: 0, End: 99}, {Start: 200, End: 8191}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("group 0 slots %v, want %v", got, want)
	}
	if got, want := s.Groups[1].ShardSlots[1], []cluster.SlotRange{{Start: 100, End: 199}, {Start: 12288, End: 16383}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("group 1 shard 1 %v, want %v", got, want)
	}
	// Back again, onto the shard it came from: the ranges merge.
	mustApply(t, s, migrateCmd(cluster.SlotRange{Start: 100, End: 199}, 1, 1, 0, 0))
	mustApply(t, s, endCmd(s.Migrations[0].ID, true))
	if got, want := s.Groups[0].ShardSlots[0], []cluster.SlotRange{{Start: 0, End: 4095}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("group 0 shard 0 after the return %v, want %v", got, want)
	}
	// The topology built from it routes the slots.
	total := 0
	for _, g := range s.Groups {
		for _, p := range g.ShardSlots {
			total += slotsIn(p)
		}
	}
	if total != cluster.SlotCount {
		t.Fatalf("%d slots owned, want %d", total, cluster.SlotCount)
	}
}

func TestMigrateAbortAndExclusiveEnds(t *testing.T) {
	s := createdState(t, 1, 1, "A", "B", "C", "D")
	before := s.Clone()
	mustApply(t, s, migrateCmd(cluster.SlotRange{Start: 5, End: 5}, 0, 0, 1, 0))
	id := s.Migrations[0].ID
	mustApply(t, s, endCmd(id, false))
	if !reflect.DeepEqual(s.Groups, before.Groups) || len(s.Migrations) != 0 {
		t.Fatalf("an abort changed the groups: %+v", s.Groups)
	}
	// Once ended, neither commit nor abort applies again.
	for _, commit := range []bool{true, false} {
		if err := s.Apply(endCmd(id, commit)); !errors.Is(err, ErrNoMigration) {
			t.Fatalf("ending an ended migration (commit %v): %v", commit, err)
		}
	}
	// A failover of either group makes the commit fail; the abort still
	// ends it.
	mustApply(t, s, migrateCmd(cluster.SlotRange{Start: 5, End: 5}, 0, 0, 1, 0))
	id = s.Migrations[0].ID
	mustApply(t, s, Command{Op: OpFailover, Group: 1, From: "s1", To: "s3"})
	groups := s.Clone().Groups
	if err := s.Apply(endCmd(id, true)); !errors.Is(err, ErrStalePrimary) {
		t.Fatalf("commit after a failover: %v", err)
	}
	if !reflect.DeepEqual(s.Groups, groups) || len(s.Migrations) != 1 {
		t.Fatal("a refused commit changed the state")
	}
	mustApply(t, s, endCmd(id, false))
}

func TestMigrateRefusals(t *testing.T) {
	s := createdState(t, 0, 2, "A", "B") // g0 0-8191 (0-4095, 4096-8191), g1 8192-16383
	mustApply(t, s, migrateCmd(cluster.SlotRange{Start: 0, End: 9}, 0, 0, 1, 0))
	cases := []struct {
		c    Command
		want string
	}{
		{migrateCmd(cluster.SlotRange{Start: 10, End: 9}, 0, 0, 1, 0), "are not a range"},
		{migrateCmd(cluster.SlotRange{Start: 0, End: 16384}, 0, 0, 1, 0), "are not a range"},
		{migrateCmd(cluster.SlotRange{Start: 20, End: 30}, 0, 0, 2, 0), "does not exist"},
		{migrateCmd(cluster.SlotRange{Start: 20, End: 30}, 0, 0, 1, 2), "does not exist"},
		{migrateCmd(cluster.SlotRange{Start: 20, End: 30}, 0, 0, 0, 0), "to the shard that owns it"},
		{migrateCmd(cluster.SlotRange{Start: 4000, End: 4200}, 0, 0, 1, 1), "does not own all"},
		{migrateCmd(cluster.SlotRange{Start: 9000, End: 9001}, 0, 0, 1, 1), "does not own all"},
		{migrateCmd(cluster.SlotRange{Start: 20, End: 30}, 0, 0, 1, 1), "already involves"},
		{migrateCmd(cluster.SlotRange{Start: 8192, End: 8200}, 1, 0, 0, 1), "already involves"},
		{Command{Op: OpMigrateCommit}, "no migration named"},
	}
	for _, tc := range cases {
		before := s.Clone()
		err := s.Apply(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c.Migration, err, tc.want)
		}
		if !reflect.DeepEqual(s, before) {
			t.Errorf("%+v: a refused change changed the state", tc.c.Migration)
		}
	}
	// Another pair of shards may move at the same time.
	mustApply(t, s, migrateCmd(cluster.SlotRange{Start: 5000, End: 5001}, 0, 1, 1, 1))
}

func TestNormalizeSplitsLegacyGroups(t *testing.T) {
	s := createdState(t, 0, 3, "A", "B")
	want := s.Clone()
	for i := range s.Groups {
		s.Groups[i].ShardSlots = nil
	}
	s.normalize()
	if !reflect.DeepEqual(s.Groups, want.Groups) {
		t.Fatalf("normalize: %+v, want %+v", s.Groups, want.Groups)
	}
}

func TestAddGroupAndRetire(t *testing.T) {
	s := createdState(t, 1, 1, "A", "B", "C", "D") // g0 = s0 + s2, g1 = s1 + s3
	if err := s.Apply(Command{Op: OpAddGroup, Name: "s0"}); err == nil {
		t.Fatal("a primary became another group's primary")
	}
	if err := s.Apply(Command{Op: OpAddGroup, Name: "nobody"}); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unknown member: %v", err)
	}
	mustApply(t, s, Command{Op: OpAddGroup, Name: "s2"})
	g := s.Groups[2]
	if g.ID != 2 || g.Primary != "s2" || len(g.Slots) != 0 || len(g.ShardSlots) != 1 || g.Epoch != s.Epoch {
		t.Fatalf("new group %+v", g)
	}
	if len(s.Groups[0].Replicas) != 0 {
		t.Fatalf("s2 still a replica of group 0: %v", s.Groups[0].Replicas)
	}
	// A new member joins the group with the fewest replicas: the new one.
	mustApply(t, s, register(testMember(4, "E", 1)))
	if s.GroupOf("s4").ID != 0 && s.GroupOf("s4").ID != 2 {
		t.Fatalf("s4 joined group %d", s.GroupOf("s4").ID)
	}
	// A primary with slots is not removed; an empty one without replicas
	// is, and its group is retired.
	if err := s.Apply(Command{Op: OpRemove, Name: "s1"}); err == nil {
		t.Fatal("removed the primary of a group with slots")
	}
	if g := s.GroupOf("s4"); g.ID == 2 {
		mustApply(t, s, Command{Op: OpRemove, Name: "s4"})
	}
	mustApply(t, s, Command{Op: OpRemove, Name: "s2"})
	if s.Groups[2].Primary != "" {
		t.Fatalf("group 2 not retired: %+v", s.Groups[2])
	}
	if err := s.Apply(migrateCmd(cluster.SlotRange{Start: 0, End: 0}, 0, 0, 2, 0)); err == nil || !strings.Contains(err.Error(), "retired") {
		t.Fatalf("migration to a retired group: %v", err)
	}
	mustApply(t, s, register(testMember(5, "F", 1)))
	if s.GroupOf("s5").ID == 2 {
		t.Fatal("a new member joined a retired group")
	}
}
