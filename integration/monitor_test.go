package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestMonitorRedactsPasswords: MONITOR shows AUTH and HELLO ... AUTH with
// their secrets replaced by "(redacted)", as Redis does, and ACL SETUSER
// (an admin command) not at all.
func TestMonitorRedactsPasswords(t *testing.T) {
	s := testserver.Start(t)
	mon := dialRaw(t, s.Addr())
	mon.expect("+OK\r\n", "MONITOR")
	user := dialRaw(t, s.Addr())
	user.expect("+OK\r\n", "ACL", "SETUSER", "alice", "on", ">Secr3tPass", "~*", "+@all")
	user.expect("+OK\r\n", "AUTH", "alice", "Secr3tPass")
	user.send("AUTH", "Secr3tPass") // the default user has no password: an error, fed all the same
	_ = user.read()
	if got := user.do("HELLO", "2", "AUTH", "alice", "Secr3tPass", "SETNAME", "app"); !strings.HasPrefix(got, "*") {
		t.Fatalf("HELLO: %q", got)
	}
	user.expect("+OK\r\n", "SET", "marker", "done")

	var lines []string
	for {
		l, err := mon.tryRead(5 * time.Second)
		if err != nil {
			t.Fatalf("MONITOR feed: %v after %q", err, lines)
		}
		lines = append(lines, l)
		if strings.Contains(l, `"marker"`) {
			break
		}
	}
	feed := strings.Join(lines, "")
	if strings.Contains(feed, "Secr3tPass") {
		t.Errorf("a password reached the MONITOR feed:\n%s", feed)
	}
	if strings.Contains(strings.ToLower(feed), `"setuser"`) {
		t.Errorf("ACL SETUSER is an admin command, MONITOR must not show it:\n%s", feed)
	}
	for _, want := range []string{
		`"AUTH" "(redacted)" "(redacted)"`,
		`"AUTH" "(redacted)"` + "\r\n",
		`"HELLO" "2" "AUTH" "(redacted)" "(redacted)" "SETNAME" "app"`,
	} {
		if !strings.Contains(feed, want) {
			t.Errorf("MONITOR feed lacks %q:\n%s", want, feed)
		}
	}
}
