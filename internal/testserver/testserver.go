// Package testserver starts Ruvio servers for integration tests: in the
// test process on free loopback ports, or as the real binary for crash
// tests. Every server stops by itself when its test ends.
package testserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/app"
)

// clientTimeout bounds every client call of a test. It is generous because
// CI runs the race detector on two CPUs next to compiles and crash tests:
// a slow reply there is load, not a bug; a hung server still fails.
const clientTimeout = 30 * time.Second

// Server is a running in-process server.
type Server struct {
	Config config.Config
	// Addrs are the shards' addresses, shard 0 first (none when the
	// server serves TLS only).
	Addrs []string
	// TLSAddrs are the shards' TLS addresses, when it serves TLS.
	TLSAddrs []string
	app      *app.App
}

// Addr is the address of shard 0.
func (s *Server) Addr() string { return s.Addrs[0] }

// Port is the port of shard 0.
func (s *Server) Port() int { return s.Config.Server.Port }

// App exposes the running process.
func (s *Server) App() *app.App { return s.app }

// Option changes the configuration before start.
type Option func(*config.Config)

// Shards sets the shard count.
func Shards(n int) Option { return func(c *config.Config) { c.Server.Shards = n } }

// Dir sets the data directory.
func Dir(dir string) Option { return func(c *config.Config) { c.Persistence.Dir = dir } }

// Fsync sets the WAL fsync policy.
func Fsync(policy string) Option {
	return func(c *config.Config) { c.Persistence.WAL = true; c.Persistence.Fsync = policy }
}

// FreePort, as tls.port, has Start pick free ports for the TLS listeners.
const FreePort = -1

// Config applies fn to the configuration.
func Config(fn func(*config.Config)) Option { return Option(fn) }

// Start runs a server in the test process, by default with one shard, no
// WAL and a fresh data directory, and stops it when the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.Persistence.Dir = t.TempDir()
	cfg.Persistence.WAL = false
	cfg.Persistence.SnapshotOnShutdown = false
	for _, o := range opts {
		o(&cfg)
	}
	// A TLS port of FreePort gets free ports after the plain ones; a
	// plain port of 0 (TLS only) stays 0.
	tlsFree := cfg.TLS.Port == FreePort
	plain := cfg.Server.Port != 0
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ {
		n := cfg.Server.Shards
		if tlsFree {
			n *= 2
		}
		port, err := FreePorts(n)
		if err != nil {
			lastErr = err
			continue
		}
		if plain {
			cfg.Server.Port = port
		}
		if tlsFree {
			cfg.TLS.Port = port + cfg.Server.Shards
		}
		a, err := app.Start(cfg, app.Options{Logger: zap.NewNop()})
		if err != nil {
			lastErr = err
			continue
		}
		s := &Server{Config: cfg, app: a}
		for i := 0; i < cfg.Server.Shards; i++ {
			if plain {
				s.Addrs = append(s.Addrs, net.JoinHostPort(cfg.Server.Host(), strconv.Itoa(port+i)))
			}
			if cfg.TLS.Port > 0 {
				s.TLSAddrs = append(s.TLSAddrs, net.JoinHostPort(cfg.Server.Host(), strconv.Itoa(cfg.TLS.Port+i)))
			}
		}
		t.Cleanup(func() { s.Stop() })
		return s
	}
	t.Fatalf("testserver: could not start: %v", lastErr)
	return nil
}

// Stop shuts the server down; calling it twice is harmless.
func (s *Server) Stop() {
	if s.app == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.app.Stop(ctx)
	s.app = nil
}

// Client returns a go-redis client of shard 0, closed when the test ends.
func (s *Server) Client(t testing.TB) *redis.Client {
	return s.ClientOf(t, 0)
}

// ClientOf returns a go-redis client of shard i.
func (s *Server) ClientOf(t testing.TB, i int) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addrs[i], MaxRetries: -1, DisableIdentity: true,
		DialTimeout: clientTimeout, ReadTimeout: clientTimeout, WriteTimeout: clientTimeout})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// ClusterClient returns a go-redis cluster client seeded with shard 0's
// address only.
func (s *Server) ClusterClient(t testing.TB) *redis.ClusterClient {
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{s.Addrs[0]}, MaxRetries: -1, DisableIdentity: true,
		DialTimeout: clientTimeout, ReadTimeout: clientTimeout, WriteTimeout: clientTimeout})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// UniversalClient returns the client redis.NewUniversalClient picks from
// every shard's address: a plain client for one shard, a cluster client
// for several.
func (s *Server) UniversalClient(t testing.TB) redis.UniversalClient {
	c := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: s.Addrs, MaxRetries: -1, DisableIdentity: true,
		DialTimeout: clientTimeout, ReadTimeout: clientTimeout, WriteTimeout: clientTimeout})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// FreePorts finds n consecutive free loopback ports and returns the first.
// They come from outside the kernel's ephemeral range (testPortRanges):
// a port in it that is free now may be taken by any outgoing connection
// (a client of another test, redis-benchmark) before the server binds it.
func FreePorts(n int) (int, error) {
	ranges := testPortRanges(n)
	total := 0
	for _, r := range ranges {
		total += r[1] - r[0] + 1
	}
	for attempt := 0; attempt < 100; attempt++ {
		// A base drawn uniformly over every range's possible bases.
		k := rand.IntN(total)
		base := 0
		for _, r := range ranges {
			size := r[1] - r[0] + 1
			if k < size {
				base = r[0] + k
				break
			}
			k -= size
		}
		ok := true
		var ls []net.Listener
		for i := 0; i < n; i++ {
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(base+i)))
			if err != nil {
				ok = false
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			_ = l.Close()
		}
		if ok {
			return base, nil
		}
	}
	return 0, fmt.Errorf("testserver: no %d consecutive free ports", n)
}

// testPortRanges returns the ranges of first ports of n consecutive ports
// that lie outside the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range, Linux's default 32768-60999 when
// it cannot be read): from 10000 to below it, and above it. With no room
// outside it, 20000-59999.
func testPortRanges(n int) [][2]int {
	lo, hi := 32768, 60999
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			l, err1 := strconv.Atoi(f[0])
			h, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && l <= h {
				lo, hi = l, h
			}
		}
	}
	var ranges [][2]int
	if first, last := 10000, lo-n; last-first >= 1000 {
		ranges = append(ranges, [2]int{first, last})
	}
	if first, last := hi+1, 65536-n; last-first >= 1000 {
		ranges = append(ranges, [2]int{first, last})
	}
	if len(ranges) == 0 {
		ranges = append(ranges, [2]int{20000, 60000 - n})
	}
	return ranges
}
