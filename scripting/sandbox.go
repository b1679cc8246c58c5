package scripting

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The sandbox.
//
// Scripts see the globals the server's own Lua exposes and nothing else:
// no os, io, package, require, dofile, loadfile, print or debug. Every
// table reachable from the globals is read-only, and reading a global that
// does not exist is an error.
//
// gopher-lua has no read-only tables, so each protected table is shown to
// scripts through an empty proxy whose metatable sends reads to the real
// table (__index) and refuses every write (__newindex). The proxy stays
// empty forever, so every assignment reaches __newindex, whether or not the
// key exists in the real table. The functions that could reach past a
// proxy (rawset, rawget, next, pairs, ipairs, setmetatable, getmetatable,
// unpack and the table library) are replaced by versions that know the
// proxies. The length operator on a proxy gives 0: no library table has an
// array part, so nothing real depends on it.

// repCheckAt is the size from which string.rep looks at the run's memory
// limit before it builds its string.
const repCheckAt = 1 << 20

// MaxStringLen bounds the strings string.rep may build (512 MiB, the
// largest bulk string a client may send).
const MaxStringLen = 512 << 20

const (
	msgReadonly    = "Attempt to modify a readonly table"
	msgNonexistent = "Script attempted to access nonexistent global variable '%s'"
)

// luaEnv is one Lua state with its sandbox. An engine has one for EVAL
// scripts and, once a library is loaded, one for functions, as the server
// keeps them apart.
type luaEnv struct {
	e        *Engine
	L        *lua.LState
	function bool // the functions state

	// proxies maps each proxy to the table it protects; proxyOf is the
	// reverse, so a table is wrapped once.
	proxies map[*lua.LTable]*lua.LTable
	proxyOf map[*lua.LTable]*lua.LTable

	globals *lua.LTable // the real globals
	env     *lua.LTable // their proxy: _G and every script's environment
	envMeta *lua.LTable // env's metatable; __index moves to libGlobals while a library loads

	libGlobals *lua.LTable // functions only: the globals a library sees while it loads

	keys, argv argTable // EVAL's KEYS and ARGV, reused between runs

	readonly   *lua.LFunction // __newindex of every proxy
	errHandler *lua.LFunction // PCall message handler adding source and line
	source     string         // chunk name: user_script or user_function
}

func newLuaEnv(e *Engine, function bool) *luaEnv {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       20000, // the reference's LUAI_MAXCALLS
		RegistrySize:        1024,
		RegistryMaxSize:     1024 * 1024,
		RegistryGrowStep:    1024,
		MinimizeStackMemory: true,
	})
	s := &luaEnv{
		e:        e,
		L:        L,
		function: function,
		proxies:  make(map[*lua.LTable]*lua.LTable),
		proxyOf:  make(map[*lua.LTable]*lua.LTable),
		source:   "user_script",
	}
	if function {
		s.source = "user_function"
	}
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{"", lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	s.globals = g
	g.RawSetString("_GOPHER_LUA_VERSION", lua.LNil)
	g.RawGetString("string").(*lua.LTable).RawSetString("__index", lua.LNil)
	for _, name := range []string{"dofile", "loadfile", "print", "_printregs", "module", "require", "newproxy", "channel", "getfenv", "setfenv"} {
		g.RawSetString(name, lua.LNil)
	}
	s.readonly = L.NewFunction(func(L *lua.LState) int {
		raise(L, msgReadonly)
		return 0
	})
	s.installBase()
	s.installCoroutine()
	g.RawSetString("cjson", openCjson(L))
	g.RawSetString("struct", openStruct(L))
	g.RawSetString("cmsgpack", openCmsgpack(L))
	g.RawSetString("bit", openBit(L))

	redisTbl := L.NewTable()
	e.registerRedisAPI(s, redisTbl)
	g.RawSetString("redis", redisTbl)

	math := g.RawGetString("math").(*lua.LTable)
	math.RawSetString("random", L.NewFunction(e.luaRandom))
	math.RawSetString("randomseed", L.NewFunction(e.luaRandomseed))

	s.errHandler = L.NewFunction(s.handleError)
	if !function {
		// EVAL scripts can see the message handler as a global, as in the
		// reference server.
		g.RawSetString("__redis__err__handler", s.errHandler)
	}

	// Lock everything: reading an unknown global fails, every library
	// table is shown through a proxy, and the globals' own proxy becomes
	// the environment of everything compiled from now on.
	errMeta := L.NewTable()
	errMeta.RawSetString("__index", L.NewFunction(nonexistentGlobal))
	g.Metatable = errMeta
	var names []lua.LValue
	g.ForEach(func(k, v lua.LValue) {
		if _, ok := v.(*lua.LTable); ok {
			names = append(names, k)
		}
	})
	for _, k := range names {
		g.RawSet(k, s.protect(g.RawGet(k).(*lua.LTable)))
	}
	s.env = s.protect(g)
	s.envMeta = s.env.Metatable.(*lua.LTable)
	g.RawSetString("_G", s.env)
	L.G.Global = s.env
	L.Env = s.env

	// gopher-lua makes the string library its own metatable for strings;
	// give strings a metatable of their own whose __index is the
	// protected string table, so getmetatable("") reaches nothing
	// writable and the library has no __index entry.
	smt := L.CreateTable(0, 1)
	smt.RawSetString("__index", g.RawGetString("string"))
	L.SetMetatable(lua.LString(""), smt)

	if function {
		s.libGlobals = e.libraryGlobals(s)
	}
	return s
}

