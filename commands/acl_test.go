package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"slices"
	"testing"

	"github.com/ruvio/ruvio/acl"
)

// The ACL universe is built in command-id order, so a command's id is its
// acl.CommandID; names and categories must agree everywhere.
func TestACLUniverseMatchesCommandTable(t *testing.T) {
	sh := newTestShard(t)
	u := sh.Srv.ACL.Universe
	n := 0
	for _, c := range sh.Srv.Cmds {
		for _, cc := range append([]*keyspace.Command{c}, c.Subcommands...) {
			n++
			id := acl.CommandID(cc.ID)
			if got := u.FullName(id); got != cc.FullName() {
				t.Errorf("id %d: universe has %q, table %q", cc.ID, got, cc.FullName())
			}
			if got, want := u.Categories(id).Names(), cc.ACLCategories(); !sameSet(got, want) {
				t.Errorf("%s: universe categories %v, table %v", cc.FullName(), got, want)
			}
		}
	}
	if n != u.Len() {
		t.Errorf("universe has %d commands, table %d", u.Len(), n)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Pub/Sub does not exist yet; the channel positions a check passes to
// acl are ready for it.
func TestCommandChannels(t *testing.T) {
	args := toArgv("SUBSCRIBE", "a", "b")
	if got := keyspace.CommandChannels("subscribe", args, nil); !slices.Equal(got, []acl.ChannelRef{{Pos: 1}, {Pos: 2}}) {
		t.Errorf("subscribe: %v", got)
	}
	if got := keyspace.CommandChannels("publish", toArgv("PUBLISH", "ch", "msg"), nil); !slices.Equal(got, []acl.ChannelRef{{Pos: 1}}) {
		t.Errorf("publish: %v", got)
	}
	if got := keyspace.CommandChannels("psubscribe", toArgv("PSUBSCRIBE", "n.*"), nil); !slices.Equal(got, []acl.ChannelRef{{Pos: 1, Pattern: true}}) {
		t.Errorf("psubscribe: %v", got)
	}
	if got := keyspace.CommandChannels("unsubscribe", toArgv("UNSUBSCRIBE", "a"), nil); len(got) != 0 {
		t.Errorf("unsubscribe needs no permission: %v", got)
	}
	// A user with "&news.*" may publish to news.x only.
	users, err := acl.NewUsers(newTestShard(t).Srv.ACL.Universe, acl.Options{}).SetUser("p", "on", "+@all", "&news.*")
	if err != nil {
		t.Fatal(err)
	}
	u := users.Get("p")
	if !u.CheckChannel([]byte("news.x"), false) || u.CheckChannel([]byte("sports"), false) {
		t.Error("channel rule &news.* not applied")
	}
}

// A restricted user's allowed call allocates nothing either, and a
// denied one replies NOPERM without running the command.
func TestACLCheckRestrictedUser(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rOK, "SET", "key:1", "v")
	expect(t, sh, rOK, "ACL", "SETUSER", "r", "on", "nopass", "+get", "+set", "~key:*")
	expect(t, sh, rOK, "AUTH", "r", "x")
	expect(t, sh, rErr("NOPERM this user has no permissions to run the 'acl|whoami' command"), "ACL", "WHOAMI")
	expect(t, sh, rErr("NOPERM this user has no permissions to access one of the keys used as arguments"), "SET", "other", "v")
	get := toArgv("GET", "key:1")
	execArgv(sh, get)
	if n := testing.AllocsPerRun(100, func() { execArgv(sh, get) }); n != 0 {
		t.Errorf("GET by a restricted user: %v allocations", n)
	}
	if got := string(execArgv(sh, get)); got != rBulk("v") {
		t.Errorf("GET key:1: %q", got)
	}
	// The denied SET did not run.
	expect(t, sh, rOK, "AUTH", "default", "any")
	expect(t, sh, rNull, "GET", "other")
}

// BenchmarkACLRestrictedGET is GET by a user with a command list and a
// key pattern: the slow path of the check, for comparison with HotGET.
func BenchmarkACLRestrictedGET(b *testing.B) {
	sh := benchShard(b)
	for _, args := range [][]string{{"SET", "key:1", "v"}, {"ACL", "SETUSER", "r", "on", "nopass", "+get", "~key:*"}, {"AUTH", "r", "x"}} {
		sh.Exec(&sh.Ctx, toArgv(args...))
	}
	get := toArgv("GET", "key:1")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sh.Ctx.W.Reset()
		sh.Exec(&sh.Ctx, get)
	}
}
