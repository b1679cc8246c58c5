package acl

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestLog(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	l := NewLog(DefaultLogMaxLen, clk.now)
	ev := LogEvent{Reason: ReasonCommand, Context: ContextTopLevel, Object: "get", Username: "antirez", ClientInfo: "id=1"}
	l.Add(ev)
	clk.t = clk.t.Add(time.Second)
	ev.ClientInfo = "id=2"
	l.Add(ev)
	l.Add(ev)
	e := l.Entries(10)
	if len(e) != 1 || e[0].Count != 3 || e[0].ClientInfo != "id=2" || e[0].Object != "get" || e[0].Reason.String() != "command" || e[0].Context.String() != "toplevel" {
		t.Fatalf("grouping: %+v", e)
	}
	clk.t = clk.t.Add(1500 * time.Millisecond)
	if age := l.Entries(1)[0].AgeSeconds; age != 1.5 {
		t.Errorf("age %v", age)
	}
	// A different object, context or user, or an event past the window, starts a new entry.
	l.Add(LogEvent{Reason: ReasonKey, Object: "somekeynotallowed", Username: "antirez"})
	l.Add(LogEvent{Reason: ReasonCommand, Context: ContextMulti, Object: "get", Username: "antirez"})
	clk.t = clk.t.Add(LogGroupWindow + 2*time.Second)
	l.Add(LogEvent{Reason: ReasonCommand, Object: "get", Username: "antirez"})
	if l.Len() != 4 {
		t.Fatalf("%d entries", l.Len())
	}
	if e := l.Entries(2); len(e) != 2 || e[1].Context != ContextMulti || e[0].Count != 1 {
		t.Errorf("order: %+v", e)
	}
	// An older matching entry moves back to the front.
	l.Add(LogEvent{Reason: ReasonKey, Object: "somekeynotallowed", Username: "antirez"})
	if e := l.Entries(1)[0]; e.Object != "somekeynotallowed" || e.Count != 1 {
		// It was more than 60 s ago, so it does not group: a new entry.
		t.Errorf("front: %+v", e)
	}
	if len(l.Entries(-1)) != 0 || len(l.Entries(100)) != l.Len() {
		t.Error("count bounds")
	}
	// The limit.
	l.Reset()
	l.SetMaxLen(5)
	for i := range 10 {
		l.Add(LogEvent{Reason: ReasonKey, Object: "obj:" + string(rune('0'+i)), Username: "antirez"})
	}
	if l.Len() != 5 || l.Entries(1)[0].Object != "obj:9" {
		t.Errorf("limit: %d %+v", l.Len(), l.Entries(1))
	}
	l.Add(LogEvent{Reason: ReasonAuth, Object: "AUTH", Username: "antirez"})
	if e := l.Entries(1)[0]; e.Reason.String() != "auth" || e.Object != "AUTH" {
		t.Errorf("auth entry %+v", e)
	}
	// Only the ten newest entries are searched for a group.
	l = NewLog(100, clk.now)
	l.Add(LogEvent{Reason: ReasonKey, Object: "old", Username: "u"})
	for i := range 10 {
		l.Add(LogEvent{Reason: ReasonKey, Object: "k" + string(rune('a'+i)), Username: "u"})
	}
	l.Add(LogEvent{Reason: ReasonKey, Object: "old", Username: "u"})
	if l.Len() != 12 {
		t.Errorf("scan limit: %d entries", l.Len())
	}
}

func TestGenPass(t *testing.T) {
	for _, c := range []struct{ bits, chars int }{{256, 64}, {1, 1}, {5, 2}, {4, 1}, {4096, 1024}, {255, 64}} {
		p, err := GenPass(c.bits)
		if err != nil || len(p) != c.chars || strings.Trim(p, "0123456789abcdef") != "" {
			t.Errorf("GenPass(%d) = %q, %v", c.bits, p, err)
		}
	}
	a, _ := GenPass(256)
	b, _ := GenPass(256)
	if a == b {
		t.Error("two passwords are equal")
	}
	for _, bits := range []int{0, -236, 5000} {
		if _, err := GenPass(bits); err != ErrGenPassBits {
			t.Errorf("GenPass(%d): %v", bits, err)
		}
	}
}

const userACL = "user alice on allcommands allkeys &* >alice\nuser bob on -@all +@set +acl ~set* &* >bob\nuser default on nopass ~* &* +@all\n"

func TestLoadFile(t *testing.T) {
	s := NewUsers(testUniverse(t), Options{})
	n, err := s.LoadFile("user.acl", []byte(userACL))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(n.Names(), ","); got != "alice,bob,default" {
		t.Errorf("users %s", got)
	}
	if _, ok := n.Authenticate([]byte("bob"), []byte("bob")); !ok {
		t.Error("bob cannot log in")
	}
	if got := dryRun(t, n.Get("bob"), "set key value"); got != "This user has no permissions to run the 'set' command" {
		t.Error(got)
	}
	if n.Get("alice").Info().Root.Commands != "+@all" {
		t.Error("alice")
	}
	// Save and load again: the same users.
	again, err := n.LoadFile("user.acl", n.File())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(again.List(), "\n") != strings.Join(n.List(), "\n") {
		t.Errorf("round trip:\n%s\n%s", again.File(), n.File())
	}
	// Selectors in files.
	sel, err := s.LoadFile("s.acl", []byte("user alice on (+get ~rw*)\nuser bob on (+set %W~w*) (+get %R~r*)\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if in := sel.Get("bob").Info(); len(in.Selectors) != 2 || in.Selectors[0].Commands != "-@all +set" || in.Selectors[1].Keys != "%R~r*" {
		t.Errorf("bob selectors %+v", in.Selectors)
	}
	if sel.Default() == nil || !sel.Default().Unrestricted() {
		t.Error("a file without default gets the default user")
	}
	// Errors: every bad line is reported with its number; nothing changes.
	bad := "user alice on nopass\n# comment\nuser alice on\nuser bob +nosuch +nosuch2\nuser carl on bogus +@all ~a* ~*\nuser dan (+get\nuser eve on #abc\n"
	_, err = s.LoadFile("users.acl", []byte(bad))
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v", err)
	}
	want := "users.acl:2 should start with user keyword followed by the username. " +
		"WARNING: Duplicate user 'alice' found on line 3. " +
		"users.acl:4: Error in applying operation '+nosuch': Unknown command or category name in ACL. " +
		"users.acl:4: Error in applying operation '+nosuch2': Unknown command or category name in ACL. " +
		"users.acl:5: Syntax error. " +
		"users.acl:6: Unmatched parenthesis in selector definition." +
		"users.acl:7: The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters. " +
		"WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	if err.Error() != want {
		t.Errorf("load error\n got %s\nwant %s", err, want)
	}
	lines := []int{}
	for _, p := range le.Problems {
		lines = append(lines, p.Line)
	}
	if len(lines) != 7 || lines[0] != 2 || lines[6] != 7 {
		t.Errorf("lines %v", lines)
	}
	// Duplicate default user.
	if _, err := s.LoadFile("u.acl", []byte(userACL+"user default on nopass ~* -@all\n")); err == nil || !strings.Contains(err.Error(), "Duplicate user 'default' found") {
		t.Errorf("duplicate default: %v", err)
	}
}

func TestSpecs(t *testing.T) {
	s := NewUsers(testUniverse(t), Options{})
	h := HashPassword([]byte("secret"))
	n, err := s.ApplySpecs([]Spec{{
		Name: "app", Passwords: []string{"sha256:" + h, "plain:other"}, Commands: "+@all -@dangerous",
		Keys: []string{"~app:*", "%R~shared:*"}, Channels: []string{"&events.*"}, Enabled: true,
	}, {Name: "ro", NoPass: true, Enabled: true, Commands: "-@all +@read", Keys: []string{"allkeys"}}})
	if err != nil {
		t.Fatal(err)
	}
	app := n.Get("app")
	if got := app.Describe(); got != "on #"+h+" #"+HashPassword([]byte("other"))+" ~app:* %R~shared:* resetchannels &events.* +@all -@dangerous" {
		t.Errorf("app: %s", got)
	}
	if _, ok := n.Authenticate([]byte("app"), []byte("secret")); !ok {
		t.Error("sha256 password")
	}
	if _, ok := n.Authenticate([]byte("app"), []byte("other")); !ok {
		t.Error("plain password")
	}
	if dryRun(t, app, "get shared:1") != "OK" || dryRun(t, app, "set shared:1 x") == "OK" || dryRun(t, app, "flushall") == "OK" {
		t.Error("app permissions")
	}
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Name: "x", Commands: "+nosuch"}, `acl user "x": rule "+nosuch": Unknown command or category name in ACL`},
		{Spec{Name: "x", Commands: "+get on"}, `acl user "x": rule "on": not a command rule (+cmd, -cmd, +@category, -@category, allcommands, nocommands)`},
		{Spec{Name: "x", Keys: []string{"app:*"}}, `acl user "x": rule "app:*": not a key rule (~pattern, %R~pattern, %W~pattern, %RW~pattern, allkeys, resetkeys)`},
		{Spec{Name: "x", Keys: []string{"~a b"}}, `acl user "x": rule "~a b": Syntax error`},
		{Spec{Name: "x", Channels: []string{"events"}}, `acl user "x": rule "events": not a channel rule (&pattern, allchannels, resetchannels)`},
		{Spec{Name: "x", Passwords: []string{"sha256:abc"}}, `acl user "x": rule "#abc": The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters`},
		{Spec{Name: "x", Passwords: []string{"hunter2"}}, `acl user "x": rule "hun…": a password needs a "sha256:" or "plain:" prefix`},
		{Spec{Name: "a b"}, `acl user "a b": rule "name": Usernames can't contain spaces or null characters`},
	} {
		_, err := s.ApplySpecs([]Spec{c.spec})
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v:\n got %v\nwant %s", c.spec, err, c.want)
		}
	}
	if _, err := s.ApplySpecs([]Spec{{Name: "d"}, {Name: "d"}}); err == nil || !errors.Is(err, ErrDuplicateUser) {
		t.Errorf("duplicate: %v", err)
	}
	// The default user from specs starts from reset, as Redis's configured users do.
	n, err = s.ApplySpecs([]Spec{{Name: "default", Enabled: true, NoPass: true, Commands: "+@all -flushdb", Keys: []string{"~*"}}})
	if err != nil || n.Default().Describe() != "on nopass sanitize-payload ~* resetchannels +@all -flushdb" {
		t.Errorf("default spec: %v %s", err, n.Default().Describe())
	}
}

