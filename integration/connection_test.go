package integration_test

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

func TestConnectionCommands(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)

	t.Run("PING", func(t *testing.T) {
		expect(t, c, "PONG", "PING")
		expect(t, c, "hello world", "PING", "hello world")
		expectErr(t, c, "ERR wrong number of arguments for 'ping' command", "PING", "a", "b")
		r := dialRaw(t, s.Addr())
		r.expect("+PONG\r\n", "PING")
		r.expect("$2\r\nhi\r\n", "PING", "hi")
		r.expect("$0\r\n\r\n", "PING", "")
	})

	t.Run("ECHO", func(t *testing.T) {
		expect(t, c, "hello", "ECHO", "hello")
		expect(t, c, "", "ECHO", "")
		expectErr(t, c, "ERR wrong number of arguments for 'echo' command", "ECHO")
		expectErr(t, c, "ERR wrong number of arguments for 'echo' command", "ECHO", "a", "b")
	})

	t.Run("QUIT", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expect("+OK\r\n", "QUIT")
		r.expectClosed(3 * time.Second)

		// Commands pipelined before QUIT are answered; nothing after.
		r = dialRaw(t, s.Addr())
		r.expectReplies(multibulk("PING")+multibulk("QUIT")+multibulk("PING"), "+PONG\r\n", "+OK\r\n")
		r.expectClosed(3 * time.Second)
	})

	t.Run("HELLO", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		idReply := r.do("CLIENT", "ID")
		id := strings.TrimSuffix(strings.TrimPrefix(idReply, ":"), "\r\n")
		want2 := arr(bulk("server"), bulk("redis"), bulk("version"), "", bulk("proto"), ":2\r\n",
			bulk("id"), ":"+id+"\r\n", bulk("mode"), bulk("standalone"), bulk("role"), bulk("master"),
			bulk("modules"), "*0\r\n")
		got := r.do("HELLO", "2")
		// The version is not fixed; check it looks like 7.x.y and splice it in.
		m := regexp.MustCompile(`\$7\r\nversion\r\n(\$\d+\r\n(7\.\d+\.\d+)\r\n)`).FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("HELLO 2: no 7.x.y version in %q", got)
		}
		want2 = strings.Replace(want2, bulk("version"), bulk("version")+m[1], 1)
		if got != want2 {
			t.Errorf("HELLO 2:\n got %q\nwant %q", got, want2)
		}
		version := m[2]

		want3 := "%7\r\n" + bulk("server") + bulk("redis") + bulk("version") + bulk(version) +
			bulk("proto") + ":3\r\n" + bulk("id") + ":" + id + "\r\n" + bulk("mode") + bulk("standalone") +
			bulk("role") + bulk("master") + bulk("modules") + "*0\r\n"
		if got := r.do("HELLO", "3"); got != want3 {
			t.Errorf("HELLO 3:\n got %q\nwant %q", got, want3)
		}
		// RESP3 is now in effect: a missing key is _ (null), not $-1.
		r.expect("_\r\n", "GET", "hello:missing")
		// HELLO without a version keeps the current protocol.
		if got := r.do("HELLO"); !strings.HasPrefix(got, "%7\r\n") || !strings.Contains(got, bulk("proto")+":3\r\n") {
			t.Errorf("HELLO (no version) after HELLO 3: %q", got)
		}
		r.expect("-NOPROTO unsupported protocol version\r\n", "HELLO", "4")
		r.expect("-NOPROTO unsupported protocol version\r\n", "HELLO", "1")
		r.expect("-ERR Protocol version is not an integer or out of range\r\n", "HELLO", "x")
		// Back to RESP2.
		if got := r.do("HELLO", "2", "SETNAME", "hello-client"); !strings.HasPrefix(got, "*14\r\n") {
			t.Errorf("HELLO 2 SETNAME: %q", got)
		}
		r.expect("$-1\r\n", "GET", "hello:missing")
		r.expect(bulk("hello-client"), "CLIENT", "GETNAME")
		r.expect("-ERR Syntax error in HELLO option 'foo'\r\n", "HELLO", "3", "foo")
		// A failed HELLO leaves the protocol unchanged.
		r.expect("$-1\r\n", "GET", "hello:missing")
	})

	t.Run("AUTH without password", func(t *testing.T) {
		expectErr(t, c, "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?", "AUTH", "secret")
		expectErr(t, c, "ERR wrong number of arguments for 'auth' command", "AUTH")
	})

	t.Run("SELECT", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		for i := 0; i < 16; i++ {
			r.expect("+OK\r\n", "SELECT", strconv.Itoa(i))
		}
		r.expect("-ERR DB index is out of range\r\n", "SELECT", "16")
		r.expect("-ERR DB index is out of range\r\n", "SELECT", "-1")
		r.expect("-ERR value is not an integer or out of range\r\n", "SELECT", "x")
		r.expect("-ERR wrong number of arguments for 'select' command\r\n", "SELECT")
		// Databases are separate.
		r.expect("+OK\r\n", "SELECT", "5")
		r.expect("+OK\r\n", "SET", "sel", "five")
		r.expect("+OK\r\n", "SELECT", "0")
		r.expect("$-1\r\n", "GET", "sel")
		r.expect("+OK\r\n", "SELECT", "5")
		r.expect(bulk("five"), "GET", "sel")
		r.expect("+OK\r\n", "FLUSHDB")
	})

	t.Run("CLIENT", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		idReply := r.do("CLIENT", "ID")
		if !regexp.MustCompile(`^:[1-9]\d*\r\n$`).MatchString(idReply) {
			t.Fatalf("CLIENT ID: %q", idReply)
		}
		id := strings.TrimSuffix(idReply[1:], "\r\n")
		r.expect("$-1\r\n", "CLIENT", "GETNAME")
		r.expect("+OK\r\n", "CLIENT", "SETNAME", "worker-1")
		r.expect(bulk("worker-1"), "CLIENT", "GETNAME")
		r.expect("-ERR Client names cannot contain spaces, newlines or special characters.\r\n", "CLIENT", "SETNAME", "a b")
		r.expect(bulk("worker-1"), "CLIENT", "GETNAME")
		r.expect("+OK\r\n", "CLIENT", "SETINFO", "LIB-NAME", "mylib")
		r.expect("+OK\r\n", "CLIENT", "SETINFO", "lib-ver", "1.2.3")
		r.expect("-ERR Unrecognized option 'foo'\r\n", "CLIENT", "SETINFO", "foo", "bar")
		r.expect("-ERR wrong number of arguments for 'client|setinfo' command\r\n", "CLIENT", "SETINFO", "lib-name")

		info := r.do("CLIENT", "INFO")
		if !strings.HasPrefix(info, "$") || !strings.HasSuffix(info, "\n\r\n") {
			t.Fatalf("CLIENT INFO is not a bulk string ending in a newline: %q", info)
		}
		for _, field := range []string{"id=" + id + " ", " name=worker-1 ", " lib-name=mylib ", " lib-ver=1.2.3", " db=0 "} {
			if !strings.Contains(info, field) {
				t.Errorf("CLIENT INFO lacks %q: %q", field, info)
			}
		}
		if !regexp.MustCompile(` addr=127\.0\.0\.1:\d+ `).MatchString(info) {
			t.Errorf("CLIENT INFO addr: %q", info)
		}

		t.Run("cmd field names the subcommand", func(t *testing.T) {
			if got := r.do("CLIENT", "INFO"); !strings.Contains(got, " cmd=client|info ") {
				t.Errorf("CLIENT INFO lacks cmd=client|info: %q", got)
			}
		})

		// A second, named connection shows up in CLIENT LIST.
		other := dialRaw(t, s.Addr())
		other.expect("+OK\r\n", "CLIENT", "SETNAME", "victim")
		otherID := strings.TrimSuffix(other.do("CLIENT", "ID")[1:], "\r\n")
		list := r.do("CLIENT", "LIST")
		lines := strings.Split(strings.TrimSuffix(list[strings.Index(list, "\r\n")+2:], "\n\r\n"), "\n")
		var sawSelf, sawOther bool
		for _, l := range lines {
			if strings.HasPrefix(l, "id="+id+" ") {
				sawSelf = strings.Contains(l, " name=worker-1 ")
			}
			if strings.HasPrefix(l, "id="+otherID+" ") {
				sawOther = strings.Contains(l, " name=victim ")
			}
		}
		if !sawSelf || !sawOther {
			t.Errorf("CLIENT LIST lacks self (%v) or other (%v): %q", sawSelf, sawOther, list)
		}
		r.expect("-ERR Unknown client type 'bogus'\r\n", "CLIENT", "LIST", "TYPE", "bogus")
		// TYPE filters by the client's class, as CLIENT KILL TYPE does: a
		// subscriber is pubsub, not normal.
		sub := dialRaw(t, s.Addr())
		subID := strings.TrimSuffix(sub.do("CLIENT", "ID")[1:], "\r\n")
		sub.do("SUBSCRIBE", "list-type")
		for typ, want := range map[string][]string{"normal": {id, otherID}, "pubsub": {subID}, "replica": nil, "slave": nil, "master": nil} {
			got := r.do("CLIENT", "LIST", "TYPE", typ)
			for _, cid := range []string{id, otherID, subID} {
				if listed, wanted := strings.Contains(got, "id="+cid+" "), slices.Contains(want, cid); listed != wanted {
					t.Errorf("CLIENT LIST TYPE %s: client %s listed %v, want %v: %q", typ, cid, listed, wanted, got)
				}
			}
		}
		r.expect(":1\r\n", "CLIENT", "KILL", "ID", subID)
		sub.expectClosed(3 * time.Second)
		if got := r.do("CLIENT", "LIST", "ID", otherID); !strings.Contains(got, "id="+otherID+" ") || strings.Contains(got, "id="+id+" ") {
			t.Errorf("CLIENT LIST ID %s: %q", otherID, got)
		}

		// CLIENT KILL ID closes the other connection.
		r.expect(":1\r\n", "CLIENT", "KILL", "ID", otherID)
		other.expectClosed(3 * time.Second)
		r.expect(":0\r\n", "CLIENT", "KILL", "ID", otherID)
		r.expect(":0\r\n", "CLIENT", "KILL", "ID", "999999")
		// The old form (CLIENT KILL addr) with an unknown address.
		r.expect("-ERR No such client\r\n", "CLIENT", "KILL", "127.0.0.1:1")
		r.expect("+PONG\r\n", "PING")

		// CLIENT SETNAME "" clears the name.
		r.expect("+OK\r\n", "CLIENT", "SETNAME", "")
		r.expect("$-1\r\n", "CLIENT", "GETNAME")
		r.expect("-ERR unknown subcommand 'BOGUS'. Try CLIENT HELP.\r\n", "CLIENT", "BOGUS")
	})

	t.Run("RESET", func(t *testing.T) {
		r := dialRaw(t, s.Addr())
		r.expect("+OK\r\n", "SELECT", "3")
		r.expect("+OK\r\n", "SET", "reset:k", "v")
		r.expect("+OK\r\n", "CLIENT", "SETNAME", "before-reset")
		if got := r.do("HELLO", "3"); !strings.HasPrefix(got, "%7\r\n") {
			t.Fatalf("HELLO 3: %q", got)
		}
		r.expect("+RESET\r\n", "RESET")
		r.expect("$-1\r\n", "CLIENT", "GETNAME") // RESP2 again and no name
		r.expect("$-1\r\n", "GET", "reset:k")    // database 0 again
		r.expect("+OK\r\n", "SELECT", "3")
		r.expect(bulk("v"), "GET", "reset:k")
		r.expect(":1\r\n", "DEL", "reset:k")
	})
}

