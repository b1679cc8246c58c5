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
		size := classSize(c)
		if size <= prev || size%8 != 0 {
			t.Fatalf("class %d: size %d after %d", c, size, prev)
		}
		prev = size
	}
	if prev != maxSmall {
		t.Fatalf("largest class is %d bytes, want %d", prev, maxSmall)
	}
	for n := 1; n <= maxSmall; n++ {
		c := sizeClass(n)
		if c >= numClasses || classSize(c) < n || (c > 0 && classSize(c-1) >= n) {
			t.Fatalf("sizeClass(%d) = %d (size %d)", n, c, classSize(c))
		}
		// Waste is bounded: 7 bytes, or 1/8 above 256 bytes.
		if w := classSize(c) - n; w > max(7, n/8) {
			t.Fatalf("sizeClass(%d) wastes %d bytes", n, w)
		}
	}
}

func TestArenaReuse(t *testing.T) {
	a := newArena()
	h1, p1, c1 := a.alloc(40)
	h2, _, c2 := a.alloc(40)
	if h1 == 0 || h2 == 0 || h1 == h2 || c1 != c2 {
		t.Fatalf("handles %d %d classes %d %d", h1, h2, c1, c2)
	}
	if a.ptr(h1) != p1 || a.handleOf(p1) != h1 {
		t.Fatal("ptr and handleOf do not agree")
	}
	a.release(h1, c1)
	if h3, _, _ := a.alloc(37); h3 != h1 {
		t.Fatalf("a freed slot of the class was not reused: %d, want %d", h3, h1)
	}
	if a.used != int64(2*classSize(c1)) {
		t.Fatalf("used %d", a.used)
	}
	hb, pb, cb := a.alloc(maxSmall + 1)
	if cb != classDedicated || a.ptr(hb) != pb || a.handleOf(pb) != hb {
		t.Fatalf("large allocation: class %d", cb)
	}
	mapped := a.mapped
	a.release(hb, cb)
	if a.mapped >= mapped {
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
			return string(bytes.Repeat([]byte{'L'}, maxSmall+rng.IntN(1000)))
		case 1:
			return string(bytes.Repeat([]byte{'M'}, 100+rng.IntN(3000)))
		}
		return fmt.Sprint(rng.IntN(1 << 20))
	}
	const steps = 20000
	for step := 0; step < steps; step++ {
		k := keys()
		e := db.find([]byte(k))
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
			db.add([]byte(k), []byte(v), nil, at)
			model[k] = v
		case op == 0:
			db.remove(e)
			delete(model, k)
			delete(deadlines, k)
		case op == 1:
			v := value()
			db.setString(e, []byte(v))
			model[k] = v
		case op == 2 && !e.isObj():
			add := value()
			n := len(db.val(e))
			e = db.resizeVal(e, n+len(add))
			copy(db.val(e)[n:], add)
			model[k] += add
		case op == 3:
			db.setObj(e, &strLikeObj{b: []byte("obj")})
			model[k] = "\x00obj"
		case op == 4:
			at := int64(rng.IntN(2)) * int64(1+rng.IntN(1000))
			db.setDeadline(e, at)
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
			if old := db.find([]byte(nk)); old != nil {
				db.remove(old)
			}
			db.transfer(e, db, []byte(nk))
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
	db.flush()
	if db.Len() != 0 || db.mem != 0 || db.a.used != 0 || db.a.extBytes != 0 {
		t.Fatalf("after flush: %d keys, mem %d, arena %d, ext %d", db.Len(), db.mem, db.a.used, db.a.extBytes)
	}
}

func checkDB(t *testing.T, db *DB, model map[string]string, deadlines map[string]int64) {
	t.Helper()
	if db.Len() != len(model) {
		t.Fatalf("%d keys, model %d", db.Len(), len(model))
	}
	var mem int64
	seen := 0
	db.each(func(e *entry) {
		seen++
		mem += db.size(e)
		want, ok := model[e.keyString()]
		if !ok {
			t.Fatalf("key %q not in the model", e.key())
		}
		got := string(db.val(e))
		if e.isObj() {
			got = "\x00" + string(db.obj(e).(*strLikeObj).b)
		}
		if got != want {
			t.Fatalf("key %q: %d bytes, want %d", e.key(), len(got), len(want))
		}
		if e.expireAt != deadlines[e.keyString()] {
			t.Fatalf("key %q: deadline %d, want %d", e.key(), e.expireAt, deadlines[e.keyString()])
		}
		if (e.expIdx != 0) != (e.expireAt != 0) || (e.expIdx != 0 && db.expiring[e.expIdx-1] != db.handle(e)) {
			t.Fatalf("key %q: expiring index out of step", e.key())
		}
		if db.find(e.key()) != e {
			t.Fatalf("key %q: find returns another entry", e.key())
		}
	})
	if seen != len(model) || len(db.expiring) != len(deadlines) {
		t.Fatalf("walked %d keys, expiring %d, model %d / %d", seen, len(db.expiring), len(model), len(deadlines))
	}
	if mem != db.mem {
		t.Fatalf("memory figure %d, entries add up to %d", db.mem, mem)
	}
}

// TestTableScanResizes checks the cursor guarantee at the table level: a
// key present for the whole scan is returned even though the table
// doubles and halves between calls.
func TestTableScanResizes(t *testing.T) {
	db := newDB(0)
	for i := 0; i < 3000; i++ {
		db.addString([]byte(fmt.Sprint("keep", i)), nil, 0)
	}
	seen := map[string]bool{}
	cursor, calls := uint64(0), 0
	for {
		cursor = db.t.scan(cursor, func(h uint32) { seen[db.entryAt(h).keyString()] = true })
		if cursor == 0 {
			break
		}
		calls++
		switch calls % 40 {
		case 10:
			for i := 0; i < 5000; i++ {
				db.addString([]byte(fmt.Sprint("tmp", calls, ":", i)), nil, 0)
			}
		case 30:
			for i := 0; i < 5000; i++ {
				db.delete([]byte(fmt.Sprint("tmp", calls-20, ":", i)))
			}
		}
	}
	for i := 0; i < 3000; i++ {
		if !seen[fmt.Sprint("keep", i)] {
			t.Fatalf("keep%d missed after %d calls", i, calls)
		}
	}
}
