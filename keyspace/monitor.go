package keyspace

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// AsyncWriter is implemented by connections that take bytes to send from
// any goroutine; MONITOR feeds are written through it.
type AsyncWriter interface {
	WriteAsync(b []byte)
}

// PushWriter is an AsyncWriter that can also take a buffer from the
// Server's push pool (Server.GetPushBuffer) and give it back with
// Server.PutPushBuffer once written, so that a busy channel's fan-out does
// not allocate a buffer per subscriber and drain.
type PushWriter interface {
	AsyncWriter
	WritePushAsync(b []byte)
}

// monitorSet is the clients in MONITOR mode. Shards read the list on every
// command while count is non-zero; it is replaced, never changed in place.
type monitorSet struct {
	mu    sync.Mutex // serializes updates
	Count atomic.Int32
	list  atomic.Pointer[[]*Client]
}

func (m *monitorSet) Add(c *Client) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var next []*Client
	if p := m.list.Load(); p != nil {
		next = append(next, *p...)
	}
	next = append(next, c)
	m.list.Store(&next)
	m.Count.Store(int32(len(next)))
}

func (m *monitorSet) Remove(c *Client) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.list.Load()
	if p == nil {
		return
	}
	next := make([]*Client, 0, len(*p))
	for _, o := range *p {
		if o != c {
			next = append(next, o)
		}
	}
	m.list.Store(&next)
	m.Count.Store(int32(len(next)))
}

// StopMonitor takes c out of MONITOR mode (RESET, disconnection).
func (s *Server) StopMonitor(c *Client) {
	if c.Monitor.Swap(false) {
		s.Monitors.Remove(c)
	}
}

// feedMonitors sends a command that ran to every monitor, in Redis's
// format: +<seconds>.<microseconds> [<db> <addr>] "arg" "arg"...
// Admin commands and those flagged skip_monitor are not shown.
func (sh *Shard) feedMonitors(x *Ctx, cmd *Command, args [][]byte) {
	if len(cmd.Subcommands) > 0 && len(args) > 1 {
		if sc := cmd.Sub(args[1]); sc != nil {
			cmd = sc
		}
	}
	if cmd.Flags&(FlagAdmin|FlagSkipMonitor) != 0 {
		return
	}
	sh.WriteMonitors(x.C, args)
}

// WriteMonitors sends one monitor line for args run by c, whatever the
// command's flags (EVAL and FCALL are skip_monitor but show themselves
// before the commands of their script, as in Redis). Secrets (AUTH's
// password, HELLO's AUTH user and password) show as "(redacted)", the
// arguments the slow log hides too.
func (sh *Shard) WriteMonitors(c *Client, args [][]byte) {
	p := sh.Srv.Monitors.list.Load()
	if p == nil || !hasShardMonitor(*p, sh.Idx) {
		return // the line is built only when a monitor of this shard reads it
	}
	us := sh.Srv.Now().UnixMicro()
	b := make([]byte, 0, 64)
	b = append(b, '+')
	b = strconv.AppendInt(b, us/1_000_000, 10)
	b = append(b, '.')
	frac := strconv.AppendInt(nil, us%1_000_000, 10)
	for range 6 - len(frac) {
		b = append(b, '0')
	}
	b = append(b, frac...)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(c.DB), 10)
	b = append(b, ' ')
	b = append(b, c.RemoteAddr...)
	b = append(b, "] "...)
	redact := redactedArgs(args)
	for i, a := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		if redact(i) {
			b = append(b, `"(redacted)"`...)
			continue
		}
		b = appendRepr(b, a)
	}
	b = append(b, "\r\n"...)
	for _, m := range *p {
		if m.Shard != sh.Idx {
			// A monitor sees the commands of its own shard, as a
			// cluster node's MONITOR does.
			continue
		}
		if w, ok := m.Conn.(AsyncWriter); ok {
			w.WriteAsync(b)
		}
	}
}

// appendRepr appends s quoted the way Redis's sdscatrepr does.
func appendRepr(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		switch c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f {
				b = append(b, c)
			} else {
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return append(b, '"')
}

// hasShardMonitor reports whether a monitor in ms watches shard idx.
func hasShardMonitor(ms []*Client, idx int) bool {
	for _, m := range ms {
		if m.Shard == idx {
			return true
		}
	}
	return false
}
