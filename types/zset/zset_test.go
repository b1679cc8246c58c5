package zset

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/types/internal/memsize"
)

type pair struct {
	m string
	s float64
}

// model is the reference: a map, sorted on demand.
type model map[string]float64

func (md model) sorted() []pair {
	out := make([]pair, 0, len(md))
	for m, s := range md {
		out = append(out, pair{m, s})
	}
	slices.SortFunc(out, func(a, b pair) int {
		if c := cmp.Compare(a.s, b.s); c != 0 {
			return c
		}
		return cmp.Compare(a.m, b.m)
	})
	return out
}

func all(z *ZSet) []pair {
	var out []pair
	z.Each(func(m []byte, s float64) bool { out = append(out, pair{string(m), s}); return true })
	return out
}

func check(t testing.TB, z *ZSet, md model, step string) {
	t.Helper()
	want := md.sorted()
	got := all(z)
	if z.Len() != len(want) || !slices.Equal(got, want) {
		t.Fatalf("%s: got %v (len %d), want %v", step, got, z.Len(), want)
	}
	for i, p := range want {
		if r, ok := z.Rank([]byte(p.m), false); !ok || r != i {
			t.Fatalf("%s: rank %s = %d %v, want %d", step, p.m, r, ok, i)
		}
		if r, _ := z.Rank([]byte(p.m), true); r != len(want)-1-i {
			t.Fatalf("%s: revrank %s = %d", step, p.m, r)
		}
		if s, ok := z.Score([]byte(p.m)); !ok || s != p.s {
			t.Fatalf("%s: score %s = %v", step, p.m, s)
		}
	}
	var rev []pair
	z.RangeByRank(0, z.Len()-1, true, func(m []byte, s float64) bool { rev = append(rev, pair{string(m), s}); return true })
	slices.Reverse(rev)
	if !slices.Equal(rev, want) {
		t.Fatalf("%s: reverse walk %v", step, rev)
	}
}

func configs() []Config {
	return []Config{DefaultConfig, {MaxListpackEntries: 0, MaxListpackValue: 64}}
}

func TestAddFlags(t *testing.T) {
	for _, cfg := range configs() {
		var z ZSet
		add := func(m string, s float64, f AddFlags) (float64, AddResult, error) {
			return z.Add(cfg, []byte(m), s, f)
		}
		if _, r, _ := add("a", 1, 0); r != Added {
			t.Fatal("add")
		}
		if _, r, _ := add("a", 1, 0); r != Unchanged {
			t.Fatal("same score")
		}
		if s, r, _ := add("a", 5, NX); r != Nop || s != 1 {
			t.Fatal("NX on existing")
		}
		if _, r, _ := add("b", 5, XX); r != Nop || z.Len() != 1 {
			t.Fatal("XX on missing")
		}
		if _, r, _ := add("a", 0, GT); r != Nop {
			t.Fatal("GT lower")
		}
		if _, r, _ := add("a", 3, GT); r != Updated {
			t.Fatal("GT higher")
		}
		if _, r, _ := add("a", 4, LT); r != Nop {
			t.Fatal("LT higher")
		}
		if _, r, _ := add("c", 9, GT); r != Added {
			t.Fatal("GT adds new members")
		}
		if s, r, _ := add("a", 2, Incr); r != Updated || s != 5 {
			t.Fatalf("incr = %v %v", s, r)
		}
		if s, r, _ := add("a", 0, Incr); r != Unchanged || s != 5 {
			t.Fatalf("incr 0 = %v %v", s, r)
		}
		if _, r, _ := add("a", -1, Incr|GT); r != Nop {
			t.Fatal("incr GT down")
		}
		if s, r, _ := add("n", 7, Incr); r != Added || s != 7 {
			t.Fatal("incr new")
		}
		add("inf", math.Inf(1), 0)
		if _, _, err := add("inf", math.Inf(-1), Incr); err != ErrNaN {
			t.Fatalf("inf + -inf: %v", err)
		}
		if _, _, err := add("x", math.NaN(), 0); err != ErrNaN {
			t.Fatal("NaN accepted")
		}
		if _, _, err := add("x", 1, NX|XX); err == nil {
			t.Fatal("NX|XX accepted")
		}
		check(t, &z, model{"a": 5, "c": 9, "n": 7, "inf": math.Inf(1)}, cfg.encodingName())
	}
}

