package keyspace

import (
	"math"
	"strconv"

	"github.com/ruvio/ruvio/types/num"
)

// parseInt parses a decimal int64 with Redis's string2ll rules
// (num.ParseInt); the keyspace's commands all read integers through it.
func parseInt(b []byte) (int64, bool) { return num.ParseInt(b) }

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
