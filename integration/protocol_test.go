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
		r.expectReplies("PING\r\n", "+PONG\r\n")
		r.expectReplies("SET inline:a \"b c\"\r\n", "+OK\r\n")
		r.expect(bulk("b c"), "GET", "inline:a")
		// Single quotes, escapes and extra spaces.
		r.expectReplies("SET   inline:b   'x y'  \r\n", "+OK\r\n")
		r.expect(bulk("x y"), "GET", "inline:b")
		r.expectReplies("SET inline:c \"\\x41\\n\"\r\n", "+OK\r\n")
		r.expect(bulk("A\n"), "GET", "inline:c")
		// A bare LF ends an inline command too; empty lines are ignored.
		r.expectReplies("\r\n\r\nGET inline:b\n", bulk("x y"))
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
		r.expectReplies(":key\r\n", bulk("split-value"))
	})

	t.Run("malformed multibulk length closes", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expectReplies("*x\r\n", "-ERR Protocol error: invalid multibulk length\r\n")
		r.expectClosed(3 * time.Second)
	})

	t.Run("malformed bulk length closes", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expectReplies("*1\r\n$x\r\n", "-ERR Protocol error: invalid bulk length\r\n")
		r.expectClosed(3 * time.Second)
	})

	t.Run("missing dollar closes", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expectReplies("*1\r\nfoo\r\n", "-ERR Protocol error: expected '$', got 'f'\r\n")
		r.expectClosed(3 * time.Second)
	})

	t.Run("oversized lengths close", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expectReplies("*2\r\n$3\r\nGET\r\n$600000000\r\n", "-ERR Protocol error: invalid bulk length\r\n")
		r.expectClosed(3 * time.Second)
		r = dialRaw(t, s.Addr())
		r.expectReplies("*2000000\r\n", "-ERR Protocol error: invalid multibulk length\r\n")
		r.expectClosed(3 * time.Second)
	})

	t.Run("unbalanced quotes close", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expectReplies("SET a \"b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n")
		r.expectClosed(3 * time.Second)
	})

	t.Run("replies before a protocol error are sent", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expectReplies(multibulk("PING")+"*x\r\n", "+PONG\r\n", "-ERR Protocol error: invalid multibulk length\r\n")
		r.expectClosed(3 * time.Second)
	})

	t.Run("unknown command keeps the connection", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expect("-ERR unknown command 'foo', with args beginning with: 'bar' \r\n", "foo", "bar")
		r.expect("-ERR unknown command 'foo', with args beginning with: \r\n", "foo")
		r.expect("-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n", "foo", "a", "b")
		r.expectReplies("nosuchcmd x\r\n", "-ERR unknown command 'nosuchcmd', with args beginning with: 'x' \r\n")
		r.expect("+PONG\r\n", "PING")
		// Wrong arity keeps it open too.
		r.expect("-ERR wrong number of arguments for 'get' command\r\n", "GET")
		r.expect("+PONG\r\n", "PING")
	})

	t.Run("empty multibulk is ignored", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expectReplies("*0\r\n*-1\r\n"+multibulk("PING"), "+PONG\r\n")
	})

	t.Run("binary-safe values", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		v := "a\r\nb\x00c\xff"
		r.expect("+OK\r\n", "SET", "bin\x00key", v)
		r.expect(bulk(v), "GET", "bin\x00key")
	})
}