func (c Config) encodingName() string {
	if c.MaxListpackEntries == 0 {
		return "skiplist"
	}
	return "listpack"
}

func TestConversion(t *testing.T) {
	cfg := Config{MaxListpackEntries: 4, MaxListpackValue: 5}
	var z ZSet
	for i := 0; i < 4; i++ {
		z.Add(cfg, []byte{byte('a' + i)}, float64(i), 0)
	}
	if z.Encoding() != "listpack" {
		t.Fatal(z.Encoding())
	}
	z.Add(cfg, []byte("e"), 1, 0)
	if z.Encoding() != "skiplist" {
		t.Fatal("no conversion past entries")
	}
	var y ZSet
	y.Add(cfg, []byte("longer"), 1, 0)
	if y.Encoding() != "skiplist" {
		t.Fatal("no conversion on a long member")
	}
	check(t, &z, model{"a": 0, "b": 1, "c": 2, "d": 3, "e": 1}, "converted")
}

func build(cfg Config, md model) *ZSet {
	var z ZSet
	for m, s := range md {
		z.Add(cfg, []byte(m), s, 0)
	}
	return &z
}

func collect(fn func(func([]byte, float64) bool)) []string {
	var out []string
	fn(func(m []byte, _ float64) bool { out = append(out, string(m)); return true })
	return out
}

