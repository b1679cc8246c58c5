package scripting

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// registerRedisAPI fills the redis table of a state and replaces the
// global pcall, as the server does for both of its Lua states.
func (e *Engine) registerRedisAPI(s *luaEnv, t *lua.LTable) {
	L := s.L
	set := func(name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set("call", func(L *lua.LState) int { return e.redisCall(L, true) })
	set("pcall", func(L *lua.LState) int { return e.redisCall(L, false) })
	e.registerLog(L, t)
	e.registerVersion(t)
	set("setresp", e.luaSetResp)
	set("sha1hex", luaSha1hex)
	set("error_reply", luaErrorReply)
	set("status_reply", luaStatusReply)
	set("set_repl", e.luaSetRepl)
	t.RawSetString("REPL_NONE", lua.LNumber(0))
	t.RawSetString("REPL_AOF", lua.LNumber(1))
	t.RawSetString("REPL_SLAVE", lua.LNumber(2))
	t.RawSetString("REPL_REPLICA", lua.LNumber(2))
	t.RawSetString("REPL_ALL", lua.LNumber(3))
	set("acl_check_cmd", e.luaACLCheck)
	if !s.function {
		// The debugger entry points exist for EVAL scripts only; outside a
		// debugging session they do nothing.
		set("breakpoint", func(L *lua.LState) int { L.Push(lua.LFalse); return 1 })
		set("debug", func(L *lua.LState) int { return 0 })
		set("replicate_commands", func(L *lua.LState) int { L.Push(lua.LTrue); return 1 })
	}
	s.globals.RawSetString("pcall", L.NewFunction(luaPcall))
}

func (e *Engine) registerLog(L *lua.LState, t *lua.LTable) {
	t.RawSetString("log", L.NewFunction(e.luaLog))
	t.RawSetString("LOG_DEBUG", lua.LNumber(LogDebug))
	t.RawSetString("LOG_VERBOSE", lua.LNumber(LogVerbose))
	t.RawSetString("LOG_NOTICE", lua.LNumber(LogNotice))
	t.RawSetString("LOG_WARNING", lua.LNumber(LogWarning))
}

func (e *Engine) registerVersion(t *lua.LTable) {
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(e.cfg.VersionNum))
	t.RawSetString("REDIS_VERSION", lua.LString(e.cfg.Version))
}

// raiseTable raises the error table made from text.
func raiseTable(L *lua.LState, text string) {
	L.Error(errorTable(L, text), 0)
}

// luaPcall is the global pcall: an error table caught from redis.call
// becomes its err string, as scripts written for older servers expect.
func luaPcall(L *lua.LState) int {
	top := L.GetTop()
	if top == 0 {
		L.ArgError(1, "value expected")
	}
	L.Push(L.Get(1))
	for i := 2; i <= top; i++ {
		L.Push(L.Get(i))
	}
	if err := L.PCall(top-1, lua.MultRet, nil); err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			obj = ae.Object
		}
		if t, ok := obj.(*lua.LTable); ok {
			if s, ok := t.RawGetString("err").(lua.LString); ok {
				obj = s
			}
		} else if s, ok := obj.(lua.LString); ok {
			obj = lua.LString(luaMessage(string(s)))
		}
		L.SetTop(top)
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	n := L.GetTop() - top
	L.Insert(lua.LTrue, top+1)
	return n + 1
}

// commandArgs converts the Lua arguments into the engine's argument
// scratch; numbers are written with %.17g. It returns the error text when
// an argument is neither a string nor a number.
func (e *Engine) commandArgs(L *lua.LState) ([][]byte, string) {
	argc := L.GetTop()
	if argc == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	e.argBuf = e.argBuf[:0]
	e.argOffs = e.argOffs[:0]
	for i := 1; i <= argc; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			e.argBuf = append(e.argBuf, v...)
		case lua.LNumber:
			e.argBuf = appendArgNumber(e.argBuf, float64(v))
		default:
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
		e.argOffs = append(e.argOffs, len(e.argBuf))
	}
	e.args = e.args[:0]
	start := 0
	for _, end := range e.argOffs {
		e.args = append(e.args, e.argBuf[start:end:end])
		start = end
	}
	return e.args, ""
}

