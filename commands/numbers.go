package commands

import (
	"math"
	"strconv"
)

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