func TestRanges(t *testing.T) {
	md := model{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 5}
	for _, cfg := range configs() {
		z := build(cfg, md)
		sr := func(min, max string) ScoreRange {
			r, err := ParseScoreRange([]byte(min), []byte(max))
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		cases := []struct {
			min, max      string
			rev           bool
			offset, count int
			want          string
		}{
			{"-inf", "+inf", false, 0, -1, "[a b c d e f]"},
			{"(1", "(4", false, 0, -1, "[b c]"},
			{"2", "5", false, 1, 2, "[c d]"},
			{"2", "5", true, 1, 2, "[e d]"},
			{"(5", "+inf", false, 0, -1, "[]"},
			{"5", "5", false, 0, -1, "[e f]"},
			{"(5", "5", false, 0, -1, "[]"},
			{"1", "5", false, -1, -1, "[]"},
			{"1", "5", false, 6, -1, "[]"},
			{"1", "5", false, 0, 0, "[]"},
			{"6", "1", false, 0, -1, "[]"},
			{"", "(", false, 0, -1, "[]"},
		}
		for _, c := range cases {
			r := sr(c.min, c.max)
			got := fmt.Sprint(collect(func(f func([]byte, float64) bool) { z.RangeByScore(r, c.rev, c.offset, c.count, f) }))
			if got != c.want {
				t.Errorf("%s: BYSCORE %s %s rev=%v limit %d %d = %s, want %s", z.Encoding(), c.min, c.max, c.rev, c.offset, c.count, got, c.want)
			}
		}
		if n := z.CountByScore(sr("(1", "5")); n != 5 {
			t.Errorf("ZCOUNT = %d", n)
		}
		for _, bad := range [][2]string{{"a", "1"}, {"1", "nan"}, {"((1", "2"}, {"1 ", "2"}} {
			if _, err := ParseScoreRange([]byte(bad[0]), []byte(bad[1])); err != ErrScoreRange {
				t.Errorf("range %q accepted", bad)
			}
		}
		got := fmt.Sprint(collect(func(f func([]byte, float64) bool) { z.RangeByRank(1, 3, true, f) }))
		if got != "[e d c]" {
			t.Errorf("rank rev = %s", got)
		}
	}
	lex := model{"a": 0, "b": 0, "c": 0, "d": 0, "e\x00": 0, "e": 0}
	for _, cfg := range configs() {
		z := build(cfg, lex)
		cases := []struct {
			min, max      string
			rev           bool
			offset, count int
			want          string
		}{
			{"-", "+", false, 0, -1, "[a b c d e e\x00]"},
			{"[b", "(d", false, 0, -1, "[b c]"},
			{"(b", "[d", true, 0, -1, "[d c]"},
			{"[e", "[e", false, 0, -1, "[e]"},
			{"(e", "+", false, 0, -1, "[e\x00]"},
			{"+", "-", false, 0, -1, "[]"},
			{"-", "-", false, 0, -1, "[]"},
			{"[c", "+", false, 1, 2, "[d e]"},
			{"[c", "[a", false, 0, -1, "[]"},
		}
		for _, c := range cases {
			r, err := ParseLexRange([]byte(c.min), []byte(c.max))
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(collect(func(f func([]byte, float64) bool) { z.RangeByLex(r, c.rev, c.offset, c.count, f) }))
			if got != c.want {
				t.Errorf("%s: BYLEX %q %q = %q, want %q", z.Encoding(), c.min, c.max, got, c.want)
			}
		}
		r, _ := ParseLexRange([]byte("[b"), []byte("[d"))
		if n := z.CountByLex(r); n != 3 {
			t.Errorf("ZLEXCOUNT = %d", n)
		}
		for _, bad := range [][2]string{{"a", "+"}, {"-", "b"}, {"++", "+"}, {"", "+"}} {
			if _, err := ParseLexRange([]byte(bad[0]), []byte(bad[1])); err != ErrLexRange {
				t.Errorf("lex range %q accepted", bad)
			}
		}
		if n := z.RemoveRangeByLex(r); n != 3 || z.Len() != 3 {
			t.Errorf("ZREMRANGEBYLEX removed %d", n)
		}
	}
}

func TestPopRandom(t *testing.T) {
	for _, cfg := range configs() {
		md := model{}
		for i := 0; i < 40; i++ {
			md[fmt.Sprint("m", i)] = float64(i % 7)
		}
		z := build(cfg, md)
		want := md.sorted()
		var got []pair
		z.Pop(3, false, func(m []byte, s float64) { got = append(got, pair{string(m), s}) })
		z.Pop(2, true, func(m []byte, s float64) { got = append(got, pair{string(m), s}) })
		exp := append(slices.Clone(want[:3]), want[39], want[38])
		if !slices.Equal(got, exp) {
			t.Fatalf("%s: pops %v, want %v", z.Encoding(), got, exp)
		}
		for _, p := range exp {
			delete(md, p.m)
		}
		check(t, z, md, "after pop")
		src := rand.NewPCG(5, 6)
		for _, count := range []int{1, 10, 34, 35, 50} {
			seen := map[string]bool{}
			z.Random(src, count, func(m []byte, s float64) bool {
				if seen[string(m)] || md[string(m)] != s {
					t.Fatalf("random %s %v", m, s)
				}
				seen[string(m)] = true
				return true
			})
			if len(seen) != min(count, 35) {
				t.Fatalf("random %d gave %d", count, len(seen))
			}
		}
		hits := map[string]int{}
		z.Random(src, -35000, func(m []byte, _ float64) bool { hits[string(m)]++; return true })
		for m, n := range hits {
			if n < 700 || n > 1300 {
				t.Fatalf("%s: %s drawn %d of 35000", z.Encoding(), m, n)
			}
		}
	}
}

func TestScanGuarantee(t *testing.T) {
	var z ZSet
	cfg := DefaultConfig
	for i := 0; i < 1000; i++ {
		z.Add(cfg, []byte(fmt.Sprint("keep", i)), float64(i), 0)
	}
	seen := map[string]bool{}
	cur, round := uint64(0), 0
	for {
		cur = z.Scan(cur, 10, func(m []byte, _ float64) { seen[string(m)] = true })
		round++
		switch round % 4 {
		case 0:
			for i := 0; i < 500; i++ {
				z.Add(cfg, []byte(fmt.Sprint("tmp", round, "-", i)), 1, 0)
			}
		case 2:
			for i := 0; i < 500; i++ {
				z.Remove([]byte(fmt.Sprint("tmp", round-2, "-", i)))
			}
		}
		if cur == 0 {
			break
		}
	}
	for i := 0; i < 1000; i++ {
		if !seen[fmt.Sprint("keep", i)] {
			t.Fatalf("keep%d missed", i)
		}
	}
}

func TestMarshal(t *testing.T) {
	for _, n := range []int{0, 5, 300} {
		md := model{}
		for i := 0; i < n; i++ {
			md[strconv.Itoa(i)] = float64(i%13) - 0.5
		}
		z := build(DefaultConfig, md)
		b, _ := z.MarshalBinary()
		z2, err := Unmarshal(DefaultConfig, b)
		if err != nil {
			t.Fatal(err)
		}
		check(t, &z2, md, "unmarshal")
		if z2.Encoding() != z.Encoding() {
			t.Fatalf("%s became %s", z.Encoding(), z2.Encoding())
		}
		for i := 0; i < len(b); i += 1 + i/16 {
			if _, err := Unmarshal(DefaultConfig, b[:i]); err == nil {
				t.Fatalf("truncation at %d of %d accepted", i, len(b))
			}
		}
	}
}

func TestSkiplistRanksLarge(t *testing.T) {
	var z ZSet
	md := model{}
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 5000; i++ {
		m := fmt.Sprint(r.IntN(3000))
		s := float64(r.IntN(100))
		z.Add(DefaultConfig, []byte(m), s, 0)
		md[m] = s
		if i%3 == 0 {
			d := fmt.Sprint(r.IntN(3000))
			z.Remove([]byte(d))
			delete(md, d)
		}
	}
	runtime.GC() // levels live in blank padding fields: make sure they survive a collection
	check(t, &z, md, "large")
	if n := z.RemoveRangeByScore(ScoreRange{Min: 10, Max: 20, MaxEx: true}); n == 0 {
		t.Fatal("nothing removed")
	}
	for m, s := range md {
		if s >= 10 && s < 20 {
			delete(md, m)
		}
	}
	check(t, &z, md, "after ZREMRANGEBYSCORE")
}

// FuzzZSet runs an operation script against the sorted set and a map.
func FuzzZSet(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 3, 4, 1, 1, 2, 5, 6, 7, 8, 9, 10, 11}, uint8(3))
	f.Add(bytes.Repeat([]byte{0, 9, 5, 0, 130, 7, 3, 2, 5, 8}, 30), uint8(0))
	f.Add([]byte("\x00\x01\x02\x00\x03\x04\x06\x01\x05\x07\x08\x09\x0a"), uint8(200))
	f.Fuzz(func(t *testing.T, script []byte, entries uint8) {
		cfg := Config{MaxListpackEntries: int(entries % 12), MaxListpackValue: 6}
		var z ZSet
		md := model{}
		src := rand.NewPCG(2, 2)
		arg := func(i *int) byte {
			if *i >= len(script) {
				return 0
			}
			*i++
			return script[*i-1]
		}
		mem := func(i *int) []byte {
			a := arg(i)
			if a > 240 {
				return bytes.Repeat([]byte{'L'}, int(a-235))
			}
			return []byte{'a' + a%12}
		}
		score := func(i *int) float64 {
			a := arg(i)
			switch a {
			case 255:
				return math.Inf(1)
			case 254:
				return math.Inf(-1)
			}
			return float64(int(a%16)-8) / 2
		}
		bound := func(i *int) []byte {
			a := arg(i)
			switch a % 5 {
			case 0:
				return []byte("-")
			case 1:
				return []byte("+")
			case 2:
				return []byte{'(', 'a' + a%13}
			}
			return []byte{'[', 'a' + a%13}
		}
		sbound := func(i *int) []byte {
			a := arg(i)
			v := strconv.FormatFloat(float64(int(a%20)-10)/2, 'g', -1, 64)
			switch a % 7 {
			case 0:
				v = "-inf"
			case 1:
				v = "+inf"
			}
			if a&0x80 != 0 {
				v = "(" + v
			}
			return []byte(v)
		}
		for i := 0; i < len(script); {
			switch arg(&i) % 12 {
			case 0:
				m, s, fl := mem(&i), score(&i), AddFlags(arg(&i)%32)
				if fl&NX != 0 {
					fl &^= XX | GT | LT
				}
				if fl&GT != 0 {
					fl &^= LT
				}
				got, res, err := z.Add(cfg, m, s, fl)
				cur, ok := md[string(m)]
				want, wres := s, Added
				switch {
				case ok && fl&NX != 0:
					want, wres = cur, Nop
				case ok:
					if fl&Incr != 0 {
						want = cur + s
					}
					switch {
					case math.IsNaN(want):
						if err != ErrNaN {
							t.Fatalf("NaN not reported")
						}
						continue
					case fl&LT != 0 && want >= cur || fl&GT != 0 && want <= cur:
						want, wres = cur, Nop
					case want == cur:
						wres = Unchanged
					default:
						wres = Updated
					}
				case fl&XX != 0:
					wres = Nop
				}
				if err != nil || res != wres || res != Nop && got != want {
					t.Fatalf("add %q %v %b = %v %v %v, want %v %v", m, s, fl, got, res, err, want, wres)
				}
				if res == Added || res == Updated {
					md[string(m)] = want
				}
			case 1:
				m := mem(&i)
				_, ok := md[string(m)]
				if z.Remove(m) != ok {
					t.Fatalf("remove %q", m)
				}
				delete(md, string(m))
			case 2:
				start, stop, rev := int(int8(arg(&i)))%8, int(int8(arg(&i)))%8, arg(&i)&1 == 1
				lo, hi := Span(start, stop, z.Len())
				var got []pair
				z.RangeByRank(lo, hi, rev, func(m []byte, s float64) bool { got = append(got, pair{string(m), s}); return true })
				want := md.sorted()
				if rev {
					slices.Reverse(want)
				}
				if lo <= hi {
					want = want[lo : hi+1]
				} else {
					want = nil
				}
				if !slices.Equal(got, want) {
					t.Fatalf("range %d %d rev=%v: %v want %v", start, stop, rev, got, want)
				}
			case 3, 4:
				lexOp := script[i-1]%12 == 4
				var pass func(p pair) bool
				var run func(rev bool, off, cnt int, fn func([]byte, float64) bool)
				var count func() int
				if lexOp {
					r, err := ParseLexRange(bound(&i), bound(&i))
					if err != nil {
						t.Fatal(err)
					}
					pass = func(p pair) bool { return r.gteMin([]byte(p.m)) && r.lteMax([]byte(p.m)) }
					run = func(rev bool, off, cnt int, fn func([]byte, float64) bool) { z.RangeByLex(r, rev, off, cnt, fn) }
					count = func() int { return z.CountByLex(r) }
				} else {
					r, err := ParseScoreRange(sbound(&i), sbound(&i))
					if err != nil {
						t.Fatal(err)
					}
					pass = func(p pair) bool { return r.gteMin(p.s) && r.lteMax(p.s) }
					run = func(rev bool, off, cnt int, fn func([]byte, float64) bool) { z.RangeByScore(r, rev, off, cnt, fn) }
					count = func() int { return z.CountByScore(r) }
				}
				rev, off, cnt := arg(&i)&1 == 1, int(int8(arg(&i)))%4, int(int8(arg(&i)))%4
				var want []pair
				all := md.sorted()
				if lexOp {
					// Lex ranges assume equal scores: the model filters
					// the whole order and keeps the contiguous run the
					// walk would see only when scores are all equal.
					same := true
					for _, p := range all {
						same = same && p.s == all[0].s
					}
					if !same {
						continue
					}
				}
				for _, p := range all {
					if pass(p) {
						want = append(want, p)
					}
				}
				if c := count(); c != len(want) {
					t.Fatalf("count = %d, want %d", c, len(want))
				}
				if rev {
					slices.Reverse(want)
				}
				switch {
				case off < 0 || off > 0 && off >= len(all):
					want = nil
				case off >= len(want):
					want = nil
				default:
					want = want[off:]
					if cnt >= 0 && cnt < len(want) {
						want = want[:cnt]
					}
				}
				var got []pair
				run(rev, off, cnt, func(m []byte, s float64) bool { got = append(got, pair{string(m), s}); return true })
				if !slices.Equal(got, want) {
					t.Fatalf("range rev=%v limit %d %d: %v want %v", rev, off, cnt, got, want)
				}
			case 5:
				n, mx := int(arg(&i)%4), arg(&i)&1 == 1
				want := md.sorted()
				if mx {
					slices.Reverse(want)
				}
				want = want[:min(n, len(want))]
				var got []pair
				z.Pop(n, mx, func(m []byte, s float64) { got = append(got, pair{string(m), s}) })
				if !slices.Equal(got, want) {
					t.Fatalf("pop %d max=%v: %v want %v", n, mx, got, want)
				}
				for _, p := range got {
					delete(md, p.m)
				}
			case 6:
				start, stop := int(int8(arg(&i)))%8, int(int8(arg(&i)))%8
				lo, hi := Span(start, stop, z.Len())
				all := md.sorted()
				n := z.RemoveRangeByRank(lo, hi)
				if lo <= hi {
					for _, p := range all[lo : hi+1] {
						delete(md, p.m)
					}
				}
				if n != max(hi-lo+1, 0) {
					t.Fatalf("remrangebyrank %d %d = %d", start, stop, n)
				}
			case 7:
				r, _ := ParseScoreRange(sbound(&i), sbound(&i))
				want := 0
				for m, s := range md {
					if r.gteMin(s) && r.lteMax(s) {
						delete(md, m)
						want++
					}
				}
				if n := z.RemoveRangeByScore(r); n != want {
					t.Fatalf("remrangebyscore = %d, want %d", n, want)
				}
			case 8:
				n := int(int8(arg(&i))) % 10
				cnt := 0
				seen := map[string]bool{}
				z.Random(src, n, func(m []byte, s float64) bool {
					if cur, ok := md[string(m)]; !ok || cur != s || n > 0 && seen[string(m)] {
						t.Fatalf("random %d gave %q %v", n, m, s)
					}
					seen[string(m)] = true
					cnt++
					return true
				})
				want := 0
				if len(md) > 0 {
					want = max(-n, min(n, len(md)))
				}
				if cnt != want {
					t.Fatalf("random %d gave %d", n, cnt)
				}
			case 9:
				seen := map[string]bool{}
				cur := uint64(0)
				for {
					cur = z.Scan(cur, 2, func(m []byte, _ float64) { seen[string(m)] = true })
					if cur == 0 {
						break
					}
				}
				if len(seen) != len(md) {
					t.Fatalf("scan saw %d of %d", len(seen), len(md))
				}
			case 10:
				b, _ := z.MarshalBinary()
				nz, err := Unmarshal(cfg, b)
				if err != nil {
					t.Fatal(err)
				}
				z = nz
			case 11:
				m := mem(&i)
				_, ok := md[string(m)]
				r, got := z.Rank(m, false)
				if got != ok {
					t.Fatalf("rank %q present=%v", m, got)
				}
				if ok {
					if idx := slices.IndexFunc(md.sorted(), func(p pair) bool { return p.m == string(m) }); idx != r {
						t.Fatalf("rank %q = %d, want %d", m, r, idx)
					}
				}
			}
			if z.Encoding() == "listpack" && z.Len() > cfg.MaxListpackEntries {
				t.Fatalf("listpack of %d over %d", z.Len(), cfg.MaxListpackEntries)
			}
		}
		check(t, &z, md, "end")
	})
}

