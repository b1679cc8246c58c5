package dict

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/memsize"
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
	if d.Len() != 0 || len(d.t.buckets) > 8 {
		t.Fatalf("emptied table: len %d, %d buckets", d.Len(), len(d.t.buckets))
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

// TestScanDuringResize: a walk started before, during and across
// incremental resizes (growing and shrinking) returns every entry that was
// present throughout.
func TestScanDuringResize(t *testing.T) {
	for round := 0; round < 6; round++ {
		d := New[struct{}](0)
		keep := 3000 + round*517
		for i := 0; i < keep; i++ {
			d.Insert([]byte(fmt.Sprint("keep", i)), struct{}{})
		}
		seen := map[string]bool{}
		cur, step, resizing := uint64(0), 0, 0
		for {
			cur = d.Scan(cur, func(i int) { seen[d.Key(i)] = true })
			step++
			// Mutate between calls: grow hard (starting incremental
			// resizes), then shrink back.
			switch step % 40 {
			case 5:
				// Stop just after a resize starts, so the next calls
				// scan a table half-way through it.
				for i := 0; d.t.old == nil; i++ {
					d.Insert([]byte(fmt.Sprint("tmp", step, "-", i)), struct{}{})
				}
				resizing++
			case 25:
				for i := 0; d.Delete([]byte(fmt.Sprint("tmp", step-20, "-", i))); i++ {
				}
			}
			if cur == 0 {
				break
			}
		}
		for i := 0; i < keep; i++ {
			if !seen[fmt.Sprint("keep", i)] {
				t.Fatalf("round %d: keep%d missed", round, i)
			}
		}
		if resizing == 0 {
			t.Fatalf("round %d: no scan call ran during a resize", round)
		}
	}
}

// TestMatchesMapWhileResizing drives many resizes with a map beside.
func TestMatchesMapWhileResizing(t *testing.T) {
	d := New[int](0)
	m := map[string]int{}
	for i := 0; i < 200000; i++ {
		k := fmt.Sprint(i % 50000)
		phase := (i / 25000) % 2
		if phase == 0 {
			if _, added := d.Insert([]byte(k), i); added {
				m[k] = i
			}
		} else if d.Delete([]byte(k)) {
			delete(m, k)
		}
		if i%997 == 0 {
			if d.Len() != len(m) {
				t.Fatalf("step %d: len %d, map %d", i, d.Len(), len(m))
			}
			for mk, mv := range m {
				j := d.Find([]byte(mk))
				if j < 0 || *d.Value(j) != mv {
					t.Fatalf("step %d: %s lost", i, mk)
				}
				break
			}
		}
	}
	for mk, mv := range m {
		j := d.Find([]byte(mk))
		if j < 0 || *d.Value(j) != mv {
			t.Fatalf("%s lost", mk)
		}
	}
	n := 0
	for i := 0; i < d.Len(); i++ {
		if _, ok := m[d.Key(i)]; ok {
			n++
		}
	}
	if n != len(m) {
		t.Fatalf("dense entries hold %d of %d", n, len(m))
	}
}

// walkMemory is MemoryUsage computed by visiting every entry, the way it
// was before the key bytes were kept as a running figure.
func walkMemory[V any](d *Dict[V]) int {
	var e slot[pair[V]]
	n := memsize.Alloc(int(unsafe.Sizeof(*d))) + memsize.NoScan(4*len(d.t.buckets)) + memsize.NoScan(4*len(d.t.old))
	n += memsize.Alloc(int(unsafe.Sizeof([]slot[pair[V]]{})) * cap(d.t.chunks))
	for _, c := range d.t.chunks {
		n += memsize.Alloc(int(unsafe.Sizeof(e)) * cap(c))
		for i := range c {
			n += memsize.NoScan(len(c[i].e.key))
		}
	}
	return n
}

// TestMemoryUsageRunning checks that the running key-bytes figure keeps
// MemoryUsage equal to a full walk through random inserts and deletes of
// keys of varied lengths, down to empty and back.
func TestMemoryUsageRunning(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := New[int](0)
	key := func() []byte { return []byte(strings.Repeat("k", r.IntN(40)) + fmt.Sprint(r.IntN(3000))) }
	for i := 0; i < 60000; i++ {
		if (i/7000)%2 == 0 {
			d.Insert(key(), i)
		} else if d.Len() > 0 {
			d.DeleteAt(r.IntN(d.Len()))
		}
		if i%101 == 0 || d.Len() == 0 {
			if got, want := d.MemoryUsage(), walkMemory(d); got != want {
				t.Fatalf("step %d (%d entries): MemoryUsage %d, walk %d", i, d.Len(), got, want)
			}
		}
	}
}

// TestSlotSize: a set's entry (no value) is the key and the slot's hash
// and chain link, with no padding after a zero-size value; a hash's adds
// its value string.
func TestSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(slot[pair[struct{}]]{}); n != 24 {
		t.Errorf("set slot is %d bytes, want 24", n)
	}
	if n := unsafe.Sizeof(slot[pair[string]]{}); n != 40 {
		t.Errorf("hash slot is %d bytes, want 40", n)
	}
}

