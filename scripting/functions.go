package scripting

import (
	"context"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// LoadTimeout bounds the time a library's top-level code may run while it
// registers its functions (FUNCTION LOAD and RESTORE).
const LoadTimeout = 500 * time.Millisecond

const msgBadName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

// Library is a loaded function library.
type Library struct {
	Name      string
	Code      []byte      // the whole FUNCTION LOAD payload, shebang line included
	Functions []*Function // sorted by name
}

// Function is a function a library registered.
type Function struct {
	Name        string
	Description string // empty when none was given
	Flags       Flags
	Library     *Library
	fn          *lua.LFunction
}

// libraryGlobals builds what a library's top-level code sees while it
// loads: only a redis table with register_function, log and the version.
func (e *Engine) libraryGlobals(s *luaEnv) *lua.LTable {
	L := s.L
	errMeta := L.NewTable()
	errMeta.RawSetString("__index", L.NewFunction(nonexistentGlobal))
	api := L.NewTable()
	api.RawSetString("register_function", L.NewFunction(e.luaRegisterFunction))
	e.registerLog(L, api)
	e.registerVersion(api)
	api.Metatable = errMeta
	g := L.NewTable()
	g.RawSetString("redis", s.protect(api))
	g.Metatable = errMeta
	return g
}

// LoadLibrary compiles and runs a library (FUNCTION LOAD [REPLACE]) and
// returns its name. Nothing changes when it fails: an existing library of
// that name stays as it was.
func (e *Engine) LoadLibrary(payload []byte, replace bool) (string, error) {
	md, err := ParseLibraryMeta(payload)
	if err != nil {
		return "", err
	}
	if !ValidName(md.Name) {
		return "", errorf("ERR %s", msgBadName)
	}
	if !strings.EqualFold(md.Engine, "lua") {
		return "", errorf("ERR Engine '%s' not found", md.Engine)
	}
	old := e.libs[md.Name]
	if old != nil && !replace {
		return "", errorf("ERR Library '%s' already exists", md.Name)
	}
	lib, err := e.runLibrary(md, payload)
	if err != nil {
		return "", err
	}
	if len(lib.Functions) == 0 {
		return "", errorf("ERR No functions registered")
	}
	for _, f := range lib.Functions {
		if other, ok := e.funcs[strings.ToLower(f.Name)]; ok && other.Library != old {
			return "", errorf("ERR Function %s already exists", f.Name)
		}
	}
	if old != nil {
		e.unlink(old)
	}
	e.libs[lib.Name] = lib
	for _, f := range lib.Functions {
		e.funcs[strings.ToLower(f.Name)] = f
	}
	return lib.Name, nil
}

// runLibrary runs the library's code in the load-time environment.
func (e *Engine) runLibrary(md LibraryMeta, payload []byte) (*Library, error) {
	if e.fenv == nil {
		e.fenv = newLuaEnv(e, true)
	}
	s := e.fenv
	L := s.L
	fn, err := L.Load(strings.NewReader(md.Code), s.source)
	if err != nil {
		return nil, errorf("ERR Error compiling function: %s", compileMessage(err))
	}
	fn.Env = s.env
	lib := &Library{Name: md.Name, Code: append([]byte(nil), payload...)}
	ctx, cancel := context.WithTimeout(context.Background(), LoadTimeout)
	defer cancel()
	s.envMeta.RawSetString("__index", s.libGlobals)
	e.loading = lib
	L.SetContext(ctx)
	L.Push(fn)
	err = L.PCall(0, 0, nil)
	L.RemoveContext()
	e.loading = nil
	s.envMeta.RawSetString("__index", s.globals)
	if err != nil {
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			msg = "ERR " + luaMessage(lua.LVAsString(ae.Object))
			if t, ok := ae.Object.(*lua.LTable); ok {
				msg = "ERR unknown error"
				if m, ok := t.RawGetString("err").(lua.LString); ok {
					msg = string(m)
				}
			} else if ctx.Err() != nil {
				msg = "ERR FUNCTION LOAD timeout"
			}
		}
		return nil, errorf("ERR Error registering functions: %s", msg)
	}
	sort.Slice(lib.Functions, func(i, j int) bool { return lib.Functions[i].Name < lib.Functions[j].Name })
	return lib, nil
}

func (e *Engine) unlink(lib *Library) {
	for _, f := range lib.Functions {
		delete(e.funcs, strings.ToLower(f.Name))
	}
	delete(e.libs, lib.Name)
}

// DeleteLibrary removes a library and its functions (FUNCTION DELETE).
func (e *Engine) DeleteLibrary(name string) error {
	lib, ok := e.libs[name]
	if !ok {
		return errorf("ERR Library not found")
	}
	e.unlink(lib)
	return nil
}

