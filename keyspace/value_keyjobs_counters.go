package keyspace

import (
	"github.com/ruvio/ruvio/persistence"
)

// The LIMIT, ONCE and SETV values: their wrappers, snapshot forms and WAL
// encoders. The commands are in commands/keyjobs_counters.go.

// LimitObj is the value of a LIMIT key: the calls admitted in the current
// window. The window is the key's deadline, so an unused window simply
// expires.
type LimitObj struct {
	Count int64 // calls admitted in the current window
}

// TypeName is the TYPE reply.
func (l *LimitObj) TypeName() string { return "limit" }

// Encoding is OBJECT ENCODING: the type has one encoding.
func (l *LimitObj) Encoding() string { return "limit" }

// Clone returns a copy, for COPY.
func (l *LimitObj) Clone() any              { c := *l; return &c }
func (l *LimitObj) memoryUsage(int64) int64 { return 8 }

// SnapshotKind is KindLimit.
func (l *LimitObj) SnapshotKind() uint8 { return KindLimit }

// AppendSnapshot encodes the count as u64.
func (l *LimitObj) AppendSnapshot(dst []byte) []byte {
	return persistence.AppendU64(dst, uint64(l.Count))
}

// OnceObj is the value of a ONCE key. It holds nothing (the key and its
// deadline are the whole state), so storing it allocates nothing.
type OnceObj struct{}

// TypeName is the TYPE reply.
func (OnceObj) TypeName() string { return "once" }

// Encoding is OBJECT ENCODING: the type has one encoding.
func (OnceObj) Encoding() string { return "once" }

// Clone returns the value itself: it holds nothing.
func (OnceObj) Clone() any { return OnceObj{} }

// SnapshotKind is kindOnce.
func (OnceObj) SnapshotKind() uint8 { return kindOnce }

// AppendSnapshot appends nothing: the key and its deadline are the state.
func (OnceObj) AppendSnapshot(dst []byte) []byte { return dst }
func (OnceObj) memoryUsage(samples int64) int64  { return 0 }

// SetvObj is a versioned string: it reads as a string (GET, MGET, STRLEN,
// GETRANGE, TYPE string) but only SETV with the current version changes
// it. A plain SET replaces it with a plain string; INCR-family commands,
// APPEND and SETRANGE refuse it.
type SetvObj struct {
	Version int64  // the current version, 1 for a new key
	Val     []byte // the string value
}

// StringBytes is the value the string reads (GET, STRLEN, ...) see.
func (v *SetvObj) StringBytes(*Entry) []byte { return v.Val }

// Clone returns a deep copy, for COPY.
func (v *SetvObj) Clone() any {
	return &SetvObj{Version: v.Version, Val: CopyBytes(v.Val)}
}
func (v *SetvObj) memoryUsage(int64) int64 { return 32 + int64(cap(v.Val)) }

// SnapshotKind is KindSetV.
func (v *SetvObj) SnapshotKind() uint8 { return KindSetV }

// AppendSnapshot encodes version u64 then the value bytes to the end.
func (v *SetvObj) AppendSnapshot(dst []byte) []byte {
	dst = persistence.AppendU64(dst, uint64(v.Version))
	return append(dst, v.Val...)
}
