package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strings"

	"github.com/ruvio/ruvio/scripting"
	"github.com/ruvio/ruvio/types/rdb"
)

// FUNCTION and FCALL. Libraries live in the shard's scripting engine, in
// memory only: a restart drops them (docs/scripting.md), and with several
// shards each shard has its own set, as each master of a Redis Cluster
// does; FUNCTION LOAD is sent to every shard by cluster clients that
// follow the all_shards tip. FCALL runs like EVAL (scripting.go): same key
// checks, same WAL unit, same busy handling.

// FUNCTION <subcommand>
func functionCommand(x *keyspace.Ctx) { runSubcommand(x, "FUNCTION") }

// FUNCTION LOAD [REPLACE] function-code
func functionLoadCommand(x *keyspace.Ctx) {
	replace := false
	i := 2
	for ; i < len(x.Args)-1; i++ {
		if !keyspace.EqFold(x.Args[i], "replace") {
			x.W.Error("ERR Unknown option given: " + string(x.Args[i]))
			return
		}
		replace = true
	}
	if i >= len(x.Args) {
		x.W.Error("ERR Function code is missing")
		return
	}
	name, err := x.S.ScriptEngine().LoadLibrary(x.Args[i], replace)
	x.S.UpdateScriptFigures()
	if err != nil {
		x.W.Error(err.Error())
		return
	}
	x.W.BulkString(name)
}

// FUNCTION DELETE library-name
func functionDeleteCommand(x *keyspace.Ctx) {
	if err := x.S.ScriptEngine().DeleteLibrary(string(x.Args[2])); err != nil {
		x.W.Error(err.Error())
		return
	}
	x.S.UpdateScriptFigures()
	x.W.OK()
}

// FUNCTION FLUSH [ASYNC|SYNC]
func functionFlushCommand(x *keyspace.Ctx) {
	switch {
	case len(x.Args) > 3:
		x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + keyspace.TruncArg(x.Args[1]) + "'. Try FUNCTION HELP.")
		return
	case len(x.Args) == 2:
	case len(x.Args) == 3 && (keyspace.EqFold(x.Args[2], "async") || keyspace.EqFold(x.Args[2], "sync")):
	default:
		x.W.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	if e := x.S.Scr.Eng; e != nil {
		e.FlushLibraries()
		x.S.UpdateScriptFigures()
	}
	x.W.OK()
}

// FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]. Each option may appear
// once; a second one is an unknown argument, as in Redis.
func functionListCommand(x *keyspace.Ctx) {
	withCode, libName := false, false
	var pattern []byte
	for i := 2; i < len(x.Args); i++ {
		switch {
		case !withCode && keyspace.EqFold(x.Args[i], "withcode"):
			withCode = true
		case !libName && keyspace.EqFold(x.Args[i], "libraryname"):
			if i+1 >= len(x.Args) {
				x.W.Error("ERR library name argument was not given")
				return
			}
			libName = true
			i++
			pattern = x.Args[i]
		default:
			x.W.Error("ERR Unknown argument " + string(x.Args[i]))
			return
		}
	}
	var libs []*scripting.Library
	if e := x.S.Scr.Eng; e != nil {
		for _, l := range e.Libraries() {
			if !libName || globMatch(pattern, []byte(l.Name), true) {
				libs = append(libs, l)
			}
		}
	}
	w := x.W
	w.ArrayHeader(len(libs))
	for _, l := range libs {
		if withCode {
			w.MapHeader(4)
		} else {
			w.MapHeader(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.ArrayHeader(len(l.Functions))
		for _, f := range l.Functions {
			w.MapHeader(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.Description == "" {
				w.Null()
			} else {
				w.BulkString(f.Description)
			}
			w.BulkString("flags")
			names := f.Flags.Names()
			w.SetHeader(len(names))
			for _, n := range names {
				w.SimpleString(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(string(l.Code))
		}
	}
}

// FUNCTION STATS. It also runs while a script is busy (runBusy), to show
// the running one.
func functionStatsCommand(x *keyspace.Ctx) {
	sh, w := x.S, x.W
	w.MapHeader(2)
	w.BulkString("running_script")
	info, running := runInfoOf(sh)
	if !running || info.Eval {
		w.Null()
	} else {
		w.MapHeader(3)
		w.BulkString("name")
		w.BulkString(info.Name)
		w.BulkString("command")
		w.ArrayHeader(len(sh.Scr.CallArgs))
		for _, a := range sh.Scr.CallArgs {
			w.BulkString(string(a))
		}
		w.BulkString("duration_ms")
		w.Int(sh.Srv.Now().Sub(info.Start).Milliseconds())
	}
	libs, funcs := 0, 0
	if e := sh.Scr.Eng; e != nil {
		libs, funcs, _ = e.LibraryStats()
	}
	w.BulkString("engines")
	w.MapHeader(1)
	w.BulkString("LUA")
	w.MapHeader(2)
	w.BulkString("libraries_count")
	w.Int(int64(libs))
	w.BulkString("functions_count")
	w.Int(int64(funcs))
}

// runInfoOf reports the script sh is running, if any.
func runInfoOf(sh *keyspace.Shard) (scripting.RunInfo, bool) {
	if sh.Scr.Eng == nil || sh.Scr.Caller == nil {
		return scripting.RunInfo{}, false
	}
	return sh.Scr.Eng.Monitor().Running()
}

// Function dump payloads have the layout of Redis's: per library the
// FUNCTION2 opcode and its code as an RDB string (LZF-compressed when that
// saves space, as Redis writes it), then the RDB footer (types/rdb).
const rdbOpFunction2 = 245

// FUNCTION DUMP
func functionDumpCommand(x *keyspace.Ctx) {
	var out []byte
	if e := x.S.Scr.Eng; e != nil {
		for _, l := range e.Libraries() {
			out = append(out, rdbOpFunction2)
			out = rdb.AppendString(out, l.Code)
		}
	}
	x.W.Bulk(rdb.AppendFooter(out, 0))
}

// FUNCTION RESTORE serialized-value [FLUSH|APPEND|REPLACE]
func functionRestoreCommand(x *keyspace.Ctx) {
	if len(x.Args) > 4 {
		x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + keyspace.TruncArg(x.Args[1]) + "'. Try FUNCTION HELP.")
		return
	}
	policy := "append"
	if len(x.Args) == 4 {
		policy = strings.ToLower(string(x.Args[3]))
		if policy != "append" && policy != "replace" && policy != "flush" {
			x.W.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	body, err := rdb.CheckFooter(x.Args[2])
	if err != nil {
		x.W.Error(errDumpPayload)
		return
	}
	var codes [][]byte
	for len(body) > 0 {
		if body[0] != rdbOpFunction2 {
			x.W.Error("ERR given type is not a function")
			return
		}
		code, rest, err := rdb.ReadString(body[1:])
		if err != nil {
			x.W.Error("ERR Bad data format")
			return
		}
		codes, body = append(codes, code), rest
	}
	// Load into a scratch engine first, so a failing library leaves the
	// shard's set as it was.
	scratch := scripting.New(scripting.Config{})
	defer scratch.Close()
	names := make([]string, 0, len(codes))
	for _, c := range codes {
		name, err := scratch.LoadLibrary(c, false)
		if err != nil {
			x.W.Error(err.Error())
			return
		}
		names = append(names, name)
	}
	e := x.S.ScriptEngine()
	if policy == "append" {
		for _, n := range names {
			if _, ok := e.Library(n); ok {
				x.W.Error("ERR Library " + n + " already exists")
				return
			}
		}
	}
	// Function names must not collide with another library's either.
	for _, l := range scratch.Libraries() {
		for _, f := range l.Functions {
			if g, ok := e.Function(f.Name); ok && policy != "flush" && (policy == "append" || !contains(names, g.Library.Name)) {
				x.W.Error("ERR Function " + f.Name + " already exists")
				return
			}
		}
	}
	if policy == "flush" {
		e.FlushLibraries()
	}
	for _, c := range codes {
		if _, err := e.LoadLibrary(c, policy != "append"); err != nil {
			x.W.Error(err.Error())
			x.S.UpdateScriptFigures()
			return
		}
	}
	x.S.UpdateScriptFigures()
	x.W.OK()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// FUNCTION HELP
func functionHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "FUNCTION",
		"LOAD [REPLACE] <FUNCTION CODE>",
		"    Create a new library with the given library name and code.",
		"DELETE <LIBRARY NAME>",
		"    Delete the given library.",
		"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
		"    Return general information on all the libraries:",
		"    * Library name",
		"    * The engine used to run the Library",
		"    * Library description",
		"    * Functions list",
		"    * Library code (if WITHCODE is given)",
		"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
		"STATS",
		"    Return information about the current function running:",
		"    * Function name",
		"    * Command used to run the function",
		"    * Duration in MS that the function is running",
		"    If no function is running, return nil",
		"    In addition, returns a list of available engines.",
		"KILL",
		"    Kill the current running function.",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the libraries.",
		"    * SYNC: Synchronously flush the libraries.",
		"DUMP",
		"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
		"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
		"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
		"    control how to handle existing libraries (default APPEND):",
		"    * FLUSH: delete all existing libraries.",
		"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
		"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
		"      libraries with the new libraries (notice that even on this option there is a chance of failure",
		"      in case of functions name collision with another library).",
	)
}

// FCALL function numkeys [key ...] [arg ...] and FCALL_RO.
func fcallCommand(x *keyspace.Ctx) { shardFcallGeneric(x.S, x, false) }

func fcallROCommand(x *keyspace.Ctx) { shardFcallGeneric(x.S, x, true) }

func shardFcallGeneric(sh *keyspace.Shard, x *keyspace.Ctx, ro bool) {
	if sh.Srv.Monitors.Count.Load() != 0 {
		sh.WriteMonitors(x.C, x.Args)
	}
	e := sh.ScriptEngine()
	f, ok := e.Function(string(x.Args[1]))
	if !ok {
		x.W.Error("ERR Function not found")
		return
	}
	keys, argv, ok := keyspace.ScriptKeysOrReply(x, "ERR Bad number of keys provided")
	if !ok {
		return
	}
	slot, ok := sh.ScriptMayRun(x, f.Flags, ro, keys)
	if !ok {
		return
	}
	sh.RunScript(x, f.Flags, ro, slot, keys, argv, func(inv *scripting.Invocation) { e.Fcall(x.W, f, inv) })
}

// registerFunctionFamily registers FUNCTION, FCALL and FCALL_RO.
func registerFunctionFamily(t keyspace.CommandTable) {
	const grp = "scripting"
	fcall := keyspace.FlagNoScript | keyspace.FlagSkipMonitor | keyspace.FlagMayReplicate | keyspace.FlagNoMandatoryKeys | keyspace.FlagStale | keyspace.FlagMovableKeys | keyspace.FlagRunsScript
	fcallRO := keyspace.FlagNoScript | keyspace.FlagSkipMonitor | keyspace.FlagNoMandatoryKeys | keyspace.FlagStale | keyspace.FlagReadOnly | keyspace.FlagMovableKeys | keyspace.FlagRunsScript
	const cx = "Depends on the function that is executed."
	t.Add(
		&keyspace.Command{Name: "fcall", Arity: -3, Flags: fcall, KeySpecs: []keyspace.KeySpec{scriptKeySpec(keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyUpdate)}, Group: grp, Since: "7.0.0", Summary: "Invokes a function.", Complexity: cx, Handler: fcallCommand},
		&keyspace.Command{Name: "fcall_ro", Arity: -3, Flags: fcallRO, KeySpecs: []keyspace.KeySpec{scriptKeySpec(keyspace.KeyRO | keyspace.KeyAccess)}, Group: grp, Since: "7.0.0", Summary: "Invokes a read-only function.", Complexity: cx, Handler: fcallROCommand},
		&keyspace.Command{Name: "function", Arity: -2, Group: grp, Since: "7.0.0", Summary: "A container for function commands.", Complexity: "Depends on subcommand.", Handler: functionCommand,
			Subcommands: []*keyspace.Command{
				{Name: "delete", Arity: 3, Flags: keyspace.FlagNoScript | keyspace.FlagWrite, Group: grp, Since: "7.0.0", Summary: "Deletes a library and its functions.", Complexity: "O(1)", Handler: functionDeleteCommand, Tips: []string{tipAllShards, tipAllSucceeded}},
				{Name: "dump", Arity: 2, Flags: keyspace.FlagNoScript, Group: grp, Since: "7.0.0", Summary: "Dumps all libraries into a serialized binary payload.", Complexity: "O(N) where N is the number of functions", Handler: functionDumpCommand},
				{Name: "flush", Arity: -2, Flags: keyspace.FlagWrite | keyspace.FlagNoScript, Group: grp, Since: "7.0.0", Summary: "Deletes all libraries and functions.", Complexity: "O(N) where N is the number of functions deleted", Handler: functionFlushCommand, Tips: []string{tipAllShards, tipAllSucceeded}},
				{Name: "help", Arity: 2, Flags: keyspace.FlagLoading | keyspace.FlagStale, Group: grp, Since: "7.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: functionHelpCommand},
				{Name: "kill", Arity: 2, Flags: keyspace.FlagNoScript | keyspace.FlagAllowBusy, Group: grp, Since: "7.0.0", Summary: "Terminates a function during execution.", Complexity: "O(1)", Handler: functionKillCommand, Tips: []string{tipAllShards, tipOneSucceeded}},
				{Name: "list", Arity: -2, Flags: keyspace.FlagNoScript, Group: grp, Since: "7.0.0", Summary: "Returns information about all libraries.", Complexity: "O(N) where N is the number of functions", Handler: functionListCommand, Tips: []string{tipNondeterministicOrder}},
				{Name: "load", Arity: -3, Flags: keyspace.FlagNoScript | keyspace.FlagWrite | keyspace.FlagDenyOOM, Group: grp, Since: "7.0.0", Summary: "Creates a library.", Complexity: "O(1) (considering compilation time is redundant)", Handler: functionLoadCommand, Tips: []string{tipAllShards, tipAllSucceeded}},
				{Name: "restore", Arity: -3, Flags: keyspace.FlagNoScript | keyspace.FlagWrite | keyspace.FlagDenyOOM, Group: grp, Since: "7.0.0", Summary: "Restores all libraries from a payload.", Complexity: "O(N) where N is the number of functions on the payload", Handler: functionRestoreCommand, Tips: []string{tipAllShards, tipAllSucceeded}},
				{Name: "stats", Arity: 2, Flags: keyspace.FlagNoScript | keyspace.FlagAllowBusy, Group: grp, Since: "7.0.0", Summary: "Returns information about a function during execution.", Complexity: "O(1)", Handler: functionStatsCommand, Tips: []string{tipNondeterministic, tipAllShards, tipSpecialResponse}},
			}},
	)
}
