package hash

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/memsize"
)

func dump(h *Hash) map[string]string {
	m := map[string]string{}
	h.Each(func(f, v []byte) bool { m[string(f)] = string(v); return true })
	return m
}

func check(t testing.TB, h *Hash, m map[string]string, step string) {
	t.Helper()
	if h.Len() != len(m) {
		t.Fatalf("%s: len %d, model %d", step, h.Len(), len(m))
	}
	got := dump(h)
	if len(got) != len(m) {
		t.Fatalf("%s: each gave %d fields, model %d", step, len(got), len(m))
	}
	for k, v := range m {
		if got[k] != v {
			t.Fatalf("%s: field %q = %q, model %q", step, k, got[k], v)
		}
		g, ok := h.Get([]byte(k))
		if !ok || string(g) != v {
			t.Fatalf("%s: get %q = %q %v, model %q", step, k, g, ok, v)
		}
	}
}

func TestSetGetDeleteConvert(t *testing.T) {
	cfg := Config{MaxListpackEntries: 8, MaxListpackValue: 16}
	var h Hash
	m := map[string]string{}
	for i := 0; i < 8; i++ {
		k, v := fmt.Sprintf("f%d", i), fmt.Sprintf("v%d", i)
		if !h.Set(cfg, []byte(k), []byte(v)) {
			t.Fatalf("field %s not new", k)
		}
		m[k] = v
	}
	if h.Encoding() != "listpack" {
		t.Fatalf("encoding %s at 8 fields", h.Encoding())
	}
	if h.Set(cfg, []byte("f3"), []byte("changed")) {
		t.Fatal("overwrite reported new")
	}
	m["f3"] = "changed"
	check(t, &h, m, "compact")
	h.Set(cfg, []byte("f8"), []byte("v8"))
	m["f8"] = "v8"
	if h.Encoding() != "hashtable" {
		t.Fatalf("encoding %s past 8 fields", h.Encoding())
	}
	check(t, &h, m, "converted")

	var h2 Hash
	h2.Set(cfg, []byte("a"), []byte("short"))
	h2.Set(cfg, []byte("b"), bytes.Repeat([]byte("x"), 17))
	if h2.Encoding() != "hashtable" {
		t.Fatal("long value did not convert")
	}
	if !h.Delete([]byte("f1")) || h.Delete([]byte("f1")) {
		t.Fatal("delete")
	}
	delete(m, "f1")
	check(t, &h, m, "deleted")
	if h.StrLen([]byte("f3")) != 7 || h.StrLen([]byte("nope")) != 0 {
		t.Fatal("strlen")
	}
}

