package scripting

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Log levels of redis.log, with the server's numbering.
const (
	LogDebug   = 0
	LogVerbose = 1
	LogNotice  = 2
	LogWarning = 3
)

// Config configures an Engine. The zero value works: nothing is logged and
// the version is DefaultVersion.
type Config struct {
	// Log receives redis.log messages (level LogDebug..LogWarning) and the
	// engine's own warnings. It is called on the engine's goroutine and
	// filters by level itself. Nil discards.
	Log func(level int, msg string)
	// Version and VersionNum are redis.REDIS_VERSION and
	// redis.REDIS_VERSION_NUM (0x00MMmmpp).
	Version    string
	VersionNum int
	// Interrupt, when set, is called on the engine's goroutine every
	// InterruptEvery Lua instructions of a running script or function,
	// with the time it has run so far: the place to notice the busy
	// threshold, serve other clients (who must not use this engine) and
	// process SCRIPT KILL, which may call Monitor().Kill right there.
	Interrupt func(elapsed time.Duration)
	// MemoryLimit, when set, is called at the start of every run and
	// returns how many bytes the run may add to the Go heap before it is
	// stopped with an OOM error (see MemoryCheckEvery); 0 or less means no
	// limit.
	MemoryLimit func() int64
}

// DefaultVersion is the version scripts see when Config leaves it empty.
const (
	DefaultVersion    = "7.0.15"
	DefaultVersionNum = 0x0007000f
)

// ReplyWriter receives a script's result. Its methods have the meaning
// (and the RESP2 downgrades) of the codec package's Writer, which
// satisfies it; the engine only calls them from Eval and Fcall.
type ReplyWriter interface {
	SimpleString(s string)
	Error(msg string)
	Int(n int64)
	BulkString(s string)
	Null()
	ArrayHeader(n int)
	MapHeader(n int)
	SetHeader(n int)
	Bool(b bool)
	Double(f float64)
	BigNumber(s string)
	Verbatim(format, s string)
}

// CallFunc runs one command on behalf of redis.call or redis.pcall. args
// is the command and its arguments; they are scratch memory of the engine,
// valid only until CallFunc returns (copy what you keep; modifying them is
// allowed). resp is the protocol version the script asked for with
// redis.setresp (2 by default). CallFunc appends the command's reply,
// encoded in that version, to out and returns the result: exactly one
// complete RESP reply. An error reply ("-ERR ...") makes redis.call raise
// and redis.pcall return an error table, so refusals of the scripting
// layer ("-ERR Write commands are not allowed from read-only scripts.")
// are replies too. A command that writes must call Engine.MarkWritten
// before returning, which makes the script unkillable.
type CallFunc func(args [][]byte, resp int, out []byte) []byte

// Invocation is one run of a script or function.
type Invocation struct {
	Keys [][]byte // KEYS
	Args [][]byte // ARGV
	Call CallFunc // runs redis.call / redis.pcall commands; nil refuses them
	// ACLCheck answers redis.acl_check_cmd: known is false for an unknown
	// command. Nil allows everything.
	ACLCheck func(args [][]byte) (allowed, known bool)
}

// Engine runs Lua scripts and functions for one shard. It is not safe for
// concurrent use: one goroutine owns it, except for its Monitor.
type Engine struct {
	cfg Config
	rng lrand48
	mon Monitor

	eval *luaEnv // EVAL scripts
	fenv *luaEnv // functions, created with the first library

	scripts    map[string]*Script
	scriptsMem int64

	libs  map[string]*Library
	funcs map[string]*Function

	run     *runState // the invocation in progress (&runBuf), nil when idle
	runBuf  runState
	killCtx context.Context // killContext{&mon}, boxed once
	co      coChain         // the coroutines being resumed
	loading *Library        // the library being loaded, nil otherwise

	// Scratch reused by every redis.call.
	argBuf  []byte
	argOffs []int
	args    [][]byte
	reply   []byte
}

type runState struct {
	inv  *Invocation
	resp int
	eval bool
	name string
}

// New creates an engine with an empty script cache and no libraries.
func New(cfg Config) *Engine {
	if cfg.Version == "" {
		cfg.Version, cfg.VersionNum = DefaultVersion, DefaultVersionNum
	}
	e := &Engine{
		cfg:     cfg,
		rng:     newLrand48(),
		scripts: make(map[string]*Script),
		libs:    make(map[string]*Library),
		funcs:   make(map[string]*Function),
	}
	e.killCtx = killContext{&e.mon}
	e.mon.interrupt = cfg.Interrupt
	e.eval = newLuaEnv(e, false)
	return e
}

// Close releases the Lua states. The engine must not be used afterwards.
func (e *Engine) Close() {
	e.eval.L.Close()
	if e.fenv != nil {
		e.fenv.L.Close()
	}
}

// Monitor returns the engine's monitor, the part other goroutines may use.
func (e *Engine) Monitor() *Monitor { return &e.mon }

// MarkWritten records that the running script executed a write command;
// from then on it cannot be killed. CallFunc calls it.
func (e *Engine) MarkWritten() { e.mon.markWritten() }

