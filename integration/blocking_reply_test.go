package integration_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/internal/testserver"
)

// A client that blocked under CLIENT REPLY SKIP or OFF gets no reply to
// the blocked command when it is served, times out or is unblocked, as
// with redis-server 7.0.15; its later commands reply as usual.
func TestBlockedReplyModes(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.UniversalClient(t)
	rc := dialRaw(t, s.Addr())
	id := strings.TrimSuffix(strings.TrimPrefix(rc.do("CLIENT", "ID"), ":"), "\r\n")
	rc.write(multibulk("CLIENT", "REPLY", "SKIP") + multibulk("BLPOP", "q", "0") + multibulk("PING"))
	waitBlocked(t, c, 1)
	expect(t, c, int64(1), "RPUSH", "q", "x")
	if got := rc.read(); got != "+PONG\r\n" {
		t.Fatalf("after a skipped BLPOP: %q", got)
	}

	rc.write(multibulk("CLIENT", "REPLY", "OFF") + multibulk("BLPOP", "q", "0"))
	waitBlocked(t, c, 1)
	expect(t, c, int64(1), "RPUSH", "q", "y") // served
	waitBlocked(t, c, 0)
	rc.send("BRPOP", "none", "0")
	waitBlocked(t, c, 1)
	expect(t, c, int64(1), "CLIENT", "UNBLOCK", id, "ERROR")
	waitBlocked(t, c, 0)
	rc.send("BLPOP", "q", "0.01") // times out; REPLY ON waits behind it
	rc.expect("+OK\r\n", "CLIENT", "REPLY", "ON")
	expect(t, c, int64(0), "LLEN", "q")
}