func TestIncr(t *testing.T) {
	cfg := DefaultConfig
	var h Hash
	if n, err := h.IncrBy(cfg, []byte("n"), 5); n != 5 || err != nil {
		t.Fatalf("incr absent = %d %v", n, err)
	}
	if n, err := h.IncrBy(cfg, []byte("n"), -7); n != -2 || err != nil {
		t.Fatalf("incr = %d %v", n, err)
	}
	h.Set(cfg, []byte("big"), []byte(strconv.FormatInt(math.MaxInt64, 10)))
	if _, err := h.IncrBy(cfg, []byte("big"), 1); err != ErrOverflow {
		t.Fatalf("overflow: %v", err)
	}
	for _, bad := range []string{"", " 1", "1 ", "01", "+1", "1.0", "abc", "99999999999999999999"} {
		h.Set(cfg, []byte("bad"), []byte(bad))
		if _, err := h.IncrBy(cfg, []byte("bad"), 1); err != ErrNotInteger {
			t.Fatalf("HINCRBY on %q: %v", bad, err)
		}
	}
	cases := []struct {
		start string
		delta string
		want  string
	}{
		{"10.5", "0.1", "10.6"},
		{"", "10.5", "10.5"},
		{"5.0e3", "2.0e2", "5200"},
		{"1", "-1", "0"},
		{"17179869184", "1.5", "17179869185.5"},
		{"1.23456789012345678", "0", "1.23456789012345678"},
	}
	for _, c := range cases {
		h.Delete([]byte("f"))
		if c.start != "" {
			h.Set(cfg, []byte("f"), []byte(c.start))
		}
		got, err := h.IncrByFloat(cfg, nil, []byte("f"), []byte(c.delta))
		if err != nil || string(got) != c.want {
			t.Errorf("HINCRBYFLOAT %q by %v = %q %v, want %q", c.start, c.delta, got, err, c.want)
		}
		if v, _ := h.Get([]byte("f")); string(v) != c.want {
			t.Errorf("stored %q, want %q", v, c.want)
		}
	}
	h.Set(cfg, []byte("f"), []byte("1.18e4932"))
	if _, err := h.IncrByFloat(cfg, nil, []byte("f"), []byte("1.18e4932")); err != ErrNaN {
		t.Fatalf("overflow to inf: %v", err)
	}
	h.Set(cfg, []byte("f"), []byte("inf"))
	if _, err := h.IncrByFloat(cfg, nil, []byte("f"), []byte("1")); err != ErrNaN {
		t.Fatalf("stored inf: %v", err)
	}
	for _, bad := range []string{"abc", " 1", "1 ", "nan"} {
		h.Set(cfg, []byte("f"), []byte(bad))
		if _, err := h.IncrByFloat(cfg, nil, []byte("f"), []byte("1")); err != ErrNotFloat {
			t.Errorf("HINCRBYFLOAT on %q: %v", bad, err)
		}
	}
	h.Set(cfg, []byte("f"), []byte("abc"))
	if _, err := h.IncrByFloat(cfg, nil, []byte("f"), []byte("x")); err != ErrNotValidFloat {
		t.Errorf("bad increment: %v", err)
	}
	if _, err := h.IncrByFloat(cfg, nil, []byte("f"), []byte("-inf")); err != ErrIncrInf {
		t.Errorf("infinite increment: %v", err)
	}
}

func TestRandom(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig, {MaxListpackEntries: 0, MaxListpackValue: 64}} {
		var h Hash
		for i := 0; i < 20; i++ {
			h.Set(cfg, []byte(fmt.Sprint(i)), []byte(fmt.Sprint(i*i)))
		}
		src := rand.NewPCG(1, 2)
		for _, count := range []int{1, 5, 19, 20, 100} {
			seen := map[string]bool{}
			h.Random(src, count, func(f, v []byte) bool {
				if seen[string(f)] {
					t.Fatalf("%s count %d: repeated %s", h.Encoding(), count, f)
				}
				seen[string(f)] = true
				n, _ := strconv.Atoi(string(f))
				if string(v) != fmt.Sprint(n*n) {
					t.Fatalf("value %s for %s", v, f)
				}
				return true
			})
			if len(seen) != min(count, 20) {
				t.Fatalf("%s count %d gave %d", h.Encoding(), count, len(seen))
			}
		}
		hits := map[string]int{}
		h.Random(src, -20000, func(f, v []byte) bool { hits[string(f)]++; return true })
		if len(hits) != 20 {
			t.Fatalf("%s: negative count reached %d fields", h.Encoding(), len(hits))
		}
		for f, n := range hits {
			if n < 700 || n > 1300 {
				t.Fatalf("%s: field %s drawn %d times of 20000", h.Encoding(), f, n)
			}
		}
		// Same source, same choices.
		var a, b []string
		h.Random(rand.NewPCG(7, 7), 3, func(f, _ []byte) bool { a = append(a, string(f)); return true })
		h.Random(rand.NewPCG(7, 7), 3, func(f, _ []byte) bool { b = append(b, string(f)); return true })
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("not deterministic: %v vs %v", a, b)
		}
	}
}

