package set

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

func members(s *Set) map[string]bool {
	m := map[string]bool{}
	s.Each(func(e []byte) bool { m[string(e)] = true; return true })
	return m
}

func check(t testing.TB, s *Set, m map[string]bool, step string) {
	t.Helper()
	if s.Len() != len(m) {
		t.Fatalf("%s: len %d, model %d", step, s.Len(), len(m))
	}
	got := members(s)
	if len(got) != len(m) {
		t.Fatalf("%s: each gave %d, model %d", step, len(got), len(m))
	}
	for k := range m {
		if !got[k] || !s.Contains([]byte(k)) {
			t.Fatalf("%s: %q missing", step, k)
		}
	}
}

func TestEncodings(t *testing.T) {
	cfg := Config{MaxIntsetEntries: 4, MaxListpackEntries: 6, MaxListpackValue: 8}
	var s Set
	for _, v := range []string{"3", "1", "-70000", "2"} {
		if !s.Add(cfg, []byte(v)) {
			t.Fatalf("add %s", v)
		}
	}
	if s.Add(cfg, []byte("1")) {
		t.Fatal("re-add reported new")
	}
	if s.Encoding() != "intset" {
		t.Fatalf("encoding %s", s.Encoding())
	}
	// Order is ascending for an intset.
	var order []string
	s.Each(func(m []byte) bool { order = append(order, string(m)); return true })
	if fmt.Sprint(order) != "[-70000 1 2 3]" {
		t.Fatalf("intset order %v", order)
	}
	s.Add(cfg, []byte("1000000"))
	if s.Encoding() != "listpack" {
		t.Fatalf("past intset limit: %s", s.Encoding())
	}
	s.Add(cfg, []byte("abc"))
	if s.Encoding() != "listpack" || s.Len() != 6 {
		t.Fatalf("%s %d", s.Encoding(), s.Len())
	}
	s.Add(cfg, []byte("x"))
	if s.Encoding() != "hashtable" {
		t.Fatalf("past listpack limit: %s", s.Encoding())
	}

	// Redis 7.0: non-integers go straight to the hashtable.
	var r Set
	r.Add(DefaultConfig, []byte("1"))
	r.Add(DefaultConfig, []byte("01"))
	if r.Encoding() != "hashtable" || r.Len() != 2 {
		t.Fatalf("7.0 default: %s %d", r.Encoding(), r.Len())
	}
	var big Set
	for i := 0; i <= 512; i++ {
		big.Add(DefaultConfig, []byte(strconv.Itoa(i)))
		if i == 511 && big.Encoding() != "intset" {
			t.Fatal("512 integers should stay an intset")
		}
	}
	if big.Encoding() != "hashtable" {
		t.Fatalf("513 integers: %s", big.Encoding())
	}
	// Width upgrades keep every member.
	var w Set
	m := map[string]bool{}
	for _, v := range []int64{5, -5, 40000, -3000000000, 7, 1 << 40} {
		w.Add(DefaultConfig, []byte(strconv.FormatInt(v, 10)))
		m[strconv.FormatInt(v, 10)] = true
	}
	check(t, &w, m, "widths")
	if w.Remove([]byte("x")) || !w.Remove([]byte("40000")) || w.Contains([]byte("40000")) {
		t.Fatal("remove")
	}
}

func TestRandomAndPop(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig, {MaxIntsetEntries: 0, MaxListpackEntries: 100, MaxListpackValue: 64}, {}} {
		var s Set
		for i := 0; i < 30; i++ {
			s.Add(cfg, []byte(strconv.Itoa(i)))
		}
		src := rand.NewPCG(3, 4)
		for _, count := range []int{1, 10, 29, 30, 31} {
			seen := map[string]bool{}
			s.Random(src, count, func(m []byte) bool {
				if seen[string(m)] {
					t.Fatalf("%s: repeat", s.Encoding())
				}
				seen[string(m)] = true
				return true
			})
			if len(seen) != min(count, 30) {
				t.Fatalf("%s: count %d gave %d", s.Encoding(), count, len(seen))
			}
		}
		hits := map[string]int{}
		s.Random(src, -30000, func(m []byte) bool { hits[string(m)]++; return true })
		for k, n := range hits {
			if n < 700 || n > 1300 {
				t.Fatalf("%s: %s drawn %d of 30000", s.Encoding(), k, n)
			}
		}
		if len(hits) != 30 {
			t.Fatalf("%s: %d distinct", s.Encoding(), len(hits))
		}
		enc := s.Encoding()
		popped := map[string]bool{}
		s.Pop(src, 12, func(m []byte) { popped[string(m)] = true })
		if len(popped) != 12 || s.Len() != 18 {
			t.Fatalf("%s: popped %d, left %d", enc, len(popped), s.Len())
		}
		for k := range popped {
			if s.Contains([]byte(k)) {
				t.Fatalf("%s: popped %s still there", enc, k)
			}
		}
		s.Pop(src, 100, func(m []byte) { popped[string(m)] = true })
		if len(popped) != 30 || s.Len() != 0 {
			t.Fatalf("%s: pop all: %d, left %d", enc, len(popped), s.Len())
		}
	}
}

