package bloom

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
)

func item(prefix string, i int) []byte { return []byte(fmt.Sprintf("%s:%d", prefix, i)) }

func TestNewValidates(t *testing.T) {
	for _, c := range []struct {
		rate float64
		cap  uint64
		exp  uint32
		err  error
	}{
		{0, 10, 2, ErrErrorRate}, {1, 10, 2, ErrErrorRate}, {-0.5, 10, 2, ErrErrorRate},
		{0.01, 0, 2, ErrCapacity}, {0.01, 10, 0, ErrExpansion}, {0.01, 1 << 40, 2, ErrTooLarge},
	} {
		if _, err := New(c.rate, c.cap, c.exp, false); err != c.err {
			t.Errorf("New(%v, %d, %d) = %v, want %v", c.rate, c.cap, c.exp, err, c.err)
		}
	}
}

func TestAddExistsCard(t *testing.T) {
	f, err := New(DefaultErrorRate, DefaultCapacity, DefaultExpansion, false)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := f.Add([]byte("a")); !ok {
		t.Fatal("first add reported existing")
	}
	if ok, _ := f.Add([]byte("a")); ok {
		t.Fatal("second add reported new")
	}
	if !f.Exists([]byte("a")) || f.Exists([]byte("b")) {
		t.Fatal("exists")
	}
	if f.Card() != 1 || f.Capacity() != 100 || f.Filters() != 1 {
		t.Fatalf("card %d capacity %d filters %d", f.Card(), f.Capacity(), f.Filters())
	}
	for i := 0; i < 1000; i++ {
		f.Add(item("x", i))
	}
	for i := 0; i < 1000; i++ {
		if !f.Exists(item("x", i)) {
			t.Fatalf("added item %d missing", i)
		}
	}
	// 100 + 200 + 400 + 800 >= 1001 items: four layers.
	if f.Filters() != 4 || f.Capacity() != 1500 {
		t.Fatalf("filters %d capacity %d after 1001 adds", f.Filters(), f.Capacity())
	}
	if e, ok := f.Expansion(); !ok || e != 2 {
		t.Fatal("expansion")
	}
	if f.ErrorRate() != 0.01 {
		t.Fatalf("error rate %v", f.ErrorRate())
	}
}