// protect returns the read-only proxy of t, creating it (and protecting
// the tables t holds) on first use. A proxy protects itself.
func (s *luaEnv) protect(t *lua.LTable) *lua.LTable {
	if _, isProxy := s.proxies[t]; isProxy {
		return t
	}
	if p, ok := s.proxyOf[t]; ok {
		return p
	}
	p := s.L.NewTable()
	mt := s.L.CreateTable(0, 2)
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", s.readonly)
	p.Metatable = mt
	s.proxies[p] = t
	s.proxyOf[t] = p
	var nested []lua.LValue
	t.ForEach(func(k, v lua.LValue) {
		if _, ok := v.(*lua.LTable); ok {
			nested = append(nested, k)
		}
	})
	for _, k := range nested {
		t.RawSet(k, s.protect(t.RawGet(k).(*lua.LTable)))
	}
	return p
}

// real returns the table behind a proxy, or t itself.
func (s *luaEnv) real(t *lua.LTable) (*lua.LTable, bool) {
	if r, ok := s.proxies[t]; ok {
		return r, true
	}
	return t, false
}

// writable checks argument n is a table that is not protected.
func (s *luaEnv) writable(L *lua.LState, n int) *lua.LTable {
	t := L.CheckTable(n)
	if _, ok := s.proxies[t]; ok {
		readonlyError(L)
	}
	return t
}

