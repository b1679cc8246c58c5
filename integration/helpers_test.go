// Package integration_test drives in-process Ruvio servers through go-redis v9
// and raw TCP connections and checks the exact replies Redis 7 gives.
package integration_test

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Reply texts, in Redis 7's wording.
const (
	errSyntax    = "ERR syntax error"
	errNotInt    = "ERR value is not an integer or out of range"
	errFloat     = "ERR value is not a valid float"
	errOverflw   = "ERR increment or decrement would overflow"
	errWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
)

// errArity is the reply to a command with the wrong number of arguments.
func errArity(cmd string) string {
	return "ERR wrong number of arguments for '" + cmd + "' command"
}

// ctxT returns the context of one request: its own 20-second deadline from
// now, cancelled at the latest when the test ends. Call it for each request,
// never once for a loop of them: on a busy machine a shared budget runs out
// however fast each request is.
func ctxT(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// requestTimeout is the socket deadline of one request of a test's own
// client, as generous as the test servers' clients: go-redis's default read
// deadline of 3 s is too short for a busy CI machine.
const requestTimeout = 30 * time.Second

// clientTimeouts sets the dial, read and write timeouts o leaves unset to
// requestTimeout.
func clientTimeouts(o *redis.Options) *redis.Options {
	o.DialTimeout = cmp.Or(o.DialTimeout, requestTimeout)
	o.ReadTimeout = cmp.Or(o.ReadTimeout, requestTimeout)
	o.WriteTimeout = cmp.Or(o.WriteTimeout, requestTimeout)
	return o
}

// clusterTimeouts is clientTimeouts for a cluster client.
func clusterTimeouts(o *redis.ClusterOptions) *redis.ClusterOptions {
	o.DialTimeout = cmp.Or(o.DialTimeout, requestTimeout)
	o.ReadTimeout = cmp.Or(o.ReadTimeout, requestTimeout)
	o.WriteTimeout = cmp.Or(o.WriteTimeout, requestTimeout)
	return o
}

// cmdr is what both redis.Client and redis.Conn offer for raw commands.
type cmdr interface {
	Do(ctx context.Context, args ...interface{}) *redis.Cmd
}

func argv(args []interface{}) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = fmt.Sprint(a)
	}
	return strings.Join(parts, " ")
}

