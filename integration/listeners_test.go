package integration_test

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// CONFIG SET port, bind and tls-port move the listeners at run time, as Redis 7.0's do:
// open connections stay, a port or address that cannot be bound fails the change with
// Redis's reason and the server keeps listening where it did.

// freePorts returns the first of n free consecutive loopback ports.
func freePorts(t *testing.T, n int) int {
	t.Helper()
	p, err := testserver.FreePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// portFree reports whether a listener could bind 127.0.0.1:port now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", addr(port))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// addr is 127.0.0.1:port.
func addr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// expectRefused checks that nothing accepts TCP connections at a.
func expectRefused(t *testing.T, a string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", a, 5*time.Second)
	if err == nil {
		_ = c.Close()
		t.Fatalf("%s accepts connections", a)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", a, err)
	}
}

// newClient is a go-redis client of a, closed when the test ends.
func newClient(t *testing.T, a string) *redis.Client {
	c := redis.NewClient(clientTimeouts(&redis.Options{Addr: a, MaxRetries: -1, DisableIdentity: true}))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestConfigSetPortMoves(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	old := dialRaw(t, s.Addr())
	old.expect("+PONG\r\n", "PING")

	port := freePorts(t, 1)
	expect(t, c, "OK", "CONFIG", "SET", "port", strconv.Itoa(port))
	expect(t, c, map[interface{}]interface{}{"port": strconv.Itoa(port)}, "CONFIG", "GET", "port")
	// Open connections stay, the new port serves, the old one refuses.
	old.expect("+PONG\r\n", "PING")
	expect(t, c, "OK", "SET", "k", "v")
	nc := newClient(t, addr(port))
	expect(t, nc, "v", "GET", "k")
	expectRefused(t, s.Addr())

	// A port in use: Redis's error, nothing changes.
	busy, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	expectErr(t, nc, "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.",
		"CONFIG", "SET", "port", strconv.Itoa(busyPort))
	expect(t, nc, map[interface{}]interface{}{"port": strconv.Itoa(port)}, "CONFIG", "GET", "port")
	again := dialRaw(t, addr(port))
	again.expect("+PONG\r\n", "PING")

	// Several parameters at once: all or none.
	expectErr(t, nc, "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.",
		"CONFIG", "SET", "maxclients", "77", "port", strconv.Itoa(busyPort))
	if got := value(t, nc, "CONFIG", "GET", "maxclients").(map[interface{}]interface{})["maxclients"]; got == "77" {
		t.Error("a refused CONFIG SET changed maxclients")
	}
	port2 := freePorts(t, 1)
	expect(t, nc, "OK", "CONFIG", "SET", "maxclients", "77", "port", strconv.Itoa(port2))
	expect(t, newClient(t, addr(port2)), map[interface{}]interface{}{"maxclients": "77"}, "CONFIG", "GET", "maxclients")
	expectRefused(t, addr(port))
	old.expect("+PONG\r\n", "PING")
}

// With several shards shard i listens on port+i; a move that overlaps the old range hands
// the sockets it keeps to their new shard.
func TestConfigSetPortShards(t *testing.T) {
	// The move up by one needs base+2, which Start did not reserve: a
	// server another test started meanwhile may hold it. A server whose
	// base+2 is taken is started again elsewhere.
	var s *testserver.Server
	for attempt := 0; ; attempt++ {
		s = testserver.Start(t, testserver.Shards(2))
		if portFree(s.Port()+2) || attempt == 9 {
			break
		}
		s.Stop()
	}
	// "bar" is in shard 0's slots, "foo" in shard 1's.
	shardOf := func(a string) int {
		rc := dialRaw(t, a)
		if r := rc.do("GET", "foo"); !strings.HasPrefix(r, "-MOVED") {
			return 1
		}
		return 0
	}
	if shardOf(s.Addrs[0]) != 0 || shardOf(s.Addrs[1]) != 1 {
		t.Fatal("shards not where expected")
	}
	base := s.Port()
	old1 := dialRaw(t, s.Addrs[1])
	// Up by one: base+1 (shard 1's) becomes shard 0's, base+2 is new.
	expect(t, s.Client(t), "OK", "CONFIG", "SET", "port", strconv.Itoa(base+1))
	if shardOf(addr(base+1)) != 0 || shardOf(addr(base+2)) != 1 {
		t.Error("after the move, base+1 and base+2 are not shards 0 and 1")
	}
	expectRefused(t, addr(base))
	if r := old1.do("GET", "foo"); strings.HasPrefix(r, "-MOVED") {
		t.Errorf("a connection of shard 1 changed shard: %q", r)
	}
	// To a fresh range.
	port := freePorts(t, 2)
	expect(t, newClient(t, addr(base+1)), "OK", "CONFIG", "SET", "port", strconv.Itoa(port))
	if shardOf(addr(port)) != 0 || shardOf(addr(port+1)) != 1 {
		t.Error("the new ports are not shards 0 and 1")
	}
	expectRefused(t, addr(base+1))
	expectRefused(t, addr(base+2))
	// Redirections name the new ports: "foo" is slot 12182, shard 1's.
	c0 := dialRaw(t, addr(port))
	if got, want := c0.do("GET", "foo"), fmt.Sprintf("-MOVED 12182 127.0.0.1:%d\r\n", port+1); got != want {
		t.Errorf("GET foo after the move: %q, want %q", got, want)
	}
	if got := c0.do("CLUSTER", "NODES"); !strings.Contains(got, fmt.Sprintf(" 127.0.0.1:%d@", port)) || !strings.Contains(got, fmt.Sprintf(" 127.0.0.1:%d@", port+1)) {
		t.Errorf("CLUSTER NODES after the move: %q", got)
	}
}

func TestConfigSetBind(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expectErr(t, c, "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.",
		"CONFIG", "SET", "bind", "999.999.999.999")
	expect(t, c, map[interface{}]interface{}{"bind": "127.0.0.1"}, "CONFIG", "GET", "bind")
	dialRaw(t, s.Addr()).expect("+PONG\r\n", "PING")

	// Several addresses, an optional one the host may lack.
	expect(t, c, "OK", "CONFIG", "SET", "bind", "127.0.0.1  -::1")
	expect(t, c, map[interface{}]interface{}{"bind": "127.0.0.1 -::1"}, "CONFIG", "GET", "bind")
	dialRaw(t, s.Addr()).expect("+PONG\r\n", "PING")
	// An address that is not optional and cannot be bound (a TEST-NET-1 address no host has).
	expectErr(t, c, "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.",
		"CONFIG", "SET", "bind", "127.0.0.1 192.0.2.123")
	expect(t, c, "OK", "CONFIG", "SET", "bind", "127.0.0.1 -192.0.2.123")

	// No address: no new client, open ones stay.
	held := dialRaw(t, s.Addr())
	held.expect("+PONG\r\n", "PING")
	expect(t, c, "OK", "CONFIG", "SET", "bind", "")
	expect(t, c, map[interface{}]interface{}{"bind": ""}, "CONFIG", "GET", "bind")
	expectRefused(t, s.Addr())
	held.expect("+PONG\r\n", "PING")
	held.expect("+OK\r\n", "CONFIG", "SET", "bind", "localhost")
	dialRaw(t, s.Addr()).expect("+PONG\r\n", "PING")
}

func TestConfigSetBindProtectedMode(t *testing.T) {
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.ProtectedMode = true }))
	c := s.Client(t)
	// Every IPv4 address: protected mode now guards the server, and a loopback client
	// (the only kind this test makes) still gets in.
	expect(t, c, "OK", "CONFIG", "SET", "bind", "*")
	expect(t, newClient(t, s.Addr()), "PONG", "PING")
	expect(t, c, "OK", "CONFIG", "SET", "bind", "127.0.0.1")
	expect(t, newClient(t, s.Addr()), "PONG", "PING")
}

func TestConfigSetTLSPort(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil))
	tc := e.clientConfig(t, e.clientCert, e.clientKey)
	old := tlsClient(t, s.TLSAddrs[0], tc)
	expect(t, old, "PONG", "PING")
	c := s.Client(t)
	port := freePorts(t, 1)
	expect(t, c, "OK", "CONFIG", "SET", "tls-port", strconv.Itoa(port))
	expect(t, old, "PONG", "PING") // its pooled connection stays
	expect(t, tlsClient(t, addr(port), tc), "PONG", "PING")
	expectRefused(t, s.TLSAddrs[0])
	busy, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	expectErr(t, c, "ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to listen on this port. Check server logs.",
		"CONFIG", "SET", "tls-port", strconv.Itoa(busy.Addr().(*net.TCPAddr).Port))
	expect(t, tlsClient(t, addr(port), tc), "PONG", "PING")
	// tls-port 0: no TLS listener.
	expect(t, c, "OK", "CONFIG", "SET", "tls-port", "0")
	expectRefused(t, addr(port))
}
