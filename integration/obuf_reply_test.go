package integration_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// hugeCountCommands are replies whose size only a count decides: billions
// of members of a three-member key, in each encoding of the key.
var hugeCountCommands = [][]interface{}{
	{"SRANDMEMBER", "s", "-2000000000"},  // small
	{"SRANDMEMBER", "si", "-2000000000"}, // intset
	{"SRANDMEMBER", "sb", "-2000000000"}, // hash table
	{"ZRANDMEMBER", "z", "-2000000000"},
	{"ZRANDMEMBER", "zb", "-1000000000", "WITHSCORES"},
	{"HRANDFIELD", "h", "-2000000000", "WITHVALUES"},
	{"HRANDFIELD", "hb", "-2000000000"},
}

// fillRandomKeys creates the keys hugeCountCommands read: s, si, z and h
// in their compact encodings, sb, zb and hb with 1000 members in the large
// ones.
func fillRandomKeys(t *testing.T, c *redis.Client) {
	t.Helper()
	expect(t, c, int64(3), "SADD", "s", "a", "b", "c")
	expect(t, c, int64(3), "SADD", "si", "1", "2", "3")
	expect(t, c, int64(3), "ZADD", "z", "1", "a", "2", "b", "3", "c")
	expect(t, c, int64(3), "HSET", "h", "a", "1", "b", "2", "c", "3")
	sb := []interface{}{"SADD", "sb"}
	zb := []interface{}{"ZADD", "zb"}
	hb := []interface{}{"HSET", "hb"}
	for i := 0; i < 1000; i++ {
		m := "m" + strconv.Itoa(i)
		sb = append(sb, m)
		zb = append(zb, strconv.Itoa(i), m)
		hb = append(hb, m, strconv.Itoa(i))
	}
	expect(t, c, int64(1000), sb...)
	expect(t, c, int64(1000), zb...)
	expect(t, c, int64(1000), hb...)
	for k, enc := range map[string]string{"si": "intset", "sb": "hashtable", "z": "listpack", "zb": "skiplist", "h": "listpack", "hb": "hashtable"} {
		expect(t, c, enc, "OBJECT", "ENCODING", k)
	}
}

// closedBy runs args on a connection of its own and returns the error the
// server's closing it gave (nil if it replied). The 30 s deadline only
// keeps a broken server from hanging the test.
func closedBy(t *testing.T, addr string, args ...interface{}) error {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true, PoolSize: 1,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Do(ctx, args...).Result()
	return err
}

// isClosed reports whether err is the server closing the connection.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// A reply that a count alone makes huge (SRANDMEMBER key -2000000000 on a
// three-member set would be 14 GB) closes the client at its class's hard
// limit while it is being built: the server logs and counts it, its memory
// stays where it was, and it answers others at once.
func TestHugeCountReplyClosesClient(t *testing.T) {
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "no"})
	c := p.Client(t, 0)
	expect(t, c, "OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
	fillRandomKeys(t, c)
	base := rssBytes(t, p.Pid())
	stop := make(chan struct{})
	peak := sampleRSS(t, p.Pid(), stop)
	for _, args := range hugeCountCommands {
		if err := closedBy(t, p.Addrs[0], args...); !isClosed(err) {
			t.Errorf("%s: want the connection closed, got %v", argv(args), err)
		}
		expect(t, c, "PONG", "PING")
	}
	close(stop)
	grew := <-peak - base
	n := len(hugeCountCommands)
	out := waitOutput(t, p, `"limit": "hard"`)
	for deadline := time.Now().Add(10 * time.Second); strings.Count(out, "output buffer limit reached") < n && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		out = p.Output()
	}
	if got := strings.Count(out, "output buffer limit reached"); got != n {
		t.Errorf("%d log lines for %d clients:\n%s", got, n, out)
	}
	for _, f := range []string{`"class": "normal"`, `"limit_bytes": 1048576`} {
		if strings.Count(out, f) != n {
			t.Errorf("log lines lack %s:\n%s", f, out)
		}
	}
	if got := infoInt(t, c, "stats", "client_output_buffer_limit_disconnections"); got != int64(n) {
		t.Errorf("client_output_buffer_limit_disconnections = %d, want %d", got, n)
	}
	used := infoInt(t, c, "memory", "used_memory")
	t.Logf("RSS %d MB, grew by at most %d MB; used_memory %d KB", base>>20, grew>>20, used>>10)
	if used > 32<<20 {
		t.Errorf("used_memory %d after the huge replies", used)
	}
	// A reply is stopped a few bytes past 1 MB; what is left is the GC's
	// slack and the runtime.
	if grew > 64<<20 {
		t.Errorf("the server grew by %d MB building replies it dropped", grew>>20)
	}
	expect(t, c, int64(3), "SCARD", "s") // nothing changed
}

