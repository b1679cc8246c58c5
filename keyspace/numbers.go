package keyspace

import (
	"math"
	"strconv"
)

// parseInt parses a decimal int64 the way Redis's string2ll does: optional
// '-', no '+', no spaces, no leading zeros, at most 20 characters.
func parseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n > 20 {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	neg := false
	i := 0
	if b[0] == '-' {
		neg = true
		i = 1
		if n == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// parseFloat parses a float the way Redis's string2ld does: no spaces, no
// NaN; "inf" and "-inf" are accepted.
func parseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 5000 {
		return 0, false
	}
	if isSpace(b[0]) || isSpace(b[len(b)-1]) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, !math.IsInf(f, 0) || isInfLiteral(b)
		}
		return 0, false
	}
	if math.IsNaN(f) {
		return 0, false
	}
	// strconv accepts hex floats and underscores only in Go syntax forms
	// it documents; Redis's strtold accepts hex too, so keep them.
	return f, true
}

func isInfLiteral(b []byte) bool {
	s := string(b)
	switch s {
	case "inf", "+inf", "-inf", "Inf", "+Inf", "-Inf", "infinity", "-infinity":
		return true
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// eqFold reports whether b equals the lower-case ASCII word s, ignoring
// case, without allocating.
func eqFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
