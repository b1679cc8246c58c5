package integration_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// The reactors read sockets edge-triggered (docs/architecture.md,
// "Edge-triggered reads"): epoll reports a socket once per arrival of bytes.
// These tests send what only a correct re-arm serves: input that is still
// in the socket after a read that filled the reactor's buffer, with no
// more bytes to come, and a peer's close that arrives with its last bytes.

// TestInputLeftAfterAFullRead writes, in one write each, input many times
// the reactor's 64 KB read buffer, then only reads: a big value, and a
// pipeline long enough for the read gate to pause and resume the
// connection. Every reply must come.
func TestInputLeftAfterAFullRead(t *testing.T) {
	s := testserver.Start(t)
	addr := s.Addrs[0]

	t.Run("big value", func(t *testing.T) {
		c := dialRaw(t, addr)
		value := strings.Repeat("v", 3<<20)
		c.expectReplies(multibulk("SET", "big", value)+multibulk("STRLEN", "big"), "+OK\r\n", ":"+strconv.Itoa(len(value))+"\r\n")
	})

	t.Run("long pipeline", func(t *testing.T) {
		c := dialRaw(t, addr)
		const n = 60000 // about 2.6 MB of input
		var b strings.Builder
		for i := range n {
			b.WriteString(multibulk("SET", "p:"+strconv.Itoa(i%100), strconv.Itoa(i)))
		}
		input := b.String()
		written := make(chan error, 1)
		go func() {
			// One write of everything; its deadline covers the time the
			// server takes to read it while the replies are read below.
			_ = c.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
			_, err := c.conn.Write([]byte(input))
			written <- err
		}()
		for i := range n {
			if got := c.read(); got != "+OK\r\n" {
				t.Fatalf("reply %d: %q", i, got)
			}
		}
		if err := <-written; err != nil {
			t.Fatalf("write: %v", err)
		}
		c.expect("$5\r\n59999\r\n", "GET", "p:99")
	})
}

// TestHalfClosedClientIsClosed: a client that sends a blocking command and
// shuts down its sending side with it has its end of input seen (the close
// arrives with the last bytes, one report for both): the server closes the
// connection and stops counting the client as blocked.
func TestHalfClosedClientIsClosed(t *testing.T) {
	s := testserver.Start(t)
	c := dialRaw(t, s.Addrs[0])
	c.expect("+PONG\r\n", "PING")
	c.write(multibulk("BLPOP", "half", "0"))
	if err := c.conn.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	c.expectClosed(10 * time.Second)

	admin := s.Client(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		blocked := infoField(t, admin, "clients", "blocked_clients")
		if blocked == "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocked_clients %q 10 s after the client closed", blocked)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
