package main

import (
	"testing"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/cluster/control"
)

// simulate applies planStep's moves to st until it stops, and returns the
// slots each group owns.
func simulate(t *testing.T, st control.State, drain map[int]bool) map[int]int {
	t.Helper()
	for step := 0; ; step++ {
		if step > 100 {
			t.Fatal("rebalance does not converge")
		}
		a, ok := planStep(st, drain)
		if !ok {
			break
		}
		from := -1
		for _, g := range st.Groups {
			for _, r := range g.ShardSlots[a.FromShard] {
				if r.Start <= a.Slots.Start && a.Slots.End <= r.End {
					from = g.ID
				}
			}
		}
		if err := st.Apply(control.Command{Op: control.OpMigrate, Migration: &control.Migration{Slots: a.Slots, From: from, FromShard: a.FromShard, To: a.To, ToShard: a.ToShard}}); err != nil {
			t.Fatalf("step %d %+v: %v", step, a, err)
		}
		if err := st.Apply(control.Command{Op: control.OpMigrateCommit, Migration: &control.Migration{ID: st.Migrations[0].ID}}); err != nil {
			t.Fatal(err)
		}
	}
	out := map[int]int{}
	for _, g := range st.Groups {
		for _, r := range g.Slots {
			out[g.ID] += r.Len()
		}
	}
	return out
}

func TestRebalanceAndDrainPlans(t *testing.T) {
	st := control.State{}
	for i, n := range []string{"a", "b", "c"} {
		m := control.Member{Name: n, Host: "10.0.0." + string(rune('1'+i)), Port: 7000, Control: "x:1", NodeIDs: []string{
			"0000000000000000000000000000000000000" + string(rune('a'+i)) + "01", "0000000000000000000000000000000000000" + string(rune('a'+i)) + "02"}}
		if err := st.Apply(control.Command{Op: control.OpRegister, Member: &m}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Apply(control.Command{Op: control.OpCreate, Seeds: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(control.Command{Op: control.OpAddGroup, Name: "c"}); err != nil {
		t.Fatal(err)
	}
	got := simulate(t, *st.Clone(), nil)
	for g, n := range got {
		if n < cluster.SlotCount/3-2 || n > cluster.SlotCount/3+2 {
			t.Fatalf("group %d owns %d slots after rebalance: %v", g, n, got)
		}
	}
	got = simulate(t, *st.Clone(), map[int]bool{0: true})
	if got[0] != 0 || got[1]+got[2] != cluster.SlotCount || got[1]-got[2] > 2 || got[2]-got[1] > 2 {
		t.Fatalf("drain of group 0: %v", got)
	}
}