// TestScanGuarantee checks SCAN's promise: fields present from start to
// end of a scan are returned, even while the table grows and shrinks.
func TestScanGuarantee(t *testing.T) {
	cfg := Config{MaxListpackEntries: 0, MaxListpackValue: 64}
	var h Hash
	for i := 0; i < 1000; i++ {
		h.Set(cfg, []byte(fmt.Sprintf("keep%d", i)), []byte("v"))
	}
	seen := map[string]bool{}
	cursor := uint64(0)
	round := 0
	for {
		cursor = h.Scan(cursor, 10, func(f, _ []byte) { seen[string(f)] = true })
		round++
		// Grow hard, then shrink, mid-scan.
		if round%5 == 0 {
			for i := 0; i < 500; i++ {
				h.Set(cfg, []byte(fmt.Sprintf("tmp%d-%d", round, i)), []byte("v"))
			}
		} else if round%5 == 2 {
			for i := 0; i < 500; i++ {
				h.Delete([]byte(fmt.Sprintf("tmp%d-%d", round-2, i)))
			}
		}
		if cursor == 0 {
			break
		}
	}
	for i := 0; i < 1000; i++ {
		if !seen[fmt.Sprintf("keep%d", i)] {
			t.Fatalf("keep%d missed by the scan", i)
		}
	}
	var c Hash
	c.Set(DefaultConfig, []byte("a"), []byte("1"))
	n := 0
	if cur := c.Scan(0, 1, func(_, _ []byte) { n++ }); cur != 0 || n != 1 {
		t.Fatalf("compact scan: cursor %d, %d fields", cur, n)
	}
}

func TestMarshal(t *testing.T) {
	for _, n := range []int{0, 3, 600} {
		var h Hash
		m := map[string]string{}
		for i := 0; i < n; i++ {
			k, v := fmt.Sprintf("field:%d", i), fmt.Sprintf("%d", i*7)
			h.Set(DefaultConfig, []byte(k), []byte(v))
			m[k] = v
		}
		b, _ := h.MarshalBinary()
		h2, err := Unmarshal(DefaultConfig, b)
		if err != nil {
			t.Fatal(err)
		}
		check(t, &h2, m, fmt.Sprintf("unmarshal %d", n))
		if h2.Encoding() != h.Encoding() {
			t.Fatalf("encoding %s became %s", h.Encoding(), h2.Encoding())
		}
		for i := 0; i < len(b); i += 1 + i/16 {
			if _, err := Unmarshal(DefaultConfig, b[:i]); err == nil {
				t.Fatalf("n=%d: truncation at %d accepted", n, i)
			}
		}
	}
}

func TestMemoryUsageGrows(t *testing.T) {
	var h Hash
	prev := h.MemoryUsage()
	for i := 0; i < 2000; i += 100 {
		for j := i; j < i+100; j++ {
			h.Set(DefaultConfig, []byte(fmt.Sprint(j)), []byte("0123456789"))
		}
		// Not monotonic: a finished resize gives its old table back.
		prev = h.MemoryUsage()
	}
	if prev < 2000*10 {
		t.Fatalf("memory %d for 2000 fields of 10 bytes", prev)
	}
}