// redisCall is redis.call (raise) and redis.pcall.
func (e *Engine) redisCall(L *lua.LState, raiseErr bool) int {
	run := e.run
	if run == nil {
		raiseTable(L, "redis.call/pcall can only be called inside a script invocation")
	}
	args, bad := e.commandArgs(L)
	if bad != "" {
		if raiseErr {
			raiseTable(L, bad)
		}
		L.Push(errorTable(L, bad))
		return 1
	}
	L.SetTop(0)
	if run.inv.Call == nil {
		t := errorTable(L, "This Redis command is not allowed from script")
		if raiseErr {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	var panicked any
	e.reply, panicked = e.callCommand(run, args)
	if panicked != nil {
		// A bug in the command layer: fail this script, keep the server.
		e.log(LogWarning, fmt.Sprintf("panic in a command called from script %s: %v", run.name, panicked))
		raiseTable(L, "Error running command from script")
	}
	v, _, err := parseReply(L, e.reply, 0, 0)
	if err != nil {
		v = errorTable(L, err.Error())
	}
	if t, ok := v.(*lua.LTable); ok && len(e.reply) > 0 && (e.reply[0] == '-' || err != nil) {
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		if raiseErr {
			L.Error(t, 0)
		}
	}
	L.Push(v)
	return 1
}

// callCommand runs the command callback, turning a panic into a value.
func (e *Engine) callCommand(run *runState, args [][]byte) (out []byte, panicked any) {
	defer func() {
		if r := recover(); r != nil {
			out, panicked = e.reply[:0], r
		}
	}()
	return run.inv.Call(args, run.resp, e.reply[:0]), nil
}

func luaSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		raiseTable(L, "wrong number of arguments")
	}
	var b []byte
	switch v := L.Get(1).(type) {
	case lua.LString:
		b = []byte(v)
	case lua.LNumber:
		b = []byte(formatNumber(float64(v)))
	}
	L.Push(lua.LString(SHA1Hex(b)))
	return 1
}

func luaErrorReply(L *lua.LState) int {
	s, ok := L.Get(-1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	text := string(s)
	if !strings.HasPrefix(text, "-") {
		text = "-" + text
	}
	L.Push(errorTable(L, text))
	return 1
}

func luaStatusReply(L *lua.LState) int {
	s, ok := L.Get(-1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}

// toNumber is lua_tonumber: numbers and numeric strings, else 0.
func toNumber(v lua.LValue) float64 {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if n, err := strconvParseLuaNumber(string(v)); err == nil {
			return n
		}
	}
	return 0
}

func (e *Engine) luaLog(L *lua.LState) int {
	argc := L.GetTop()
	if argc < 2 {
		raiseTable(L, "redis.log() requires two arguments or more.")
	}
	first := L.Get(1)
	if _, isNum := first.(lua.LNumber); !isNum {
		if s, isStr := first.(lua.LString); !isStr || !isNumeric(string(s)) {
			raiseTable(L, "First argument must be a number (log level).")
		}
	}
	level := int(toNumber(first))
	if level < LogDebug || level > LogWarning {
		raiseTable(L, "Invalid debug level.")
	}
	var b strings.Builder
	for i := 2; i <= argc; i++ {
		var piece string
		switch v := L.Get(i).(type) {
		case lua.LString:
			piece = string(v)
		case lua.LNumber:
			piece = formatNumber(float64(v))
		default:
			continue
		}
		if i != 2 {
			b.WriteByte(' ')
		}
		b.WriteString(piece)
	}
	e.log(level, b.String())
	return 0
}

func (e *Engine) luaSetResp(L *lua.LState) int {
	if e.run == nil {
		raiseTable(L, "redis.setresp can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		raiseTable(L, "redis.setresp() requires one argument.")
	}
	resp := int(toNumber(L.Get(1)))
	if resp != 2 && resp != 3 {
		raiseTable(L, "RESP version must be 2 or 3.")
	}
	e.run.resp = resp
	return 0
}

// luaSetRepl accepts redis.set_repl. Writes of a script are propagated as
// one batch of their effects, so the flags are checked and otherwise
// ignored.
func (e *Engine) luaSetRepl(L *lua.LState) int {
	if e.run == nil {
		raiseTable(L, "redis.set_repl can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		raiseTable(L, "redis.set_repl() requires two arguments.")
	}
	flags := int(toNumber(L.Get(1)))
	if flags&^3 != 0 {
		raiseTable(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
	}
	return 0
}

func (e *Engine) luaACLCheck(L *lua.LState) int {
	if e.run == nil {
		raiseTable(L, "redis.acl_check_cmd can only be called inside a script invocation")
	}
	args, bad := e.commandArgs(L)
	if bad != "" {
		raiseTable(L, bad)
	}
	L.SetTop(0)
	allowed, known := true, true
	if e.run.inv.ACLCheck != nil {
		allowed, known = e.run.inv.ACLCheck(args)
	}
	if !known {
		raiseTable(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LBool(allowed))
	return 1
}
