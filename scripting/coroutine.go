package scripting

import (
	lua "github.com/yuin/gopher-lua"
)

// The coroutine library, bounded.
//
// gopher-lua runs every coroutine in an LState of its own, created with
// the options of its creator, and resumes it by recursion on the Go stack.
// Left as it is, that has three flaws a script can reach:
//
//   - A thread created under a context gets a context.WithCancel of it;
//     the kill context is not a cancelCtx, so every coroutine.create
//     started a goroutine that waited for SCRIPT KILL and otherwise lived
//     for ever: a loop of coroutine.create grew the process without bound.
//     Threads get no derived context here; each resume hands the thread
//     its resumer's context, during a run the engine's kill context,
//     whose Done is also the instruction-count hook, so busy detection,
//     SCRIPT KILL and the memory check work inside coroutines too (with
//     a derived context the hook never ran there).
//   - Nested resumes had no limit: a coroutine resuming a new coroutine
//     from inside itself, recursively, ran the goroutine out of stack,
//     which the Go runtime does not recover from. Lua 5.1 allows 200 C
//     levels (LUAI_MAXCCALLS) and fails the resume with "C stack
//     overflow"; the same limit applies here.
//   - Each thread took a 1024-slot registry and a frame table for 20000
//     frames. A coroutine starts with a small registry (it grows on
//     demand) and at most coCallStackSize frames: every Go-level re-entry
//     (pcall, a metamethod, a sort comparator) is a frame, so the frames
//     of the whole chain of nested coroutines bound the Go stack.
//
// The resume and status texts are Lua 5.1's ("cannot resume dead
// coroutine"), and resuming a coroutine that is itself resuming another
// one ("normal") is refused, which gopher-lua did not check.

const (
	// maxResumeDepth is how many coroutines may be resumed one inside
	// another: Lua 5.1 counts the script's own call as the first of its
	// 200 C levels, so the 200th nested resume fails.
	maxResumeDepth = 199
	// coCallStackSize bounds the call frames of one coroutine. With
	// maxResumeDepth nested coroutines the Go stack stays below a few
	// hundred megabytes (about a kilobyte per re-entry), far from the
	// runtime's fatal 1 GB.
	coCallStackSize = 1000
	// coRegistrySize is a coroutine's initial value stack; it grows by
	// the main state's step up to the main state's maximum.
	coRegistrySize = 128
	msgCStack      = "C stack overflow"
)

// installCoroutine replaces coroutine.create, wrap, resume and status.
func (s *luaEnv) installCoroutine() {
	L := s.L
	co := s.globals.RawGetString(lua.CoroutineLibName).(*lua.LTable)
	gfunc := func(name string) lua.LGFunction { return co.RawGetString(name).(*lua.LFunction).GFunction }
	origCreate, origWrap, origResume := gfunc("create"), gfunc("wrap"), gfunc("resume")

	opts := L.Options
	opts.CallStackSize = coCallStackSize
	opts.RegistrySize = coRegistrySize

	// newThread runs gopher-lua's create or wrap with the coroutine
	// options and no context on L, so the thread gets neither a derived
	// context nor its goroutine; follow gives it one when it runs.
	newThread := func(L *lua.LState, orig lua.LGFunction) {
		saved, ctx := L.Options, L.RemoveContext()
		L.Options = opts
		defer func() {
			L.Options = saved
			if ctx != nil {
				L.SetContext(ctx)
			}
		}()
		orig(L)
	}
	co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
		luaFunctionArg(L)
		newThread(L, origCreate)
		return 1
	}))
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		luaFunctionArg(L)
		newThread(L, origWrap)
		inner := L.Get(-1).(*lua.LFunction)
		L.Pop(1)
		th := inner.Upvalues[0].Value().(*lua.LState)
		aux := inner.GFunction
		// The closure keeps the thread as its first upvalue, where
		// gopher-lua's wrapper, called in its frame, looks for it.
		L.Push(L.NewClosure(func(L *lua.LState) int {
			if msg := s.e.co.refuse(L, th); msg != "" {
				raise(L, msg)
			}
			follow(L, th)
			s.e.co.push(th)
			defer s.e.co.pop()
			return aux(L)
		}, th))
		return 1
	}))
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		th := threadArg(L)
		if msg := s.e.co.refuse(L, th); msg != "" {
			L.Push(lua.LFalse)
			L.Push(lua.LString(msg))
			return 2
		}
		follow(L, th)
		s.e.co.push(th)
		defer s.e.co.pop()
		n := origResume(L)
		if n == 2 && L.Get(-2) == lua.LFalse && L.Get(-1) == lua.LString("lua callstack overflow") {
			// gopher-lua's panic text for a full frame table.
			L.Replace(-1, lua.LString("stack overflow"))
		}
		return n
	}))
	co.RawSetString("status", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(s.e.co.status(L, threadArg(L))))
		return 1
	}))
}

// follow gives th, about to be resumed, the context of the thread
// resuming it: the engine's kill context during a run, FUNCTION LOAD's
// deadline while a library loads. The interpreter reads a thread's
// context afresh at each resume.
func follow(L, th *lua.LState) {
	if ctx := L.Context(); ctx != nil {
		th.SetContext(ctx)
	} else {
		th.RemoveContext()
	}
}

// luaFunctionArg checks the argument of create and wrap: like Lua 5.1, a
// coroutine runs a Lua function, never a library one.
func luaFunctionArg(L *lua.LState) {
	if fn, ok := L.Get(1).(*lua.LFunction); !ok || fn.IsG {
		argError(L, 1, "Lua function expected")
	}
}

// threadArg is the coroutine argument of resume and status.
func threadArg(L *lua.LState) *lua.LState {
	th, ok := L.Get(1).(*lua.LState)
	if !ok {
		argError(L, 1, "coroutine expected")
	}
	return th
}

// coChain is the chain of coroutines being resumed, outermost first: the
// last one runs, the others are "normal". It is the engine's (a chain
// never spans two runs) and empty between runs.
type coChain struct {
	active []*lua.LState
}

func (c *coChain) push(th *lua.LState) { c.active = append(c.active, th) }
func (c *coChain) pop()                { c.active = c.active[:len(c.active)-1] }

// refuse returns why th cannot be resumed from L, "" when it can.
func (c *coChain) refuse(L *lua.LState, th *lua.LState) string {
	if st := c.status(L, th); st != "suspended" {
		return "cannot resume " + st + " coroutine"
	}
	if len(c.active) >= maxResumeDepth {
		return msgCStack
	}
	return ""
}

// status is coroutine.status of th as seen from L.
func (c *coChain) status(L *lua.LState, th *lua.LState) string {
	switch {
	case th == L:
		return "running"
	case th.Dead:
		return "dead"
	}
	for _, a := range c.active {
		if a == th {
			return "normal"
		}
	}
	return "suspended"
}