// Replies under the limit are whole and exact, in both protocols; one a
// little over it closes the client.
func TestCountReplyUnderLimitIsExact(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
	fillRandomKeys(t, c)
	for _, proto := range []int{2, 3} {
		rc := redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), Protocol: proto, MaxRetries: -1, DisableIdentity: true}))
		t.Cleanup(func() { _ = rc.Close() })
		// 100,000 members of 1 byte: 700 KB.
		ms, err := rc.Do(ctxT(t), "SRANDMEMBER", "s", "-100000").StringSlice()
		if err != nil || len(ms) != 100000 {
			t.Fatalf("RESP%d SRANDMEMBER s -100000: %d members, %v", proto, len(ms), err)
		}
		for _, m := range ms {
			if m != "a" && m != "b" && m != "c" {
				t.Fatalf("RESP%d SRANDMEMBER gave %q", proto, m)
			}
		}
		// 40,000 pairs with scores: about 800 KB in RESP2.
		zs, err := rc.ZRandMemberWithScores(ctxT(t), "zb", -40000).Result()
		if err != nil || len(zs) != 40000 {
			t.Fatalf("RESP%d ZRANDMEMBER zb -40000 WITHSCORES: %d pairs, %v", proto, len(zs), err)
		}
		for _, z := range zs {
			if want := "m" + strconv.Itoa(int(z.Score)); z.Member != want {
				t.Fatalf("RESP%d ZRANDMEMBER gave %v", proto, z)
			}
		}
		hs, err := rc.HRandFieldWithValues(ctxT(t), "hb", -40000).Result()
		if err != nil || len(hs) != 40000 {
			t.Fatalf("RESP%d HRANDFIELD hb -40000 WITHVALUES: %d pairs, %v", proto, len(hs), err)
		}
		for _, kv := range hs {
			if kv.Key != "m"+kv.Value {
				t.Fatalf("RESP%d HRANDFIELD gave %v", proto, kv)
			}
		}
		// Positive counts past the size: every member once, in full.
		if ms, err := rc.Do(ctxT(t), "SRANDMEMBER", "sb", "5000").StringSlice(); err != nil || len(ms) != 1000 {
			t.Fatalf("RESP%d SRANDMEMBER sb 5000: %d members, %v", proto, len(ms), err)
		}
		expect(t, rc, "PONG", "PING")
	}
	// 160,000 members: 1.1 MB, a little over the limit.
	if err := closedBy(t, s.Addr(), "SRANDMEMBER", "s", "-160000"); !isClosed(err) {
		t.Errorf("SRANDMEMBER s -160000: want the connection closed, got %v", err)
	}
	expect(t, c, "PONG", "PING")
}

