package integration_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/app"
	"github.com/ruvio/ruvio/internal/testserver"
)

// NOPERM texts of Redis 7.0.
const (
	errNoPermKeys     = "NOPERM this user has no permissions to access one of the keys used as arguments"
	errWrongPassReply = "WRONGPASS invalid username-password pair or user is disabled."
)

func errNoPermCmd(name string) string {
	return "NOPERM this user has no permissions to run the '" + name + "' command"
}

// userClient is a go-redis client of addr that authenticates as user.
func userClient(t *testing.T, addr, user, pass string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, Username: user, Password: pass, MaxRetries: -1,
		DisableIdentity: true, PoolSize: 1, ReadTimeout: 20 * time.Second, WriteTimeout: 20 * time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestACLCommandAndCategoryRules(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := s.Client(t)
	expect(t, admin, "OK", "ACL", "SETUSER", "cmds", "on", ">p", "~*", "+get", "+config|get", "+@string", "-incr")
	expect(t, admin, "OK", "SET", "k", "v")
	c := userClient(t, s.Addr(), "cmds", "p")

	expect(t, c, "v", "GET", "k")
	expect(t, c, "OK", "SET", "k2", "v2")
	expectErr(t, c, errNoPermCmd("expire"), "EXPIRE", "k", "10")
	// Subcommands: CONFIG GET allowed, CONFIG SET not.
	if _, err := c.Do(ctxT(t), "CONFIG", "GET", "timeout").Result(); err != nil {
		t.Errorf("CONFIG GET: %v", err)
	}
	expectErr(t, c, errNoPermCmd("config|set"), "CONFIG", "SET", "timeout", "0")
	// Categories: @string minus INCR; DEL is not in @string.
	expect(t, c, int64(1), "STRLEN", "k")
	expectErr(t, c, errNoPermCmd("incr"), "INCR", "n")
	expectErr(t, c, errNoPermCmd("del"), "DEL", "k")
	// The value is untouched by the denied SET.
	expect(t, admin, "v", "GET", "k")

	// +@read -@write, with "+@all -@dangerous" style combinations.
	expect(t, admin, "OK", "ACL", "SETUSER", "reader", "on", ">p", "~*", "+@read", "-@write")
	r := userClient(t, s.Addr(), "reader", "p")
	expect(t, r, "v", "GET", "k")
	expect(t, r, []interface{}{"v"}, "MGET", "k")
	expectErr(t, r, errNoPermCmd("incr"), "INCR", "n")
	expectErr(t, r, errNoPermCmd("idem"), "IDEM", "k", "BEGIN", "fp", "own", "1000")

	// "+@all -@dangerous +idem": the native key jobs are allowed (none is
	// dangerous), admin commands are not; +@write covers IDEM.
	expect(t, admin, "OK", "ACL", "SETUSER", "app", "on", ">p", "~*", "+@all", "-@dangerous")
	a := userClient(t, s.Addr(), "app", "p")
	expect(t, a, int64(1), "ONCE", "once:1", "1000")
	expect(t, a, int64(5), "INCRBY", "n", "5")
	expectErr(t, a, errNoPermCmd("flushall"), "FLUSHALL")
	expectErr(t, a, errNoPermCmd("acl|setuser"), "ACL", "SETUSER", "x")
	expect(t, a, "app", "ACL", "WHOAMI")
	expect(t, admin, "OK", "ACL", "SETUSER", "w", "on", ">p", "~*", "+@write")
	wc := userClient(t, s.Addr(), "w", "p")
	if _, err := wc.Do(ctxT(t), "IDEM", "idem:1", "BEGIN", "fp", "own", "1000").Result(); err != nil && strings.HasPrefix(err.Error(), "NOPERM") {
		t.Errorf("+@write does not cover IDEM: %v", err)
	}
}

func TestACLKeyPatternsAndSelectors(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := s.Client(t)
	expect(t, admin, "OK", "MSET", "app:1", "a", "shared:1", "s", "other", "o")
	expect(t, admin, "OK", "ACL", "SETUSER", "keys", "on", ">p", "+@all", "~app:*", "%R~shared:*", "%W~inbox:*")
	c := userClient(t, s.Addr(), "keys", "p")

	expect(t, c, "a", "GET", "app:1")
	expect(t, c, "OK", "SET", "app:2", "b")
	expect(t, c, "s", "GET", "shared:1")
	expectErr(t, c, errNoPermKeys, "SET", "shared:1", "x")
	expectErr(t, c, errNoPermKeys, "GET", "other")
	// %W~: SET without GET only writes; GET reads; SET … GET reads too.
	expect(t, c, "OK", "SET", "inbox:1", "m")
	expectErr(t, c, errNoPermKeys, "GET", "inbox:1")
	expectErr(t, c, errNoPermKeys, "SET", "inbox:1", "m", "GET")
	// Every key position is checked.
	expectErr(t, c, errNoPermKeys, "MGET", "app:1", "other")
	expectErr(t, c, errNoPermKeys, "COPY", "app:1", "shared:2")
	expect(t, c, int64(1), "COPY", "shared:1", "app:3")
	// An existence test needs no access: any pattern grants it.
	expect(t, c, int64(1), "EXISTS", "inbox:1")
	expect(t, admin, "s", "GET", "shared:1")

	// Selectors: the root allows only GET on app:*, a selector allows SET
	// on tmp:*; a call must be allowed by one of them as a whole.
	expect(t, admin, "OK", "ACL", "SETUSER", "sel", "on", ">p", "+get", "~app:*", "(+set ~tmp:*)")
	sc := userClient(t, s.Addr(), "sel", "p")
	expect(t, sc, "a", "GET", "app:1")
	expect(t, sc, "OK", "SET", "tmp:1", "x")
	expectErr(t, sc, errNoPermKeys, "SET", "app:1", "x")
	expectErr(t, sc, errNoPermKeys, "GET", "tmp:1")
	expectErr(t, sc, errNoPermCmd("del"), "DEL", "tmp:1")
	expect(t, admin, "OK", "ACL", "SETUSER", "sel", "clearselectors")
	expectErr(t, sc, errNoPermCmd("set"), "SET", "tmp:1", "x")

	// GETUSER shows the root permissions and each selector.
	expect(t, admin, "OK", "ACL", "SETUSER", "sel", "(+set ~tmp:*)")
	got := value(t, admin, "ACL", "GETUSER", "sel")
	m, ok := got.(map[interface{}]interface{})
	if !ok {
		t.Fatalf("GETUSER sel: %#v", got)
	}
	if m["commands"] != "-@all +get" || m["keys"] != "~app:*" || m["channels"] != "" {
		t.Errorf("GETUSER sel root: %#v", m)
	}
	sels, _ := m["selectors"].([]interface{})
	if len(sels) != 1 {
		t.Fatalf("GETUSER sel selectors: %#v", m["selectors"])
	}
	sel, _ := sels[0].(map[interface{}]interface{})
	if sel["commands"] != "-@all +set" || sel["keys"] != "~tmp:*" {
		t.Errorf("GETUSER sel selector: %#v", sel)
	}
}

func TestACLAuthAndHello(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := s.Client(t)
	// The default user has no password: the one-argument AUTH says so.
	expectErr(t, admin, "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?", "AUTH", "x")
	expect(t, admin, "OK", "ACL", "SETUSER", "u", "on", ">right", "~*", "+@all")
	expect(t, admin, "OK", "ACL", "SETUSER", "off", "off", ">right", "~*", "+@all")

	r := dialRaw(t, s.Addr())
	r.expect(bulk("default"), "ACL", "WHOAMI")
	r.expect("-"+errWrongPassReply+"\r\n", "AUTH", "u", "wrong")
	r.expect("-"+errWrongPassReply+"\r\n", "AUTH", "nobody", "right")
	r.expect("-"+errWrongPassReply+"\r\n", "AUTH", "off", "right")
	r.expect(bulk("default"), "ACL", "WHOAMI")
	r.expect("+OK\r\n", "AUTH", "u", "right")
	r.expect(bulk("u"), "ACL", "WHOAMI")
	if got := r.do("CLIENT", "INFO"); !strings.Contains(got, " user=u ") {
		t.Errorf("CLIENT INFO after AUTH u: %q", got)
	}

	// HELLO AUTH wrong and right, with SETNAME.
	h := dialRaw(t, s.Addr())
	h.expect("-"+errWrongPassReply+"\r\n", "HELLO", "3", "AUTH", "u", "wrong")
	h.expect(bulk("default"), "ACL", "WHOAMI")
	if got := h.do("HELLO", "3", "AUTH", "u", "right", "SETNAME", "named"); !strings.HasPrefix(got, "%7\r\n") {
		t.Fatalf("HELLO 3 AUTH u right SETNAME named: %q", got)
	}
	h.expect(bulk("u"), "ACL", "WHOAMI")
	h.expect(bulk("named"), "CLIENT", "GETNAME")
	// RESET goes back to the default user.
	h.expect("+RESET\r\n", "RESET")
	h.expect(bulk("default"), "ACL", "WHOAMI")

	// With a password on the default user, a fresh connection must AUTH;
	// a user that is not allowed HELLO's command can still use it, as
	// AUTH and HELLO are exempt from command rules.
	expect(t, admin, "OK", "ACL", "SETUSER", "default", ">pw")
	expect(t, admin, "OK", "ACL", "SETUSER", "limited", "on", ">x", "-@all", "+ping")
	n := dialRaw(t, s.Addr())
	n.expect("-NOAUTH Authentication required.\r\n", "PING")
	n.expect("+OK\r\n", "AUTH", "limited", "x")
	n.expect("+PONG\r\n", "PING")
	n.expect("-"+errNoPermCmd("get")+"\r\n", "GET", "k")
	if got := n.do("HELLO", "2", "AUTH", "default", "pw"); !strings.HasPrefix(got, "*14\r\n") {
		t.Errorf("HELLO 2 AUTH default pw: %q", got)
	}
	n.expect("$-1\r\n", "GET", "k")
	expect(t, admin, "OK", "ACL", "SETUSER", "default", "nopass")
}

func TestACLRequirePassIsDefaultUserPassword(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.RequirePass = "first" }))
	r := dialRaw(t, s.Addr())
	r.expect("+OK\r\n", "AUTH", "first")
	r.expect("+OK\r\n", "CONFIG", "SET", "requirepass", "second")
	n := dialRaw(t, s.Addr())
	n.expect("-"+errWrongPassReply+"\r\n", "AUTH", "first")
	n.expect("+OK\r\n", "AUTH", "default", "second")
	if got := n.do("ACL", "LIST"); !strings.Contains(got, "user default on #") {
		t.Errorf("ACL LIST after CONFIG SET requirepass: %q", got)
	}
	// An empty requirepass makes the default user nopass again.
	n.expect("+OK\r\n", "CONFIG", "SET", "requirepass", "")
	fresh := dialRaw(t, s.Addr())
	fresh.expect("+PONG\r\n", "PING")
}

func TestACLLogEntries(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := s.Client(t)
	expect(t, admin, "OK", "ACL", "SETUSER", "logged", "on", ">p", "+get", "+client|setname", "~allowed:*")
	r := dialRaw(t, s.Addr())
	r.expect("+OK\r\n", "AUTH", "logged", "p")
	r.expect("+OK\r\n", "CLIENT", "SETNAME", "logclient")
	r.expect("-"+errNoPermCmd("client|getname")+"\r\n", "CLIENT", "GETNAME")
	r.expect("-"+errNoPermKeys+"\r\n", "GET", "secret")
	r.expect("-"+errNoPermKeys+"\r\n", "GET", "secret")
	r.expect("-"+errWrongPassReply+"\r\n", "AUTH", "logged", "bad")

	entries, ok := value(t, admin, "ACL", "LOG").([]interface{})
	if !ok || len(entries) != 3 {
		t.Fatalf("ACL LOG: %#v", entries)
	}
	field := func(i int, name string) interface{} {
		m, _ := entries[i].(map[interface{}]interface{})
		return m[name]
	}
	// Newest first: the failed AUTH, the key denial (counted twice), the
	// command denial.
	want := []struct {
		count           int64
		reason, object  string
		user, clientHas string
	}{
		{1, "auth", "AUTH", "logged", "name=logclient"},
		{2, "key", "secret", "logged", "cmd=get user=logged"},
		{1, "command", "client|getname", "logged", "cmd=client|getname user=logged"},
	}
	for i, w := range want {
		if field(i, "count") != w.count || field(i, "reason") != w.reason || field(i, "object") != w.object ||
			field(i, "username") != w.user || field(i, "context") != "toplevel" {
			t.Errorf("entry %d: %#v, want %+v", i, entries[i], w)
		}
		if ci, _ := field(i, "client-info").(string); !strings.Contains(ci, w.clientHas) || !strings.HasPrefix(ci, "id=") {
			t.Errorf("entry %d client-info %q lacks %q", i, ci, w.clientHas)
		}
		if age, ok := field(i, "age-seconds").(float64); !ok || age < 0 {
			t.Errorf("entry %d age-seconds %#v", i, field(i, "age-seconds"))
		}
	}
	if one, _ := value(t, admin, "ACL", "LOG", "1").([]interface{}); len(one) != 1 {
		t.Errorf("ACL LOG 1: %#v", one)
	}
	expectErr(t, admin, errNotInt, "ACL", "LOG", "x")
	expectErr(t, admin, "ERR unknown subcommand or wrong number of arguments for 'LOG'. Try ACL HELP.", "ACL", "LOG", "1", "x")
	expect(t, admin, "OK", "ACL", "LOG", "RESET")
	expect(t, admin, []interface{}{}, "ACL", "LOG")

	// acllog-max-len bounds the entries kept.
	expect(t, admin, "OK", "CONFIG", "SET", "acllog-max-len", "2")
	for _, k := range []string{"k1", "k2", "k3"} {
		r.expect("-"+errNoPermKeys+"\r\n", "GET", k)
	}
	if got, _ := value(t, admin, "ACL", "LOG", "100").([]interface{}); len(got) != 2 {
		t.Errorf("ACL LOG with acllog-max-len 2: %d entries", len(got))
	}
}

