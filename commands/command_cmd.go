package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"slices"
	"strings"

	"github.com/ruvio/ruvio/acl"
)

// aclCategoryOrder is the order in which Redis lists ACL categories (its
// ACLCommandCategories table); COMMAND and the compatibility matrix use it.
var aclCategoryOrder = [...]string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// isACLCategory reports whether name (lower case) is a category Redis knows.
func isACLCategory(name string) bool {
	return slices.Contains(aclCategoryOrder[:], name)
}

// orderedCategories returns c's ACL categories in Redis's order; categories
// Redis does not know keep their place after the known ones.
func orderedCategories(c *keyspace.Command) []string {
	cats := c.ACLCategories()
	out := make([]string, 0, len(cats))
	for _, name := range aclCategoryOrder {
		if slices.Contains(cats, name) {
			out = append(out, name)
		}
	}
	for _, name := range cats {
		if !isACLCategory(name) {
			out = append(out, name)
		}
	}
	return out
}

// sortedCommands returns the commands of t ordered by name.
func sortedCommands(t keyspace.CommandTable) []*keyspace.Command {
	out := make([]*keyspace.Command, 0, len(t))
	for _, c := range t {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *keyspace.Command) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// sortedSubcommands returns c's subcommands ordered by name.
func sortedSubcommands(c *keyspace.Command) []*keyspace.Command {
	out := slices.Clone(c.Subcommands)
	slices.SortFunc(out, func(a, b *keyspace.Command) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// commandTableLookupFullName finds a command by its full name ("get" or
// "config|get"), case-insensitively, as COMMAND INFO and DOCS do.
func commandTableLookupFullName(t keyspace.CommandTable, name []byte) *keyspace.Command {
	container, sub, isSub := strings.Cut(string(name), "|")
	c := t.Lookup([]byte(container))
	if c == nil || !isSub {
		return c
	}
	return c.Sub([]byte(sub))
}

// commandTableLookupCall finds the command a call names: the container's subcommand
// when the command has subcommands and a second argument, as Redis's
// lookupCommand does; nil when there is none.
func commandTableLookupCall(t keyspace.CommandTable, args [][]byte) *keyspace.Command {
	c := t.Lookup(args[0])
	if c == nil || len(c.Subcommands) == 0 || len(args) < 2 {
		return c
	}
	return c.Sub(args[1])
}

// COMMAND [COUNT | INFO [name ...] | DOCS [name ...] | LIST [FILTERBY ...] |
// GETKEYS cmd arg ... | GETKEYSANDFLAGS cmd arg ... | HELP]
func commandCommand(x *keyspace.Ctx) {
	if len(x.Args) == 1 {
		writeAllCommandInfo(x)
		return
	}
	runSubcommand(x, "COMMAND")
}

// writeAllCommandInfo replies the COMMAND INFO entry of every command,
// sorted by name: the reply to COMMAND and to COMMAND INFO without names.
func writeAllCommandInfo(x *keyspace.Ctx) {
	cmds := sortedCommands(x.S.Srv.Cmds)
	x.W.ArrayHeader(len(cmds))
	for _, c := range cmds {
		writeCommandInfo(x, c)
	}
}

// COMMAND COUNT
func commandCountCommand(x *keyspace.Ctx) { x.W.Int(int64(len(x.S.Srv.Cmds))) }

// COMMAND INFO [name ...]
func commandInfoCommand(x *keyspace.Ctx) {
	if len(x.Args) == 2 {
		writeAllCommandInfo(x)
		return
	}
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, name := range x.Args[2:] {
		if c := commandTableLookupFullName(x.S.Srv.Cmds, name); c != nil {
			writeCommandInfo(x, c)
		} else {
			x.W.Null()
		}
	}
}

// writeCommandInfo writes one command in the shape of Redis 7's COMMAND
// INFO: name, arity, flags, first key, last key, step, ACL categories,
// tips, key specs, subcommands. Flags, categories, tips and key specs are
// sets (arrays in RESP2), as in Redis.
func writeCommandInfo(x *keyspace.Ctx, c *keyspace.Command) {
	w := x.W
	w.ArrayHeader(10)
	w.BulkString(c.FullName())
	w.Int(int64(c.Arity))
	flags := c.Flags.Names()
	w.SetHeader(len(flags))
	for _, f := range flags {
		w.SimpleString(f)
	}
	w.Int(int64(c.FirstKey))
	w.Int(int64(c.LastKey))
	w.Int(int64(c.Step))
	cats := orderedCategories(c)
	w.SetHeader(len(cats))
	for _, cat := range cats {
		w.SimpleString("@" + cat)
	}
	w.SetHeader(len(c.Tips))
	for _, tip := range c.Tips {
		w.BulkString(tip) // bulk, unlike flags: as Redis replies
	}
	w.SetHeader(len(c.KeySpecs))
	for i := range c.KeySpecs {
		writeKeySpec(x, &c.KeySpecs[i])
	}
	if len(c.Subcommands) == 0 {
		w.SetHeader(0) // as Redis replies for a command without subcommands
		return
	}
	subs := sortedSubcommands(c)
	w.ArrayHeader(len(subs))
	for _, sc := range subs {
		writeCommandInfo(x, sc)
	}
}

// writeKeySpec writes one key spec in the shape of Redis 7's COMMAND INFO.
func writeKeySpec(x *keyspace.Ctx, ks *keyspace.KeySpec) {
	w := x.W
	w.MapHeader(3)
	w.BulkString("flags")
	flags := ks.Flags.Names()
	w.SetHeader(len(flags))
	for _, f := range flags {
		w.SimpleString(f)
	}
	w.BulkString("begin_search")
	w.MapHeader(2)
	w.BulkString("type")
	switch {
	case ks.Index > 0:
		w.BulkString("index")
		w.BulkString("spec")
		w.MapHeader(1)
		w.BulkString("index")
		w.Int(int64(ks.Index))
	case ks.Keyword != "":
		w.BulkString("keyword")
		w.BulkString("spec")
		w.MapHeader(2)
		w.BulkString("keyword")
		w.BulkString(ks.Keyword)
		w.BulkString("startfrom")
		w.Int(int64(ks.StartFrom))
	default:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.MapHeader(0)
	}
	w.BulkString("find_keys")
	w.MapHeader(2)
	w.BulkString("type")
	switch ks.Find {
	case keyspace.FindRange:
		w.BulkString("range")
		w.BulkString("spec")
		w.MapHeader(3)
		w.BulkString("lastkey")
		w.Int(int64(ks.LastKey))
		w.BulkString("keystep")
		w.Int(int64(ks.KeyStep))
		w.BulkString("limit")
		w.Int(int64(ks.Limit))
	case keyspace.FindKeyNum:
		w.BulkString("keynum")
		w.BulkString("spec")
		w.MapHeader(3)
		w.BulkString("keynumidx")
		w.Int(int64(ks.KeyNumIdx))
		w.BulkString("firstkey")
		w.Int(int64(ks.FirstKey))
		w.BulkString("keystep")
		w.Int(int64(ks.KeyStep))
	default:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.MapHeader(0)
	}
}

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
func commandListCommand(x *keyspace.Ctx) {
	keep := func(*keyspace.Command) bool { return true }
	for i := 2; i < len(x.Args); i++ {
		if !keyspace.EqFold(x.Args[i], "filterby") || len(x.Args)-1-i != 2 {
			x.W.Error(keyspace.ErrSyntax)
			return
		}
		arg := string(x.Args[i+2])
		switch kind := x.Args[i+1]; {
		case keyspace.EqFold(kind, "module"):
			keep = func(*keyspace.Command) bool { return false } // no modules
		case keyspace.EqFold(kind, "aclcat"):
			cat := strings.ToLower(arg)
			keep = func(c *keyspace.Command) bool {
				return isACLCategory(cat) && slices.Contains(c.ACLCategories(), cat)
			}
		case keyspace.EqFold(kind, "pattern"):
			// Redis matches case-insensitively with its glob rules (acl.Match).
			keep = func(c *keyspace.Command) bool { return acl.Match(arg, c.FullName(), true) }
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
		i += 2
	}
	var names []string
	for _, c := range sortedCommands(x.S.Srv.Cmds) {
		if keep(c) {
			names = append(names, c.FullName())
		}
		for _, sc := range sortedSubcommands(c) {
			if keep(sc) {
				names = append(names, sc.FullName())
			}
		}
	}
	x.W.BulkStrings(names)
}

// COMMAND GETKEYS command [arg ...]
func commandGetKeysCommand(x *keyspace.Ctx) { commandGetKeysGeneric(x, false) }

// COMMAND GETKEYSANDFLAGS command [arg ...]
func commandGetKeysAndFlagsCommand(x *keyspace.Ctx) { commandGetKeysGeneric(x, true) }

// commandGetKeysGeneric is the body of GETKEYS and GETKEYSANDFLAGS: the
// keys of a full call, found from the command's key specs.
func commandGetKeysGeneric(x *keyspace.Ctx, withFlags bool) {
	call := x.Args[2:]
	c := commandTableLookupCall(x.S.Srv.Cmds, call)
	switch {
	case c == nil:
		x.W.Error("ERR Invalid command specified")
		return
	case len(c.KeySpecs) == 0:
		x.W.Error("ERR The command has no key arguments")
		return
	case !keyspace.ArityOK(c.Arity, len(call)):
		x.W.Error("ERR Invalid number of arguments specified for command")
		return
	}
	keys, ok := c.CallKeys(call, nil)
	if !ok || len(keys) == 0 {
		if c.Flags&keyspace.FlagNoMandatoryKeys != 0 {
			x.W.ArrayHeader(0)
			return
		}
		x.W.Error("ERR Invalid arguments specified for command")
		return
	}
	x.W.ArrayHeader(len(keys))
	for _, k := range keys {
		if !withFlags {
			x.W.Bulk(call[k.Pos])
			continue
		}
		x.W.ArrayHeader(2)
		x.W.Bulk(call[k.Pos])
		flags := c.CallKeyFlags(call, k).Names()
		x.W.SetHeader(len(flags))
		for _, f := range flags {
			x.W.SimpleString(f)
		}
	}
}

// COMMAND HELP
func commandHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "COMMAND",
		"(no subcommand)",
		"    Return details about all Redis commands.",
		"COUNT",
		"    Return the total number of commands in this Redis server.",
		"LIST",
		"    Return a list of all commands in this Redis server.",
		"INFO [<command-name> ...]",
		"    Return details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"DOCS [<command-name> ...]",
		"    Return documentation details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"GETKEYS <full-command>",
		"    Return the keys from a full Redis command.",
		"GETKEYSANDFLAGS <full-command>",
		"    Return the keys and the access flags from a full Redis command.",
	)
}

// writeHelp replies the way Redis's addReplyHelp does: a header line, the
// given lines and a closing HELP entry, each as a status reply.
func writeHelp(x *keyspace.Ctx, name string, lines ...string) {
	x.W.ArrayHeader(len(lines) + 3)
	x.W.SimpleString(name + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		x.W.SimpleString(l)
	}
	x.W.SimpleString("HELP")
	x.W.SimpleString("    Prints this help.")
}

// commandFamily returns the COMMAND container and its subcommands.
func commandFamily() *keyspace.Command {
	const grp = "server"
	stale := keyspace.FlagLoading | keyspace.FlagStale
	return &keyspace.Command{Name: "command", Arity: -1, Flags: stale, Group: grp, Categories: []string{"connection"}, Since: "2.8.13", Summary: "Returns detailed information about all commands.", Complexity: "O(N) where N is the total number of Redis commands", Handler: commandCommand,
		Subcommands: []*keyspace.Command{
			{Name: "count", Arity: 2, Flags: stale, Group: grp, Categories: []string{"connection"}, Since: "2.8.13", Summary: "Returns a count of commands.", Complexity: "O(1)", Handler: commandCountCommand},
			{Name: "docs", Arity: -2, Flags: stale, Group: grp, Categories: []string{"connection"}, Since: "7.0.0", Summary: "Returns documentary information about one, multiple or all commands.", Complexity: "O(N) where N is the number of commands to look up", Handler: commandDocsCommand, Tips: []string{tipNondeterministicOrder}},
			{Name: "getkeys", Arity: -4, Flags: stale, Group: grp, Categories: []string{"connection"}, Since: "2.8.13", Summary: "Extracts the key names from an arbitrary command.", Complexity: "O(N) where N is the number of arguments to the command", Handler: commandGetKeysCommand},
			{Name: "getkeysandflags", Arity: -4, Flags: stale, Group: grp, Categories: []string{"connection"}, Since: "7.0.0", Summary: "Extracts the key names and access flags for an arbitrary command.", Complexity: "O(N) where N is the number of arguments to the command", Handler: commandGetKeysAndFlagsCommand},
			{Name: "help", Arity: 2, Flags: stale, Group: grp, Categories: []string{"connection"}, Since: "5.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: commandHelpCommand},
			{Name: "info", Arity: -2, Flags: stale, Group: grp, Categories: []string{"connection"}, Since: "2.8.13", Summary: "Returns information about one, multiple or all commands.", Complexity: "O(N) where N is the number of commands to look up", Handler: commandInfoCommand, Tips: []string{tipNondeterministicOrder}},
			{Name: "list", Arity: -2, Flags: stale, Group: grp, Categories: []string{"connection"}, Since: "7.0.0", Summary: "Returns a list of command names.", Complexity: "O(N) where N is the total number of Redis commands", Handler: commandListCommand, Tips: []string{tipNondeterministicOrder}},
		}, Tips: []string{tipNondeterministicOrder}}
}