// FuzzSetUser applies arbitrary rules: nothing panics, a failure changes nothing, and a
// success describes itself as rules that rebuild the same user.
func FuzzSetUser(f *testing.F) {
	for _, seed := range []string{
		"on >p +@all ~* &*", "+@all -@dangerous +info", "-@all +select|0 +client|id", "(+get ~a*) (%R~b &c)",
		"%RW~x %R~y %W~z", "(~a \"b\\x41\")", "reset +@read -get clearselectors", "+config|get|x", "#abc", "<nosuch",
	} {
		f.Add(seed)
	}
	u := testUniverse(f)
	f.Fuzz(func(t *testing.T, rules string) {
		s := NewUsers(u, Options{})
		n, err := s.SetUser("f", strings.Split(rules, " ")...)
		if err != nil {
			if n != s {
				t.Fatal("failed SETUSER returned a new snapshot")
			}
			return
		}
		user := n.Get("f")
		if !roundTrips(user) {
			return
		}
		d := user.Describe()
		again, err := NewUsers(u, Options{}).SetUser("f", strings.Split(d, " ")...)
		if err != nil {
			t.Fatalf("description %q of %q does not parse: %v", d, rules, err)
		}
		if d2 := again.Get("f").Describe(); d2 != d {
			t.Fatalf("%q: description %q reparses as %q", rules, d, d2)
		}
		assertSamePermissions(t, rules, user, again.Get("f"))
	})
}

// FuzzLoadFile parses arbitrary ACL files without panicking; a file that loads saves and
// loads back to the same users.
func FuzzLoadFile(f *testing.F) {
	f.Add(userACL)
	f.Add("user x on (+get ~a) >p\n\nuser y off resetchannels &c +@all -@admin\n")
	f.Add("user\nfoo bar\nuser a a\n")
	u := testUniverse(f)
	f.Fuzz(func(t *testing.T, file string) {
		s := NewUsers(u, Options{})
		n, err := s.LoadFile("f.acl", []byte(file))
		if err != nil {
			return
		}
		again, err := s.LoadFile("f.acl", n.File())
		if err != nil {
			t.Fatalf("saved file does not load: %v\n%s", err, n.File())
		}
		if string(again.File()) != string(n.File()) {
			t.Fatalf("save/load changed users:\n%s\n%s", n.File(), again.File())
		}
	})
}

// roundTrips reports whether a user's description can be parsed back to the same user. As
// in Redis, a key or channel pattern with a parenthesis or quote inside a "(…)" selector
// cannot, and a "*" key pattern with both accesses ("%RW~*") prints as "~*", which reads
// back as allkeys (the same keys but for the empty one).
func roundTrips(u *User) bool {
	for _, s := range u.selectors {
		for _, k := range s.keys {
			if k.pattern == "*" && k.access == ReadWrite {
				return false
			}
		}
	}
	for _, s := range u.selectors[1:] {
		for _, k := range s.keys {
			if strings.ContainsAny(k.pattern, "()\"'") {
				return false
			}
		}
		for _, c := range s.channels {
			if strings.ContainsAny(c, "()\"'") {
				return false
			}
		}
	}
	return true
}