// FuzzHash runs an operation script against the hash and a map.
func FuzzHash(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 3, 4, 1, 1, 2, 5, 6, 7}, uint8(3), uint8(4))
	f.Add(bytes.Repeat([]byte{0, 9, 0, 1, 3, 2}, 40), uint8(0), uint8(0))
	f.Add([]byte("\x04a\x04a\x05b\x06c\x07"), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, script []byte, entries, value uint8) {
		cfg := Config{MaxListpackEntries: int(entries % 16), MaxListpackValue: int(value % 16)}
		var h Hash
		m := map[string]string{}
		src := rand.NewPCG(1, 1)
		arg := func(i *int) byte {
			if *i >= len(script) {
				return 0
			}
			*i++
			return script[*i-1]
		}
		key := func(i *int) []byte { return []byte{'k', 'a' + arg(i)%8} }
		valOf := func(i *int) []byte {
			a := arg(i)
			if a > 200 {
				return bytes.Repeat([]byte{'v'}, int(a-200))
			}
			return []byte(strconv.Itoa(int(a) - 100))
		}
		for i := 0; i < len(script); {
			switch arg(&i) % 7 {
			case 0:
				k, v := key(&i), valOf(&i)
				_, had := m[string(k)]
				if h.Set(cfg, k, v) == had {
					t.Fatalf("set %q new=%v", k, had)
				}
				m[string(k)] = string(v)
			case 1:
				k := key(&i)
				_, had := m[string(k)]
				if h.Delete(k) != had {
					t.Fatalf("delete %q", k)
				}
				delete(m, string(k))
			case 2:
				k, d := key(&i), int64(int8(arg(&i)))
				got, err := h.IncrBy(cfg, k, d)
				cur, had := m[string(k)]
				n, perr := strconv.ParseInt(cur, 10, 64)
				if had && (perr != nil || strconv.FormatInt(n, 10) != cur) {
					if err != ErrNotInteger {
						t.Fatalf("incr on %q: %v", cur, err)
					}
					break
				}
				if err != nil || got != n+d {
					t.Fatalf("incr %q by %d = %d %v", cur, d, got, err)
				}
				m[string(k)] = strconv.FormatInt(n+d, 10)
			case 3:
				k, d := key(&i), float64(int8(arg(&i)))/4
				got, err := h.IncrByFloat(cfg, nil, k, []byte(strconv.FormatFloat(d, 'g', -1, 64)))
				cur, had := m[string(k)]
				f := 0.0
				if had {
					var perr error
					f, perr = strconv.ParseFloat(cur, 64)
					if perr != nil {
						if err != ErrNotFloat {
							t.Fatalf("incrbyfloat on %q: %v", cur, err)
						}
						break
					}
				}
				// Quarter steps over small integers are exact in both
				// float64 and long double.
				want := strconv.FormatFloat(f+d, 'f', -1, 64)
				if f+d == 0 {
					want = "0"
				}
				if err != nil || string(got) != want {
					t.Fatalf("incrbyfloat %q by %v = %q %v, want %q", cur, d, got, err, want)
				}
				m[string(k)] = want
			case 4:
				n := int(int8(arg(&i))) % 12
				seen := map[string]bool{}
				cnt := 0
				h.Random(src, n, func(f, v []byte) bool {
					cnt++
					if m[string(f)] != string(v) {
						t.Fatalf("random gave %q=%q", f, v)
					}
					if n > 0 && seen[string(f)] {
						t.Fatalf("random %d repeated %q", n, f)
					}
					seen[string(f)] = true
					return true
				})
				var want int
				switch {
				case n > 0:
					want = min(n, len(m))
				case len(m) == 0:
					want = 0
				default:
					want = -n
				}
				if cnt != want {
					t.Fatalf("random %d gave %d of %d", n, cnt, len(m))
				}
			case 5:
				seen := map[string]bool{}
				cur := uint64(0)
				for {
					cur = h.Scan(cur, 2, func(f, _ []byte) { seen[string(f)] = true })
					if cur == 0 {
						break
					}
				}
				if len(seen) != len(m) {
					t.Fatalf("scan saw %d of %d", len(seen), len(m))
				}
			case 6:
				b, _ := h.MarshalBinary()
				nh, err := Unmarshal(cfg, b)
				if err != nil {
					t.Fatal(err)
				}
				h = nh
			}
			if h.Encoding() == "listpack" && h.Len() > cfg.MaxListpackEntries {
				t.Fatalf("compact with %d fields over %d", h.Len(), cfg.MaxListpackEntries)
			}
		}
		check(t, &h, m, "end")
	})
}

// FuzzUnmarshal: arbitrary input is rejected or decodes to a hash that
// round-trips.
func FuzzUnmarshal(f *testing.F) {
	var h Hash
	h.Set(DefaultConfig, []byte("a"), []byte("1"))
	h.Set(DefaultConfig, []byte("b"), []byte("2"))
	b, _ := h.MarshalBinary()
	f.Add(b)
	var t2 Hash
	t2.Set(Config{}, []byte("a"), []byte("1"))
	b2, _ := t2.MarshalBinary()
	f.Add(b2)
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Unmarshal(DefaultConfig, b)
		if err != nil {
			return
		}
		m := dump(&h)
		check(t, &h, m, "decoded")
		again, _ := h.MarshalBinary()
		h2, err := Unmarshal(DefaultConfig, again)
		if err != nil {
			t.Fatal(err)
		}
		check(t, &h2, m, "re-decoded")
	})
}

