package integration_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

func TestProtocol(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)

	t.Run("inline", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.write("PING\r\n")
		if got := r.read(); got != "+PONG\r\n" {
			t.Errorf("inline PING: %q", got)
		}
		r.write("SET inline:a \"b c\"\r\n")
		if got := r.read(); got != "+OK\r\n" {
			t.Errorf("inline SET with quotes: %q", got)
		}
		r.expect(bulk("b c"), "GET", "inline:a")
		// Single quotes, escapes and extra spaces.
		r.write("SET   inline:b   'x y'  \r\n")
		if got := r.read(); got != "+OK\r\n" {
			t.Errorf("inline SET with single quotes: %q", got)
		}
		r.expect(bulk("x y"), "GET", "inline:b")
		r.write("SET inline:c \"\\x41\\n\"\r\n")
		if got := r.read(); got != "+OK\r\n" {
			t.Errorf("inline SET with escapes: %q", got)
		}
		r.expect(bulk("A\n"), "GET", "inline:c")
		// A bare LF ends an inline command too; empty lines are ignored.
		r.write("\r\n\r\nGET inline:b\n")
		if got := r.read(); got != bulk("x y") {
			t.Errorf("inline GET after empty lines: %q", got)
		}
		// Inline and multibulk mixed in one write.
		r.write("PING\r\n" + multibulk("ECHO", "m") + "ECHO i\r\n")
		for _, want := range []string{"+PONG\r\n", bulk("m"), bulk("i")} {
			if got := r.read(); got != want {
				t.Errorf("mixed pipeline: want %q, got %q", want, got)
			}
		}
	})

	t.Run("pipelined replies in order", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		var req strings.Builder
		var want []string
		for i := 0; i < 200; i++ {
			n := strings.Repeat("x", i%7)
			req.WriteString(multibulk("SET", "pipe:"+n, n))
			want = append(want, "+OK\r\n")
			req.WriteString(multibulk("INCR", "pipe:counter"))
			want = append(want, ":"+strconv.Itoa(i+1)+"\r\n")
			req.WriteString(multibulk("GET", "pipe:"+n))
			want = append(want, bulk(n))
		}
		r.write(req.String())
		for i, w := range want {
			if got := r.read(); got != w {
				t.Fatalf("reply %d: want %q, got %q", i, w, got)
			}
		}
	})

	t.Run("request split across writes", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		req := multibulk("SET", "split:key", "split-value") + multibulk("GET", "split:key")
		for i := 0; i < len(req); i += 3 {
			end := min(i+3, len(req))
			r.write(req[i:end])
			time.Sleep(2 * time.Millisecond)
		}
		if got := r.read(); got != "+OK\r\n" {
			t.Errorf("split SET: %q", got)
		}
		if got := r.read(); got != bulk("split-value") {
			t.Errorf("split GET: %q", got)
		}
		// Nothing is answered before the request is complete.
		r.write("*2\r\n$3\r\nGET\r\n$9\r\nsplit")
		if got, err := r.tryRead(200 * time.Millisecond); err == nil {
			t.Fatalf("reply to an incomplete request: %q", got)
		}
		r.write(":key\r\n")
		if got := r.read(); got != bulk("split-value") {
			t.Errorf("GET completed after a pause: %q", got)
		}
	})

	t.Run("malformed multibulk length closes", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.write("*x\r\n")
		if got := r.read(); got != "-ERR Protocol error: invalid multibulk length\r\n" {
			t.Errorf("*x: %q", got)
		}
		r.expectClosed(3 * time.Second)
	})

	t.Run("malformed bulk length closes", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.write("*1\r\n$x\r\n")
		if got := r.read(); got != "-ERR Protocol error: invalid bulk length\r\n" {
			t.Errorf("$x: %q", got)
		}
		r.expectClosed(3 * time.Second)
	})

	t.Run("missing dollar closes", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.write("*1\r\nfoo\r\n")
		if got := r.read(); got != "-ERR Protocol error: expected '$', got 'f'\r\n" {
			t.Errorf("*1 foo: %q", got)
		}
		r.expectClosed(3 * time.Second)
	})

	t.Run("oversized lengths close", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.write("*2\r\n$3\r\nGET\r\n$600000000\r\n")
		if got := r.read(); got != "-ERR Protocol error: invalid bulk length\r\n" {
			t.Errorf("bulk above proto-max-bulk-len: %q", got)
		}
		r.expectClosed(3 * time.Second)
		r = dialRaw(t, s.Addr())
		r.write("*2000000\r\n")
		if got := r.read(); got != "-ERR Protocol error: invalid multibulk length\r\n" {
			t.Errorf("multibulk above 1048576: %q", got)
		}
		r.expectClosed(3 * time.Second)
	})

	t.Run("unbalanced quotes close", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.write("SET a \"b\r\n")
		if got := r.read(); got != "-ERR Protocol error: unbalanced quotes in request\r\n" {
			t.Errorf("unbalanced quotes: %q", got)
		}
		r.expectClosed(3 * time.Second)
	})

	t.Run("replies before a protocol error are sent", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.write(multibulk("PING") + "*x\r\n")
		if got := r.read(); got != "+PONG\r\n" {
			t.Errorf("PING before error: %q", got)
		}
		if got := r.read(); got != "-ERR Protocol error: invalid multibulk length\r\n" {
			t.Errorf("*x after PING: %q", got)
		}
		r.expectClosed(3 * time.Second)
	})

	t.Run("unknown command keeps the connection", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expect("-ERR unknown command 'foo', with args beginning with: 'bar' \r\n", "foo", "bar")
		r.expect("-ERR unknown command 'foo', with args beginning with: \r\n", "foo")
		r.expect("-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n", "foo", "a", "b")
		r.write("nosuchcmd x\r\n")
		if got := r.read(); got != "-ERR unknown command 'nosuchcmd', with args beginning with: 'x' \r\n" {
			t.Errorf("inline unknown command: %q", got)
		}
		r.expect("+PONG\r\n", "PING")
		// Wrong arity keeps it open too.
		r.expect("-ERR wrong number of arguments for 'get' command\r\n", "GET")
		r.expect("+PONG\r\n", "PING")
	})

	t.Run("empty multibulk is ignored", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.write("*0\r\n*-1\r\n" + multibulk("PING"))
		if got := r.read(); got != "+PONG\r\n" {
			t.Errorf("after *0: %q", got)
		}
	})

	t.Run("binary-safe values", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		v := "a\r\nb\x00c\xff"
		r.expect("+OK\r\n", "SET", "bin\x00key", v)
		r.expect(bulk(v), "GET", "bin\x00key")
	})
}
