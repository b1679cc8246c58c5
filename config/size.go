package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size is a byte count as written in a configuration file: a TOML integer of bytes, or a
// string parsed by [ParseSize] such as "64mb". It exists only for decoding; Config stores
// plain int64 byte counts.
type Size int64

// UnmarshalTOML implements toml.Unmarshaler: it accepts a non-negative integer or a size
// string.
func (s *Size) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		if v < 0 {
			return fmt.Errorf("size %d is negative", v)
		}
		*s = Size(v)
		return nil
	case string:
		n, err := ParseSize(v)
		if err != nil {
			return err
		}
		*s = Size(n)
		return nil
	default:
		return fmt.Errorf("size must be an integer of bytes or a string like \"64mb\", not %T", v)
	}
}

// UnmarshalText implements encoding.TextUnmarshaler with [ParseSize].
func (s *Size) UnmarshalText(b []byte) error {
	n, err := ParseSize(string(b))
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}

// sizeUnits maps a unit suffix (lower case) to its multiplier, as Redis's memtoull does:
// the one-letter units are powers of 1000, the two-letter ones powers of 1024.
var sizeUnits = [...]struct {
	suffix string
	mul    int64
}{
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30},
	{"b", 1}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000},
}

// ParseSize parses a byte count: decimal digits optionally followed by a unit, "b", "k"
// (1000), "kb" (1024), "m" (1000²), "mb" (1024²), "g" (1000³) or "gb" (1024³), case
// insensitive, with no sign, spaces or fraction. These are Redis's memory-value rules.
func ParseSize(s string) (int64, error) {
	digits, mul := s, int64(1)
	lower := strings.ToLower(s)
	for _, u := range sizeUnits {
		if strings.HasSuffix(lower, u.suffix) {
			digits, mul = s[:len(s)-len(u.suffix)], u.mul
			break
		}
	}
	if digits == "" {
		return 0, fmt.Errorf("invalid size %q: want a number of bytes, optionally followed by b, k, kb, m, mb, g or gb", s)
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("invalid size %q: want a number of bytes, optionally followed by b, k, kb, m, mb, g or gb", s)
		}
		if n > (math.MaxInt64-int64(c-'0'))/10 {
			return 0, fmt.Errorf("invalid size %q: too large", s)
		}
		n = n*10 + int64(c-'0')
	}
	if n > math.MaxInt64/mul {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return n * mul, nil
}

// MemoryOrPercent is a memory size or a percentage of maxmemory, as maxmemory-clients
// takes: Bytes, or with IsPercent, Percent (0..100) of maxmemory. The zero value is 0 bytes
// (off).
type MemoryOrPercent struct {
	Bytes     int64
	Percent   int64
	IsPercent bool
}

// String is the canonical form CONFIG GET shows: the bytes, or the percentage with "%".
func (m MemoryOrPercent) String() string {
	if m.IsPercent {
		return strconv.FormatInt(m.Percent, 10) + "%"
	}
	return strconv.FormatInt(m.Bytes, 10)
}

// Of is the limit in bytes given maxmemory: a percentage of 0 maxmemory is 0 (off).
func (m MemoryOrPercent) Of(maxMemory int64) int64 {
	if m.IsPercent {
		return int64(float64(maxMemory) * float64(m.Percent) / 100)
	}
	return m.Bytes
}

// ParseMemoryOrPercent reads a size ("64mb", "1048576") or a percentage ("10%", at most
// 100). The error reason is Redis's CONFIG SET wording.
func ParseMemoryOrPercent(v string) (MemoryOrPercent, error) {
	if len(v) > 1 && v[len(v)-1] == '%' {
		n, ok := parseStrictInt(v[:len(v)-1])
		if !ok || n < 0 {
			return MemoryOrPercent{}, errors.New("argument must be a memory or percent value")
		}
		if n > 100 {
			return MemoryOrPercent{}, errors.New("percentage argument must be less or equal to 100")
		}
		return MemoryOrPercent{Percent: n, IsPercent: true}, nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return MemoryOrPercent{}, errors.New("argument must be a memory or percent value")
	}
	return MemoryOrPercent{Bytes: n}, nil
}

// MemoryOrPercentText decodes a configuration file's maxmemory-clients value into its
// canonical text ([MemoryOrPercent.String]): a non-negative TOML integer of bytes, a size
// string ("64mb") or a percentage string ("5%"). It exists only for decoding.
type MemoryOrPercentText string

// UnmarshalTOML implements toml.Unmarshaler.
func (m *MemoryOrPercentText) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		var n Size
		if err := n.UnmarshalTOML(v); err != nil {
			return err
		}
		*m = MemoryOrPercentText(strconv.FormatInt(int64(n), 10))
		return nil
	case string:
		p, err := ParseMemoryOrPercent(v)
		if err != nil {
			return fmt.Errorf("%q: %w", v, err)
		}
		*m = MemoryOrPercentText(p.String())
		return nil
	}
	return fmt.Errorf("want an integer of bytes, a size string like \"64mb\" or a percentage like \"5%%\", not %T", v)
}