// installBase replaces the base and table functions that could write to
// or read past a protected table, plus tostring, load and loadstring.
func (s *luaEnv) installBase() {
	L, g := s.L, s.globals
	set := func(t *lua.LTable, name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set(g, "rawset", func(L *lua.LState) int {
		t := s.writable(L, 1)
		t.RawSet(L.CheckAny(2), L.CheckAny(3))
		L.SetTop(1)
		return 1
	})
	set(g, "rawget", func(L *lua.LState) int {
		t, _ := s.real(L.CheckTable(1))
		L.Push(t.RawGet(L.CheckAny(2)))
		return 1
	})
	next := L.NewFunction(func(L *lua.LState) int {
		t, _ := s.real(L.CheckTable(1))
		k, v := t.Next(L.Get(2))
		if k == lua.LNil {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(k)
		L.Push(v)
		return 2
	})
	g.RawSetString("next", next)
	set(g, "pairs", func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(next)
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	})
	inext := L.NewFunction(func(L *lua.LState) int {
		t, _ := s.real(L.CheckTable(1))
		i := L.CheckInt(2) + 1
		v := t.RawGetInt(i)
		if v == lua.LNil {
			return 0
		}
		L.Push(lua.LNumber(i))
		L.Push(v)
		return 2
	})
	set(g, "ipairs", func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(inext)
		L.Push(t)
		L.Push(lua.LNumber(0))
		return 3
	})
	set(g, "unpack", func(L *lua.LState) int {
		t, _ := s.real(L.CheckTable(1))
		start := L.OptInt(2, 1)
		end := L.OptInt(3, t.Len())
		if start > end {
			return 0
		}
		n := end - start + 1
		if n <= 0 || n >= 1<<20 {
			L.RaiseError("too many results to unpack")
		}
		for i := start; i <= end; i++ {
			L.Push(t.RawGetInt(i))
		}
		return n
	})
	origSetmt := g.RawGetString("setmetatable").(*lua.LFunction)
	set(g, "setmetatable", func(L *lua.LState) int {
		s.writable(L, 1)
		L.Push(origSetmt)
		L.Push(L.Get(1))
		L.Push(L.Get(2))
		L.Call(2, 1)
		return 1
	})
	set(g, "getmetatable", func(L *lua.LState) int {
		v := L.CheckAny(1)
		if t, ok := v.(*lua.LTable); ok {
			if r, isProxy := s.proxies[t]; isProxy {
				if mt, ok := r.Metatable.(*lua.LTable); ok {
					L.Push(s.protect(mt))
				} else {
					L.Push(lua.LNil)
				}
				return 1
			}
		}
		mt := L.GetMetatable(v)
		if t, ok := mt.(*lua.LTable); ok {
			if f := t.RawGetString("__metatable"); f != lua.LNil {
				L.Push(f)
				return 1
			}
			if _, isTable := v.(*lua.LTable); !isTable {
				// Metatables of strings and other builtin types are
				// shared by every script.
				L.Push(s.protect(t))
				return 1
			}
		}
		L.Push(mt)
		return 1
	})
	set(g, "tostring", func(L *lua.LState) int {
		v := L.CheckAny(1)
		if n, ok := v.(lua.LNumber); ok {
			L.Push(lua.LString(formatNumber(float64(n))))
			return 1
		}
		L.Push(L.ToStringMeta(v))
		return 1
	})
	set(g, "loadstring", func(L *lua.LState) int {
		src := L.CheckString(1)
		return s.loadChunk(L, src, L.OptString(2, src))
	})
	origTonumber := g.RawGetString("tonumber").(*lua.LFunction)
	set(g, "tonumber", func(L *lua.LState) int {
		if str, ok := L.Get(1).(lua.LString); ok && (L.GetTop() < 2 || L.Get(2) == lua.LNil || L.Get(2) == lua.LNumber(10)) {
			if f, err := strconvParseLuaNumber(string(str)); err == nil {
				L.Push(lua.LNumber(f))
			} else {
				L.Push(lua.LNil)
			}
			return 1
		}
		return callThrough(L, origTonumber)
	})
	set(g, "collectgarbage", func(L *lua.LState) int {
		// Memory is the Go collector's business; report nothing in use.
		L.Push(lua.LNumber(0))
		return 1
	})
	set(g, "gcinfo", func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	})
	set(g, "load", func(L *lua.LState) int {
		fn := L.CheckFunction(1)
		name := L.OptString(2, "=(load)")
		var b strings.Builder
		for {
			L.Push(fn)
			L.Call(0, 1)
			piece := L.Get(-1)
			L.Pop(1)
			str, ok := piece.(lua.LString)
			if piece == lua.LNil || (ok && str == "") {
				break
			}
			if !ok {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
			b.WriteString(string(str))
		}
		return s.loadChunk(L, b.String(), name)
	})

	tbl := g.RawGetString("table").(*lua.LTable)
	for _, name := range []string{"insert", "remove", "sort"} {
		orig, ok := tbl.RawGetString(name).(*lua.LFunction)
		if !ok {
			continue
		}
		tbl.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			s.writable(L, 1)
			return callThrough(L, orig)
		}))
	}
	// Lua 5.1's deprecated table functions, which the reference still has.
	set(tbl, "foreach", func(L *lua.LState) int {
		t, _ := s.real(L.CheckTable(1))
		fn := L.CheckFunction(2)
		for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
			L.Push(fn)
			L.Push(k)
			L.Push(v)
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	})
	set(tbl, "foreachi", func(L *lua.LState) int {
		t, _ := s.real(L.CheckTable(1))
		fn := L.CheckFunction(2)
		for i := 1; i <= t.Len(); i++ {
			L.Push(fn)
			L.Push(lua.LNumber(i))
			L.Push(t.RawGetInt(i))
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	})
	set(tbl, "setn", func(L *lua.LState) int {
		L.CheckTable(1)
		raise(L, "'setn' is obsolete")
		return 0
	})
	for _, name := range []string{"concat", "getn", "maxn"} {
		orig, ok := tbl.RawGetString(name).(*lua.LFunction)
		if !ok {
			continue
		}
		tbl.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if t, isProxy := s.real(L.CheckTable(1)); isProxy {
				L.Replace(1, t)
			}
			return callThrough(L, orig)
		}))
	}
	g.RawGetString("math").(*lua.LTable).RawSetString("huge", lua.LNumber(math.Inf(1)))
	// string.rep is the one-call way to ask for gigabytes; past
	// MaxStringLen it fails as Lua does when memory runs out, instead of
	// taking the process down.
	strTbl := g.RawGetString("string").(*lua.LTable)
	origRep := strTbl.RawGetString("rep").(*lua.LFunction)
	strTbl.RawSetString("rep", L.NewFunction(func(L *lua.LState) int {
		str := L.CheckString(1)
		n := L.CheckInt(2)
		if n > 0 && len(str) > 0 && int64(len(str))*int64(n) > MaxStringLen {
			L.Error(lua.LString("not enough memory"), 0)
		}
		if size := int64(len(str)) * int64(n); size >= repCheckAt && s.e.mon.mem.wouldExceed(uint64(size)) {
			// One call can ask for more than the run may hold: stop
			// before allocating it, not at the next check.
			s.e.mon.outOfMemory()
			L.Error(lua.LString(msgScriptOOM), 0)
		}
		return callThrough(L, origRep)
	}))
	strTbl.RawSetString("format", L.NewFunction(luaFormat))
	str0 := g.RawGetString("string").(*lua.LTable)
	str0.RawSetString("gfind", str0.RawGetString("gmatch"))
	// string.dump gives a binary chunk, which loadstring refuses, as the
	// server refuses to load bytecode.
	str := g.RawGetString("string").(*lua.LTable)
	str.RawSetString("dump", L.NewFunction(func(L *lua.LState) int {
		L.CheckFunction(1)
		L.Push(lua.LString("\x1bLua\x51"))
		return 1
	}))
}

