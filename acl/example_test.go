package acl_test

import (
	"fmt"

	"github.com/ruvio/ruvio/acl"
)

func Example() {
	u, err := acl.NewUniverse([]acl.CommandSpec{
		{Name: "get", Categories: []string{"read", "string", "fast"},
			Keys: []acl.KeySpec{{Access: acl.Read, Index: 1, KeyStep: 1}}},
		{Name: "set", Categories: []string{"write", "string", "slow"},
			Keys: []acl.KeySpec{{Access: acl.Write, Index: 1, KeyStep: 1}}},
		{Name: "del", Categories: []string{"keyspace", "write", "slow"},
			Keys: []acl.KeySpec{{Access: acl.Write, Index: 1, LastKey: -1, KeyStep: 1}}},
		{Name: "flushall", Categories: []string{"keyspace", "write", "slow", "dangerous"}},
	})
	if err != nil {
		panic(err)
	}
	users, err := acl.NewUsers(u, acl.Options{}).SetUser("app", "on", ">secret", "+@all", "-@dangerous", "~app:*", "%R~shared:*")
	if err != nil {
		panic(err)
	}
	store := acl.NewStore(users) // shards Load() it; ACL SETUSER Update()s it

	app, _ := store.Load().Authenticate([]byte("app"), []byte("secret"))
	for _, call := range [][]string{{"get", "shared:x"}, {"set", "shared:x", "1"}, {"flushall"}} {
		args := make([][]byte, len(call))
		for i, a := range call {
			args[i] = []byte(a)
		}
		id, _ := u.Resolve(args)
		req := &acl.Request{Cmd: id, Args: args, Keys: u.AppendKeys(nil, id, args)}
		if d := app.Check(req); d.OK() {
			fmt.Println("OK")
		} else {
			fmt.Println(d.Error(u, req))
		}
	}
	fmt.Println(store.Load().List()[0])
	// Output:
	// OK
	// NOPERM this user has no permissions to access one of the keys used as arguments
	// NOPERM this user has no permissions to run the 'flushall' command
	// user app on #2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b ~app:* %R~shared:* resetchannels +@all -@dangerous
}