// FuzzUnmarshal: arbitrary input is rejected or decodes to a sorted set
// that round-trips.
func FuzzUnmarshal(f *testing.F) {
	for _, cfg := range configs() {
		z := build(cfg, model{"a": 1, "b": 2, "c": 2})
		b, _ := z.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := Unmarshal(DefaultConfig, b)
		if err != nil {
			return
		}
		md := model{}
		for _, p := range all(&z) {
			md[p.m] = p.s
		}
		check(t, &z, md, "decoded")
		again, _ := z.MarshalBinary()
		z2, err := Unmarshal(DefaultConfig, again)
		if err != nil {
			t.Fatal(err)
		}
		check(t, &z2, md, "re-decoded")
	})
}

func benchZSet(b *testing.B, n int) {
	var z ZSet
	members := make([][]byte, n)
	for i := range members {
		members[i] = []byte(fmt.Sprint("member:", i))
		z.Add(DefaultConfig, members[i], float64(i), 0)
	}
	b.Run("score", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			z.Score(members[i%n])
		}
	})
	b.Run("rank", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			z.Rank(members[i%n], false)
		}
	})
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			z.Add(DefaultConfig, members[i%n], float64(i%(2*n)), 0)
		}
	})
	b.Run("range10", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			lo := i % max(n-10, 1)
			z.RangeByRank(lo, min(lo+9, n-1), false, func([]byte, float64) bool { return true })
		}
	})
}