func TestScanGuarantee(t *testing.T) {
	var s Set
	for i := 0; i < 2000; i++ {
		s.Add(DefaultConfig, []byte(fmt.Sprint("keep", i)))
	}
	seen := map[string]bool{}
	cur, round := uint64(0), 0
	for {
		cur = s.Scan(cur, 20, func(m []byte) { seen[string(m)] = true })
		round++
		switch round % 4 {
		case 0:
			for i := 0; i < 1000; i++ {
				s.Add(DefaultConfig, []byte(fmt.Sprint("tmp", round, "-", i)))
			}
		case 2:
			for i := 0; i < 1000; i++ {
				s.Remove([]byte(fmt.Sprint("tmp", round-2, "-", i)))
			}
		}
		if cur == 0 {
			break
		}
	}
	for i := 0; i < 2000; i++ {
		if !seen[fmt.Sprint("keep", i)] {
			t.Fatalf("keep%d missed", i)
		}
	}
}

func TestMarshal(t *testing.T) {
	for _, vals := range [][]string{nil, {"1", "2", "-3"}, {"a", "b"}} {
		for _, cfg := range []Config{DefaultConfig, {MaxIntsetEntries: 10, MaxListpackEntries: 10, MaxListpackValue: 10}} {
			var s Set
			m := map[string]bool{}
			for _, v := range vals {
				s.Add(cfg, []byte(v))
				m[v] = true
			}
			b, _ := s.MarshalBinary()
			s2, err := Unmarshal(cfg, b)
			if err != nil {
				t.Fatal(err)
			}
			check(t, &s2, m, "unmarshal")
			if s2.Encoding() != s.Encoding() {
				t.Fatalf("%s became %s", s.Encoding(), s2.Encoding())
			}
			for i := 0; i < len(b); i++ {
				if _, err := Unmarshal(cfg, b[:i]); err == nil && i < 2 {
					t.Fatalf("truncation at %d accepted", i)
				}
			}
		}
	}
}

// FuzzSet runs an operation script against the set and a map.
func FuzzSet(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 200, 1, 1, 2, 3, 4, 5, 6}, uint8(3), uint8(4), uint8(5))
	f.Add(bytes.Repeat([]byte{0, 9, 0, 130, 3, 2, 5}, 30), uint8(0), uint8(0), uint8(0))
	f.Add([]byte("\x00\x01\x00\x02\x00\xf0\x04\x05\x06"), uint8(8), uint8(8), uint8(3))
	f.Fuzz(func(t *testing.T, script []byte, ints, entries, value uint8) {
		cfg := Config{MaxIntsetEntries: int(ints % 16), MaxListpackEntries: int(entries % 16), MaxListpackValue: int(value % 16)}
		var s Set
		m := map[string]bool{}
		src := rand.NewPCG(9, 9)
		arg := func(i *int) byte {
			if *i >= len(script) {
				return 0
			}
			*i++
			return script[*i-1]
		}
		mem := func(i *int) []byte {
			a := arg(i)
			switch {
			case a < 100:
				return []byte(strconv.Itoa(int(a) - 50))
			case a < 110:
				return []byte(strconv.Itoa(int(a-100) * 1000003 * 1000003))
			case a < 200:
				return []byte{'m', a % 10}
			}
			return bytes.Repeat([]byte{'L'}, int(a-190))
		}
		for i := 0; i < len(script); {
			switch arg(&i) % 7 {
			case 0:
				e := mem(&i)
				if s.Add(cfg, e) == m[string(e)] {
					t.Fatalf("add %q", e)
				}
				m[string(e)] = true
			case 1:
				e := mem(&i)
				if s.Remove(e) != m[string(e)] {
					t.Fatalf("remove %q", e)
				}
				delete(m, string(e))
			case 2:
				e := mem(&i)
				if s.Contains(e) != m[string(e)] {
					t.Fatalf("contains %q", e)
				}
			case 3:
				n := int(int8(arg(&i))) % 10
				cnt := 0
				seen := map[string]bool{}
				s.Random(src, n, func(e []byte) bool {
					cnt++
					if !m[string(e)] || n > 0 && seen[string(e)] {
						t.Fatalf("random %d gave %q", n, e)
					}
					seen[string(e)] = true
					return true
				})
				want := 0
				if len(m) > 0 {
					want = max(-n, min(n, len(m)))
				}
				if cnt != want {
					t.Fatalf("random %d gave %d of %d", n, cnt, len(m))
				}
			case 4:
				n := int(arg(&i) % 5)
				cnt := 0
				s.Pop(src, n, func(e []byte) {
					if !m[string(e)] {
						t.Fatalf("pop gave %q", e)
					}
					delete(m, string(e))
					cnt++
				})
				if want := min(n, cnt+len(m)); cnt != want {
					t.Fatalf("pop %d gave %d", n, cnt)
				}
			case 5:
				seen := map[string]bool{}
				cur := uint64(0)
				for {
					cur = s.Scan(cur, 3, func(e []byte) { seen[string(e)] = true })
					if cur == 0 {
						break
					}
				}
				if len(seen) != len(m) {
					t.Fatalf("scan saw %d of %d", len(seen), len(m))
				}
			case 6:
				b, _ := s.MarshalBinary()
				ns, err := Unmarshal(cfg, b)
				if err != nil {
					t.Fatal(err)
				}
				s = ns
			}
			if s.Encoding() == "intset" && s.Len() > max(cfg.MaxIntsetEntries, 0) && s.Len() > 0 {
				t.Fatalf("intset of %d over %d", s.Len(), cfg.MaxIntsetEntries)
			}
			if s.Encoding() == "listpack" && s.Len() > cfg.MaxListpackEntries {
				t.Fatalf("listpack of %d over %d", s.Len(), cfg.MaxListpackEntries)
			}
		}
		check(t, &s, m, "end")
	})
}