func TestACLDryRunAndMisc(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	admin := s.Client(t)
	expect(t, admin, "OK", "ACL", "SETUSER", "dry", "on", "+set", "~obj:*")
	expect(t, admin, "OK", "ACL", "DRYRUN", "dry", "SET", "obj:1", "v")
	expect(t, admin, "This user has no permissions to run the 'get' command", "ACL", "DRYRUN", "dry", "GET", "obj:1")
	expect(t, admin, "This user has no permissions to access the 'x' key", "ACL", "DRYRUN", "dry", "SET", "x", "v")
	expectErr(t, admin, "ERR User 'ghost' not found", "ACL", "DRYRUN", "ghost", "GET", "x")
	expectErr(t, admin, "ERR Command 'NOSUCH' not found", "ACL", "DRYRUN", "dry", "NOSUCH", "x")
	expectErr(t, admin, "ERR wrong number of arguments for 'set' command", "ACL", "DRYRUN", "dry", "SET", "obj:1")
	expectErr(t, admin, errArity("acl|dryrun"), "ACL", "DRYRUN", "dry")

	expect(t, admin, []interface{}{"default", "dry"}, "ACL", "USERS")
	expect(t, admin, []interface{}{"user default on nopass ~* &* +@all", "user dry on ~obj:* resetchannels -@all +set"}, "ACL", "LIST")
	expect(t, admin, nil, "ACL", "GETUSER", "ghost")
	expectErr(t, admin, "ERR Usernames can't contain spaces or null characters", "ACL", "SETUSER", "a b")
	expect(t, admin, map[interface{}]interface{}{"flags": []interface{}{"on", "nopass"}, "passwords": []interface{}{},
		"commands": "+@all", "keys": "~*", "channels": "&*", "selectors": []interface{}{}}, "ACL", "GETUSER", "default")
	cats, _ := value(t, admin, "ACL", "CAT").([]interface{})
	if len(cats) != 21 || cats[0] != "keyspace" {
		t.Errorf("ACL CAT: %#v", cats)
	}
	if rd, _ := value(t, admin, "ACL", "CAT", "read").([]interface{}); len(rd) == 0 {
		t.Error("ACL CAT read is empty")
	}
	expectErr(t, admin, "ERR Unknown category 'nope'", "ACL", "CAT", "nope")
	if p, _ := value(t, admin, "ACL", "GENPASS").(string); len(p) != 64 {
		t.Errorf("ACL GENPASS: %q", p)
	}
	if p, _ := value(t, admin, "ACL", "GENPASS", "5").(string); len(p) != 2 {
		t.Errorf("ACL GENPASS 5: %q", p)
	}
	expectErr(t, admin, "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096", "ACL", "GENPASS", "0")
	expectErr(t, admin, "ERR The 'default' user cannot be removed", "ACL", "DELUSER", "dry", "default")
	expect(t, admin, int64(1), "ACL", "DELUSER", "dry", "ghost")
	expectErr(t, admin, "ERR Error in ACL SETUSER modifier 'bogus': Syntax error", "ACL", "SETUSER", "x", "bogus")
	expectErr(t, admin, "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL", "ACL", "SETUSER", "x", "+nosuch")
	expect(t, admin, nil, "ACL", "GETUSER", "x") // a failed SETUSER creates nothing
	expectErr(t, admin, "ERR unknown subcommand 'NOPE'. Try ACL HELP.", "ACL", "NOPE")
	expectErr(t, admin, "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.", "ACL", "SAVE")
	if h, _ := value(t, admin, "ACL", "HELP").([]interface{}); len(h) < 10 {
		t.Errorf("ACL HELP: %#v", h)
	}
}

func TestACLSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "users.acl")
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.ACL.File = file }))
	admin := s.Client(t)
	expect(t, admin, "OK", "ACL", "SETUSER", "saved", "on", ">pw", "~a:*", "%R~b:*", "&ch", "+@read", "(+set ~c:*)")
	before := value(t, admin, "ACL", "LIST")
	expect(t, admin, map[interface{}]interface{}{"aclfile": file}, "CONFIG", "GET", "aclfile")
	expect(t, admin, "OK", "ACL", "SAVE")
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), "user saved on #") {
		t.Fatalf("ACL file: %q %v", data, err)
	}
	expect(t, admin, int64(1), "ACL", "DELUSER", "saved")
	expect(t, admin, "OK", "ACL", "SETUSER", "unsaved", "on")
	expect(t, admin, "OK", "ACL", "LOAD")
	expect(t, admin, before, "ACL", "LIST")
	c := userClient(t, s.Addr(), "saved", "pw")
	expect(t, c, "OK", "SET", "c:1", "v")

	// A bad file changes nothing and says where the problem is.
	if err := os.WriteFile(file, []byte("user saved on >pw\nuser broken on +nosuch\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = admin.Do(ctxT(t), "ACL", "LOAD").Result()
	if err == nil || !strings.Contains(err.Error(), "users.acl:2: ") {
		t.Errorf("ACL LOAD of a bad file: %v", err)
	}
	expect(t, admin, before, "ACL", "LIST")

	// A restart reads the file.
	s.Stop()
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := testserver.Start(t, testserver.Config(func(c *config.Config) { c.ACL.File = file }))
	expect(t, s2.Client(t), before, "ACL", "LIST")
}

func TestACLUsersFromTOML(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("acl.toml", []byte(`
[[acl.user]]
name = "app"
passwords = ["sha256:5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"]
commands = "+@all -@dangerous +idem"
keys = ["~app:*", "%R~shared:*"]
channels = ["&events.*"]
enabled = true

[[acl.user]]
name = "disabled"
passwords = ["plain:x"]
commands = "+@all"
enabled = false
`))
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.ACL = cfg.ACL }))
	c := userClient(t, s.Addr(), "app", "password")
	expect(t, c, "OK", "SET", "app:1", "v")
	expectErr(t, c, errNoPermKeys, "SET", "shared:1", "v")
	expectErr(t, c, errNoPermCmd("flushdb"), "FLUSHDB")
	list, _ := value(t, s.Client(t), "ACL", "LIST").([]interface{})
	if len(list) != 3 || list[0] != "user app on #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ~app:* %R~shared:* resetchannels &events.* +@all -@dangerous" {
		t.Errorf("ACL LIST: %#v", list)
	}
	r := dialRaw(t, s.Addr())
	r.expect("-"+errWrongPassReply+"\r\n", "AUTH", "disabled", "x")
}