func benchHash(b *testing.B, n int) {
	fields := make([][]byte, n)
	for i := range fields {
		fields[i] = []byte(fmt.Sprintf("field:%d", i))
	}
	v := []byte("0123456789")
	var h Hash
	for _, f := range fields {
		h.Set(DefaultConfig, f, v)
	}
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			h.Get(fields[i%n])
		}
	})
	b.Run("set-existing", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			h.Set(DefaultConfig, fields[i%n], v)
		}
	})
}

func BenchmarkSmall10(b *testing.B)  { benchHash(b, 10) }
func BenchmarkLarge10k(b *testing.B) { benchHash(b, 10000) }

func BenchmarkBuild10(b *testing.B) {
	fields := make([][]byte, 10)
	for i := range fields {
		fields[i] = []byte(fmt.Sprintf("field:%d", i))
	}
	v := []byte("0123456789")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var h Hash
		for _, f := range fields {
			h.Set(DefaultConfig, f, v)
		}
	}
}

func TestShrink(t *testing.T) {
	var h Hash
	for i := 0; i < 10; i++ {
		h.Set(DefaultConfig, []byte(fmt.Sprint("field", i)), []byte("0123456789"))
	}
	before := h.MemoryUsage()
	h.Shrink()
	if after := h.MemoryUsage(); after > before || cap(h.lp) > len(h.lp)+16 {
		t.Fatalf("shrink: %d -> %d bytes, cap %d len %d", before, after, cap(h.lp), len(h.lp))
	}
	if v, _ := h.Get([]byte("field3")); string(v) != "0123456789" {
		t.Fatal("content lost")
	}
}

func TestClone(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig, {}} {
		var h Hash
		h.Set(cfg, []byte("a"), []byte("1"))
		h.Set(cfg, []byte("b"), []byte("2"))
		c := h.Clone()
		h.Set(cfg, []byte("a"), []byte("changed"))
		h.Delete([]byte("b"))
		check(t, &c, map[string]string{"a": "1", "b": "2"}, "clone "+c.Encoding())
	}
}

// TestMemoryUsageRunning checks that the running value figure keeps
// MemoryUsage equal to a walk over every value through sets that grow and
// shrink values, deletes, conversion and Clone.
func TestMemoryUsageRunning(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	walk := func(h *Hash) int {
		n := int(unsafe.Sizeof(*h)) + h.t.MemoryUsage()
		for i := 0; i < h.t.Len(); i++ {
			n += memsize.NoScan(len(*h.t.Value(i)))
		}
		return n
	}
	var h Hash
	for i := 0; i < 20000; i++ {
		f := []byte(fmt.Sprint("f", r.IntN(3000)))
		if (i/4000)%2 == 0 || r.IntN(3) == 0 {
			h.Set(DefaultConfig, f, bytes.Repeat([]byte("v"), r.IntN(100)))
		} else {
			h.Delete(f)
		}
		if h.t != nil && i%89 == 0 {
			if got, want := h.MemoryUsage(), walk(&h); got != want {
				t.Fatalf("step %d: MemoryUsage %d, walk %d", i, got, want)
			}
		}
	}
	if h.t == nil {
		t.Fatal("the hash never reached the table form")
	}
	c := h.Clone()
	if got, want := c.MemoryUsage(), walk(&c); got != want {
		t.Fatalf("clone: MemoryUsage %d, walk %d", got, want)
	}
}

// Random stops when fn returns false, and a negative count draws one field
// at a time: a count of -2⁴⁰ costs nothing until fn is called.
func TestRandomStops(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig, {MaxListpackEntries: 0, MaxListpackValue: 64}} {
		var h Hash
		for i := 0; i < 20; i++ {
			h.Set(cfg, []byte(fmt.Sprint(i)), []byte(fmt.Sprint(i*i)))
		}
		for _, count := range []int{10, 20, 100, -(1 << 40)} {
			calls := 0
			h.Random(rand.NewPCG(1, 1), count, func(_, _ []byte) bool { calls++; return calls < 5 })
			if calls != 5 {
				t.Errorf("%s: count %d: %d calls after fn said stop at the 5th", h.Encoding(), count, calls)
			}
		}
	}
}
