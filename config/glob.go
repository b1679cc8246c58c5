package config

// GlobMatch reports whether name matches the glob pattern, case-insensitively (ASCII), with
// the rules of Redis's stringmatch: "*" matches any run of bytes, "?" any one byte, "[abc]",
// "[a-z]" and "[^abc]" a byte in or not in a set, and "\x" the byte x literally.
func GlobMatch(pattern, name string) bool {
	p, s := 0, 0
	// Backtracking point for the most recent "*": where the pattern resumes and which byte
	// of name it was last tried against.
	star, mark := -1, 0
	for s < len(name) {
		if p < len(pattern) {
			switch pattern[p] {
			case '*':
				for p < len(pattern) && pattern[p] == '*' {
					p++
				}
				if p == len(pattern) {
					return true
				}
				star, mark = p, s
				continue
			case '?':
				p++
				s++
				continue
			case '[':
				if next, ok := matchClass(pattern, p, name[s]); ok {
					p = next
					s++
					continue
				}
			case '\\':
				lit, width := byte('\\'), 1 // a trailing backslash is itself
				if p+1 < len(pattern) {
					lit, width = pattern[p+1], 2
				}
				if lower(lit) == lower(name[s]) {
					p += width
					s++
					continue
				}
			default:
				if lower(pattern[p]) == lower(name[s]) {
					p++
					s++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		mark++
		p, s = star, mark
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchClass matches c against the bracket expression starting at pattern[p] == '['. It
// returns the index just past the closing ']' (or the end of the pattern when there is none,
// as Redis treats an unclosed class) and whether c is in the class.
func matchClass(pattern string, p int, c byte) (int, bool) {
	p++ // skip '['
	negate := false
	if p < len(pattern) && pattern[p] == '^' {
		negate = true
		p++
	}
	match := false
	lc := lower(c)
	for p < len(pattern) && pattern[p] != ']' {
		switch {
		case pattern[p] == '\\' && p+1 < len(pattern):
			p++
			if lower(pattern[p]) == lc {
				match = true
			}
			p++
		case p+2 < len(pattern) && pattern[p+1] == '-' && pattern[p+2] != ']':
			lo, hi := lower(pattern[p]), lower(pattern[p+2])
			if lo > hi {
				lo, hi = hi, lo
			}
			if lc >= lo && lc <= hi {
				match = true
			}
			p += 3
		default:
			if lower(pattern[p]) == lc {
				match = true
			}
			p++
		}
	}
	if p < len(pattern) {
		p++ // skip ']'
	}
	return p, match != negate
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}