// A huge reply inside EXEC closes the client too; the transaction still
// runs whole (its writes are not undone), as in Redis, where the commands
// of a client closed for its output run and their replies are dropped.
func TestHugeCountReplyInsideExec(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
	fillRandomKeys(t, c)
	tc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DisableIdentity: true, PoolSize: 1,
		ReadTimeout: 30 * time.Second})
	t.Cleanup(func() { _ = tc.Close() })
	conn := tc.Conn()
	t.Cleanup(func() { _ = conn.Close() })
	expect(t, conn, "OK", "MULTI")
	expect(t, conn, "QUEUED", "SET", "before", "1")
	expect(t, conn, "QUEUED", "SRANDMEMBER", "s", "-2000000000")
	expect(t, conn, "QUEUED", "HRANDFIELD", "hb", "-2000000000", "WITHVALUES")
	expect(t, conn, "QUEUED", "SET", "after", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Do(ctx, "EXEC").Result(); !isClosed(err) {
		t.Fatalf("EXEC: want the connection closed, got %v", err)
	}
	expect(t, c, "1", "GET", "before")
	expect(t, c, "1", "GET", "after")
	if got := infoInt(t, c, "stats", "client_output_buffer_limit_disconnections"); got != 1 {
		t.Errorf("client_output_buffer_limit_disconnections = %d, want 1", got)
	}
}

// A command a script calls builds its reply for the script, on its
// caller's behalf: it is bounded by the caller's hard limit, and past it
// the call fails with an error the script sees, while the caller stays
// connected.
func TestHugeCountReplyInsideScript(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
	fillRandomKeys(t, c)
	const tooLarge = "ERR the reply of 'srandmember' exceeds 1048576 bytes, the hard client-output-buffer-limit of the script's caller"
	expect(t, c, tooLarge, "EVAL", "return redis.pcall('SRANDMEMBER', KEYS[1], -2000000000)['err']", "1", "s")
	got, err := c.Do(ctxT(t), "EVAL", "return #redis.call('SRANDMEMBER', KEYS[1], -2000000000)", "1", "s").Result()
	if err == nil || !strings.HasPrefix(err.Error(), tooLarge+" script: ") {
		t.Errorf("EVAL redis.call: want %q and the script, got %v (err %v)", tooLarge, got, err)
	}
	// Under the limit the script gets the whole reply.
	expect(t, c, int64(100000), "EVAL", "return #redis.call('SRANDMEMBER', KEYS[1], -100000)", "1", "s")
	expect(t, c, "PONG", "PING")
	if got := infoInt(t, c, "stats", "client_output_buffer_limit_disconnections"); got != 0 {
		t.Errorf("client_output_buffer_limit_disconnections = %d, want 0", got)
	}
}

// A class without a hard limit (Redis's normal default, hard 0) is held to
// limits.max_reply_size instead; the log line names that limit.
func TestHugeCountReplyWithoutHardLimit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ruvio.toml")
	if err := os.WriteFile(file, []byte("[limits]\nmax_reply_size = \"2mb\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Fsync: "no", Args: []string{"--config", file}})
	c := s.Client(t, 0)
	expect(t, c, "OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0")
	fillRandomKeys(t, c)
	// 200,000 members: 1.4 MB, under the bound.
	if n, err := c.Do(ctxT(t), "SRANDMEMBER", "s", "-200000").StringSlice(); err != nil || len(n) != 200000 {
		t.Fatalf("SRANDMEMBER s -200000: %d members, %v", len(n), err)
	}
	for _, args := range hugeCountCommands {
		if err := closedBy(t, s.Addrs[0], args...); !isClosed(err) {
			t.Errorf("%s: want the connection closed, got %v", argv(args), err)
		}
	}
	expect(t, c, "PONG", "PING")
	if got := infoInt(t, c, "stats", "client_output_buffer_limit_disconnections"); got != int64(len(hugeCountCommands)) {
		t.Errorf("client_output_buffer_limit_disconnections = %d, want %d", got, len(hugeCountCommands))
	}
	out := waitOutput(t, s, `"limit": "reply"`)
	for _, f := range []string{`"class": "normal"`, `"limit_bytes": 2097152`} {
		if !strings.Contains(out, f) {
			t.Errorf("log line lacks %s:\n%s", f, out)
		}
	}
	// A script's calls are bounded alike.
	expect(t, c, "ERR the reply of 'srandmember' exceeds 2097152 bytes, the largest reply the server builds",
		"EVAL", "return redis.pcall('SRANDMEMBER', KEYS[1], -2000000000)['err']", "1", "s")
}