func TestAuthRequirePass(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.RequirePass = "secret" }))

	r := dialRaw(t, s.Addr())
	r.expect("-NOAUTH Authentication required.\r\n", "GET", "k")
	r.expect("-NOAUTH Authentication required.\r\n", "PING")
	r.expect("-NOAUTH Authentication required.\r\n", "SET", "k", "v")
	r.expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n", "AUTH", "wrong")
	r.expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n", "AUTH", "default", "wrong")
	r.expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n", "AUTH", "nobody", "secret")
	r.expect("-NOAUTH Authentication required.\r\n", "GET", "k")
	r.expect("-ERR syntax error\r\n", "AUTH", "a", "b", "c")
	r.expect("+OK\r\n", "AUTH", "secret")
	r.expect("+PONG\r\n", "PING")
	r.expect("+OK\r\n", "SET", "k", "v")
	r.expect(bulk("v"), "GET", "k")

	// AUTH with a user name.
	r2 := dialRaw(t, s.Addr())
	r2.expect("+OK\r\n", "AUTH", "default", "secret")
	r2.expect(bulk("v"), "GET", "k")

	// HELLO before authentication is refused unless it carries AUTH.
	r3 := dialRaw(t, s.Addr())
	r3.expect("-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n", "HELLO", "3")
	r3.expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n", "HELLO", "3", "AUTH", "default", "nope")
	if got := r3.do("HELLO", "3", "AUTH", "default", "secret"); !strings.HasPrefix(got, "%7\r\n") {
		t.Errorf("HELLO 3 AUTH default secret: %q", got)
	}
	r3.expect(bulk("v"), "GET", "k")

	// RESET de-authenticates the connection again.
	r3.expect("+RESET\r\n", "RESET")
	r3.expect("-NOAUTH Authentication required.\r\n", "GET", "k")
	// QUIT needs no authentication.
	r4 := dialRaw(t, s.Addr())
	r4.expect("+OK\r\n", "QUIT")
	r4.expectClosed(3 * time.Second)
}