func (e *Engine) log(level int, msg string) {
	if e.cfg.Log != nil {
		e.cfg.Log(level, msg)
	}
}

// Script is a compiled EVAL script.
type Script struct {
	SHA   string // lowercase hex SHA1 of Body
	Body  []byte
	Flags Flags
	fn    *lua.LFunction
	env   *luaEnv // the state fn belongs to
}

// SHA1Hex returns the lowercase hex SHA1 of b, the name of a script.
func SHA1Hex(b []byte) string {
	sum := sha1.Sum(b)
	return hex.EncodeToString(sum[:])
}

// Load compiles body (EVAL, SCRIPT LOAD) and caches it by SHA1, or returns
// the cached script. Shebang and compile errors have the server's texts.
func (e *Engine) Load(body []byte) (*Script, error) {
	sha := SHA1Hex(body)
	if s, ok := e.scripts[sha]; ok {
		return s, nil
	}
	flags, n, err := ParseShebang(body)
	if err != nil {
		return nil, err
	}
	// The shebang line is skipped but its newline kept, so line numbers
	// stay those of the user's text.
	fn, err := e.eval.L.Load(strings.NewReader(string(body[n:])), e.eval.source)
	if err != nil {
		return nil, errorf("ERR Error compiling script (new function): %s", compileMessage(err))
	}
	fn.Env = e.eval.env
	// The main chunk is a vararg function; without this flag gopher-lua
	// builds the Lua 5.0 "arg" table on every call, which no chunk can
	// name (it is not a local of a main chunk).
	fn.Proto.IsVarArg &^= lua.VarArgNeedsArg
	s := &Script{SHA: sha, Body: append([]byte(nil), body...), Flags: flags, fn: fn, env: e.eval}
	e.scripts[sha] = s
	e.scriptsMem += int64(len(sha) + len(body))
	return s, nil
}

// Lookup finds a cached script by SHA1 (EVALSHA); case does not matter.
func (e *Engine) Lookup(sha string) (*Script, bool) {
	if len(sha) != 40 {
		return nil, false
	}
	s, ok := e.scripts[sha]
	if !ok {
		s, ok = e.scripts[strings.ToLower(sha)]
	}
	return s, ok
}

// Exists reports whether a script is cached (SCRIPT EXISTS).
func (e *Engine) Exists(sha string) bool {
	_, ok := e.Lookup(sha)
	return ok
}

// Flush drops every cached script and starts a fresh Lua state for EVAL
// (SCRIPT FLUSH), freeing everything the old one held. Scripts returned
// before the flush still run: they are compiled again on use.
func (e *Engine) Flush() {
	e.eval.L.Close()
	e.eval = newLuaEnv(e, false)
	e.scripts = make(map[string]*Script)
	e.scriptsMem = 0
}

// CacheStats reports the number of cached scripts and the bytes of their
// bodies and SHA1s (number_of_cached_scripts, used_memory_scripts_eval).
func (e *Engine) CacheStats() (scripts int, bytes int64) {
	return len(e.scripts), e.scriptsMem
}

// Eval runs a script (EVAL, EVALSHA and their _RO forms) and writes its
// result or error to w. The command layer has already checked the flags
// against the command and the server state.
func (e *Engine) Eval(w ReplyWriter, s *Script, inv *Invocation) {
	env := e.eval
	fn := s.fn
	if s.env != env {
		// Compiled in a state that SCRIPT FLUSH has closed since.
		c, err := e.Load(s.Body)
		if err != nil {
			w.Error(err.Error())
			return
		}
		fn = c.fn
	}
	L := env.L
	g := env.globals
	env.keys = reuseTable(L, env.keys, inv.Keys)
	env.argv = reuseTable(L, env.argv, inv.Args)
	g.RawSetString("KEYS", env.keys.t)
	g.RawSetString("ARGV", env.argv.t)
	L.Push(fn)
	e.invoke(w, env, 0, true, s.SHA, inv)
}

// invoke calls the function on top of the stack (below its nargs
// arguments) under the monitor and writes the outcome.
func (e *Engine) invoke(w ReplyWriter, env *luaEnv, nargs int, eval bool, name string, inv *Invocation) {
	L := env.L
	e.runBuf = runState{inv: inv, resp: 2, eval: eval, name: name}
	run := &e.runBuf
	e.run = run
	e.co.active = e.co.active[:0]
	var memLimit int64
	if e.cfg.MemoryLimit != nil {
		memLimit = e.cfg.MemoryLimit()
	}
	e.mon.begin(eval, name, memLimit)
	L.SetContext(e.killCtx)
	err := L.PCall(nargs, 1, env.errHandler)
	L.RemoveContext()
	e.mon.end()
	e.run = nil
	if err != nil {
		w.Error(e.errorReply(err, name))
		return
	}
	v := L.Get(-1)
	L.Pop(1)
	writeReply(w, env, v, run.resp, 0)
}

