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
	Count int64
}

func (l *LimitObj) TypeName() string        { return "limit" }
func (l *LimitObj) Encoding() string        { return "limit" }
func (l *LimitObj) Clone() any              { c := *l; return &c }
func (l *LimitObj) memoryUsage(int64) int64 { return 8 }
func (l *LimitObj) SnapshotKind() uint8     { return KindLimit }
func (l *LimitObj) AppendSnapshot(dst []byte) []byte {
	return persistence.AppendU64(dst, uint64(l.Count))
}

// OnceObj is the value of a ONCE key. It holds nothing (the key and its
// deadline are the whole state), so storing it allocates nothing.
type OnceObj struct{}

func (OnceObj) TypeName() string                 { return "once" }
func (OnceObj) Encoding() string                 { return "once" }
func (OnceObj) Clone() any                       { return OnceObj{} }
func (OnceObj) SnapshotKind() uint8              { return kindOnce }
func (OnceObj) AppendSnapshot(dst []byte) []byte { return dst }
func (OnceObj) memoryUsage(samples int64) int64  { return 0 }

// SetvObj is a versioned string: it reads as a string (GET, MGET, STRLEN,
// GETRANGE, TYPE string) but only SETV with the current version changes
// it. A plain SET replaces it with a plain string; INCR-family commands,
// APPEND and SETRANGE refuse it.
type SetvObj struct {
	Version int64
	Val     []byte
}

func (v *SetvObj) StringBytes(*Entry) []byte { return v.Val }
func (v *SetvObj) Clone() any {
	return &SetvObj{Version: v.Version, Val: CopyBytes(v.Val)}
}
func (v *SetvObj) memoryUsage(int64) int64 { return 32 + int64(cap(v.Val)) }
func (v *SetvObj) SnapshotKind() uint8     { return KindSetV }

// AppendSnapshot encodes version u64 then the value bytes to the end.
func (v *SetvObj) AppendSnapshot(dst []byte) []byte {
	dst = persistence.AppendU64(dst, uint64(v.Version))
	return append(dst, v.Val...)
}