// callThrough calls fn with the current arguments and returns its results.
func callThrough(L *lua.LState, fn *lua.LFunction) int {
	top := L.GetTop()
	L.Push(fn)
	for i := 1; i <= top; i++ {
		L.Push(L.Get(i))
	}
	L.Call(top, lua.MultRet)
	return L.GetTop() - top
}

// loadChunk compiles source text (never bytecode) in the sandbox.
func (s *luaEnv) loadChunk(L *lua.LState, src, name string) int {
	if strings.HasPrefix(src, "\x1b") {
		L.Push(lua.LNil)
		L.Push(lua.LString("binary chunks are not allowed"))
		return 2
	}
	name = chunkID(name)
	fn, err := L.Load(strings.NewReader(src), name)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(compileMessage(err)))
		return 2
	}
	fn.Env = s.env
	L.Push(fn)
	return 1
}

// chunkID is the name Lua shows for a chunk: "=name" and "@name" lose
// their first character, any other source text becomes [string "..."]
// (its first line, shortened).
func chunkID(name string) string {
	if strings.HasPrefix(name, "=") || strings.HasPrefix(name, "@") {
		return name[1:]
	}
	line, cut := name, false
	if i := strings.IndexAny(line, "\r\n"); i >= 0 {
		line, cut = line[:i], true
	}
	if len(line) > 45 {
		line, cut = line[:45], true
	}
	if cut {
		line += "..."
	}
	return "[string \"" + line + "\"]"
}

// nonexistentGlobal is the __index of the real globals.
func nonexistentGlobal(L *lua.LState) int {
	if L.GetTop() != 2 {
		L.RaiseError("Wrong number of arguments to luaProtectedTableError")
	}
	k := L.Get(2)
	switch k.(type) {
	case lua.LString, lua.LNumber:
	default:
		L.RaiseError("Second argument to luaProtectedTableError must be a string or number")
	}
	raise(L, fmt.Sprintf(msgNonexistent, lua.LVAsString(k)))
	return 0
}

// where is the position prefix luaL_error gives: the chunk name and
// current line of the function that called the running Go function
// ("user_script:3:"), or "" when that caller is itself a Go function (a
// library function called through pcall, say).
func where(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.What == "G" || dbg.CurrentLine <= 0 {
		return ""
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ":"
}

// raise raises a string error with the position of the calling Lua code,
// as luaL_error does.
func raise(L *lua.LState, msg string) {
	if w := where(L); w != "" {
		msg = w + " " + msg
	}
	L.Error(lua.LString(msg), 0)
}

// raisef is raise with formatting, for the libraries.
func raisef(L *lua.LState, format string, args ...any) {
	raise(L, fmt.Sprintf(format, args...))
}

// argError is luaL_argerror: "bad argument #n to 'name' (msg)", the name
// being the called field when a Lua function made the call, '?' else.
func argError(L *lua.LState, n int, msg string) {
	name := "?"
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil && dbg.Name != "" {
			if caller, ok := L.GetStack(1); ok {
				if _, err := L.GetInfo("S", caller, lua.LNil); err == nil && caller.What != "G" {
					name = dbg.Name
				}
			}
		}
	}
	raisef(L, "bad argument #%d to '%s' (%s)", n, name, msg)
}

