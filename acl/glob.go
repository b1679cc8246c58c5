package acl

// Match reports whether s matches the glob pattern with the rules of Redis's stringmatchlen
// (Redis 7.0): "*" matches any run of bytes, "?" any one byte, "[abc]" and "[^abc]" a byte in
// or not in a set, "[a-z]" a range (either bound order), and "\x" the byte x literally, also
// inside a set. nocase folds ASCII letters, except for escaped bytes inside a set, which
// always compare exactly (as Redis does).
//
// The edge cases follow Redis byte for byte, because a key or channel pattern must mean the
// same thing here as it does for Redis clients:
//   - an empty s matches only an empty pattern: "*" does not match "" (Redis's loop never
//     runs for an empty string, so the trailing stars are not skipped);
//   - a set that is never closed ends at the end of the pattern ("[ab" is the set {a, b});
//   - "[^" with nothing after it matches any byte; a trailing "\" matches a backslash;
//   - range bounds and the tested byte compare as signed chars, as they do in Redis on
//     amd64 Linux (signed char): "[a-\xff]" is the range -1..'a';
//   - a pattern with more than 1000 "*" runs followed by more pattern matches nothing: the
//     reference redis-server 7.0.15 build bounds its recursion at 1000 levels (one per such
//     run), and every successful match goes through each of them.
//
// Match runs in O(len(pattern)·len(s)) time in the worst case, with no recursion and no
// allocation: the classic single-backtrack-point algorithm, which gives the same answers as
// Redis's recursive matcher because every token other than "*" consumes exactly one byte and
// a token's extent in the pattern never depends on the byte it is tested against.
func Match[P, S ~string | ~[]byte](pattern P, s S, nocase bool) bool {
	if len(s) == 0 {
		return len(pattern) == 0
	}
	// Each inner "*" run takes at least two bytes, so only long patterns can pass the limit.
	if len(pattern) > 2*maxStarRuns && innerStarRuns(pattern) > maxStarRuns {
		return false
	}
	p, i := 0, 0
	// Backtracking point of the most recent "*": where the pattern resumes after it and the
	// first byte of s not yet given to it.
	starP, starI := -1, 0
	for i < len(s) {
		if p < len(pattern) {
			if pattern[p] == '*' {
				for p < len(pattern) && pattern[p] == '*' {
					p++
				}
				if p == len(pattern) {
					return true
				}
				starP, starI = p, i
				continue
			}
			if next, ok := matchToken(pattern, p, s[i], nocase); ok {
				p = next
				i++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starI++
		p, i = starP, starI
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// maxStarRuns is Redis's recursion bound, counted in "*" runs followed by more pattern.
const maxStarRuns = 1000

// innerStarRuns counts the "*" runs of pattern (escaped stars and stars in sets are not
// runs) that have more pattern after them.
func innerStarRuns[P ~string | ~[]byte](pattern P) int {
	n := 0
	for p := 0; p < len(pattern); {
		if pattern[p] != '*' {
			p, _ = matchToken(pattern, p, 0, false)
			continue
		}
		for p < len(pattern) && pattern[p] == '*' {
			p++
		}
		if p < len(pattern) {
			n++
		}
	}
	return n
}

// matchToken tests byte c against the single-byte token (not "*") at pattern[p] and returns
// the index just past the token and whether c matches it.
func matchToken[P ~string | ~[]byte](pattern P, p int, c byte, nocase bool) (int, bool) {
	n := len(pattern)
	switch pattern[p] {
	case '?':
		return p + 1, true
	case '[':
		p++
		not := p < n && pattern[p] == '^'
		if not {
			p++
		}
		match := false
		for {
			if p >= n {
				// Unclosed set: it ends with the pattern.
				return n, match != not
			}
			switch {
			case pattern[p] == '\\' && n-p >= 2:
				p++
				if pattern[p] == c {
					match = true
				}
			case pattern[p] == ']':
				return p + 1, match != not
			case n-p >= 3 && pattern[p+1] == '-':
				lo, hi, x := signedByte(pattern[p]), signedByte(pattern[p+2]), signedByte(c)
				if lo > hi {
					lo, hi = hi, lo
				}
				if nocase {
					lo, hi, x = foldInt(lo), foldInt(hi), foldInt(x)
				}
				p += 2
				if x >= lo && x <= hi {
					match = true
				}
			default:
				if eqByte(pattern[p], c, nocase) {
					match = true
				}
			}
			p++
		}
	case '\\':
		if n-p >= 2 {
			p++
		}
		return p + 1, eqByte(pattern[p], c, nocase)
	default:
		return p + 1, eqByte(pattern[p], c, nocase)
	}
}

// signedByte widens b the way C widens a (signed) char.
func signedByte(b byte) int { return int(int8(b)) }

// foldInt lower-cases an ASCII capital, as tolower does in the C locale.
func foldInt(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func eqByte(a, b byte, nocase bool) bool {
	if a == b {
		return true
	}
	return nocase && foldByte(a) == foldByte(b)
}

func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// literalPrefix classifies a pattern for fast paths: a pattern without glob syntax is its
// own literal (exact); "lit*" with a non-empty literal and no other syntax matches by prefix
// (prefix). Anything else needs Match.
func literalPrefix(p string) (lit string, exact, prefix bool) {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '?', '[', '\\':
			return "", false, false
		case '*':
			for j := i; j < len(p); j++ {
				if p[j] != '*' {
					return "", false, false
				}
			}
			return p[:i], false, i > 0
		}
	}
	return p, true, false
}

// pattern is a glob compiled for matching against keys and channels: a literal or a
// literal prefix (the common "app:*") skips the general matcher.
type pattern struct {
	glob   string
	lit    string
	exact  bool
	prefix bool
}

func compilePattern(p string) pattern {
	lit, exact, prefix := literalPrefix(p)
	return pattern{glob: p, lit: lit, exact: exact, prefix: prefix}
}

func (p *pattern) match(s []byte) bool {
	switch {
	case p.exact:
		return string(s) == p.lit
	case p.prefix:
		return len(s) >= len(p.lit) && string(s[:len(p.lit)]) == p.lit
	}
	return Match(p.glob, s, false)
}