func BenchmarkSmall10(b *testing.B)   { benchZSet(b, 10) }
func BenchmarkLarge100k(b *testing.B) { benchZSet(b, 100000) }

func BenchmarkAddPopMin(b *testing.B) {
	var z ZSet
	for i := 0; i < 1000; i++ {
		z.Add(DefaultConfig, []byte(fmt.Sprint("m", i)), float64(i), 0)
	}
	m := []byte("new-member")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.Add(DefaultConfig, m, float64(i%2000), 0)
		z.Pop(1, false, func([]byte, float64) {})
	}
}

func TestCompactScoreEncoding(t *testing.T) {
	vals := []float64{0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, -32768, 1 << 40, -(1 << 40),
		1<<55 - 1, -(1 << 55), 1 << 55, 0.5, -2.25, math.Inf(1), math.Inf(-1), 1e300, math.SmallestNonzeroFloat64}
	for _, v := range vals {
		b := appendScore(nil, v)
		if got := decodeScore(b); got != v {
			t.Errorf("score %v encodes to %x, decodes to %v", v, b, got)
		}
		if v == math.Trunc(v) && math.Abs(v) < 1<<55 && len(b) >= 8 {
			t.Errorf("integral %v took %d bytes", v, len(b))
		}
	}
	if n := len(appendScore(nil, 5)); n != 1 {
		t.Errorf("score 5 took %d bytes", n)
	}
	if n := len(appendScore(nil, 0)); n != 0 {
		t.Errorf("score 0 took %d bytes", n)
	}
}

