package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestWaitParksAsBlockedClient: WAIT parks with the blocking facility, so
// a WAIT that cannot be satisfied (no replica ever acknowledges) is a
// blocked client as Redis 7.0 has it: INFO blocked_clients and the
// timeout table count it, CLIENT LIST shows flag b, CLIENT UNBLOCK
// TIMEOUT replies the count so far and ERROR the UNBLOCKED error, the
// client's later commands wait behind it, a disconnect or CLIENT KILL
// forgets it, and it waits beside a BLPOP client. With four shards the
// CLIENT UNBLOCK comes from another shard.
func TestWaitParksAsBlockedClient(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(map[int]string{1: "1shard", 4: "4shards"}[shards], func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, testserver.Shards(shards))
			c := s.ClientOf(t, 0)
			other := s.ClientOf(t, shards-1) // another shard with four
			id := func(rc *rawConn) string {
				return strings.TrimSuffix(strings.TrimPrefix(rc.do("CLIENT", "ID"), ":"), "\r\n")
			}

			// Nothing to wait for, or not allowed to block: at once.
			expect(t, c, int64(0), "WAIT", "0", "0")
			expectErr(t, c, "ERR timeout is negative", "WAIT", "1", "-1")
			conn := c.Conn()
			conn.Do(ctxT(t), "MULTI")
			conn.Do(ctxT(t), "WAIT", "1", "0")
			if v, err := conn.Do(ctxT(t), "EXEC").Slice(); err != nil || len(v) != 1 || v[0] != int64(0) {
				t.Fatalf("WAIT inside MULTI: %v %v", v, err)
			}
			conn.Close()

			rc := dialRaw(t, s.Addrs[0])
			rid := id(rc)
			rc.write(multibulk("WAIT", "1", "0") + multibulk("PING"))
			waitBlocked(t, c, 1)
			list := value(t, c, "CLIENT", "LIST", "ID", rid).(string)
			if !strings.Contains(list, " flags=b ") || !strings.Contains(list, " cmd=wait ") {
				t.Fatalf("CLIENT LIST of a client in WAIT: %q", list)
			}
			if info := value(t, c, "INFO", "clients").(string); !strings.Contains(info, "clients_in_timeout_table:0\r\n") {
				t.Fatalf("WAIT without timeout in the timeout table: %q", info)
			}
			rc.expectNoReply(50 * time.Millisecond)
			// Others are served meanwhile.
			expect(t, c, "PONG", "PING")
			expect(t, other, int64(1), "CLIENT", "UNBLOCK", rid)
			if got := rc.read(); got != ":0\r\n" {
				t.Fatalf("CLIENT UNBLOCK of WAIT: %q", got)
			}
			if got := rc.read(); got != "+PONG\r\n" {
				t.Fatalf("command behind WAIT: %q", got)
			}
			waitBlocked(t, c, 0)

			// A deadline: in the timeout table; UNBLOCK ERROR.
			rc.send("WAIT", "1", "100000")
			waitBlocked(t, c, 1)
			if info := value(t, c, "INFO", "clients").(string); !strings.Contains(info, "clients_in_timeout_table:1\r\n") {
				t.Fatalf("WAIT with a timeout not in the timeout table: %q", info)
			}
			expect(t, other, int64(1), "CLIENT", "UNBLOCK", rid, "ERROR")
			if got := rc.read(); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
				t.Fatalf("CLIENT UNBLOCK ERROR of WAIT: %q", got)
			}
			waitBlocked(t, c, 0)
			expect(t, other, int64(0), "CLIENT", "UNBLOCK", rid)

			// The deadline passes.
			start := time.Now()
			if got := rc.do("WAIT", "1", "150"); got != ":0\r\n" {
				t.Fatalf("WAIT 1 150: %q", got)
			}
			if el := time.Since(start); el < 150*time.Millisecond || el > 5*time.Second {
				t.Fatalf("WAIT 1 150 returned after %v", el)
			}

			// Beside a client blocked in BLPOP; both counted.
			_, owner := ownerOf(t, redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: 3, DisableIdentity: true})), "{w}list")
			bl := dialRaw(t, s.Addrs[owner])
			bl.send("BLPOP", "{w}list", "0")
			rc.send("WAIT", "1", "0")
			waitBlocked(t, c, 2)
			expect(t, s.ClientOf(t, int(owner)), int64(1), "RPUSH", "{w}list", "x")
			if got := bl.read(); got != "*2\r\n$7\r\n{w}list\r\n$1\r\nx\r\n" {
				t.Fatalf("BLPOP beside a WAIT: %q", got)
			}
			waitBlocked(t, c, 1)

			// CLIENT KILL and a disconnect forget a client in WAIT.
			expect(t, other, int64(1), "CLIENT", "KILL", "ID", rid)
			rc.expectClosed(5 * time.Second)
			waitBlocked(t, c, 0)
			gone := dialRaw(t, s.Addrs[0])
			gone.send("WAIT", "1", "0")
			waitBlocked(t, c, 1)
			gone.conn.Close()
			waitBlocked(t, c, 0)
			expect(t, c, "PONG", "PING")
		})
	}
}
