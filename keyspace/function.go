package keyspace

// FUNCTION, before scripting lands: the server has no Lua
// engine, so its library set is always empty. FLUSH succeeds (there is
// nothing to flush), LIST and DUMP describe the empty set, and the
// subcommands that would need a Lua engine answer with an error. The Redis
// test framework sends FUNCTION FLUSH at the start of every server block.

// FUNCTION <subcommand>
func functionCommand(x *Ctx) { runSubcommand(x, "FUNCTION") }

// FUNCTION FLUSH [ASYNC|SYNC]
func functionFlushCommand(x *Ctx) {
	switch {
	case len(x.Args) > 3:
		x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + truncArg(x.Args[1]) + "'. Try FUNCTION HELP.")
		return
	case len(x.Args) == 2:
	case len(x.Args) == 3 && (eqFold(x.Args[2], "async") || eqFold(x.Args[2], "sync")):
	default:
		x.W.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	x.W.OK()
}

// FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]: always empty. Each
// option may appear once; a second one is an unknown argument, as in Redis.
func functionListCommand(x *Ctx) {
	withCode, libName := false, false
	for i := 2; i < len(x.Args); i++ {
		switch {
		case !withCode && eqFold(x.Args[i], "withcode"):
			withCode = true
		case !libName && eqFold(x.Args[i], "libraryname"):
			if i+1 >= len(x.Args) {
				x.W.Error("ERR library name argument was not given")
				return
			}
			libName = true
			i++
		default:
			x.W.Error("ERR Unknown argument " + string(x.Args[i]))
			return
		}
	}
	x.W.ArrayHeader(0)
}

// FUNCTION HELP
func functionHelpCommand(x *Ctx) {
	lines := [...]string{
		"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"LIST [WITHCODE] [LIBRARYNAME <pattern>]",
		"    Return general information on all the libraries (always empty: this server has no scripting engine yet).",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"HELP",
		"    Print this help.",
	}
	x.W.ArrayHeader(len(lines))
	for _, l := range lines {
		x.W.SimpleString(l)
	}
}

// registerFunctionFamily registers FUNCTION with the subcommands that are
// meaningful without a scripting engine.
func registerFunctionFamily(t commandTable) {
	const grp = "scripting"
	t.add(
		&Command{Name: "function", Arity: -2, Group: grp, Since: "7.0.0", Summary: "A container for function commands.", Complexity: "Depends on subcommand.", Handler: functionCommand,
			Subcommands: []*Command{
				{Name: "flush", Arity: -2, Flags: FlagWrite | FlagNoScript, Group: grp, Since: "7.0.0", Summary: "Deletes all libraries and functions.", Complexity: "O(N) where N is the number of functions deleted", Handler: functionFlushCommand},
				{Name: "help", Arity: 2, Flags: FlagLoading | FlagStale, Group: grp, Since: "7.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: functionHelpCommand},
				{Name: "list", Arity: -2, Flags: FlagNoScript, Group: grp, Since: "7.0.0", Summary: "Returns information about all libraries.", Complexity: "O(N) where N is the number of functions", Handler: functionListCommand},
			}},
	)
}
