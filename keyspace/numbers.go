package keyspace

import (
	"github.com/ruvio/ruvio/types/num"
)

// ParseInt parses a decimal int64 with Redis's string2ll rules
// (num.ParseInt); the keyspace's commands all read integers through it.
func ParseInt(b []byte) (int64, bool) { return num.ParseInt(b) }

// EqFold reports whether b equals the lower-case ASCII word s, ignoring
// case, without allocating.
func EqFold(b []byte, s string) bool {
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
