package acl

import "time"

// Context is where a denied call ran, as ACL LOG reports it.
type Context uint8

// Contexts.
const (
	ContextTopLevel Context = iota
	ContextLua
	ContextMulti
	ContextModule
)

// String is the context as ACL LOG shows it.
func (c Context) String() string {
	switch c {
	case ContextTopLevel:
		return "toplevel"
	case ContextMulti:
		return "multi"
	case ContextLua:
		return "lua"
	case ContextModule:
		return "module"
	}
	return "unknown"
}

// LogEvent is one denial to record.
type LogEvent struct {
	Reason     Reason
	Context    Context
	Object     string // command full name, key, channel, or "AUTH" for failed authentication
	Username   string
	ClientInfo string // the CLIENT LIST line of the client
}

// LogEntry is an ACL LOG entry as the command shows it.
type LogEntry struct {
	Count      uint64
	Reason     Reason
	Context    Context
	Object     string
	Username   string
	AgeSeconds float64 // since the last event grouped into the entry
	ClientInfo string  // of the last such event
}

// Log grouping rules of Redis 7.0.
const (
	// LogGroupWindow: an event joins an entry with the same reason, context, object and
	// user whose last event is at most this far away.
	LogGroupWindow = 60 * time.Second
	// logGroupScan is how many of the newest entries are searched for a group.
	logGroupScan = 10
	// DefaultLogMaxLen is acllog-max-len's default.
	DefaultLogMaxLen = 128
)

type logEntry struct {
	LogEvent
	count uint64
	at    time.Time
}

// Log is the ACL security log: newest entry first, similar events grouped, at most MaxLen
// entries. It is a plain data structure, not safe for concurrent use: its owner serialises
// access. The clock is injected.
type Log struct {
	entries []*logEntry // newest first
	maxLen  int
	now     func() time.Time
}

// NewLog returns an empty log keeping at most maxLen entries, reading time from now.
func NewLog(maxLen int, now func() time.Time) *Log {
	return &Log{maxLen: maxLen, now: now}
}

// SetMaxLen changes the limit (acllog-max-len). As in Redis, a shorter limit trims the log
// at the next new entry.
func (l *Log) SetMaxLen(n int) { l.maxLen = n }

// Len returns the number of entries.
func (l *Log) Len() int { return len(l.entries) }

// Add records an event: it bumps the count of a matching entry among the newest ten (and
// moves it to the front), or adds a new entry and drops the oldest beyond the limit.
func (l *Log) Add(ev LogEvent) {
	now := l.now()
	for i := 0; i < len(l.entries) && i < logGroupScan; i++ {
		e := l.entries[i]
		d := now.Sub(e.at)
		if d < 0 {
			d = -d
		}
		if e.Reason == ev.Reason && e.Context == ev.Context && d <= LogGroupWindow &&
			e.Object == ev.Object && e.Username == ev.Username {
			e.count++
			e.at = now
			e.ClientInfo = ev.ClientInfo
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = e
			return
		}
	}
	l.entries = append(l.entries, nil)
	copy(l.entries[1:], l.entries)
	l.entries[0] = &logEntry{LogEvent: ev, count: 1, at: now}
	for len(l.entries) > l.maxLen && len(l.entries) > 0 {
		l.entries[len(l.entries)-1] = nil
		l.entries = l.entries[:len(l.entries)-1]
	}
}

// Entries returns up to count entries, newest first (ACL LOG [count]; a negative count
// shows none, as Redis treats it as 0).
func (l *Log) Entries(count int) []LogEntry {
	if count < 0 {
		count = 0
	}
	if count > len(l.entries) {
		count = len(l.entries)
	}
	now := l.now()
	out := make([]LogEntry, count)
	for i := range out {
		e := l.entries[i]
		out[i] = LogEntry{Count: e.count, Reason: e.Reason, Context: e.Context, Object: e.Object,
			Username: e.Username, AgeSeconds: float64(now.Sub(e.at).Milliseconds()) / 1000, ClientInfo: e.ClientInfo}
	}
	return out
}

// Reset empties the log (ACL LOG RESET).
func (l *Log) Reset() { l.entries = nil }
