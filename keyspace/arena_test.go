package keyspace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestSizeClasses(t *testing.T) {
	prev := 0
	for c := uint8(0); c < numClasses; c++ {
		size := ClassSize(c)
		if size <= prev || size%8 != 0 {
			t.Fatalf("class %d: size %d after %d", c, size, prev)
		}
		prev = size
	}
	if prev != MaxSmall {
		t.Fatalf("largest class is %d bytes, want %d", prev, MaxSmall)
	}
	for n := 1; n <= MaxSmall; n++ {
		c := SizeClass(n)
		if c >= numClasses || ClassSize(c) < n || (c > 0 && ClassSize(c-1) >= n) {
			t.Fatalf("sizeClass(%d) = %d (size %d)", n, c, ClassSize(c))
		}
		// Waste is bounded: 7 bytes, or 1/8 above 256 bytes.
		if w := ClassSize(c) - n; w > max(7, n/8) {
			t.Fatalf("sizeClass(%d) wastes %d bytes", n, w)
		}
	}
}

func TestArenaReuse(t *testing.T) {
	a := newArena()
	h1, p1, c1 := a.Alloc(40)
	h2, _, c2 := a.Alloc(40)
	if h1 == 0 || h2 == 0 || h1 == h2 || c1 != c2 {
		t.Fatalf("handles %d %d classes %d %d", h1, h2, c1, c2)
	}
	if a.Ptr(h1) != p1 || a.HandleOf(p1) != h1 {
		t.Fatal("ptr and handleOf do not agree")
	}
	a.Release(h1, c1)
	if h3, _, _ := a.Alloc(37); h3 != h1 {
		t.Fatalf("a freed slot of the class was not reused: %d, want %d", h3, h1)
	}
	if a.Used != int64(2*ClassSize(c1)) {
		t.Fatalf("used %d", a.Used)
	}
	hb, pb, cb := a.Alloc(MaxSmall + 1)
	if cb != classDedicated || a.Ptr(hb) != pb || a.HandleOf(pb) != hb {
		t.Fatalf("large allocation: class %d", cb)
	}
	mapped := a.Mapped
	a.Release(hb, cb)
	if a.Mapped >= mapped {
		t.Fatal("a dedicated page was not unmapped")
	}
}

// TestDBModel runs random operations on a database and a map model: adds,
// overwrites of every size (inline, moved, side), in-place growth,
// objects, deadlines, renames and deletions, checking after each step
// that every key reads back and the index, expiring list and memory
// figure agree.
func TestDBModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	db := newDB(0)
	model := map[string]string{}
	deadlines := map[string]int64{}
	keys := func() string {
		return fmt.Sprintf("k%d", rng.IntN(400))
	}
	value := func() string {
		switch rng.IntN(10) {
		case 0:
			return string(bytes.Repeat([]byte{'L'}, MaxSmall+rng.IntN(1000)))
		case 1:
			return string(bytes.Repeat([]byte{'M'}, 100+rng.IntN(3000)))
		}
		return fmt.Sprint(rng.IntN(1 << 20))
	}
	const steps = 20000
	for step := 0; step < steps; step++ {
		k := keys()
		e := db.Find([]byte(k))
		_, inModel := model[k]
		if (e != nil) != inModel {
			t.Fatalf("step %d: key %s present %v, model %v", step, k, e != nil, inModel)
		}
		switch op := rng.IntN(7); {
		case e == nil:
			v := value()
			at := int64(0)
			if rng.IntN(3) == 0 {
				at = int64(1 + rng.IntN(1000))
				deadlines[k] = at
			}
			db.Add([]byte(k), []byte(v), nil, at)
			model[k] = v
		case op == 0:
			db.Remove(e)
			delete(model, k)
			delete(deadlines, k)
		case op == 1:
			v := value()
			db.SetString(e, []byte(v))
			model[k] = v
		case op == 2 && !e.IsObj():
			add := value()
			n := len(db.Val(e))
			e = db.ResizeVal(e, n+len(add))
			copy(db.Val(e)[n:], add)
			model[k] += add
		case op == 3:
			db.SetObj(e, &strLikeObj{b: []byte("obj")})
			model[k] = "\x00obj"
		case op == 4:
			at := int64(rng.IntN(2)) * int64(1+rng.IntN(1000))
			db.SetDeadline(e, at)
			if at == 0 {
				delete(deadlines, k)
			} else {
				deadlines[k] = at
			}
		case op == 5:
			nk := keys()
			if nk == k {
				break
			}
			if old := db.Find([]byte(nk)); old != nil {
				db.Remove(old)
			}
			db.Transfer(e, db, []byte(nk))
			model[nk] = model[k]
			delete(model, k)
			delete(deadlines, nk)
			if at, ok := deadlines[k]; ok {
				deadlines[nk] = at
				delete(deadlines, k)
			}
		}
		if step%500 == 0 || step == steps-1 {
			checkDB(t, db, model, deadlines)
		}
	}
	db.Flush()
	if db.Len() != 0 || db.Mem != 0 || db.A.Used != 0 || db.A.ExtBytes != 0 {
		t.Fatalf("after flush: %d keys, mem %d, arena %d, ext %d", db.Len(), db.Mem, db.A.Used, db.A.ExtBytes)
	}
}

