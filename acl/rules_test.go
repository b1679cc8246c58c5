package acl

import (
	"errors"
	"strings"
	"testing"
)

// TestSetUserErrors checks every rule kind's error text against what redis-server 7.0.15
// replies (after "ERR ") for ACL SETUSER e reset <rules>.
func TestSetUserErrors(t *testing.T) {
	u := testUniverse(t)
	const (
		unknown  = "Unknown command or category name in ACL"
		syntax   = "Syntax error"
		keyAll   = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
		chanAll  = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
		badHash  = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
		noPass   = "The password you are trying to remove from the user does not exist"
		firstArg = "Allowing first-arg of a subcommand is not supported"
	)
	mod := func(rule, msg string) string { return "Error in ACL SETUSER modifier '" + rule + "': " + msg }
	cases := []struct {
		rules []string
		err   string // "" for success
	}{
		{[]string{"+"}, mod("+", unknown)},
		{[]string{"-"}, mod("-", unknown)},
		{[]string{"+@"}, mod("+@", unknown)},
		{[]string{"-@"}, mod("-@", unknown)},
		{[]string{"+@nosuch"}, mod("+@nosuch", unknown)},
		{[]string{"+@all|x"}, mod("+@all|x", unknown)},
		{[]string{"+nosuch"}, mod("+nosuch", unknown)},
		{[]string{"-nosuch"}, mod("-nosuch", unknown)},
		{[]string{"+get|"}, mod("+get|", syntax)},
		{[]string{"+debug|"}, mod("+debug|", syntax)},
		{[]string{"-config|"}, mod("-config|", unknown)},
		{[]string{"+config|get|x"}, mod("+config|get|x", firstArg)},
		{[]string{"+config|asdf"}, mod("+config|asdf", unknown)},
		{[]string{"-config|asdf"}, mod("-config|asdf", unknown)},
		{[]string{"+get|key1|key2"}, mod("+get|key1|key2", unknown)},
		{[]string{"-get|key1|key2"}, mod("-get|key1|key2", unknown)},
		{[]string{"+|get"}, mod("+|get", unknown)},
		{[]string{"-select|0"}, mod("-select|0", unknown)},
		{[]string{"+select|0|1"}, mod("+select|0|1", unknown)},
		{[]string{"(this-is-invalid)"}, mod("(this-is-invalid)", syntax)},
		{[]string{"(&* &fail)"}, mod("(&* &fail)", chanAll)},
		{[]string{" () "}, mod(" () ", syntax)},
		{[]string{"("}, "Unmatched parenthesis in acl selector starting at '('."},
		{[]string{"(+get"}, "Unmatched parenthesis in acl selector starting at '(+get'."},
		{[]string{"on", "(~a", "+get"}, "Unmatched parenthesis in acl selector starting at '(~a'."},
		{[]string{")"}, mod(")", syntax)},
		{[]string{"(", "(", "+@all", "(&z +@pubsub)"}, mod("( +@all (&z +@pubsub)", syntax)},
		{[]string{"(~a", "(~b", "+get)"}, ""},
		{[]string{"x)"}, mod("x)", syntax)},
		{[]string{"~a b"}, mod("~a b", syntax)},
		{[]string{"~a\x00b"}, mod("~a\x00b", syntax)},
		{[]string{"&a\tb"}, mod("&a\tb", syntax)},
		{[]string{"(~a", "'b')"}, mod("(~a 'b')", syntax)},
		{[]string{"(~\"a", "b\")"}, mod("(~\"a b\")", syntax)},
		{[]string{"<nosuch"}, mod("<nosuch", noPass)},
		{[]string{"!" + strings.Repeat("a", 64)}, mod("!"+strings.Repeat("a", 64), noPass)},
		{[]string{"#abc"}, mod("#abc", badHash)},
		{[]string{"!abc"}, mod("!abc", badHash)},
		{[]string{"#34344e4d60c2b6d639b7bd22e18f2b0b91bc34bf0ac5f9952744435093cfb4e"}, mod("#34344e4d60c2b6d639b7bd22e18f2b0b91bc34bf0ac5f9952744435093cfb4e", badHash)},
		{[]string{"#34344e4d60c2b6d639b7bd22e18f2b0b91bc34bf0ac5f9952744435093cfb4eq"}, mod("#34344e4d60c2b6d639b7bd22e18f2b0b91bc34bf0ac5f9952744435093cfb4eq", badHash)},
		{[]string{"#34344E4D60C2B6D639B7BD22E18F2B0B91BC34BF0AC5F9952744435093CFB4E6"}, mod("#34344E4D60C2B6D639B7BD22E18F2B0B91BC34BF0AC5F9952744435093CFB4E6", badHash)},
		{[]string{"~*", "~x"}, mod("~x", keyAll)},
		{[]string{"allkeys", "%R~x"}, mod("%R~x", keyAll)},
		{[]string{"&*", "&x"}, mod("&x", chanAll)},
		{[]string{"allchannels", "&x"}, mod("&x", chanAll)},
		{[]string{"%"}, mod("%", syntax)},
		{[]string{"%~x"}, mod("%~x", syntax)},
		{[]string{"%RR~x"}, mod("%RR~x", syntax)},
		{[]string{"%X~a"}, mod("%X~a", syntax)},
		{[]string{"bogus"}, mod("bogus", syntax)},
		{[]string{"on", "+get", "bogus"}, mod("bogus", syntax)},
		// Accepted rules.
		{[]string{""}, ""},
		{[]string{"()"}, ""},
		{[]string{"(", ")"}, ""},
		{[]string{">"}, ""},
		{[]string{"~*"}, ""},
		{[]string{"%R"}, ""},
		{[]string{"%RW~"}, ""},
		{[]string{"%rw~abc"}, ""},
		{[]string{"%WR~q"}, ""},
		{[]string{"(%R~x %W~x)"}, ""},
		{[]string{"ON", "OFF", "+GET", "+@ALL", "+@Read", "-@ALL", "clearSelectors", "RESET", "NOPASS", "ResetPass"}, ""},
		{[]string{"AllKeys", "ResetKeys", "AllChannels", "ResetChannels", "AllCommands", "NoCommands"}, ""},
		{[]string{"+select|0", "+select|0", "+SELECT|0"}, ""},
		{[]string{"(~key1 +get )", "( ~key2 +get )", "( ~key3 +get)", "(~key4 +get)"}, ""},
		{[]string{"(~key5", "+get", ")", "(", "~key6", "+get", ")"}, ""},
	}
	for _, c := range cases {
		s := NewUsers(u, Options{})
		n, err := s.SetUser("e", append([]string{"reset"}, c.rules...)...)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: unexpected error %v", c.rules, err)
		case c.err != "" && err == nil:
			t.Errorf("%q: no error, want %q", c.rules, c.err)
		case c.err != "" && err.Error() != c.err:
			t.Errorf("%q:\n got %q\nwant %q", c.rules, err.Error(), c.err)
		case c.err != "" && n != s:
			t.Errorf("%q: a failed SETUSER changed the users", c.rules)
		}
	}
	var re *RuleError
	_, err := NewUsers(u, Options{}).SetUser("e", "+nosuch")
	if !errors.As(err, &re) || !errors.Is(err, ErrUnknownCommand) || re.Rule != "+nosuch" {
		t.Errorf("error %v does not unwrap", err)
	}
	if _, err := NewUsers(u, Options{}).SetUser("a a"); err != ErrUsernameSpaces {
		t.Errorf("user name with a space: %v", err)
	}
	// A failed SETUSER leaves an existing user untouched and creates no new one.
	s, _ := NewUsers(u, Options{}).SetUser("x", "on", ">p", "+get")
	s2, err := s.SetUser("x", "-get", "+nosuch")
	if err == nil || s2.Get("x").Describe() != s.Get("x").Describe() {
		t.Error("failed SETUSER changed the user")
	}
	if s3, err := s.SetUser("fresh", "+nosuch"); err == nil || s3.Get("fresh") != nil {
		t.Error("failed SETUSER created a user")
	}
}