func TestACLInvalidUserStopsStartUp(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Persistence.Dir = t.TempDir()
	cfg.Persistence.WAL = false
	cfg.Persistence.SnapshotOnShutdown = false
	port, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Server.Port = port
	cfg.ACL.Users = []config.ACLUser{{Name: "bad", Commands: "+@all +nosuchcommand"}}
	a, err := app.Start(cfg, app.Options{Logger: zap.NewNop()})
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.Stop(ctx)
		t.Fatal("start-up with an invalid rule succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "bad") || !strings.Contains(msg, "+nosuchcommand") {
		t.Errorf("start-up error does not name user and rule: %v", err)
	}
	// A user declared twice is refused too.
	cfg.ACL.Users = []config.ACLUser{{Name: "twice"}, {Name: "twice"}}
	if a, err := app.Start(cfg, app.Options{Logger: zap.NewNop()}); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.Stop(ctx)
		t.Fatal("start-up with a duplicate user succeeded")
	} else if !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate user error: %v", err)
	}
}

func TestACLDeletedUserIsDisconnected(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(2))
	admin := s.ClientOf(t, 1)
	expect(t, admin, "OK", "ACL", "SETUSER", "gone", "on", ">p", "~*", "+@all")
	expect(t, admin, "OK", "ACL", "SETUSER", "paused", "on", ">p", "~*", "+@all")
	expect(t, admin, "OK", "ACL", "SETUSER", "changed", "on", ">p", "~*", "+@all")

	// Users set through shard 1 authenticate on shard 0: one store.
	g := dialRaw(t, s.Addrs[0])
	g.expect("+OK\r\n", "AUTH", "gone", "p")
	p := dialRaw(t, s.Addrs[0])
	p.expect("+OK\r\n", "AUTH", "paused", "p")
	ch := dialRaw(t, s.Addrs[0])
	ch.expect("+OK\r\n", "AUTH", "changed", "p")
	ch.expect("+PONG\r\n", "PING")

	// A changed user's open connections get the new rules at once.
	expect(t, admin, "OK", "ACL", "SETUSER", "changed", "-ping")
	ch.expect("-"+errNoPermCmd("ping")+"\r\n", "PING")

	expect(t, admin, int64(1), "ACL", "DELUSER", "gone")
	g.expectClosed(5 * time.Second)
	// Turning a user off refuses new logins; open connections stay, as in Redis 7.0.
	expect(t, admin, "OK", "ACL", "SETUSER", "paused", "off")
	p.expect("+PONG\r\n", "PING")
	p.expect("-"+errWrongPassReply+"\r\n", "AUTH", "paused", "p")

	// Deleting the caller's own user: the reply comes, then the close.
	self := dialRaw(t, s.Addrs[1])
	self.expect("+OK\r\n", "AUTH", "changed", "p")
	expect(t, admin, "OK", "ACL", "SETUSER", "changed", "+acl")
	self.expect(":1\r\n", "ACL", "DELUSER", "changed")
	self.expectClosed(5 * time.Second)
	ch.expectClosed(5 * time.Second)
	// CLIENT KILL USER closes the connections of one user.
	expect(t, admin, "OK", "ACL", "SETUSER", "killed", "on", ">p", "+@all")
	k := dialRaw(t, s.Addrs[0])
	k.expect("+OK\r\n", "AUTH", "killed", "p")
	expect(t, admin, int64(1), "CLIENT", "KILL", "USER", "killed")
	k.expectClosed(5 * time.Second)
	expectErr(t, admin, "ERR No such user 'ghost'", "CLIENT", "KILL", "USER", "ghost")
	// Other users' connections stay.
	expect(t, admin, "PONG", "PING")
}