// TestFindAllocs: a lookup of a present or absent key allocates nothing,
// during an incremental resize too.
func TestFindAllocs(t *testing.T) {
	d := New[struct{}](0)
	for i := 0; i < 5000; i++ {
		d.Insert([]byte(fmt.Sprint("element:", i)), struct{}{})
	}
	hit, miss := []byte("element:1234"), []byte("element:x")
	if n := testing.AllocsPerRun(100, func() {
		if d.Find(hit) < 0 || d.Find(miss) >= 0 {
			t.Fatal("lookup wrong")
		}
		d.Insert(hit, struct{}{})
	}); n != 0 {
		t.Fatalf("%v allocations per lookup", n)
	}
}

// TestPrefetch: the read ahead of a lookup finds the bucket of a present
// key (an entry with the key's hash heads it, or chains to one) and
// nothing in an empty table, and any entry index, even one out of
// range, is safe to prefetch.
func TestPrefetch(t *testing.T) {
	d := New[string](0)
	if i := d.PrefetchEntry(d.PrefetchBucket([]byte("k"))); i != -1 {
		t.Fatalf("empty table: head %d", i)
	}
	d.PrefetchKey(-1)
	for i := 0; i < 1000; i++ {
		d.Insert([]byte(fmt.Sprint("k", i)), "v")
	}
	for i := 0; i < 1000; i++ {
		key := []byte(fmt.Sprint("k", i))
		h := d.PrefetchBucket(key)
		head := d.PrefetchEntry(h)
		if head < 0 || int(head) >= d.Len() {
			t.Fatalf("k%d: head %d", i, head)
		}
		found := false
		for j := head; j >= 0; j = d.t.s(j).next {
			found = found || d.Key(int(j)) == string(key)
		}
		if !found {
			t.Fatalf("k%d: not in the chain headed by %d", i, head)
		}
		d.PrefetchKey(head)
	}
	d.PrefetchKey(int32(d.Len()))
}

// BenchmarkReadAhead looks up batches of 16 random keys of a table that
// outgrows the core's own caches, with no read ahead and with the three
// prefetch steps.
func BenchmarkReadAhead(b *testing.B) {
	const n, batch = 1 << 17, 16
	d := New[string](n)
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte("element:" + strconv.Itoa(i))
		d.Insert(keys[i], "xxx")
	}
	order := rand.New(rand.NewPCG(1, 2)).Perm(n)
	run := func(b *testing.B, warm func(ks [][]byte)) {
		found := 0
		for i := 0; b.Loop(); i++ {
			var ks [batch][]byte
			for j := range ks {
				ks[j] = keys[order[(i*batch+j)%n]]
			}
			warm(ks[:])
			for _, k := range ks {
				if d.Find(k) >= 0 {
					found++
				}
			}
		}
		if found == 0 {
			b.Fatal("nothing found")
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/lookup")
	}
	b.Run("none", func(b *testing.B) { run(b, func([][]byte) {}) })
	b.Run("prefetch", func(b *testing.B) {
		run(b, func(ks [][]byte) {
			var hs [batch]uint32
			var is [batch]int32
			for j, k := range ks {
				hs[j] = d.PrefetchBucket(k)
			}
			for j, h := range hs[:len(ks)] {
				is[j] = d.PrefetchEntry(h)
			}
			for _, i := range is[:len(ks)] {
				d.PrefetchKey(i)
			}
		})
	})
}
