package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"testing"
)

// TestSemaphoreLargeMatchesModel drives semaphores of hundreds of holders
// (past semIndexAt, where holders are indexed and released ones linger as
// tombstones) with random grants, releases and expiries, against a plain
// model: every reply, the holder count and the key's deadline (the latest
// live holder deadline) must match it, and replaying the WAL records or
// loading a snapshot must rebuild the same state.
func TestSemaphoreLargeMatchesModel(t *testing.T) {
	sh, j := kjShard(t)
	rng := uint64(99)
	rnd := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	model := map[int64]int64{} // token -> deadline of the live holders
	var tokens []int64         // every token granted, for releases
	last := int64(0)
	now := int64(0)
	indexed := 0
	for step := 0; step < 20000; step++ {
		now += int64(rnd(4))
		kjAt(sh, now)
		abs := testNowMs + now
		for tok, until := range model {
			if until <= abs {
				delete(model, tok)
			}
		}
		if rnd(10) < 7 {
			limit := 300 + rnd(700)
			ttl := 1 + rnd(3000)
			reply := run(t, sh, "SEMAPHORE", "s", strconv.Itoa(limit), strconv.Itoa(ttl))
			switch {
			case len(model) >= limit:
				if reply != rNull {
					t.Fatalf("step %d: %d of %d held, grant replied %q", step, len(model), limit, reply)
				}
			default:
				tok := kjInt(t, reply)
				if len(model) > 0 && tok != last+1 || tok <= last {
					t.Fatalf("step %d: token %d after %d", step, tok, last)
				}
				last = tok
				model[tok] = abs + int64(ttl)
				tokens = append(tokens, tok)
			}
		} else if len(tokens) > 0 {
			tok := tokens[rnd(len(tokens))]
			if rnd(8) == 0 {
				tok += 1 << 40 // never granted
			}
			want := rInt(0)
			if _, ok := model[tok]; ok {
				want = rInt(1)
				delete(model, tok)
			}
			if reply := run(t, sh, "RELEASE", "s", strconv.FormatInt(tok, 10)); reply != want {
				t.Fatalf("step %d: release %d replied %q, want %q", step, tok, reply, want)
			}
		}
		latest := int64(0)
		for _, until := range model {
			latest = max(latest, until)
		}
		if len(model) == 0 {
			expect(t, sh, rInt(-2), "PTTL", "s")
			continue
		}
		expect(t, sh, rInt(latest-abs), "PTTL", "s")
		db := sh.DBs[0]
		s := db.Obj(db.Find([]byte("s"))).(*keyspace.SemObj)
		if s.Count() < len(model) {
			t.Fatalf("step %d: %d holders counted, %d live", step, s.Count(), len(model))
		}
		if s.Idx != nil {
			indexed++
			if cap(s.More) > 2*len(model)+keyspace.SemIndexAt+cap(s.More)/4 {
				t.Fatalf("step %d: %d slots for %d holders", step, cap(s.More), len(model))
			}
		} else if len(s.More) != cap(s.More) {
			t.Fatalf("step %d: small semaphore's slice len %d cap %d", step, len(s.More), cap(s.More))
		}
		if step%2000 == 1999 {
			want := kjState(sh, sh.NowMs)
			if got := kjState(kjReplay(t, j.recs), sh.NowMs); got != want {
				t.Fatalf("step %d: replay differs:\n got  %s\n want %s", step, got, want)
			}
			if got := kjState(kjSnapshotCopy(t, sh), sh.NowMs); got != want {
				t.Fatalf("step %d: snapshot differs:\n got  %s\n want %s", step, got, want)
			}
		}
	}
	if indexed < 5000 {
		t.Fatalf("only %d steps ran on an indexed semaphore", indexed)
	}
}

// TestSemaphoreGrantCost: a grant on a semaphore of thousands of holders
// copies nothing of theirs: the holder slice is reallocated a few dozen
// times over 20,000 grants (by a quarter each time), not on every grant.
func TestSemaphoreGrantCost(t *testing.T) {
	sh, _ := kjShard(t)
	reallocs := 0
	var prev *keyspace.SemHolder
	for i := 0; i < 20000; i++ {
		kjInt(t, run(t, sh, "SEMAPHORE", "s", "1000000", "600000"))
		db := sh.DBs[0]
		s := db.Obj(db.Find([]byte("s"))).(*keyspace.SemObj)
		if len(s.More) > 0 && &s.More[0] != prev {
			prev = &s.More[0]
			reallocs++
		}
	}
	if reallocs > keyspace.SemIndexAt+60 {
		t.Fatalf("the holder slice was reallocated %d times over 20000 grants", reallocs)
	}
}