func mustUsers(t testing.TB, rules map[string]string) *Users {
	t.Helper()
	s := NewUsers(testUniverse(t), Options{})
	for name, r := range rules {
		var err error
		s, err = s.SetUser(name, strings.Fields(r)...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return s
}

func getUser(t testing.TB, rules string) *User {
	t.Helper()
	return mustUsers(t, map[string]string{"u": rules}).Get("u")
}

// TestRuleDescriptions ports the description checks of Redis's unit/acl and unit/acl-v2.
func TestRuleDescriptions(t *testing.T) {
	cases := []struct {
		rules, commands, keys, channels string
	}{
		{"+@all -client|kill", "+@all -client|kill", "", ""},
		{"+memory|doctor", "-@all +memory|doctor", "", ""},
		{"+memory|doctor +memory", "-@all +memory", "", ""},
		{"+memory +@all +client|id", "+@all", "", ""},
		{"+@all -memory|doctor", "+@all -memory|doctor", "", ""},
		{"+@all -memory", "+@all -memory", "", ""},
		{"+@all -memory -@all", "-@all", "", ""},
		{"%R~foo %W~foo %RW~bar", "-@all", "~foo ~bar", ""},
		{"-@all +get resetchannels &channel1 %R~foo1 %W~bar1 ~baz1", "-@all +get", "%R~foo1 %W~bar1 ~baz1", "&channel1"},
		{"&test", "-@all", "", "&test"},
		{"allchannels", "-@all", "", "&*"},
		{"allkeys", "-@all", "~*", ""},
		{"~a ~a %R~a", "-@all", "~a", ""},
		{"+@all -select +select|0", "+@all -select +select|0", "", ""},
		{"-@all +acl +select|0 +select|0", "-@all +acl +select|0", "", ""},
		{"-@all +acl +select|0 -select", "-@all +acl", "", ""},
		{"-@all +acl +select|0 +select", "-@all +acl +select", "", ""},
		{"-debug +debug|a +debug|b +debug|c", "-@all +debug|a +debug|b +debug|c", "", ""},
		{"-debug +debug|a +debug|b +debug|c -debug", "-@all", "", ""},
	}
	for _, c := range cases {
		in := getUser(t, c.rules).Info()
		if in.Root.Commands != c.commands || in.Root.Keys != c.keys || in.Root.Channels != c.channels {
			t.Errorf("%q: got %q %q %q, want %q %q %q", c.rules, in.Root.Commands, in.Root.Keys, in.Root.Channels, c.commands, c.keys, c.channels)
		}
	}
	// "ACL GETUSER provides reasonable results": each category alone, both ways.
	for _, cat := range CategoryNames() {
		if got := getUser(t, "reset +@all -@"+cat).Info().Root.Commands; got != "+@all -@"+cat {
			t.Errorf("+@all -@%s described as %q", cat, got)
		}
		if got := getUser(t, "reset -@all +@"+cat).Info().Root.Commands; got != "-@all +@"+cat {
			t.Errorf("-@all +@%s described as %q", cat, got)
		}
	}
	// ACL LIST of a user with one channel keeps resetchannels before it.
	s := mustUsers(t, map[string]string{"hpuser": "on nopass resetchannels &foo +@all"})
	if l := s.List(); len(l) != 2 || l[1] != "user hpuser on nopass resetchannels &foo +@all" || l[0] != "user default on nopass ~* &* +@all" {
		t.Errorf("ACL LIST %q", l)
	}
	// Selectors: defaults, flexible syntax, clearselectors.
	in := getUser(t, "reset ()").Info()
	if len(in.Selectors) != 1 || in.Selectors[0] != (Permissions{Commands: "-@all"}) {
		t.Errorf("empty selector: %+v", in.Selectors)
	}
	s, err := NewUsers(testUniverse(t), Options{}).SetUser("s2", "(~key1 +get )", "( ~key2 +get )", "( ~key3 +get)", "(~key4 +get)")
	if err != nil {
		t.Fatal(err)
	}
	s, err = s.SetUser("s2", "(~key5", "+get", ")", "(", "~key6", "+get", ")", "(", "~key7", "+get)", "(~key8", "+get)")
	if err != nil {
		t.Fatal(err)
	}
	sel := s.Get("s2").Info().Selectors
	if len(sel) != 8 {
		t.Fatalf("%d selectors", len(sel))
	}
	for i, p := range sel {
		if want := "~key" + string(rune('1'+i)); p.Keys != want || p.Commands != "-@all +get" {
			t.Errorf("selector %d: %+v, want keys %s", i, p, want)
		}
	}
	s, _ = s.SetUser("s2", "clearselectors")
	if n := len(s.Get("s2").Info().Selectors); n != 0 {
		t.Errorf("%d selectors after clearselectors", n)
	}
	// Quoted arguments inside a selector.
	if in := getUser(t, `("~a\x41b" '&c')`).Info(); in.Selectors[0].Keys != "~aAb" || in.Selectors[0].Channels != "&c" {
		t.Errorf("quoted selector: %+v", in.Selectors[0])
	}
	// acl-pubsub-default allchannels: new users, reset and new selectors get &*.
	all, err := NewUsers(testUniverse(t), Options{PubSubAllChannels: true}).SetUser("p", "(+get)")
	if err != nil {
		t.Fatal(err)
	}
	if in := all.Get("p").Info(); in.Root.Channels != "&*" || in.Selectors[0].Channels != "&*" {
		t.Errorf("allchannels default: %+v", in)
	}
	if _, err := all.SetUser("p", "&test"); err == nil {
		t.Error("&test after the allchannels default accepted")
	}
	if all, _ = all.SetUser("p", "resetchannels", "reset"); all.Get("p").Info().Root.Channels != "&*" {
		t.Error("reset does not restore &* under allchannels")
	}
}

func TestPasswords(t *testing.T) {
	s := mustUsers(t, map[string]string{"newuser": "on >passwd1 >passwd2"})
	u := s.Get("newuser")
	for _, c := range []struct {
		pass string
		ok   bool
	}{{"passwd1", true}, {"passwd2", true}, {"passwd3", false}, {"", false}} {
		if _, ok := s.Authenticate([]byte("newuser"), []byte(c.pass)); ok != c.ok {
			t.Errorf("password %q: %v", c.pass, ok)
		}
	}
	if !u.CheckPassword([]byte("passwd1")) {
		t.Error("CheckPassword")
	}
	s, _ = s.SetUser("newuser", "<passwd1")
	if _, ok := s.Authenticate([]byte("newuser"), []byte("passwd1")); ok {
		t.Error("removed password still works")
	}
	const h = "34344e4d60c2b6d639b7bd22e18f2b0b91bc34bf0ac5f9952744435093cfb4e6"
	if HashPassword([]byte("passwd4")) != h {
		t.Fatalf("hash of passwd4 = %s", HashPassword([]byte("passwd4")))
	}
	s, _ = s.SetUser("newuser", "#"+h)
	if _, ok := s.Authenticate([]byte("newuser"), []byte("passwd4")); !ok {
		t.Error("hashed password does not work")
	}
	pw := s.Get("newuser").Passwords()
	if !contains(pw, h) || strings.Contains(strings.Join(pw, " "), "passwd4") {
		t.Errorf("passwords %v", pw)
	}
	s, _ = s.SetUser("newuser", "!"+h)
	if contains(s.Get("newuser").Passwords(), h) {
		t.Error("!hash did not remove")
	}
	// New users start off; nopass lets any password in; resetpass removes nopass.
	s, _ = s.SetUser("fresh", ">p")
	if _, ok := s.Authenticate([]byte("fresh"), []byte("p")); ok {
		t.Error("a new user is on")
	}
	s, _ = s.SetUser("fresh", "on", "nopass")
	if _, ok := s.Authenticate([]byte("fresh"), []byte("zipzapblabla")); !ok || len(s.Get("fresh").Passwords()) != 0 {
		t.Error("nopass")
	}
	s, _ = s.SetUser("fresh", "resetpass")
	if _, ok := s.Authenticate([]byte("fresh"), []byte("x")); ok || s.Get("fresh").NoPass() {
		t.Error("resetpass")
	}
	if _, ok := s.Authenticate([]byte("nobody"), []byte("x")); ok {
		t.Error("unknown user authenticated")
	}
	// >pass after nopass clears nopass; duplicates are kept once.
	s, _ = s.SetUser("fresh", "nopass", ">a", ">a")
	if s.Get("fresh").NoPass() || len(s.Get("fresh").Passwords()) != 1 {
		t.Error(">pass after nopass")
	}
	// requirepass.
	s = s.WithRequirePass("secret")
	if _, ok := s.Authenticate([]byte("default"), []byte("secret")); !ok || s.Default().NoPass() {
		t.Error("requirepass")
	}
	if _, ok := s.Authenticate([]byte("default"), []byte("x")); ok {
		t.Error("requirepass accepts a wrong password")
	}
	s = s.WithRequirePass("")
	if !s.Default().NoPass() || !s.Default().Unrestricted() {
		t.Error("empty requirepass")
	}
}

func TestUsersSet(t *testing.T) {
	s := NewUsers(testUniverse(t), Options{})
	if d := s.Default(); d == nil || !d.Unrestricted() || !d.Enabled() || !d.NoPass() || d.Describe() != "on nopass ~* &* +@all" {
		t.Fatalf("default user %v", d)
	}
	s1, _ := s.SetUser("b", "on")
	s2, _ := s1.SetUser("a", "on")
	if got := strings.Join(s2.Names(), ","); got != "a,b,default" {
		t.Errorf("names %s", got)
	}
	if s.Len() != 1 || s1.Len() != 2 {
		t.Error("SetUser changed an older snapshot")
	}
	s3, gone, err := s2.DelUsers("a", "nosuch")
	if err != nil || len(gone) != 1 || gone[0].Name() != "a" || s3.Get("a") != nil || s2.Get("a") == nil {
		t.Errorf("DelUsers: %v %v", gone, err)
	}
	if _, _, err := s3.DelUsers("b", "default"); err != ErrDeleteDefault || s3.Get("b") == nil {
		t.Errorf("deleting default: %v", err)
	}
	if s3.GetBytes([]byte("b")) == nil {
		t.Error("GetBytes")
	}
	st := NewStore(s)
	n, err := st.Update(func(u *Users) (*Users, error) { return u.SetUser("z", "on") })
	if err != nil || st.Load() != n || n.Get("z") == nil {
		t.Error("Store.Update")
	}
	if _, err := st.Update(func(u *Users) (*Users, error) { return u.SetUser("z", "bogus") }); err == nil || st.Load() != n {
		t.Error("failed update published")
	}
}
