package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"github.com/ruvio/ruvio/scripting"
)

// EVAL script numkeys [key ...] [arg ...] and EVAL_RO.
func evalCommand(x *keyspace.Ctx) { x.S.EvalGeneric(x, false, false) }

func evalROCommand(x *keyspace.Ctx) { x.S.EvalGeneric(x, false, true) }

// EVALSHA sha1 numkeys [key ...] [arg ...] and EVALSHA_RO.
func evalSHACommand(x *keyspace.Ctx) { x.S.EvalGeneric(x, true, false) }

func evalSHAROCommand(x *keyspace.Ctx) { x.S.EvalGeneric(x, true, true) }

// SCRIPT <subcommand>
func scriptCommand(x *keyspace.Ctx) { runSubcommand(x, "SCRIPT") }

// SCRIPT LOAD script
func scriptLoadCommand(x *keyspace.Ctx) {
	s, err := x.S.ScriptEngine().Load(x.Args[2])
	if err != nil {
		x.W.Error(err.Error())
		return
	}
	x.S.UpdateScriptFigures()
	x.W.BulkString(s.SHA)
}

// SCRIPT EXISTS sha1 [sha1 ...]
func scriptExistsCommand(x *keyspace.Ctx) {
	e := x.S.ScriptEngine()
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, a := range x.Args[2:] {
		if e.Exists(string(a)) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
	}
}

// SCRIPT FLUSH [ASYNC|SYNC]: the old Lua state is freed at once either
// way (the garbage collector does the work in the background).
func scriptFlushCommand(x *keyspace.Ctx) {
	if len(x.Args) > 3 || len(x.Args) == 3 && !keyspace.EqFold(x.Args[2], "async") && !keyspace.EqFold(x.Args[2], "sync") {
		x.W.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	if x.S.Scr.Eng != nil {
		x.S.Scr.Eng.Flush()
		x.S.UpdateScriptFigures()
	}
	x.W.OK()
}

// SCRIPT KILL and FUNCTION KILL.
func scriptKillCommand(x *keyspace.Ctx) { killScript(x, true) }

func functionKillCommand(x *keyspace.Ctx) { killScript(x, false) }

func killScript(x *keyspace.Ctx, eval bool) {
	e := x.S.Scr.Eng
	if e == nil {
		x.W.Error(scripting.ErrNotBusy.Msg)
		return
	}
	if err := e.Monitor().Kill(eval); err != nil {
		x.W.Error(err.Error())
		return
	}
	x.W.OK()
}

// SCRIPT HELP
func scriptHelpCommand(x *keyspace.Ctx) {
	writeHelp(x, "SCRIPT",
		"EXISTS <sha1> [<sha1> ...]",
		"    Return information about the existence of the scripts in the script cache.",
		"FLUSH [ASYNC|SYNC]",
		"    Flush the Lua scripts cache. Very dangerous on replicas.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the scripts cache.",
		"    * SYNC: Synchronously flush the scripts cache.",
		"KILL",
		"    Kill the currently executing Lua script.",
		"LOAD <script>",
		"    Load a script into the scripts cache without executing it.",
	)
}

// registerScriptingFamily registers EVAL, EVALSHA, their _RO forms and
// SCRIPT.
func registerScriptingFamily(t keyspace.CommandTable) {
	const grp = "scripting"
	eval := keyspace.FlagNoScript | keyspace.FlagSkipMonitor | keyspace.FlagMayReplicate | keyspace.FlagNoMandatoryKeys | keyspace.FlagStale | keyspace.FlagMovableKeys | keyspace.FlagRunsScript
	ro := keyspace.FlagNoScript | keyspace.FlagSkipMonitor | keyspace.FlagNoMandatoryKeys | keyspace.FlagStale | keyspace.FlagReadOnly | keyspace.FlagMovableKeys | keyspace.FlagRunsScript
	rwKeys, roKeys := []keyspace.KeySpec{scriptKeySpec(keyspace.KeyRW | keyspace.KeyAccess | keyspace.KeyUpdate)}, []keyspace.KeySpec{scriptKeySpec(keyspace.KeyRO | keyspace.KeyAccess)}
	const evalCx = "Depends on the script that is executed."
	t.Add(
		&keyspace.Command{Name: "eval", Arity: -3, Flags: eval, KeySpecs: rwKeys, Group: grp, Since: "2.6.0", Summary: "Executes a server-side Lua script.", Complexity: evalCx, Handler: evalCommand},
		&keyspace.Command{Name: "evalsha", Arity: -3, Flags: eval, KeySpecs: rwKeys, Group: grp, Since: "2.6.0", Summary: "Executes a server-side Lua script by SHA1 digest.", Complexity: evalCx, Handler: evalSHACommand},
		&keyspace.Command{Name: "eval_ro", Arity: -3, Flags: ro, KeySpecs: roKeys, Group: grp, Since: "7.0.0", Summary: "Executes a read-only server-side Lua script.", Complexity: evalCx, Handler: evalROCommand},
		&keyspace.Command{Name: "evalsha_ro", Arity: -3, Flags: ro, KeySpecs: roKeys, Group: grp, Since: "7.0.0", Summary: "Executes a read-only server-side Lua script by SHA1 digest.", Complexity: evalCx, Handler: evalSHAROCommand},
		&keyspace.Command{Name: "script", Arity: -2, Group: grp, Since: "2.6.0", Summary: "A container for Lua scripts management commands.", Complexity: "Depends on subcommand.", Handler: scriptCommand,
			Subcommands: []*keyspace.Command{
				{Name: "exists", Arity: -3, Flags: keyspace.FlagNoScript, Group: grp, Since: "2.6.0", Summary: "Determines whether server-side Lua scripts exist in the script cache.", Complexity: "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).", Handler: scriptExistsCommand, Tips: []string{tipAllShards, tipAggLogicalAnd}},
				{Name: "flush", Arity: -2, Flags: keyspace.FlagNoScript, Group: grp, Since: "2.6.0", Summary: "Removes all server-side Lua scripts from the script cache.", Complexity: "O(N) with N being the number of scripts in cache", Handler: scriptFlushCommand, Tips: []string{tipAllNodes, tipAllSucceeded}},
				{Name: "help", Arity: 2, Flags: keyspace.FlagLoading | keyspace.FlagStale, Group: grp, Since: "5.0.0", Summary: "Returns helpful text about the different subcommands.", Complexity: "O(1)", Handler: scriptHelpCommand},
				{Name: "kill", Arity: 2, Flags: keyspace.FlagNoScript | keyspace.FlagAllowBusy, Group: grp, Since: "2.6.0", Summary: "Terminates a server-side Lua script during execution.", Complexity: "O(1)", Handler: scriptKillCommand, Tips: []string{tipAllShards, tipOneSucceeded}},
				{Name: "load", Arity: 3, Flags: keyspace.FlagNoScript | keyspace.FlagStale, Group: grp, Since: "2.6.0", Summary: "Loads a server-side Lua script to the script cache.", Complexity: "O(N) with N being the length in bytes of the script body.", Handler: scriptLoadCommand, Tips: []string{tipAllNodes, tipAllSucceeded}},
			}},
	)
}

// Command tips of scripting commands only.
const (
	tipAggLogicalAnd = "response_policy:agg_logical_and"
	tipOneSucceeded  = "response_policy:one_succeeded"
)

// scriptKeySpec is the key spec of EVAL and FCALL: numkeys at argument 2,
// the keys after it.
func scriptKeySpec(flags keyspace.KeyFlag) keyspace.KeySpec {
	return keyspace.KeySpec{Flags: flags, Index: 2, Find: keyspace.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}
}
