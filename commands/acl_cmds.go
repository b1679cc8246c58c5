package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"errors"
	"os"
	"strings"

	"github.com/ruvio/ruvio/acl"
	"go.uber.org/zap"
)

// The ACL command family. Every shard runs it against the one users
// store, so a change made through any shard's connection applies to all
// shards at once.

// ACL <subcommand>
func aclCommand(x *keyspace.Ctx) {
	sub := x.Cmd.Sub(x.Args[1])
	if sub == nil {
		x.W.Error("ERR unknown subcommand '" + string(x.Args[1]) + "'. Try ACL HELP.")
		return
	}
	if !keyspace.ArityOK(sub.Arity, len(x.Args)) {
		x.W.Error(keyspace.ErrWrongArgs("acl|" + sub.Name))
		return
	}
	// CAT, GENPASS and LOG take at most one argument; Redis answers more
	// with its generic subcommand error.
	if len(x.Args) > 3 && (sub.Name == "cat" || sub.Name == "genpass" || sub.Name == "log") {
		x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + keyspace.TruncArg(x.Args[1]) + "'. Try ACL HELP.")
		return
	}
	sub.Handler(x)
}

// ACL SETUSER username [rule ...]
func aclSetUserCommand(x *keyspace.Ctx) {
	name := string(x.Args[2])
	rules := make([]string, len(x.Args)-3)
	for i, a := range x.Args[3:] {
		rules[i] = string(a)
	}
	var old *acl.Users
	opts := acl.Options{PubSubAllChannels: x.S.Srv.Opts.Live.ACLPubsubAllChannels()}
	users, err := x.S.Srv.ACL.Store.Update(func(u *acl.Users) (*acl.Users, error) {
		old = u
		return u.WithOptions(opts).SetUser(name, rules...)
	})
	if err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	x.W.OK()
	u, ou := users.Get(name), old.Get(name)
	if u != nil && ou != nil && !u.KeepsChannels(ou) {
		x.ACLChanged(old, users, false)
	}
}

// ACL DELUSER username [username ...]
func aclDelUserCommand(x *keyspace.Ctx) {
	names := make([]string, len(x.Args)-2)
	for i, a := range x.Args[2:] {
		names[i] = string(a)
	}
	var deleted int
	var old *acl.Users
	users, err := x.S.Srv.ACL.Store.Update(func(u *acl.Users) (*acl.Users, error) {
		old = u
		next, gone, err := u.DelUsers(names...)
		deleted = len(gone)
		return next, err
	})
	if err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	x.W.Int(int64(deleted))
	if deleted > 0 {
		x.ACLChanged(old, users, false)
	}
}

// ACL GETUSER username
func aclGetUserCommand(x *keyspace.Ctx) {
	u := x.S.Srv.Users().GetBytes(x.Args[2])
	if u == nil {
		x.W.Null()
		return
	}
	info := u.Info()
	w := x.W
	w.MapHeader(6)
	w.BulkString("flags")
	w.SetHeader(len(info.Flags))
	for _, f := range info.Flags {
		w.BulkString(f)
	}
	w.BulkString("passwords")
	w.BulkStrings(info.Passwords)
	writePermissions(x, info.Root)
	w.BulkString("selectors")
	w.ArrayHeader(len(info.Selectors))
	for _, sel := range info.Selectors {
		w.MapHeader(3)
		writePermissions(x, sel)
	}
}

func writePermissions(x *keyspace.Ctx, p acl.Permissions) {
	x.W.BulkString("commands")
	x.W.BulkString(p.Commands)
	x.W.BulkString("keys")
	x.W.BulkString(p.Keys)
	x.W.BulkString("channels")
	x.W.BulkString(p.Channels)
}

// ACL LIST
func aclListCommand(x *keyspace.Ctx) { x.W.BulkStrings(x.S.Srv.Users().List()) }

// ACL USERS
func aclUsersCommand(x *keyspace.Ctx) { x.W.BulkStrings(x.S.Srv.Users().Names()) }

// ACL WHOAMI
func aclWhoAmICommand(x *keyspace.Ctx) { x.W.BulkString(x.C.UserName()) }

// ACL CAT [category]
func aclCatCommand(x *keyspace.Ctx) {
	if len(x.Args) == 2 {
		x.W.BulkStrings(acl.CategoryNames())
		return
	}
	cat, ok := acl.ParseCategory(string(x.Args[2]))
	if !ok {
		a := x.Args[2]
		if len(a) > 128 {
			a = a[:128]
		}
		x.W.Error("ERR Unknown category '" + string(a) + "'")
		return
	}
	x.W.BulkStrings(x.S.Srv.ACL.Universe.InCategory(cat))
}