func checkDB(t *testing.T, db *DB, model map[string]string, deadlines map[string]int64) {
	t.Helper()
	if db.Len() != len(model) {
		t.Fatalf("%d keys, model %d", db.Len(), len(model))
	}
	var mem int64
	seen := 0
	db.Each(func(e *Entry) {
		seen++
		mem += db.Size(e)
		want, ok := model[e.KeyString()]
		if !ok {
			t.Fatalf("key %q not in the model", e.Key())
		}
		got := string(db.Val(e))
		if e.IsObj() {
			got = "\x00" + string(db.Obj(e).(*strLikeObj).b)
		}
		if got != want {
			t.Fatalf("key %q: %d bytes, want %d", e.Key(), len(got), len(want))
		}
		if e.ExpireAt != deadlines[e.KeyString()] {
			t.Fatalf("key %q: deadline %d, want %d", e.Key(), e.ExpireAt, deadlines[e.KeyString()])
		}
		if (e.ExpIdx != 0) != (e.ExpireAt != 0) || (e.ExpIdx != 0 && db.Expiring[e.ExpIdx-1] != db.Handle(e)) {
			t.Fatalf("key %q: expiring index out of step", e.Key())
		}
		if db.Find(e.Key()) != e {
			t.Fatalf("key %q: find returns another entry", e.Key())
		}
	})
	if seen != len(model) || len(db.Expiring) != len(deadlines) {
		t.Fatalf("walked %d keys, expiring %d, model %d / %d", seen, len(db.Expiring), len(model), len(deadlines))
	}
	if mem != db.Mem {
		t.Fatalf("memory figure %d, entries add up to %d", db.Mem, mem)
	}
}

// TestTableScanResizes checks the cursor guarantee at the table level: a
// key present for the whole scan is returned even though the table
// doubles and halves between calls.
func TestTableScanResizes(t *testing.T) {
	db := newDB(0)
	for i := 0; i < 3000; i++ {
		db.AddString([]byte(fmt.Sprint("keep", i)), nil, 0)
	}
	seen := map[string]bool{}
	cursor, calls := uint64(0), 0
	for {
		cursor = db.T.Scan(cursor, func(h uint32) { seen[db.EntryAt(h).KeyString()] = true })
		if cursor == 0 {
			break
		}
		calls++
		switch calls % 40 {
		case 10:
			for i := 0; i < 5000; i++ {
				db.AddString([]byte(fmt.Sprint("tmp", calls, ":", i)), nil, 0)
			}
		case 30:
			for i := 0; i < 5000; i++ {
				db.Delete([]byte(fmt.Sprint("tmp", calls-20, ":", i)))
			}
		}
	}
	for i := 0; i < 3000; i++ {
		if !seen[fmt.Sprint("keep", i)] {
			t.Fatalf("keep%d missed after %d calls", i, calls)
		}
	}
}

// longestRun is the longest run of occupied slots of a table, wrapping.
func longestRun(tb *table) int {
	best, run := 0, 0
	for i := 0; i < 2*len(tb.Slots); i++ {
		if tb.Slots[i%len(tb.Slots)] != 0 {
			run++
			best = max(best, min(run, len(tb.Slots)))
		} else {
			run = 0
		}
	}
	return best
}

// TestTableShrinkAfterDeletionsInHashOrder deletes most keys in scan
// (hash) order, as SCAN+DEL or a slot range's cleanup does: the keys left
// crowd the end of the hash space, and the shrinks must not pack them into
// a table where they overflow into one long run (every lookup and insert
// then walks it: deleting a million keys this way took minutes).
func TestTableShrinkAfterDeletionsInHashOrder(t *testing.T) {
	db := newDB(0)
	const n = 100000
	for i := 0; i < n; i++ {
		db.AddString([]byte(fmt.Sprint("k", i)), nil, 0)
	}
	peak := len(db.T.Slots)
	cursor, deleted, steps := uint64(0), 0, 0
	var keys [][]byte
	for deleted < n*19/20 {
		keys = keys[:0]
		cursor = db.T.Scan(cursor, func(h uint32) { keys = append(keys, db.EntryAt(h).Key()) })
		for _, k := range keys {
			if deleted < n*19/20 && db.Delete(k) {
				deleted++
			}
		}
		if steps++; steps%2000 == 0 {
			if run := longestRun(&db.T); run > 1024 {
				t.Fatalf("after %d deletions in hash order: a run of %d occupied slots in a table of %d holding %d keys", deleted, run, len(db.T.Slots), db.T.Count)
			}
		}
		if cursor == 0 {
			break
		}
	}
	if run := longestRun(&db.T); run > 1024 {
		t.Fatalf("a run of %d occupied slots in a table of %d holding %d keys", run, len(db.T.Slots), db.T.Count)
	}
	if db.Len() != n-deleted || len(db.T.Slots) >= peak {
		t.Fatalf("%d keys left (want %d) in %d slots (peak %d)", db.Len(), n-deleted, len(db.T.Slots), peak)
	}
	db.Each(func(e *Entry) {
		if db.Find(e.Key()) != e {
			t.Fatalf("key %q not found", e.Key())
		}
	})
}