// FuzzUnmarshal: arbitrary input is rejected or decodes to a set that
// round-trips.
func FuzzUnmarshal(f *testing.F) {
	for _, vals := range [][]string{{"1", "-2"}, {"a"}, {"70000", "3"}} {
		var s Set
		for _, v := range vals {
			s.Add(Config{MaxIntsetEntries: 4, MaxListpackEntries: 4, MaxListpackValue: 4}, []byte(v))
		}
		b, _ := s.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Unmarshal(DefaultConfig, b)
		if err != nil {
			return
		}
		m := members(&s)
		check(t, &s, m, "decoded")
		again, _ := s.MarshalBinary()
		s2, err := Unmarshal(DefaultConfig, again)
		if err != nil {
			t.Fatal(err)
		}
		check(t, &s2, m, "re-decoded")
	})
}

func BenchmarkAddIntset10(b *testing.B) {
	vals := make([][]byte, 10)
	for i := range vals {
		vals[i] = []byte(strconv.Itoa(i * 37))
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var s Set
		for _, v := range vals {
			s.Add(DefaultConfig, v)
		}
	}
}

func BenchmarkContainsTable10k(b *testing.B) {
	var s Set
	vals := make([][]byte, 10000)
	for i := range vals {
		vals[i] = []byte(fmt.Sprint("member:", i))
		s.Add(DefaultConfig, vals[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Contains(vals[i%len(vals)])
	}
}

func BenchmarkAddPopTable(b *testing.B) {
	var s Set
	for i := 0; i < 1000; i++ {
		s.Add(DefaultConfig, []byte(fmt.Sprint("m", i)))
	}
	src := rand.NewPCG(1, 1)
	v := []byte("member")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Add(DefaultConfig, v)
		s.Pop(src, 1, func([]byte) {})
	}
}

func TestClone(t *testing.T) {
	for _, vals := range [][]string{{"1", "2"}, {"a", "b"}} {
		var s Set
		for _, v := range vals {
			s.Add(DefaultConfig, []byte(v))
		}
		c := s.Clone()
		s.Remove([]byte(vals[0]))
		s.Add(DefaultConfig, []byte("3"))
		check(t, &c, map[string]bool{vals[0]: true, vals[1]: true}, "clone "+c.Encoding())
	}
}

// Random stops when fn returns false, and a negative count draws one
// member at a time: a count of -2⁴⁰ costs nothing until fn is called.
func TestRandomStops(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig, {MaxIntsetEntries: 0, MaxListpackEntries: 100, MaxListpackValue: 64}, {}} {
		var s Set
		for i := 0; i < 30; i++ {
			s.Add(cfg, []byte(strconv.Itoa(i)))
		}
		for _, count := range []int{10, 30, 100, -(1 << 40)} {
			calls := 0
			s.Random(rand.NewPCG(1, 1), count, func([]byte) bool { calls++; return calls < 5 })
			if calls != 5 {
				t.Errorf("%s: count %d: %d calls after fn said stop at the 5th", s.Encoding(), count, calls)
			}
		}
	}
}