func TestClone(t *testing.T) {
	for _, cfg := range configs() {
		z := build(cfg, model{"a": 1, "b": 2})
		c := z.Clone()
		z.Add(cfg, []byte("a"), 5, 0)
		z.Remove([]byte("b"))
		check(t, &c, model{"a": 1, "b": 2}, "clone "+c.Encoding())
	}
}

// walkMemory is memory computed by walking the levels: the number of
// nodes in level list i is the number with more than i levels, which gives
// each node's allocation without storing its height. Tests check the
// running figure against it.
func (sl *skiplist) walkMemory() int {
	var counts [maxLevel + 1]int
	for i := 0; i < sl.level; i++ {
		for x := sl.header.lvl(i).forward; x != nil; x = x.lvl(i).forward {
			counts[i]++
		}
	}
	n := memsize.Alloc(nodeBytes(maxLevel))
	for k := 1; k <= sl.level; k++ {
		n += (counts[k-1] - counts[k]) * memsize.Alloc(nodeBytes(k))
	}
	for x := sl.header.lvl(0).forward; x != nil; x = x.lvl(0).forward {
		n += memsize.NoScan(len(x.member))
	}
	return n
}

// TestSkiplistMemoryRunning checks that the running node figure keeps
// MemoryUsage exact through adds, score updates, removals, range removals,
// pops and clones of a large sorted set.
func TestSkiplistMemoryRunning(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var z ZSet
	check := func(what string, z *ZSet) {
		t.Helper()
		if z.sl == nil {
			return
		}
		if got, want := z.sl.memory(), z.sl.walkMemory(); got != want {
			t.Fatalf("%s: running node memory %d, walk %d", what, got, want)
		}
	}
	for i := 0; i < 20000; i++ {
		m := []byte(fmt.Sprint("m", r.IntN(4000)))
		switch {
		case (i/3000)%2 == 0 || r.IntN(4) == 0:
			if _, _, err := z.Add(DefaultConfig, m, float64(r.IntN(100)), 0); err != nil {
				t.Fatal(err)
			}
		case r.IntN(50) == 0:
			lo := r.IntN(z.Len() + 1)
			z.RemoveRangeByRank(lo, lo+r.IntN(20))
		default:
			z.Remove(m)
		}
		if i%97 == 0 {
			check(fmt.Sprint("step ", i), &z)
		}
	}
	check("end", &z)
	if z.sl == nil {
		t.Fatal("the set never reached the skiplist form")
	}
	c := z.Clone()
	check("clone", &c)
}

