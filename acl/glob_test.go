package acl

import (
	"math/rand"
	"strings"
	"testing"
)

// refMatch is a direct, recursive transcription of the matching rules (exponential in the
// worst case, so only for short inputs): the reference the fast matcher is fuzzed against.
func refMatch(p, s string, nocase bool) bool {
	if s == "" {
		return p == ""
	}
	return refAt(p, s, nocase, 0)
}

func refAt(p, s string, nocase bool, depth int) bool {
	if depth > 1000 {
		return false
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for ; len(s) > 0; s = s[1:] {
				if refAt(p[1:], s, nocase, depth+1) {
					return true
				}
			}
			return false
		case '?':
			s = s[1:]
			p = p[1:]
		case '[':
			q := p[1:]
			not := len(q) > 0 && q[0] == '^'
			if not {
				q = q[1:]
			}
			in := false
			for {
				if len(q) >= 2 && q[0] == '\\' {
					if q[1] == s[0] {
						in = true
					}
					q = q[2:]
					continue
				}
				if len(q) == 0 {
					break
				}
				if q[0] == ']' {
					q = q[1:]
					break
				}
				if len(q) >= 3 && q[1] == '-' {
					lo, hi, c := int(int8(q[0])), int(int8(q[2])), int(int8(s[0]))
					if lo > hi {
						lo, hi = hi, lo
					}
					if nocase {
						lo, hi, c = foldInt(lo), foldInt(hi), foldInt(c)
					}
					if c >= lo && c <= hi {
						in = true
					}
					q = q[3:]
					continue
				}
				if q[0] == s[0] || (nocase && foldByte(q[0]) == foldByte(s[0])) {
					in = true
				}
				q = q[1:]
			}
			if in == not {
				return false
			}
			p, s = q, s[1:]
		default:
			lit := p[0]
			if lit == '\\' && len(p) >= 2 {
				p = p[1:]
				lit = p[0]
			}
			if !(lit == s[0] || (nocase && foldByte(lit) == foldByte(s[0]))) {
				return false
			}
			p, s = p[1:], s[1:]
		}
		if len(s) == 0 {
			p = strings.TrimLeft(p, "*")
		}
	}
	return p == "" && s == ""
}

func TestMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		nocase bool
		want   bool
	}{
		{"", "", false, true},
		{"*", "", false, false}, // as Redis: an empty string matches only an empty pattern
		{"", "a", false, false},
		{"*", "anything", false, true},
		{"**", "x", false, true},
		{"a*", "a", false, true},
		{"a*b", "ab", false, true},
		{"a*b", "axxb", false, true},
		{"a*b", "axxbc", false, false},
		{"*a*b*", "xxaxxbxx", false, true},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-b]llo", "hbllo", false, true},
		{"h[b-a]llo", "hallo", false, true}, // bounds in either order
		{"h[a-b]llo", "hcllo", false, false},
		{"[a-]", "-", false, false}, // "a-]" is the range a..']' (swapped to ]..a)
		{"[a-]", "^", false, true},
		{"[]", "]", false, false},
		{"[ab", "b", false, true},   // unclosed set ends with the pattern
		{"[^", "x", false, true},    // "[^" matches any byte
		{"[", "x", false, false},    // "[" alone matches nothing
		{"[\\]]", "]", false, true}, // escaped ']' inside a set
		{"[\\", "\\", false, true},
		{"\\*", "*", false, true},
		{"\\*", "a", false, false},
		{"\\", "\\", false, true}, // a trailing backslash is itself
		{"a\\", "a\\", false, true},
		{"foo:*", "foo:1", false, true},
		{"foo:*", "FOO:1", false, false},
		{"foo:*", "FOO:1", true, true},
		{"[A-C]x", "bx", true, true},
		{"[a-c]x", "Bx", true, true},
		{"[B]", "b", true, true},
		{"[\\B]", "b", true, false}, // escaped bytes in a set compare exactly
		{"*.example.*", "www.example.com", false, true},
		{"[a-\xff]", "b", false, false}, // signed bounds: the range is -1..'a'
		{"[a-\xff]", "\xff", false, true},
		{"[\x01-\x80]", "\x80", false, true},
		{"[\x01-\x80]", "b", false, false},
		{strings.Repeat("a*", 20) + "b", strings.Repeat("a", 100), false, false},
		// redis-server 7.0.15 matches with 1000 inner "*" runs and not with 1001 (checked
		// with KEYS); trailing stars do not count.
		{strings.Repeat("*x", 1000), strings.Repeat("x", 2000), false, true},
		{strings.Repeat("*x", 1000) + "***", strings.Repeat("x", 2000), false, true},
		{strings.Repeat("*x", 1001), strings.Repeat("x", 2000), false, false},
		{strings.Repeat("\\*x", 1001), strings.Repeat("*x", 1001), false, true},
		{strings.Repeat("[*]x", 1001), strings.Repeat("*x", 1001), false, true},
	}
	for _, c := range cases {
		if got := Match(c.pat, c.s, c.nocase); got != c.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", c.pat, c.s, c.nocase, got, c.want)
		}
		if got := Match([]byte(c.pat), []byte(c.s), c.nocase); got != c.want {
			t.Errorf("Match([]byte %q, %q, %v) = %v, want %v", c.pat, c.s, c.nocase, got, c.want)
		}
		if len(c.pat) < 40 || !strings.Contains(c.pat, "*") {
			if got := refMatch(c.pat, c.s, c.nocase); got != c.want {
				t.Errorf("refMatch(%q, %q, %v) = %v, want %v", c.pat, c.s, c.nocase, got, c.want)
			}
		}
	}
}

// TestMatchRandom compares Match with the reference on many short patterns drawn from an
// alphabet rich in glob syntax (fixed seed).
func TestMatchRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	const alpha = "ab*?[]^-\\Ax\xff\x80"
	gen := func(n int) string {
		b := make([]byte, rng.Intn(n+1))
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		return string(b)
	}
	n := 0
	for range 200000 {
		p, s, nocase := gen(8), gen(8), rng.Intn(2) == 0
		if got, want := Match(p, s, nocase), refMatch(p, s, nocase); got != want {
			t.Fatalf("Match(%q, %q, %v) = %v, reference %v", p, s, nocase, got, want)
		}
		if i := rng.Intn(3); i > 0 {
			p = strings.Repeat("ab", i) + strings.Repeat("*", rng.Intn(3)) // literal and prefix patterns
		}
		cp := compilePattern(p)
		if got, want := cp.match([]byte(s)), Match(p, s, false); got != want {
			t.Fatalf("compiled %q on %q = %v, Match %v", p, s, got, want)
		}
		n++
	}
	if n != 200000 {
		t.Fatalf("ran %d cases", n)
	}
}

func FuzzMatch(f *testing.F) {
	for _, seed := range []string{"*", "a*b", "[a-z]", "[^a]?", "\\*", "[ab", "[^", "h[a-]x"} {
		f.Add(seed, "hello", false)
		f.Add(seed, "HeLLo*", true)
	}
	f.Fuzz(func(t *testing.T, p, s string, nocase bool) {
		if len(p) > 24 || len(s) > 24 || strings.Count(p, "*") > 6 {
			return // the reference is exponential
		}
		if got, want := Match(p, s, nocase), refMatch(p, s, nocase); got != want {
			t.Fatalf("Match(%q, %q, %v) = %v, reference %v", p, s, nocase, got, want)
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	key := []byte("app:user:12345:profile")
	b.ReportAllocs()
	for b.Loop() {
		if !Match("app:*:profile", key, false) {
			b.Fatal("no match")
		}
	}
}
