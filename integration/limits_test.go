package integration_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

func TestMaxClients(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.MaxClients = 2 }))

	a := dialRaw(t, s.Addr())
	a.expect("+PONG\r\n", "PING")
	b := dialRaw(t, s.Addr())
	b.expect("+PONG\r\n", "PING")

	third := dialRaw(t, s.Addr())
	got, err := third.tryRead(5 * time.Second)
	if got != "-ERR max number of clients reached\r\n" {
		t.Fatalf("third connection: got %q (err %v)", got, err)
	}
	third.expectClosed(3 * time.Second)

	// The two admitted clients keep working.
	a.expect("+PONG\r\n", "PING")
	b.expect("+PONG\r\n", "PING")

	// Once one leaves, a new client gets in (the close is noticed in bounded time).
	_ = a.conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		d := dialRaw(t, s.Addr())
		d.send("PING")
		got, _ := d.tryRead(2 * time.Second)
		if got == "+PONG\r\n" {
			break
		}
		if got != "-ERR max number of clients reached\r\n" || time.Now().After(deadline) {
			t.Fatalf("after a client left: %q", got)
		}
		_ = d.conn.Close()
		time.Sleep(50 * time.Millisecond)
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.Timeout = 1 }))

	idle := dialRaw(t, s.Addr())
	idle.expect("+PONG\r\n", "PING")
	busy := dialRaw(t, s.Addr())

	// busy sends a command every 300 ms for 2.4 s: it must stay open, while
	// idle (no traffic) must be closed within a bounded time.
	start := time.Now()
	for time.Since(start) < 2400*time.Millisecond {
		busy.expect("+PONG\r\n", "PING")
		time.Sleep(300 * time.Millisecond)
	}
	idle.expectClosed(3 * time.Second)
	busy.expect("+PONG\r\n", "PING")
}

func TestClientOutputBufferLimit(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Limits.ClientOutputBuffer.Normal.Hard = config.MiB }))
	c := s.Client(t)
	big := strings.Repeat("v", 100*1024)
	expect(t, c, "OK", "SET", "big", big)

	conn, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	// 150 GETs: 15 MB of replies, sent without reading any of them. The
	// kernel's socket buffers hold a few MB at most, so the rest piles up in
	// the server's output buffer. Wait (bounded) until the server reports
	// the disconnection before reading anything.
	const n = 150
	if _, err := io.WriteString(conn, strings.Repeat(multibulk("GET", "big"), n)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		info := value(t, c, "INFO", "stats").(string)
		if strings.Contains(info, "\r\nclient_output_buffer_limit_disconnections:1\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no output-buffer disconnection reported: %q", info)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Drain: the connection ends long before every reply is delivered.
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	total, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after reading %d bytes", total)
	}
	full := int64(n) * int64(len(bulk(big)))
	if total >= full {
		t.Errorf("read every reply (%d bytes): the output buffer limit was not enforced", total)
	}
	t.Logf("the server closed the connection after %d of %d reply bytes", total, full)

	// The server keeps serving others.
	expect(t, c, "PONG", "PING")
	expect(t, c, int64(len(big)), "STRLEN", "big")
	r := dialRaw(t, s.Addr())
	r.expect(bulk(big), "GET", "big")

	// A client that reads each reply before the next request is not affected.
	for i := 0; i < 30; i++ {
		if got := r.do("GET", "big"); got != bulk(big) {
			t.Fatalf("GET %d: %.40q", i, got)
		}
	}
}
