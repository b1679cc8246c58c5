package stream

import (
	"math"
	"strconv"
)

// ID is a stream entry id: milliseconds and a sequence number, ordered
// by Ms then Seq.
type ID struct{ Ms, Seq uint64 }

// MinID and MaxID are the smallest and largest ids ("-" and "+").
var (
	MinID = ID{}
	MaxID = ID{math.MaxUint64, math.MaxUint64}
)

// Compare returns -1, 0 or 1 as a is less than, equal to or greater
// than b.
func (a ID) Compare(b ID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Less reports whether a sorts before b.
func (a ID) Less(b ID) bool { return a.Ms < b.Ms || (a.Ms == b.Ms && a.Seq < b.Seq) }

// IsZero reports whether the id is 0-0.
func (a ID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Next returns the id right after a; ok is false for MaxID.
func (a ID) Next() (ID, bool) {
	switch {
	case a.Seq < math.MaxUint64:
		return ID{a.Ms, a.Seq + 1}, true
	case a.Ms < math.MaxUint64:
		return ID{a.Ms + 1, 0}, true
	}
	return a, false
}

// Prev returns the id right before a; ok is false for 0-0.
func (a ID) Prev() (ID, bool) {
	switch {
	case a.Seq > 0:
		return ID{a.Ms, a.Seq - 1}, true
	case a.Ms > 0:
		return ID{a.Ms - 1, math.MaxUint64}, true
	}
	return a, false
}

// Append appends the id's text form "ms-seq".
func (a ID) Append(dst []byte) []byte {
	dst = strconv.AppendUint(dst, a.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, a.Seq, 10)
}

// String returns "ms-seq".
func (a ID) String() string { return string(a.Append(nil)) }

// ParseID parses "ms", "ms-seq" or, when autoSeq is true, "ms-*". A
// missing sequence takes missingSeq. seqAuto reports a "ms-*" form (its
// Seq is 0). ok is false for anything else, including numbers with
// signs, spaces or leading '+'.
func ParseID(b []byte, missingSeq uint64, autoSeq bool) (id ID, seqAuto, ok bool) {
	dash := -1
	for i, c := range b {
		if c == '-' {
			dash = i
			break
		}
	}
	if dash < 0 {
		ms, ok := parseU64(b)
		return ID{ms, missingSeq}, false, ok
	}
	ms, ok := parseU64(b[:dash])
	if !ok {
		return ID{}, false, false
	}
	rest := b[dash+1:]
	if autoSeq && len(rest) == 1 && rest[0] == '*' {
		return ID{ms, 0}, true, true
	}
	seq, ok := parseU64(rest)
	return ID{ms, seq}, false, ok
}

// parseU64 parses a decimal unsigned 64-bit number (digits only).
func parseU64(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