// FlushLibraries removes every library (FUNCTION FLUSH) and the Lua state
// that held them.
func (e *Engine) FlushLibraries() {
	e.libs = make(map[string]*Library)
	e.funcs = make(map[string]*Function)
	if e.fenv != nil {
		e.fenv.L.Close()
		e.fenv = nil
	}
}

// Function finds a function by name (FCALL); case does not matter.
func (e *Engine) Function(name string) (*Function, bool) {
	f, ok := e.funcs[name]
	if !ok {
		f, ok = e.funcs[strings.ToLower(name)]
	}
	return f, ok
}

// Library finds a library by its exact name.
func (e *Engine) Library(name string) (*Library, bool) {
	l, ok := e.libs[name]
	return l, ok
}

// Libraries lists the loaded libraries sorted by name (FUNCTION LIST,
// FUNCTION DUMP).
func (e *Engine) Libraries() []*Library {
	out := make([]*Library, 0, len(e.libs))
	for _, l := range e.libs {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LibraryStats counts libraries and functions (FUNCTION STATS) and the
// bytes of their code and names (used_memory_functions).
func (e *Engine) LibraryStats() (libraries, functions int, bytes int64) {
	for _, l := range e.libs {
		bytes += int64(len(l.Name) + len(l.Code))
		for _, f := range l.Functions {
			bytes += int64(len(f.Name) + len(f.Description))
		}
	}
	return len(e.libs), len(e.funcs), bytes
}

// Fcall runs a function (FCALL, FCALL_RO) with KEYS and ARGV as its two
// arguments and writes its result or error to w.
func (e *Engine) Fcall(w ReplyWriter, f *Function, inv *Invocation) {
	s := e.fenv
	if s == nil || e.funcs[strings.ToLower(f.Name)] != f {
		w.Error("ERR Function not found")
		return
	}
	L := s.L
	L.Push(f.fn)
	L.Push(stringsTable(L, inv.Keys))
	L.Push(stringsTable(L, inv.Args))
	e.invoke(w, s, 2, false, f.Name, inv)
}

// luaRegisterFunction is redis.register_function, in its positional form
// (name, callback) and its table form {function_name=, callback=,
// flags=, description=}.
func (e *Engine) luaRegisterFunction(L *lua.LState) int {
	lib := e.loading
	if lib == nil {
		raiseTable(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	argc := L.GetTop()
	if argc < 1 || argc > 2 {
		raiseTable(L, "wrong number of arguments to redis.register_function")
	}
	var f Function
	if argc == 1 {
		if msg := e.readNamedArgs(L, &f); msg != "" {
			raiseTable(L, msg)
		}
	} else {
		name, ok := stringArg(L.Get(1))
		if !ok {
			raiseTable(L, "first argument to redis.register_function must be a string")
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			raiseTable(L, "second argument to redis.register_function must be a function")
		}
		f.Name, f.fn = name, fn
	}
	if !ValidName(f.Name) {
		raiseTable(L, msgBadName)
	}
	for _, other := range lib.Functions {
		if other.Name == f.Name {
			raiseTable(L, "Function already exists in the library")
		}
	}
	f.Library = lib
	lib.Functions = append(lib.Functions, &f)
	return 0
}

// readNamedArgs reads the table form; it returns the error text or "".
func (e *Engine) readNamedArgs(L *lua.LState, f *Function) string {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
	}
	if r, isProxy := e.fenv.real(t); isProxy {
		t = r
	}
	named := false
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		key, ok := stringArg(k)
		if !ok {
			return "named argument key given to redis.register_function is not a string"
		}
		switch strings.ToLower(key) {
		case "function_name":
			name, ok := stringArg(v)
			if !ok {
				return "function_name argument given to redis.register_function must be a string"
			}
			f.Name, named = name, true
		case "description":
			desc, ok := stringArg(v)
			if !ok {
				return "description argument given to redis.register_function must be a string"
			}
			f.Description = desc
		case "callback":
			fn, ok := v.(*lua.LFunction)
			if !ok {
				return "callback argument given to redis.register_function must be a function"
			}
			f.fn = fn
		case "flags":
			ft, ok := v.(*lua.LTable)
			if !ok {
				return "flags argument to redis.register_function must be a table representing function flags"
			}
			if r, isProxy := e.fenv.real(ft); isProxy {
				ft = r
			}
			for i := 1; ; i++ {
				fv := ft.RawGetInt(i)
				if fv == lua.LNil {
					break
				}
				name, ok := stringArg(fv)
				if !ok {
					return "unknown flag given"
				}
				flag, ok := flagByName(name, true)
				if !ok {
					return "unknown flag given"
				}
				f.Flags |= flag
			}
		default:
			return "unknown argument given to redis.register_function"
		}
	}
	if !named {
		return "redis.register_function must get a function name argument"
	}
	if f.fn == nil {
		return "redis.register_function must get a callback argument"
	}
	return ""
}

// stringArg is lua_isstring + lua_tostring: strings and numbers.
func stringArg(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return formatNumber(float64(v)), true
	}
	return "", false
}