// ACL GENPASS [bits]
func aclGenPassCommand(x *keyspace.Ctx) {
	bits := int64(256)
	if len(x.Args) == 3 {
		n, ok := keyspace.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
		bits = n
	}
	if bits <= 0 || bits > acl.GenPassMaxBits {
		x.W.Error("ERR " + acl.ErrGenPassBits.Error())
		return
	}
	pass, err := acl.GenPass(int(bits))
	if err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	x.W.BulkString(pass)
}

// ACL LOG [count | RESET]
func aclLogCommand(x *keyspace.Ctx) {
	count := int64(10)
	if len(x.Args) == 3 {
		if keyspace.EqFold(x.Args[2], "reset") {
			x.S.Srv.ACL.LogMu.Lock()
			x.S.Srv.ACL.Log.Reset()
			x.S.Srv.ACL.LogMu.Unlock()
			x.W.OK()
			return
		}
		n, ok := keyspace.ParseInt(x.Args[2])
		if !ok {
			x.W.Error(keyspace.ErrNotInt)
			return
		}
		count = max(n, 0)
	}
	x.S.Srv.ACL.LogMu.Lock()
	entries := x.S.Srv.ACL.Log.Entries(int(min(count, 1<<30)))
	x.S.Srv.ACL.LogMu.Unlock()
	w := x.W
	w.ArrayHeader(len(entries))
	for _, e := range entries {
		w.MapHeader(7)
		w.BulkString("count")
		w.Int(int64(e.Count))
		w.BulkString("reason")
		w.BulkString(e.Reason.String())
		w.BulkString("context")
		w.BulkString(e.Context.String())
		w.BulkString("object")
		w.BulkString(e.Object)
		w.BulkString("username")
		w.BulkString(e.Username)
		w.BulkString("age-seconds")
		w.Double(e.AgeSeconds)
		w.BulkString("client-info")
		w.BulkString(e.ClientInfo)
	}
}

// ACL DRYRUN username command [arg ...]
func aclDryRunCommand(x *keyspace.Ctx) {
	u := x.S.Srv.Users().GetBytes(x.Args[2])
	if u == nil {
		x.W.Error("ERR User '" + string(x.Args[2]) + "' not found")
		return
	}
	args := x.Args[3:]
	cmd := x.S.Srv.Cmds.Lookup(args[0])
	if cmd != nil && len(cmd.Subcommands) > 0 && len(args) > 1 && cmd.Sub(args[1]) == nil {
		cmd = nil // an unknown subcommand is not found, as Redis's lookup says
	}
	if cmd == nil {
		x.W.Error("ERR Command '" + string(args[0]) + "' not found")
		return
	}
	called := cmd.Called(args)
	if !keyspace.ArityOK(called.Arity, len(args)) {
		x.W.Error("ERR wrong number of arguments for '" + called.FullName() + "' command")
		return
	}
	req := x.S.ACLRequest(cmd, args)
	d := u.Check(req)
	if !d.OK() {
		x.W.BulkString(d.DryRunMessage(x.S.Srv.ACL.Universe, req))
	} else {
		x.W.OK()
	}
	req.Args = nil
}

// errNoACLFile is ACL SAVE's and ACL LOAD's error without acl.file.
const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