// Random stops when fn returns false, and a negative count draws one
// member at a time: a count of -2⁴⁰ costs nothing until fn is called.
func TestRandomStops(t *testing.T) {
	for _, cfg := range configs() {
		md := model{}
		for i := 0; i < 40; i++ {
			md[fmt.Sprint("m", i)] = float64(i)
		}
		z := build(cfg, md)
		for _, count := range []int{10, 40, 100, -(1 << 40)} {
			calls := 0
			z.Random(rand.NewPCG(1, 1), count, func([]byte, float64) bool { calls++; return calls < 5 })
			if calls != 5 {
				t.Errorf("%s: count %d: %d calls after fn said stop at the 5th", z.Encoding(), count, calls)
			}
		}
	}
}

// BenchmarkLarge100kRandom is redis-benchmark's ZADD at scale: 100,000
// members added in random order with random scores, then updated to random
// scores, so that the skiplist's walks miss the cache as in a server.
func BenchmarkLarge100kRandom(b *testing.B) {
	const n = 100000
	rng := rand.New(rand.NewPCG(1, 2))
	var z ZSet
	members := make([][]byte, n)
	for i := range members {
		members[i] = []byte(fmt.Sprintf("element:%012d", i))
	}
	for _, i := range rng.Perm(n) {
		z.Add(DefaultConfig, members[i], float64(rng.IntN(n)), 0)
	}
	picks := make([]int, 1<<16)
	scores := make([]float64, len(picks))
	for i := range picks {
		picks[i], scores[i] = rng.IntN(n), float64(rng.IntN(n))
	}
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			k := i & (len(picks) - 1)
			z.Add(DefaultConfig, members[picks[k]], scores[k], 0)
		}
	})
	b.Run("rank", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			z.Rank(members[picks[i&(len(picks)-1)]], false)
		}
	})
	b.Run("score", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			z.Score(members[picks[i&(len(picks)-1)]])
		}
	})
}
