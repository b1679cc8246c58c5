package integration_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// slowEntry is a decoded SLOWLOG GET entry.
type slowEntry struct {
	id, unix, us int64
	args         []string
	addr, name   string
}

func slowlogGet(t *testing.T, c cmdr, args ...interface{}) []slowEntry {
	t.Helper()
	v := value(t, c, append([]interface{}{"SLOWLOG", "GET"}, args...)...)
	var out []slowEntry
	for _, raw := range v.([]interface{}) {
		f := raw.([]interface{})
		if len(f) != 6 {
			t.Fatalf("entry of %d fields: %#v", len(f), f)
		}
		e := slowEntry{id: f[0].(int64), unix: f[1].(int64), us: f[2].(int64), addr: f[4].(string), name: f[5].(string)}
		for _, a := range f[3].([]interface{}) {
			e.args = append(e.args, a.(string))
		}
		out = append(out, e)
	}
	return out
}

func oneConn(t *testing.T, c *redis.Client) *redis.Conn {
	conn := c.Conn()
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func TestSlowlog(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := oneConn(t, s.Client(t))
	expect(t, c, map[interface{}]interface{}{"slowlog-log-slower-than": "10000"}, "CONFIG", "GET", "slowlog-log-slower-than")
	expect(t, c, map[interface{}]interface{}{"slowlog-max-len": "128"}, "CONFIG", "GET", "slowlog-max-len")
	expect(t, c, int64(0), "SLOWLOG", "LEN")
	expect(t, c, []interface{}{}, "SLOWLOG", "GET")

	expect(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "0")
	expect(t, c, "OK", "CLIENT", "SETNAME", "logger")
	expect(t, c, "OK", "SET", "k", "v")
	addr := regexp.MustCompile(`addr=(\S+)`).FindStringSubmatch(value(t, c, "CLIENT", "INFO").(string))[1]
	got := slowlogGet(t, c)
	// Newest first: CLIENT INFO, SET, CLIENT SETNAME, CONFIG SET.
	if len(got) != 4 {
		t.Fatalf("%d entries: %+v", len(got), got)
	}
	wantArgs := []string{"CLIENT INFO", "SET k v", "CLIENT SETNAME logger", "CONFIG SET slowlog-log-slower-than 0"}
	for i, e := range got {
		if strings.Join(e.args, " ") != wantArgs[i] || e.addr != addr || e.id != int64(3-i) || e.us < 0 || e.unix < 1e9 {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
	if got[0].name != "logger" || got[3].name != "" {
		t.Errorf("names %q %q", got[0].name, got[3].name)
	}

	// Limits: count, max-len, RESET.
	expect(t, c, "OK", "SLOWLOG", "RESET")
	expect(t, c, int64(1), "SLOWLOG", "LEN") // the RESET itself
	expect(t, c, "OK", "CONFIG", "SET", "slowlog-max-len", "3")
	for range 5 {
		expect(t, c, "PONG", "PING")
	}
	expect(t, c, int64(3), "SLOWLOG", "LEN")
	if n := len(slowlogGet(t, c, 0)); n != 0 {
		t.Errorf("GET 0: %d", n)
	}
	if n := len(slowlogGet(t, c, 1)); n != 1 {
		t.Errorf("GET 1: %d", n)
	}
	if n := len(slowlogGet(t, c, -1)); n != 3 {
		t.Errorf("GET -1: %d", n)
	}
	expectErr(t, c, "ERR count should be greater than or equal to -1", "SLOWLOG", "GET", -2)
	expectErr(t, c, "ERR value is not an integer or out of range", "SLOWLOG", "GET", "x")
	expectErr(t, c, "ERR unknown subcommand 'NOPE'. Try SLOWLOG HELP.", "SLOWLOG", "NOPE")
	expectErr(t, c, "ERR wrong number of arguments for 'slowlog|len' command", "SLOWLOG", "LEN", "x")

	// Arguments are cut as Redis cuts them.
	expect(t, c, "OK", "CONFIG", "SET", "slowlog-max-len", "128")
	expect(t, c, "OK", "SLOWLOG", "RESET")
	many := []interface{}{"SADD", "set"}
	for i := 3; i <= 33; i++ {
		many = append(many, i)
	}
	expect(t, c, int64(31), many...)
	long := strings.Repeat("A", 129)
	expect(t, c, int64(2), "SADD", "set2", "foo", long)
	got = slowlogGet(t, c)
	if a := got[1].args; len(a) != 32 || a[30] != "31" || a[31] != "... (2 more arguments)" {
		t.Errorf("many args: %q", a)
	}
	if a := got[0].args; len(a) != 4 || a[3] != strings.Repeat("A", 128)+"... (1 more bytes)" {
		t.Errorf("long arg: %q", a)
	}

	// Secrets are redacted; EXEC is not logged, its commands are.
	expect(t, c, "OK", "SLOWLOG", "RESET")
	expectErr(t, c, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "someone", "secret")
	expect(t, c, "OK", "ACL", "SETUSER", "slow-user", "+get", ">pw")
	expect(t, c, "OK", "MULTI")
	expect(t, c, "QUEUED", "INCR", "n")
	expect(t, c, []interface{}{int64(1)}, "EXEC")
	got = slowlogGet(t, c)
	var lines []string
	for _, e := range got {
		lines = append(lines, strings.Join(e.args, " "))
	}
	want := "INCR n|MULTI|ACL SETUSER (redacted) (redacted) (redacted)|AUTH (redacted) (redacted)|SLOWLOG RESET"
	if strings.Join(lines, "|") != want {
		t.Errorf("got  %q\nwant %q", strings.Join(lines, "|"), want)
	}

	// A threshold above the command's time logs nothing; -1 turns it off.
	expect(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "10000000")
	expect(t, c, "OK", "SLOWLOG", "RESET")
	expect(t, c, "PONG", "PING")
	expect(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "-1")
	expect(t, c, "PONG", "PING")
	expect(t, c, int64(0), "SLOWLOG", "LEN")
	expectErr(t, c, "ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - argument must be between -1 and 9223372036854775807 inclusive", "CONFIG", "SET", "slowlog-log-slower-than", "-2")
}

// Each shard keeps its own slow log, as each node of a cluster does.
func TestSlowlogPerShard(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(2))
	a, b := s.ClientOf(t, 0), s.ClientOf(t, 1)
	expect(t, a, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "0")
	expect(t, a, "OK", "SLOWLOG", "RESET")
	expect(t, b, "OK", "SLOWLOG", "RESET")
	expect(t, a, "PONG", "PING")
	if n := a.Do(ctxT(t), "SLOWLOG", "LEN").Val(); n != int64(2) {
		t.Errorf("shard 0 LEN %v", n)
	}
	if n := b.Do(ctxT(t), "SLOWLOG", "LEN").Val(); n != int64(1) {
		t.Errorf("shard 1 LEN %v", n)
	}
}

// A blocked command is logged once it is served or ended by CLIENT
// UNBLOCK, under its own arguments and client, after what ran meanwhile;
// one that times out is not logged, as in Redis 7.0.
func TestSlowlogBlockedCommands(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := oneConn(t, s.Client(t))
	expect(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "0")
	rc := dialRaw(t, s.Addr())
	rc.expect("+OK\r\n", "CLIENT", "SETNAME", "waiter")
	rc.send("BLPOP", "l", "0")
	waitBlocked(t, c, 1)
	expect(t, c, "OK", "MULTI")
	expect(t, c, "QUEUED", "LPUSH", "l", "foo")
	expect(t, c, "QUEUED", "SLOWLOG", "RESET")
	expect(t, c, []interface{}{int64(1), "OK"}, "EXEC")
	if got := rc.read(); got != "*2\r\n$1\r\nl\r\n$3\r\nfoo\r\n" {
		t.Fatalf("BLPOP: %q", got)
	}
	got := slowlogGet(t, c)
	if len(got) == 0 || strings.Join(got[0].args, " ") != "BLPOP l 0" || got[0].name != "waiter" {
		t.Fatalf("newest entry after serving: %+v", got)
	}

	expect(t, c, "OK", "SLOWLOG", "RESET")
	rc.expect("*-1\r\n", "BLPOP", "l", "0.01")
	for _, e := range slowlogGet(t, c) {
		if strings.EqualFold(e.args[0], "blpop") {
			t.Fatalf("timed-out BLPOP logged: %+v", e)
		}
	}

	id := regexp.MustCompile(`id=(\d+)`).FindStringSubmatch(rc.do("CLIENT", "INFO"))[1]
	rc.send("BRPOP", "none", "0")
	waitBlocked(t, c, 1)
	expect(t, c, "OK", "SLOWLOG", "RESET")
	expect(t, c, int64(1), "CLIENT", "UNBLOCK", id)
	if got := rc.read(); got != "*-1\r\n" {
		t.Fatalf("unblocked BRPOP: %q", got)
	}
	got = slowlogGet(t, c)
	if len(got) < 2 || strings.Join(got[0].args, " ") != "CLIENT UNBLOCK "+id || strings.Join(got[1].args, " ") != "BRPOP none 0" {
		t.Fatalf("after CLIENT UNBLOCK: %+v", got)
	}
}