// errorReply builds the error text of a failed run: the error table's err
// field plus, when the handler found them, " script: <name>, on
// <source>:<line>.".
func (e *Engine) errorReply(err error, name string) string {
	ae, ok := err.(*lua.ApiError)
	if !ok || ae.Type == lua.ApiErrorPanic {
		msg := err.Error()
		if ok {
			msg = lua.LVAsString(ae.Object)
		}
		if strings.Contains(msg, "callstack overflow") || strings.Contains(msg, "registry overflow") {
			// The message handler cannot run on a full stack.
			return "ERR stack overflow script: " + name
		}
		e.log(LogWarning, "panic while running script "+name+": "+msg)
		if len(msg) > 100 {
			msg = msg[:100]
		}
		return "ERR Error running script " + name + ", " + msg
	}
	t, ok := ae.Object.(*lua.LTable)
	if !ok {
		return "ERR " + lua.LVAsString(ae.Object)
	}
	msg := "ERR unknown error"
	if m, ok := t.RawGetString("err").(lua.LString); ok {
		msg = string(m)
	}
	src, okSrc := t.RawGetString("source").(lua.LString)
	line := t.RawGetString("line")
	if okSrc && line != lua.LNil {
		msg += " script: " + name + ", on " + string(src) + ":" + luaToString(line) + "."
	}
	return msg
}

// handleError is the PCall message handler: it turns any error into an
// error table and records where the innermost Lua code was.
func (s *luaEnv) handleError(L *lua.LState) int {
	v := L.Get(1)
	var t *lua.LTable
	if msg := s.e.mon.stopReason(); msg != "" {
		if msg == msgScriptOOM {
			msg = "-" + msg // its own error code
		}
		t = errorTable(L, msg)
	} else if tt, ok := v.(*lua.LTable); ok {
		if _, isProxy := s.proxies[tt]; !isProxy {
			t = tt
		}
	}
	if t == nil {
		t = L.CreateTable(0, 3)
		t.RawSetString("err", lua.LString("ERR "+luaMessage(luaToString(v))))
	}
	for level := 0; level < 256; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			break
		}
		if dbg.What != "G" && dbg.CurrentLine > 0 {
			t.RawSetString("source", lua.LString("@"+dbg.Source))
			t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
			break
		}
	}
	L.Push(t)
	return 1
}

// luaToString is tostring() without metamethods.
func luaToString(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LNumber:
		return formatNumber(float64(v))
	case lua.LString:
		return string(v)
	case lua.LBool:
		if v {
			return "true"
		}
		return "false"
	case *lua.LNilType:
		return "nil"
	}
	return v.String()
}

// errorTable builds the error table of a failed command from an error
// text: "-CODE msg" keeps its code, anything else gets ERR; trailing CR
// and LF go.
func errorTable(L *lua.LState, text string) *lua.LTable {
	code, msg := "ERR", text
	if strings.HasPrefix(text, "-") {
		if sp := strings.IndexByte(text, ' '); sp >= 0 {
			code, msg = text[1:sp], text[sp+1:]
		} else {
			msg = text[1:]
		}
	}
	msg = strings.Trim(msg, "\r\n")
	t := L.CreateTable(0, 2)
	t.RawSetString("err", lua.LString(code+" "+msg))
	return t
}

// argTable is a KEYS or ARGV table kept between runs, with the number of
// items it was given.
type argTable struct {
	t *lua.LTable
	n int
}

// reuseTable refills last run's table with items when the script left it
// as it was given (no metatable, no key past its items, whatever it did to
// the items themselves), and makes a new one otherwise. Nothing a script
// creates outlives the run (the globals are read-only), so nobody else can
// see the old contents.
func reuseTable(L *lua.LState, prev argTable, items [][]byte) argTable {
	t := prev.t
	clean := t != nil && t.Metatable == lua.LNil && t.Len() == prev.n
	if clean {
		var after lua.LValue = lua.LNil
		if prev.n > 0 {
			after = lua.LNumber(prev.n)
		}
		k, _ := t.Next(after)
		clean = k == lua.LNil
	}
	if !clean {
		return argTable{t: stringsTable(L, items), n: len(items)}
	}
	for i, b := range items {
		t.RawSetInt(i+1, lua.LString(b))
	}
	for i := len(items) + 1; i <= prev.n; i++ {
		t.RawSetInt(i, lua.LNil)
	}
	return argTable{t: t, n: len(items)}
}

// stringsTable makes a Lua array of strings.
func stringsTable(L *lua.LState, items [][]byte) *lua.LTable {
	t := L.CreateTable(len(items), 0)
	for i, b := range items {
		t.RawSetInt(i+1, lua.LString(b))
	}
	return t
}

// luaRandom is math.random on the engine's generator.
func (e *Engine) luaRandom(L *lua.LState) int {
	if e.run == nil {
		L.RaiseError("math.random can only be called inside a script invocation")
	}
	r := e.rng.float()
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := int(L.CheckNumber(1))
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(float64(int64(r*float64(u))) + 1))
	case 2:
		l := int(L.CheckNumber(1))
		u := int(L.CheckNumber(2))
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(float64(int64(r*float64(u-l+1))) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (e *Engine) luaRandomseed(L *lua.LState) int {
	if e.run == nil {
		L.RaiseError("math.randomseed can only be called inside a script invocation")
	}
	e.rng.seed(int32(int64(L.CheckNumber(1))))
	return 0
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }
