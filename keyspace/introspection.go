package keyspace

import (
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/ruvio/ruvio/config"
)

// Introspection state the server keeps for the server commands (CONFIG,
// DEBUG, MEMORY, INFO in package commands): the memory sample read at most
// once a second, the DEBUG gate, and the memory-usage interface of values.

// serverExtras is per-server state of the introspection commands that the
// Server struct does not hold: the replication id, the memory statistics
// cache and the ops-per-second sample.
type serverExtras struct {
	Mu sync.Mutex // guards every field

	memReadAt time.Time // when mem was last read; zero: never
	mem       memSample

	OpsAt    time.Time // time of the last ops sample; zero: never
	OpsCount int64     // commands processed at OpsAt
	OpsRate  int64     // commands per second between the last two samples
}

// memSample is what INFO memory reports of the process: its resident set
// as the OS counts it and the Go runtime's figures.
type memSample struct {
	Rss                                    uint64
	HeapAlloc, HeapInuse, HeapSys, HeapRel uint64
	Sys, NumGC, LastPauseNs                uint64
	GcCPU                                  float64
}

// Extras returns s's introspection state.
func (s *Server) Extras() *serverExtras { return &s.introspection }

// memStats returns the memory statistics, reading runtime.MemStats at most
// once a second of the server clock: ReadMemStats stops the world.
func (s *Server) memStats() memSample {
	e := s.Extras()
	now := s.Now()
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if e.memReadAt.IsZero() || now.Sub(e.memReadAt) >= time.Second || now.Before(e.memReadAt) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		e.mem = memSample{
			HeapAlloc: ms.HeapAlloc, HeapInuse: ms.HeapInuse, HeapSys: ms.HeapSys, HeapRel: ms.HeapReleased,
			Sys: ms.Sys, NumGC: uint64(ms.NumGC), GcCPU: ms.GCCPUFraction,
		}
		if ms.NumGC > 0 {
			e.mem.LastPauseNs = ms.PauseNs[(ms.NumGC+255)%256]
		}
		if rss, ok := ResidentBytes(); ok {
			e.mem.Rss = rss
		} else {
			// No /proc: what the runtime holds from the OS and has not
			// returned, plus the arenas' mappings: an upper bound.
			e.mem.Rss = ms.Sys - ms.HeapReleased
			for _, sh := range s.ShardList {
				e.mem.Rss += uint64(sh.ArenaMapped.Load())
			}
		}
		e.memReadAt = now
	}
	return e.mem
}

// ErrDebugNotAllowed is the reply to DEBUG from a client that
// enable-debug-command does not admit.
const ErrDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

// DebugAllowed reports whether the enable-debug-command setting lets a
// client connected from remote (host:port) run DEBUG.
func DebugAllowed(setting, remote string) bool {
	switch setting {
	case config.DebugYes:
		return true
	case config.DebugLocal:
		return isLoopbackAddr(remote)
	}
	return false
}

// isLoopbackAddr reports whether addr (host:port or a bare host) is a
// loopback IP address.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// memoryUsager is implemented by value types that can estimate the bytes
// they hold, looking at no more than samples elements of a collection
// (0: all of them).
type memoryUsager interface {
	memoryUsage(samples int64) int64
}