// ACL SAVE
func aclSaveCommand(x *keyspace.Ctx) {
	st := x.S.Srv.ACL
	if st.File == "" {
		x.W.Error(errNoACLFile)
		return
	}
	st.FileMu.Lock()
	err := saveACLFile(st.File, st.Store.Load().File())
	st.FileMu.Unlock()
	if err != nil {
		x.S.Srv.Log.Warn("ACL SAVE failed", zap.String("file", st.File), zap.Error(err))
		x.W.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	x.W.OK()
}

// ACL LOAD
func aclLoadCommand(x *keyspace.Ctx) {
	st := x.S.Srv.ACL
	if st.File == "" {
		x.W.Error(errNoACLFile)
		return
	}
	st.FileMu.Lock()
	defer st.FileMu.Unlock()
	data, err := os.ReadFile(st.File)
	if err != nil {
		x.W.Error("ERR Error loading ACLs, opening file '" + st.File + "': " + errorText(err))
		return
	}
	var old *acl.Users
	opts := acl.Options{PubSubAllChannels: x.S.Srv.Opts.Live.ACLPubsubAllChannels()}
	users, err := st.Store.Update(func(u *acl.Users) (*acl.Users, error) {
		old = u
		return u.WithOptions(opts).LoadFile(st.File, data)
	})
	if err != nil {
		var le *acl.LoadError
		if errors.As(err, &le) {
			x.W.Error("ERR " + le.Error())
		} else {
			x.W.Error("ERR " + err.Error())
		}
		return
	}
	x.W.OK()
	x.ACLChanged(old, users, true)
}

// errorText is an OS error's description without the operation and path
// (Redis prints strerror).
func errorText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// ACL HELP
func aclHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "ACL",
		"CAT [<category>]",
		"    List all commands that belong to <category>, or all command categories",
		"    when no category is specified.",
		"DELUSER <username> [<username> ...]",
		"    Delete a list of users.",
		"DRYRUN <username> <command> [<arg> ...]",
		"    Returns whether the user can execute the given command without executing the command.",
		"GETUSER <username>",
		"    Get the user's details.",
		"GENPASS [<bits>]",
		"    Generate a secure 256-bit user password. The optional `bits` argument can",
		"    be used to specify a different size.",
		"LIST",
		"    Show users details in config file format.",
		"LOAD",
		"    Reload users from the ACL file.",
		"LOG [<count> | RESET]",
		"    Show the ACL log entries.",
		"SAVE",
		"    Save the current config to the ACL file.",
		"SETUSER <username> <attribute> [<attribute> ...]",
		"    Create or modify a user with the specified attributes.",
		"USERS",
		"    List all the registered usernames.",
		"WHOAMI",
		"    Return the current connection username.",
	)
}

// aclFamily is the ACL container, registered with the server commands.
func aclFamily() *keyspace.Command {
	const grp = "server"
	stale := keyspace.FlagLoading | keyspace.FlagStale
	admin := keyspace.FlagAdmin | keyspace.FlagNoScript | stale
	sub := func(name string, arity int, flags keyspace.Flag, summary, complexity string, h keyspace.HandlerFunc) *keyspace.Command {
		return &keyspace.Command{Name: name, Arity: arity, Flags: flags, Group: grp, Since: "6.0.0", Summary: summary, Complexity: complexity, Handler: h}
	}
	dry := sub("dryrun", -4, admin, "Simulates the execution of a command by a user, without executing the command.", "O(1).", aclDryRunCommand)
	dry.Since = "7.0.0"
	return &keyspace.Command{Name: "acl", Arity: -2, Group: grp, Since: "6.0.0", Summary: "A container for Access List Control commands.", Complexity: "Depends on subcommand.", Handler: aclCommand,
		Subcommands: []*keyspace.Command{
			sub("cat", -2, keyspace.FlagNoScript|stale, "Lists the ACL categories, or the commands inside a category.", "O(1) since the categories and commands are a fixed set.", aclCatCommand),
			sub("deluser", -3, admin, "Deletes ACL users, and terminates their connections.", "O(1) amortized time considering the typical user.", aclDelUserCommand),
			dry,
			sub("genpass", -2, keyspace.FlagNoScript|stale, "Generates a pseudorandom, secure password that can be used to identify ACL users.", "O(1)", aclGenPassCommand),
			sub("getuser", 3, admin, "Lists the ACL rules of a user.", "O(N). Where N is the number of password, command and pattern rules that the user has.", aclGetUserCommand),
			sub("help", 2, stale, "Returns helpful text about the different subcommands.", "O(1)", aclHelpCommand),
			sub("list", 2, admin, "Dumps the effective rules in ACL file format.", "O(N). Where N is the number of configured users.", aclListCommand),
			sub("load", 2, admin, "Reloads the rules from the configured ACL file.", "O(N). Where N is the number of configured users.", aclLoadCommand),
			sub("log", -2, admin, "Lists recent security events generated due to ACL rules.", "O(N) with N being the number of entries shown.", aclLogCommand),
			sub("save", 2, admin, "Saves the effective ACL rules in the configured ACL file.", "O(N). Where N is the number of configured users.", aclSaveCommand),
			sub("setuser", -3, admin, "Creates and modifies an ACL user and its rules.", "O(N). Where N is the number of rules provided.", aclSetUserCommand),
			sub("users", 2, admin, "Lists all ACL users.", "O(N). Where N is the number of configured users.", aclUsersCommand),
			sub("whoami", 2, keyspace.FlagNoScript|stale, "Returns the authenticated username of the current connection.", "O(1)", aclWhoAmICommand),
		}}
}
