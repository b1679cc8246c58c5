package integration_test

import (
	"io"
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

// TestHalfClosedClientGetsItsReplies: a client that sends its requests and
// shuts down its sending side at once (`printf 'SET k v\r\n' | nc -N`) gets
// every reply, then the server's close, as from redis-server. The end of
// input arrives with the requests, so the connection is closed while the
// shard still runs them: their replies must still be written.
func TestHalfClosedClientGetsItsReplies(t *testing.T) {
	s := testserver.Start(t)
	cases := []struct {
		name  string
		input func(i int) string
		want  func(i int) string
	}{
		{"write", func(i int) string { return multibulk("SET", "half:"+strconv.Itoa(i), "v") },
			func(int) string { return "+OK\r\n" }},
		{"pipeline", func(i int) string {
			k := "half:p:" + strconv.Itoa(i)
			return multibulk("SET", k, strconv.Itoa(i)) + multibulk("APPEND", k, "x") + multibulk("GET", k)
		}, func(i int) string {
			v := strconv.Itoa(i) + "x"
			return "+OK\r\n:" + strconv.Itoa(len(v)) + "\r\n$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n"
		}},
		{"protocol error", func(i int) string { return multibulk("SET", "half:e", "v") + "*1\r\n$x\r\n" },
			func(int) string { return "+OK\r\n-ERR Protocol error: invalid bulk length\r\n" }},
		{"inline", func(i int) string {
			return "SET half:i:" + strconv.Itoa(i) + " v\r\nGET half:i:" + strconv.Itoa(i) + "\r\n"
		},
			func(int) string { return "+OK\r\n$1\r\nv\r\n" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for i := range 50 {
				c := dialRaw(t, s.Addrs[0])
				c.write(tc.input(i))
				if err := c.conn.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
					t.Fatal(err)
				}
				_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
				got, err := io.ReadAll(c.r)
				if err != nil {
					t.Fatalf("round %d: reading until the server closes: %v (got %q)", i, err, got)
				}
				if want := tc.want(i); string(got) != want {
					t.Fatalf("round %d: got %q, want %q", i, got, want)
				}
				_ = c.conn.Close()
			}
		})
	}

	// A command that blocks is not answered once its client has left, as in
	// Redis, but what came before it is, and the connection is closed at
	// once rather than kept for a reply that will not come.
	t.Run("blocked", func(t *testing.T) {
		for i := range 20 {
			c := dialRaw(t, s.Addrs[0])
			c.write(multibulk("SET", "half:b", strconv.Itoa(i)) + multibulk("BLPOP", "half:empty", "0") + multibulk("GET", "half:b"))
			if err := c.conn.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			got, err := io.ReadAll(c.r)
			if err != nil {
				t.Fatalf("round %d: reading until the server closes: %v (got %q)", i, err, got)
			}
			if string(got) != "+OK\r\n" {
				t.Fatalf("round %d: got %q, want only SET's reply", i, got)
			}
			// lingerMax is 10 s: a close that waited for it came too late.
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("round %d: closed after %v", i, d)
			}
			_ = c.conn.Close()
		}
	})
}