// expect runs args and checks the reply equals want (go-redis decoded form).
func expect(t testing.TB, c cmdr, want interface{}, args ...interface{}) {
	t.Helper()
	got, err := c.Do(ctxT(t), args...).Result()
	if want == nil {
		if !errors.Is(err, redis.Nil) {
			t.Errorf("%s: want nil, got %#v (err %v)", argv(args), got, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: want %#v, got error %q", argv(args), want, err)
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: want %#v, got %#v", argv(args), want, got)
	}
}

// expectErr runs args and checks the error text is exactly want.
func expectErr(t testing.TB, c cmdr, want string, args ...interface{}) {
	t.Helper()
	got, err := c.Do(ctxT(t), args...).Result()
	if err == nil || errors.Is(err, redis.Nil) {
		t.Errorf("%s: want error %q, got %#v (err %v)", argv(args), want, got, err)
		return
	}
	if err.Error() != want {
		t.Errorf("%s: want error %q, got %q", argv(args), want, err.Error())
	}
}

// value runs args and returns the reply, failing the test on error.
func value(t testing.TB, c cmdr, args ...interface{}) interface{} {
	t.Helper()
	got, err := c.Do(ctxT(t), args...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("%s: %v", argv(args), err)
	}
	return got
}

// ttlIn checks that key's PTTL is within [minMs, maxMs].
func ttlIn(t *testing.T, c cmdr, key string, minMs, maxMs int64) {
	t.Helper()
	p := intValue(t, c, "PTTL", key)
	if p < minMs || p > maxMs {
		t.Errorf("PTTL %s = %d, want in [%d, %d]", key, p, minMs, maxMs)
	}
}

// intValue runs args and returns the integer reply.
func intValue(t testing.TB, c cmdr, args ...interface{}) int64 {
	t.Helper()
	v := value(t, c, args...)
	n, ok := v.(int64)
	if !ok {
		t.Fatalf("%s: want an integer, got %#v", argv(args), v)
	}
	return n
}

// ---- raw RESP over TCP ----

type rawConn struct {
	t    testing.TB
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{t: t, conn: c, r: bufio.NewReader(c)}
}

// write sends bytes verbatim.
func (rc *rawConn) write(s string) {
	rc.t.Helper()
	_ = rc.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(rc.conn, s); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// multibulk encodes args as a RESP array of bulk strings.
func multibulk(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

// send writes one multibulk command.
func (rc *rawConn) send(args ...string) { rc.t.Helper(); rc.write(multibulk(args...)) }

// read returns the raw bytes of the next complete reply (nested aggregates
// included), waiting at most 5 seconds.
func (rc *rawConn) read() string {
	rc.t.Helper()
	s, err := rc.tryRead(5 * time.Second)
	if err != nil {
		rc.t.Fatalf("read reply: %v (got %q)", err, s)
	}
	return s
}

func (rc *rawConn) tryRead(d time.Duration) (string, error) {
	_ = rc.conn.SetReadDeadline(time.Now().Add(d))
	var b strings.Builder
	err := readReply(rc.r, &b)
	return b.String(), err
}

// do sends args and returns the raw reply.
func (rc *rawConn) do(args ...string) string {
	rc.t.Helper()
	rc.send(args...)
	return rc.read()
}

// expectReplies writes input verbatim and checks the raw replies that
// follow, in order.
func (rc *rawConn) expectReplies(input string, want ...string) {
	rc.t.Helper()
	rc.write(input)
	for i, w := range want {
		if got := rc.read(); got != w {
			rc.t.Errorf("%q: reply %d: want %q, got %q", input, i+1, w, got)
		}
	}
}

// expect sends args and checks the raw reply.
func (rc *rawConn) expect(want string, args ...string) {
	rc.t.Helper()
	if got := rc.do(args...); got != want {
		rc.t.Errorf("%s: want %q, got %q", strings.Join(args, " "), want, got)
	}
}

// expectClosed checks that the server closes the connection (EOF or reset)
// within d, ignoring any bytes still in flight before the close.
func (rc *rawConn) expectClosed(d time.Duration) {
	rc.t.Helper()
	_ = rc.conn.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 64<<10)
	for {
		_, err := rc.r.Read(buf)
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			rc.t.Fatalf("connection still open after %v", d)
		}
		return // EOF or reset
	}
}

func readLine(r *bufio.Reader, b *strings.Builder) (string, error) {
	line, err := r.ReadString('\n')
	b.WriteString(line)
	if err != nil {
		return line, err
	}
	if !strings.HasSuffix(line, "\r\n") {
		return line, fmt.Errorf("line without CRLF: %q", line)
	}
	return line[:len(line)-2], nil
}

func readReply(r *bufio.Reader, b *strings.Builder) error {
	line, err := readLine(r, b)
	if err != nil {
		return err
	}
	if line == "" {
		return fmt.Errorf("empty reply line")
	}
	switch line[0] {
	case '+', '-', ':', ',', '#', '_', '(':
		return nil
	case '$', '=', '!':
		n, err := strconv.Atoi(line[1:])
		if err != nil {
			return err
		}
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		b.Write(buf)
		return nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(line[1:])
		if err != nil {
			return err
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := readReply(r, b); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown reply type %q", line)
}

// bulk is the RESP encoding of a bulk string.
func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// arr is the RESP encoding of an array of already-encoded elements.
func arr(elems ...string) string {
	return "*" + strconv.Itoa(len(elems)) + "\r\n" + strings.Join(elems, "")
}