// readonlyError is the error of a write to a protected table made by a
// library function (rawset, setmetatable, table.insert): like the
// interpreter's own, it carries no position.
func readonlyError(L *lua.LState) {
	L.Error(lua.LString(msgReadonly), 0)
}

// formatNumber writes a Lua number as Lua 5.1's tostring does (%.14g).
func formatNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	case f == 0 && math.Signbit(f):
		return "-0"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.FormatInt(int64(f), 10)
	}
	return cFormatG(f, 14)
}

// cFormatG formats f as C's %.<prec>g: shortest of %e and %f, trailing
// zeros removed, exponent with at least two digits.
func cFormatG(f float64, prec int) string {
	s := strconv.FormatFloat(f, 'g', prec, 64)
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		sign := exp[0]
		digits := exp[1:]
		if len(digits) < 2 {
			digits = "0" + digits
		}
		return mant + "e" + string(sign) + digits
	}
	return s
}

// appendArgNumber formats a number argument of redis.call as the server
// does (%.17g), so integers up to 2^53 keep every digit.
func appendArgNumber(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	case f == math.Trunc(f) && math.Abs(f) < 1e17:
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return append(dst, cFormatG(f, 17)...)
}

var gopherSyntax = regexp.MustCompile(`^(.*) line:(\d+)\(column:\d+\) (near '.*'):\s*(.*)$`)

// compileMessage turns a gopher-lua compile error into the one-line text
// shown after "Error compiling script (new function): ", in the form
// "user_script:<line>: <problem> near '<token>'".
func compileMessage(err error) string {
	msg := err.Error()
	if ae, ok := err.(*lua.ApiError); ok {
		if ae.Cause != nil {
			msg = ae.Cause.Error()
		} else {
			msg = lua.LVAsString(ae.Object)
		}
	}
	msg = strings.TrimSpace(msg)
	if m := gopherSyntax.FindStringSubmatch(msg); m != nil {
		return m[1] + ":" + m[2] + ": " + m[4] + " " + m[3]
	}
	return strings.Join(strings.Fields(msg), " ")
}

var (
	gopherArith  = regexp.MustCompile(`cannot perform (?:add|sub|mul|div|mod|pow|unm) operation between (\w+) and (\w+)$`)
	gopherConcat = regexp.MustCompile(`cannot perform concat operation between (\w+) and (\w+)$`)
	gopherIndex  = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '.*'$`)
)

// luaMessage rewrites the interpreter's own runtime error texts into the
// wording of the reference Lua where the meaning is the same: arithmetic
// and concatenation name the first operand of the wrong type, indexing
// names the type indexed. Variable names, which gopher-lua does not
// track, are left out, as the reference does for temporaries.
func luaMessage(msg string) string {
	if msg == "lua callstack overflow" {
		// A coroutine's full frame table, raised through coroutine.wrap.
		return "stack overflow"
	}
	if !strings.Contains(msg, "cannot perform") && !strings.Contains(msg, "non-table object") {
		return msg
	}
	if m := gopherArith.FindStringSubmatchIndex(msg); m != nil {
		// A string operand is fine when it is numeric: "x" + 1 blames the
		// string, "5" + nil (more likely than "x" + nil) the nil.
		a, b := msg[m[2]:m[3]], msg[m[4]:m[5]]
		bad := a
		if a == "number" || (a == "string" && b != "number" && b != "string") {
			bad = b
		}
		return msg[:m[0]] + "attempt to perform arithmetic on a " + bad + " value"
	}
	if m := gopherConcat.FindStringSubmatchIndex(msg); m != nil {
		a, b := msg[m[2]:m[3]], msg[m[4]:m[5]]
		bad := a
		if a == "number" || a == "string" {
			bad = b
		}
		return msg[:m[0]] + "attempt to concatenate a " + bad + " value"
	}
	if m := gopherIndex.FindStringSubmatchIndex(msg); m != nil {
		return msg[:m[0]] + "attempt to index a " + msg[m[2]:m[3]] + " value"
	}
	return msg
}
