package list

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/memsize"
)

// model is the reference: a plain slice with Redis's semantics.
type model [][]byte

func (m model) span(start, stop int) [][]byte {
	lo, hi := Span(start, stop, len(m))
	if lo > hi {
		return nil
	}
	return m[lo : hi+1]
}

func contents(l *List) [][]byte {
	var out [][]byte
	l.Range(0, l.Len()-1, func(v []byte) bool { out = append(out, bytes.Clone(v)); return true })
	return out
}

func check(t testing.TB, l *List, m model, step string) {
	t.Helper()
	if l.Len() != len(m) {
		t.Fatalf("%s: len %d, model %d", step, l.Len(), len(m))
	}
	got := contents(l)
	if len(got) != len(m) {
		t.Fatalf("%s: range gave %d elements, model %d", step, len(got), len(m))
	}
	for i := range m {
		if !bytes.Equal(got[i], m[i]) {
			t.Fatalf("%s: element %d = %q, model %q", step, i, got[i], m[i])
		}
	}
	var rev [][]byte
	l.RangeReverse(0, l.Len()-1, func(v []byte) bool { rev = append(rev, bytes.Clone(v)); return true })
	slices.Reverse(rev)
	for i := range m {
		if !bytes.Equal(rev[i], m[i]) {
			t.Fatalf("%s: reverse element %d = %q, model %q", step, i, rev[i], m[i])
		}
	}
	n := 0
	for _, nd := range l.live() {
		if nd.count == 0 {
			t.Fatalf("%s: empty node kept", step)
		}
		n += nd.count
	}
	if n != l.Len() {
		t.Fatalf("%s: node counts sum to %d, len %d", step, n, l.Len())
	}
}

func TestPushPopBothEnds(t *testing.T) {
	for _, fill := range []int{-2, -1, 1, 2, 5, 128} {
		l := New(fill)
		var m model
		for i := 0; i < 3000; i++ {
			v := []byte(fmt.Sprintf("v%d", i))
			if i%3 == 0 {
				l.PushFront(v)
				m = append(model{v}, m...)
			} else {
				l.PushBack(v)
				m = append(m, v)
			}
		}
		check(t, l, m, fmt.Sprintf("fill %d push", fill))
		for i := 0; len(m) > 0; i++ {
			var got []byte
			var want []byte
			if i%2 == 0 {
				got, _ = l.PopFront()
				want, m = m[0], m[1:]
			} else {
				got, _ = l.PopBack()
				want, m = m[len(m)-1], m[:len(m)-1]
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("fill %d pop %d: %q, want %q", fill, i, got, want)
			}
		}
		if _, ok := l.PopFront(); ok {
			t.Fatal("pop from empty list succeeded")
		}
		if l.Len() != 0 || len(l.live()) != 0 {
			t.Fatalf("empty list keeps %d nodes", len(l.live()))
		}
	}
}

func TestQueueStaysBounded(t *testing.T) {
	// RPUSH + LPOP on a list that never holds more than a few elements
	// must not grow its only node without bound.
	l := New(-2)
	v := bytes.Repeat([]byte("x"), 100)
	for i := 0; i < 100000; i++ {
		l.PushBack(v)
		if _, ok := l.PopFront(); !ok {
			t.Fatal("pop failed")
		}
		l.PushBack(v)
		l.PopFront()
	}
	if mu := l.MemoryUsage(); mu > 64<<10 {
		t.Fatalf("memory usage %d after a steady queue", mu)
	}
}

func TestLargeElementsGetOwnNodes(t *testing.T) {
	l := New(-1)
	big := bytes.Repeat([]byte("b"), 10000)
	l.PushBack([]byte("a"))
	l.PushBack(big)
	l.PushBack([]byte("c"))
	l.PushFront(big)
	if got := len(l.live()); got != 4 {
		t.Fatalf("%d nodes, want 4", got)
	}
	check(t, l, model{big, []byte("a"), big, []byte("c")}, "big")
}

func TestIndexSetInsert(t *testing.T) {
	l := New(3)
	var m model
	for i := 0; i < 20; i++ {
		v := []byte{byte('a' + i)}
		l.PushBack(v)
		m = append(m, v)
	}
	for i := -25; i < 25; i++ {
		got, ok := l.Index(i)
		j := i
		if j < 0 {
			j += len(m)
		}
		if j < 0 || j >= len(m) {
			if ok {
				t.Fatalf("index %d should be out of range", i)
			}
			continue
		}
		if !ok || !bytes.Equal(got, m[j]) {
			t.Fatalf("index %d = %q, want %q", i, got, m[j])
		}
	}
	if l.Set(20, []byte("x")) || l.Set(-21, []byte("x")) {
		t.Fatal("set out of range succeeded")
	}
	l.Set(-1, []byte("last-one-is-long"))
	m[19] = []byte("last-one-is-long")
	l.Set(0, []byte("first"))
	m[0] = []byte("first")
	check(t, l, m, "set")
	if n := l.Insert([]byte("nope"), []byte("x"), false); n != -1 {
		t.Fatalf("insert at missing pivot = %d", n)
	}
	if n := l.Insert([]byte("first"), []byte("before"), false); n != 21 {
		t.Fatalf("insert = %d", n)
	}
	m = append(model{[]byte("before")}, m...)
	l.Insert([]byte("k"), []byte("after-k"), true)
	m = slices.Insert(m, 12, []byte("after-k"))
	check(t, l, m, "insert")
}

func TestRemoveTrimPos(t *testing.T) {
	mk := func() (*List, model) {
		l := New(2)
		var m model
		for _, s := range []string{"a", "b", "a", "c", "a", "b", "a"} {
			l.PushBack([]byte(s))
			m = append(m, []byte(s))
		}
		return l, m
	}
	l, _ := mk()
	if n := l.Remove([]byte("a"), 2); n != 2 {
		t.Fatalf("LREM 2 removed %d", n)
	}
	check(t, l, model{[]byte("b"), []byte("c"), []byte("a"), []byte("b"), []byte("a")}, "lrem 2")
	l, _ = mk()
	if n := l.Remove([]byte("a"), -3); n != 3 {
		t.Fatalf("LREM -3 removed %d", n)
	}
	check(t, l, model{[]byte("a"), []byte("b"), []byte("c"), []byte("b")}, "lrem -3")
	l, _ = mk()
	if n := l.Remove([]byte("a"), 0); n != 4 {
		t.Fatalf("LREM 0 removed %d", n)
	}
	check(t, l, model{[]byte("b"), []byte("c"), []byte("b")}, "lrem 0")

	l, m := mk()
	l.Trim(1, -2)
	check(t, l, m[1:6], "ltrim")
	l.Trim(10, 20)
	check(t, l, nil, "ltrim empty")

	l, _ = mk()
	cases := []struct {
		rank, count, maxlen int
		want                []int
	}{
		{1, 1, 0, []int{0}},
		{2, 1, 0, []int{2}},
		{-1, 1, 0, []int{6}},
		{-2, 0, 0, []int{4, 2, 0}},
		{1, 0, 0, []int{0, 2, 4, 6}},
		{1, 2, 0, []int{0, 2}},
		{1, 0, 3, []int{0, 2}},
		{-1, 0, 2, []int{6}},
		{5, 1, 0, nil},
	}
	for _, c := range cases {
		got := l.Pos(nil, []byte("a"), c.rank, c.count, c.maxlen)
		if !slices.Equal(got, c.want) {
			t.Errorf("LPOS a RANK %d COUNT %d MAXLEN %d = %v, want %v", c.rank, c.count, c.maxlen, got, c.want)
		}
	}
}

func TestSpan(t *testing.T) {
	cases := []struct{ start, stop, n, lo, hi int }{
		{0, -1, 5, 0, 4},
		{-100, 100, 5, 0, 4},
		{3, 1, 5, 0, -1},
		{5, 10, 5, 0, -1},
		{-2, -1, 5, 3, 4},
		{0, 0, 0, 0, -1},
	}
	for _, c := range cases {
		lo, hi := Span(c.start, c.stop, c.n)
		if (c.lo > c.hi) != (lo > hi) || (lo <= hi && (lo != c.lo || hi != c.hi)) {
			t.Errorf("Span(%d,%d,%d) = %d,%d want %d,%d", c.start, c.stop, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	l := New(4)
	var m model
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		v := bytes.Repeat([]byte{byte('a' + i%26)}, r.IntN(300))
		l.PushBack(v)
		m = append(m, v)
	}
	b, err := l.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Unmarshal(b, 4)
	if err != nil {
		t.Fatal(err)
	}
	check(t, l2, m, "unmarshal")
	for i := 0; i < len(b); i += 1 + i/16 {
		if _, err := Unmarshal(b[:i], 4); err == nil {
			t.Fatalf("truncated encoding of %d bytes accepted", i)
		}
	}
	if _, err := Unmarshal(append(b, 0), 4); err == nil {
		t.Fatal("trailing byte accepted")
	}
}

// FuzzList runs an operation script against the list and the model.
func FuzzList(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, int8(2))
	f.Add([]byte("\x00a\x00b\x01c\x04\x05\x06\x07\x08\x09"), int8(-1))
	f.Add(bytes.Repeat([]byte{1, 200, 0, 7, 3}, 50), int8(1))
	f.Fuzz(func(t *testing.T, script []byte, fill int8) {
		l := New(int(fill%6) - 0)
		var m model
		arg := func(i *int) int {
			if *i >= len(script) {
				return 0
			}
			v := int(int8(script[*i]))
			*i++
			return v
		}
		val := func(i *int) []byte {
			n := arg(i)
			if n < 0 {
				n = -n
			}
			// Mostly small values from a small alphabet so ops hit, some
			// large ones to force node splits.
			if n > 100 {
				return bytes.Repeat([]byte{'L'}, n*40)
			}
			return []byte{byte('a' + n%4)}
		}
		for i := 0; i < len(script); {
			op := script[i] % 12
			i++
			switch op {
			case 0:
				v := val(&i)
				l.PushFront(v)
				m = append(model{v}, m...)
			case 1:
				v := val(&i)
				l.PushBack(v)
				m = append(m, v)
			case 2:
				got, ok := l.PopFront()
				if ok != (len(m) > 0) || ok && !bytes.Equal(got, m[0]) {
					t.Fatalf("popfront %q %v", got, ok)
				}
				if ok {
					m = m[1:]
				}
			case 3:
				got, ok := l.PopBack()
				if ok != (len(m) > 0) || ok && !bytes.Equal(got, m[len(m)-1]) {
					t.Fatalf("popback %q %v", got, ok)
				}
				if ok {
					m = m[:len(m)-1]
				}
			case 4:
				idx := arg(&i)
				got, ok := l.Index(idx)
				j := idx
				if j < 0 {
					j += len(m)
				}
				in := j >= 0 && j < len(m)
				if ok != in || ok && !bytes.Equal(got, m[j]) {
					t.Fatalf("index %d: %q %v", idx, got, ok)
				}
			case 5:
				idx, v := arg(&i), val(&i)
				j := idx
				if j < 0 {
					j += len(m)
				}
				in := j >= 0 && j < len(m)
				if l.Set(idx, v) != in {
					t.Fatalf("set %d", idx)
				}
				if in {
					m[j] = v
				}
			case 6:
				pivot, v, after := val(&i), val(&i), arg(&i)&1 == 1
				n := l.Insert(pivot, v, after)
				j := slices.IndexFunc(m, func(e []byte) bool { return bytes.Equal(e, pivot) })
				if j < 0 {
					if n != -1 {
						t.Fatalf("insert missing pivot = %d", n)
					}
					break
				}
				if after {
					j++
				}
				m = slices.Insert(m, j, v)
				if n != len(m) {
					t.Fatalf("insert = %d, want %d", n, len(m))
				}
			case 7:
				v, count := val(&i), arg(&i)%4
				n := l.Remove(v, count)
				want := 0
				var nm model
				if count >= 0 {
					for _, e := range m {
						if bytes.Equal(e, v) && (count == 0 || want < count) {
							want++
							continue
						}
						nm = append(nm, e)
					}
				} else {
					for k := len(m) - 1; k >= 0; k-- {
						if bytes.Equal(m[k], v) && want < -count {
							want++
							continue
						}
						nm = append(model{m[k]}, nm...)
					}
				}
				if n != want {
					t.Fatalf("lrem %q %d = %d, want %d", v, count, n, want)
				}
				m = nm
			case 8:
				start, stop := arg(&i), arg(&i)
				l.Trim(start, stop)
				m = slices.Clone(m.span(start, stop))
			case 9:
				v, rank, count, maxlen := val(&i), arg(&i)%3, arg(&i)%3, arg(&i)%5
				if rank == 0 {
					rank = 1
				}
				if count < 0 {
					count = -count
				}
				if maxlen < 0 {
					maxlen = -maxlen
				}
				got := l.Pos(nil, v, rank, count, maxlen)
				var want []int
				skip := max(rank, -rank) - 1
				for k := 0; k < len(m); k++ {
					p := k
					if rank < 0 {
						p = len(m) - 1 - k
					}
					if maxlen > 0 && k >= maxlen || count > 0 && len(want) >= count {
						break
					}
					if bytes.Equal(m[p], v) {
						if skip > 0 {
							skip--
						} else {
							want = append(want, p)
						}
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("lpos %q %d %d %d = %v, want %v", v, rank, count, maxlen, got, want)
				}
			case 10:
				start, stop := arg(&i), arg(&i)
				var got [][]byte
				lo, hi := Span(start, stop, l.Len())
				l.Range(lo, hi, func(v []byte) bool { got = append(got, v); return true })
				want := m.span(start, stop)
				if len(got) != len(want) {
					t.Fatalf("range %d %d: %d elements, want %d", start, stop, len(got), len(want))
				}
				for k := range want {
					if !bytes.Equal(got[k], want[k]) {
						t.Fatalf("range %d %d: [%d] %q want %q", start, stop, k, got[k], want[k])
					}
				}
			case 11:
				b, _ := l.MarshalBinary()
				nl, err := Unmarshal(b, l.fill)
				if err != nil {
					t.Fatal(err)
				}
				l = nl
			}
		}
		check(t, l, m, "end")
	})
}

// FuzzUnmarshal feeds arbitrary bytes to Unmarshal: it must reject or
// return a list that walks cleanly and re-encodes identically.
func FuzzUnmarshal(f *testing.F) {
	l := New(2)
	for _, s := range []string{"a", "bb", "ccc", "dddd", "e"} {
		l.PushBack([]byte(s))
	}
	b, _ := l.MarshalBinary()
	f.Add(b)
	f.Add([]byte{1, 0})
	f.Add(binary.AppendUvarint([]byte{1, 1, 1}, 300))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Unmarshal(b, -2)
		if err != nil {
			return
		}
		got := contents(l)
		if len(got) != l.Len() {
			t.Fatalf("walk gave %d of %d", len(got), l.Len())
		}
		again, _ := l.MarshalBinary()
		l2, err := Unmarshal(again, -2)
		if err != nil {
			t.Fatalf("re-encoding rejected: %v", err)
		}
		if got2 := contents(l2); len(got2) != len(got) {
			t.Fatalf("re-encoding holds %d elements, want %d", len(got2), len(got))
		}
	})
}

func BenchmarkPushBack(b *testing.B) {
	v := []byte("0123456789")
	b.ReportAllocs()
	l := New(DefaultFill)
	for i := 0; i < b.N; i++ {
		l.PushBack(v)
	}
}

func BenchmarkPushPopFront(b *testing.B) {
	v := []byte("0123456789")
	b.ReportAllocs()
	l := New(DefaultFill)
	for i := 0; i < 1000; i++ {
		l.PushBack(v)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.PushFront(v)
		l.PopFront()
	}
}

func BenchmarkQueue(b *testing.B) {
	v := []byte("0123456789")
	b.ReportAllocs()
	l := New(DefaultFill)
	for i := 0; i < b.N; i++ {
		l.PushBack(v)
		if l.Len() > 100 {
			l.PopFront()
		}
	}
}

func BenchmarkRange100(b *testing.B) {
	l := New(DefaultFill)
	for i := 0; i < 1000; i++ {
		l.PushBack([]byte(fmt.Sprintf("value-%d", i)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		l.Range(0, 99, func(v []byte) bool { n += len(v); return true })
	}
}

func BenchmarkIndexMiddle(b *testing.B) {
	l := New(DefaultFill)
	for i := 0; i < 100000; i++ {
		l.PushBack([]byte("0123456789"))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.Index(50000)
	}
}

func TestClone(t *testing.T) {
	l := New(2)
	for i := 0; i < 10; i++ {
		l.PushBack([]byte{byte('a' + i)})
	}
	l.PopFront()
	c := l.Clone()
	l.Set(0, []byte("changed"))
	l.PushFront([]byte("new"))
	want := model{}
	for i := 1; i < 10; i++ {
		want = append(want, []byte{byte('a' + i)})
	}
	check(t, c, want, "clone")
}

func TestSetLargeElementSplitsUntilNodesFit(t *testing.T) {
	l := New(-1) // 4 KiB nodes
	var m model
	for i := 0; i < 300; i++ {
		v := []byte(fmt.Sprintf("%010d", i))
		l.PushBack(v)
		m = append(m, v)
	}
	big := bytes.Repeat([]byte("B"), 3000)
	for _, i := range []int{0, 150, 299, 151} {
		l.Set(i, big)
		m[i] = big
	}
	check(t, l, m, "after large sets")
	for _, nd := range l.live() {
		if nd.count > 1 && nd.size() > 4096 {
			t.Fatalf("node of %d entries holds %d bytes", nd.count, nd.size())
		}
	}
}

// TestMemoryUsageRunning: the running buffer total MemoryUsage reads
// matches a walk of the nodes through every kind of mutation.
func TestMemoryUsageRunning(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	walk := func(l *List) int {
		n := int(unsafe.Sizeof(*l)) + memsize.Alloc(int(unsafe.Sizeof(node{}))*cap(l.nodes))
		for _, nd := range l.live() {
			n += memsize.NoScan(cap(nd.buf))
		}
		return n
	}
	check := func(l *List, step int, op string) {
		t.Helper()
		if got, want := l.MemoryUsage(), walk(l); got != want {
			t.Fatalf("step %d (%s): MemoryUsage %d, walk %d", step, op, got, want)
		}
	}
	for _, fill := range []int{-2, 4, 128} {
		l := New(fill)
		val := func() []byte { return bytes.Repeat([]byte{'a' + byte(r.IntN(3))}, 1+r.IntN(200)) }
		for i := 0; i < 20000; i++ {
			op := r.IntN(10)
			switch op {
			case 0, 1:
				l.PushFront(val())
			case 2, 3:
				l.PushBack(val())
			case 4:
				l.PopFront()
			case 5:
				l.PopBack()
			case 6:
				if l.Len() > 0 {
					l.Set(r.IntN(l.Len()), val())
				}
			case 7:
				if v, ok := l.Index(r.IntN(l.Len() + 1)); ok {
					l.Insert(slices.Clone(v), val(), r.IntN(2) == 0)
				}
			case 8:
				l.Remove(val()[:1], r.IntN(5)-2)
			case 9:
				if r.IntN(50) == 0 {
					l.Trim(r.IntN(20), -1-r.IntN(20))
				}
			}
			check(l, i, fmt.Sprint(op))
		}
		c := l.Clone()
		check(c, -1, "clone")
		b, _ := l.MarshalBinary()
		u, err := Unmarshal(b, fill)
		if err != nil {
			t.Fatal(err)
		}
		check(u, -1, "unmarshal")
	}
}

// TestNextNodeFull: once a node has filled, the node started after it
// (at either end) gets its whole buffer at once, so the pushes that fill
// it allocate nothing.
func TestNextNodeFull(t *testing.T) {
	for _, c := range []struct{ fill, pushes int }{{-2, 500}, {100, 40}} {
		l := New(c.fill)
		v := []byte("xxx")
		for len(l.live()) < 2 {
			l.PushBack(v)
		}
		l.PushFront(v) // the first node is full: a new one at the front
		if got := len(l.live()); got != 3 {
			t.Fatalf("fill %d: %d nodes after the setup, want 3", c.fill, got)
		}
		// One measured run after one warm-up run, both inside the new
		// end nodes.
		n := testing.AllocsPerRun(1, func() {
			for range c.pushes {
				l.PushBack(v)
				l.PushFront(v)
			}
		})
		if got := len(l.live()); got != 3 {
			t.Fatalf("fill %d: %d nodes, want the pushes inside the end nodes", c.fill, got)
		}
		if n != 0 {
			t.Fatalf("fill %d: %v allocations for %d pushes at each end inside a node", c.fill, n, c.pushes)
		}
	}
}