func TestNonScalingFull(t *testing.T) {
	f, _ := New(0.001, 2, 2, true)
	for i := 0; i < 2; i++ {
		if ok, err := f.Add(item("a", i)); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if _, err := f.Add([]byte("c")); err != ErrFull {
		t.Fatalf("add to full: %v", err)
	}
	if ok, err := f.Add(item("a", 0)); ok || err != nil {
		t.Fatalf("re-add of a present item on a full filter: %v %v", ok, err)
	}
	if _, ok := f.Expansion(); ok {
		t.Fatal("NONSCALING reports an expansion")
	}
	if f.Card() != 2 || f.Filters() != 1 {
		t.Fatal("card")
	}
}

// TestFalsePositiveRate checks, with fixed data, that the rate stays
// within the requested bound as the filter grows far past its initial
// capacity.
func TestFalsePositiveRate(t *testing.T) {
	for _, c := range []struct {
		rate     float64
		capacity uint64
		items    int
		exp      uint32
	}{
		{0.01, 1000, 50000, 2},
		{0.001, 100, 20000, 4},
		{0.05, 10000, 10000, 1},
	} {
		f, err := New(c.rate, c.capacity, c.exp, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < c.items; i++ {
			f.Add(item("in", i))
		}
		const probes = 200000
		fp := 0
		for i := 0; i < probes; i++ {
			if f.Exists(item("out", i)) {
				fp++
			}
		}
		got := float64(fp) / probes
		if got > c.rate {
			t.Errorf("rate %v capacity %d after %d items (%d layers): measured %.5f", c.rate, c.capacity, c.items, f.Filters(), got)
		}
		t.Logf("rate %v capacity %d items %d layers %d: false positives %.5f, %d bytes", c.rate, c.capacity, c.items, f.Filters(), got, f.MemoryUsage())
	}
}

func TestMarshal(t *testing.T) {
	f, _ := New(0.01, 50, 3, false)
	for i := 0; i < 500; i++ {
		f.Add(item("m", i))
	}
	b, _ := f.MarshalBinary()
	g, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		if f.Exists(item("m", i)) != g.Exists(item("m", i)) {
			t.Fatalf("item %d answers differently after loading", i)
		}
	}
	if g.Card() != f.Card() || g.Filters() != f.Filters() || g.Capacity() != f.Capacity() {
		t.Fatal("info differs after loading")
	}
	again, _ := g.MarshalBinary()
	if !bytes.Equal(again, b) {
		t.Fatal("re-encoding differs")
	}
	for i := 0; i < len(b); i += 1 + i/8 {
		if _, err := Unmarshal(b[:i]); err == nil {
			t.Fatalf("truncation at %d accepted", i)
		}
	}
	// A golden value pins the hash function: changing it would make
	// loaded filters forget their items.
	if h := hash64([]byte("ruvio"), 0); h != goldenHash {
		t.Fatalf("hash64(ruvio) = %#x, want %#x", h, goldenHash)
	}
}

const goldenHash = 0x36bc52aa7796b210

// FuzzFilter checks the filter against a set: added items always exist,
// a repeated add is never new, and Card counts new adds.
func FuzzFilter(f *testing.F) {
	f.Add([]byte("abcabc"), uint8(3), false)
	f.Add(bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, 20), uint8(1), true)
	f.Fuzz(func(t *testing.T, script []byte, capacity uint8, nonScaling bool) {
		fl, err := New(0.01, uint64(capacity%16)+1, 2, nonScaling)
		if err != nil {
			t.Fatal(err)
		}
		added := map[string]bool{}
		var news uint64
		for i := 0; i+1 < len(script); i += 2 {
			it := []byte{script[i] % 64}
			if script[i+1]&1 == 0 {
				ok, err := fl.Add(it)
				if err == ErrFull {
					if !nonScaling {
						t.Fatal("scaling filter full")
					}
					continue
				}
				if ok && added[string(it)] {
					t.Fatalf("re-add of %v reported new", it)
				}
				if ok {
					news++
				}
				added[string(it)] = true
			} else if added[string(it)] && !fl.Exists(it) {
				t.Fatalf("added %v missing", it)
			}
			if fl.Card() != news {
				t.Fatalf("card %d, want %d", fl.Card(), news)
			}
		}
		b, _ := fl.MarshalBinary()
		g, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		for it := range added {
			if !g.Exists([]byte(it)) {
				t.Fatalf("%q lost in encoding", it)
			}
		}
	})
}

// FuzzUnmarshal: arbitrary bytes are rejected or give a usable filter.
func FuzzUnmarshal(f *testing.F) {
	fl, _ := New(0.1, 3, 2, false)
	for i := 0; i < 10; i++ {
		fl.Add(item("s", i))
	}
	b, _ := fl.MarshalBinary()
	f.Add(b)
	f.Add(binary.LittleEndian.AppendUint64([]byte{1, 0, 2, 0, 0, 0}, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := Unmarshal(b)
		if err != nil {
			return
		}
		g.Exists([]byte("x"))
		last := g.layers[len(g.layers)-1]
		if last.count >= last.capacity && last.capacity*uint64(g.expansion) > 1<<20 {
			return // the next layer would be large: not what this target probes
		}
		if _, err := g.Add([]byte("y")); err != nil && err != ErrFull && err != ErrTooLarge {
			t.Fatal(err)
		}
		if _, err := g.MarshalBinary(); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	f, _ := New(0.01, 1000000, 2, false)
	items := make([][]byte, 1024)
	for i := range items {
		items[i] = item("bench", i)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f.Add(items[i&1023])
	}
}

func BenchmarkExists(b *testing.B) {
	f, _ := New(0.01, 1000000, 2, false)
	for i := 0; i < 100000; i++ {
		f.Add(item("bench", i))
	}
	items := make([][]byte, 1024)
	for i := range items {
		items[i] = item("probe", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Exists(items[i&1023])
	}
}

func TestClone(t *testing.T) {
	f, _ := New(0.01, 10, 2, false)
	f.Add([]byte("a"))
	c := f.Clone()
	for i := 0; i < 100; i++ {
		f.Add(item("x", i))
	}
	if !c.Exists([]byte("a")) || c.Card() != 1 || c.Filters() != 1 {
		t.Fatal("clone changed with its source")
	}
}