// TestACLServerCasesOfRedisSuite rewrites, as Go, the server-level cases
// of Redis's unit/acl and unit/acl-v2 suites (which skip themselves in
// external mode); the rule-level cases live in acl/.
func TestACLServerCasesOfRedisSuite(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	root := s.Client(t)
	expect(t, root, "OK", "ACL", "SETUSER", "root", "on", ">rootpw", "~*", "&*", "+@all")
	root = userClient(t, s.Addr(), "root", "rootpw")

	// New users start disabled; enabling allows the login; only the
	// passwords set work, and removing one stops it working.
	expect(t, root, "OK", "ACL", "SETUSER", "newuser", ">passwd1", ">passwd2")
	c := dialRaw(t, s.Addr())
	c.expect("-"+errWrongPassReply+"\r\n", "AUTH", "newuser", "passwd1")
	expect(t, root, "OK", "ACL", "SETUSER", "newuser", "on")
	c.expect("+OK\r\n", "AUTH", "newuser", "passwd1")
	c.expect("+OK\r\n", "AUTH", "newuser", "passwd2")
	c.expect("-"+errWrongPassReply+"\r\n", "AUTH", "newuser", "passwd3")
	expect(t, root, "OK", "ACL", "SETUSER", "newuser", "<passwd1")
	c.expect("-"+errWrongPassReply+"\r\n", "AUTH", "newuser", "passwd1")

	// By default a user may run no command and access no key.
	c.expect("-"+errNoPermCmd("set")+"\r\n", "SET", "foo", "bar")
	expect(t, root, "OK", "ACL", "SETUSER", "newuser", "+set")
	c.expect("-"+errNoPermKeys+"\r\n", "SET", "foo", "bar")
	expect(t, root, "OK", "ACL", "SETUSER", "newuser", "~foo:*", "~bar:*")
	c.expect("+OK\r\n", "SET", "foo:1", "a")
	c.expect("-"+errNoPermKeys+"\r\n", "SET", "zap:1", "a")

	// nopass: any password authenticates.
	expect(t, root, "OK", "ACL", "SETUSER", "newuser", "nopass")
	c.expect("+OK\r\n", "AUTH", "newuser", "anything")

	// SELECT of one database only (+select|0, a first-argument rule).
	expect(t, root, "OK", "ACL", "SETUSER", "newuser", "-select", "+select|0")
	c.expect("+OK\r\n", "SELECT", "0")
	c.expect("-"+errNoPermCmd("select")+"\r\n", "SELECT", "1")

	// ACL WHOAMI follows AUTH.
	c.expect("-"+errNoPermCmd("acl|whoami")+"\r\n", "ACL", "WHOAMI") // not yet allowed
	expect(t, root, "OK", "ACL", "SETUSER", "newuser", "+acl|whoami")
	c.expect(bulk("newuser"), "ACL", "WHOAMI")

	// When the default user has no command permission, HELLO still works
	// to authenticate as another user.
	expect(t, root, "OK", "ACL", "SETUSER", "default", "-@all")
	h := dialRaw(t, s.Addr())
	h.expect("-"+errNoPermCmd("ping")+"\r\n", "PING")
	if got := h.do("HELLO", "2", "AUTH", "root", "rootpw"); !strings.HasPrefix(got, "*14\r\n") {
		t.Errorf("HELLO 2 AUTH root: %q", got)
	}
	h.expect("+PONG\r\n", "PING")
	expect(t, root, "OK", "ACL", "SETUSER", "default", "+@all")

	// When the default user is off, new connections are not authenticated.
	expect(t, root, "OK", "ACL", "SETUSER", "default", "off")
	n := dialRaw(t, s.Addr())
	n.expect("-NOAUTH Authentication required.\r\n", "PING")
	n.expect("+OK\r\n", "AUTH", "root", "rootpw")
	n.expect("+PONG\r\n", "PING")
	expect(t, root, "OK", "ACL", "SETUSER", "default", "on")
	fresh := dialRaw(t, s.Addr())
	fresh.expect("+PONG\r\n", "PING")

	// ACL LOAD without the file says so; deleting an unused user keeps
	// the caller connected.
	expect(t, root, int64(1), "ACL", "DELUSER", "newuser")
	c.expectClosed(5 * time.Second)
	expect(t, root, int64(0), "ACL", "DELUSER", "newuser")
	expect(t, root, "PONG", "PING")
}

func TestACLLoadMissingFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "missing.acl")
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.ACL.File = file }))
	expectErr(t, s.Client(t), "ERR Error loading ACLs, opening file '"+file+"': No such file or directory", "ACL", "LOAD")
	expect(t, s.Client(t), "OK", "ACL", "SAVE")
	expect(t, s.Client(t), "OK", "ACL", "LOAD")
}
