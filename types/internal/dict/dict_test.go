package dict

import (
	"fmt"
	"testing"
)

func TestInsertFindDelete(t *testing.T) {
	d := New[int](0)
	model := map[string]int{}
	for i := 0; i < 5000; i++ {
		k := fmt.Sprint("k", i%3000)
		if i%4 == 3 {
			if d.Delete([]byte(k)) != (model[k] != 0) {
				t.Fatalf("delete %s", k)
			}
			delete(model, k)
			continue
		}
		idx, added := d.Insert([]byte(k), i+1)
		if added == (model[k] != 0) {
			t.Fatalf("insert %s added=%v", k, added)
		}
		if added {
			model[k] = i + 1
		}
		if *d.Value(idx) != model[k] {
			t.Fatalf("value of %s", k)
		}
	}
	if d.Len() != len(model) {
		t.Fatalf("len %d, model %d", d.Len(), len(model))
	}
	for k, v := range model {
		i := d.Find([]byte(k))
		if i < 0 || *d.Value(i) != v || d.Key(i) != k {
			t.Fatalf("find %s", k)
		}
	}
	for k := range model {
		d.Delete([]byte(k))
	}
	if d.Len() != 0 || len(d.buckets) > 8 {
		t.Fatalf("emptied table: len %d, %d buckets", d.Len(), len(d.buckets))
	}
}

// TestScanVisitsEachOnceWithoutResize: a full walk with no mutation
// sees every entry exactly once.
func TestScanVisitsEachOnceWithoutResize(t *testing.T) {
	d := New[struct{}](0)
	for i := 0; i < 1000; i++ {
		d.Insert([]byte(fmt.Sprint(i)), struct{}{})
	}
	seen := map[string]int{}
	cur := uint64(0)
	for {
		cur = d.Scan(cur, func(i int) { seen[d.Key(i)]++ })
		if cur == 0 {
			break
		}
	}
	if len(seen) != 1000 {
		t.Fatalf("saw %d", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", k, n)
		}
	}
}
