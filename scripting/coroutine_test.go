package scripting

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/codec"
)

// TestCoroutineNoGoroutineLeak: a coroutine costs no goroutine. Each one
// used to start a goroutine waiting on the kill context, alive for as
// long as the process, so a loop of coroutine.create grew it without
// bound.
func TestCoroutineNoGoroutineLeak(t *testing.T) {
	e := New(Config{Interrupt: func(time.Duration) {}})
	defer e.Close()
	before := runtime.NumGoroutine()
	got := evalReply(t, e, nil, 2, "for i = 1, 20000 do coroutine.create(function() end) coroutine.wrap(function() end) end return 1", nil, nil)
	if got != ":1\r\n" {
		t.Fatalf("reply %q", got)
	}
	if after := runtime.NumGoroutine(); after > before+10 {
		t.Fatalf("%d goroutines before the script, %d after", before, after)
	}
}

// TestCoroutineHook: the instruction-count hook, where busy scripts are
// noticed and SCRIPT KILL is served, runs inside coroutines too.
func TestCoroutineHook(t *testing.T) {
	var e *Engine
	calls := 0
	e = New(Config{Interrupt: func(time.Duration) {
		if calls++; calls == 3 {
			if err := e.Monitor().Kill(true); err != nil {
				t.Errorf("kill from the hook: %v", err)
			}
		}
	}})
	defer e.Close()
	// Bounded, so that a hook that never runs fails the test instead of
	// hanging it.
	body := "local co = coroutine.wrap(function() local n = 0 for i = 1, 5e6 do n = n + 1 end return n end) return co()"
	got := evalReply(t, e, nil, 2, body, nil, nil)
	if calls < 3 || !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("%d hook calls, reply %q", calls, got)
	}
	// pcall around the coroutine cannot swallow the kill either.
	calls = 0
	body = "local co = coroutine.create(function() while true do end end) while true do pcall(coroutine.resume, co) end"
	if got := evalReply(t, e, nil, 2, body, nil, nil); !strings.HasPrefix(got, "-ERR Script killed by user") {
		t.Fatalf("reply %q", got)
	}
}

// TestCoroutineAcrossCalls: a coroutine a function keeps between calls
// runs under each call's context when a later call resumes it, so the
// hook and SCRIPT KILL reach it there.
func TestCoroutineAcrossCalls(t *testing.T) {
	var e *Engine
	hook := false
	e = New(Config{Interrupt: func(time.Duration) {
		if hook {
			if err := e.Monitor().Kill(false); err != nil {
				t.Errorf("kill from the hook: %v", err)
			}
		}
	}})
	defer e.Close()
	lib := "#!lua name=gen\nlocal state = {}\n" +
		"redis.register_function('f1', function(keys, args)\n" +
		"  state.co = state.co or coroutine.wrap(function() local n = 0 while true do n = n + 1 if n == 3 then while true do end end coroutine.yield(n) end end)\n" +
		"  return state.co()\n" +
		"end)"
	if _, err := e.LoadLibrary([]byte(lib), false); err != nil {
		t.Fatal(err)
	}
	call := func() string {
		fn, _ := e.Function("f1")
		w := codec.Writer{Proto: 2}
		e.Fcall(&w, fn, &Invocation{})
		return string(w.Buf)
	}
	for want := 1; want <= 2; want++ {
		if got := call(); got != ":"+strconv.Itoa(want)+"\r\n" {
			t.Fatalf("call %d: %q", want, got)
		}
	}
	// The third call spins inside the coroutine made by the first one.
	hook = true
	if got := call(); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("third call: %q", got)
	}
}

// TestResumeDepth: nested resumes stop at Lua 5.1's 200 C levels with its
// "C stack overflow", instead of running the goroutine out of stack (a
// fatal error of the Go runtime that took the process down).
func TestResumeDepth(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	for body, want := range map[string]string{
		// Each level resumes a new coroutine running the same function.
		"local function f(n) local ok, r = coroutine.resume(coroutine.create(f), n + 1) if not ok then return n .. ': ' .. r end return r end return f(0)": "$21\r\n199: C stack overflow\r\n",
		"local function f(n) return coroutine.wrap(f)(n + 1) end return f(0)":                                                                              "-ERR user_script:1: C stack overflow script: ",
		// Deep Lua recursion inside a coroutine is a stack overflow of
		// that coroutine.
		"local co = coroutine.create(function() local function r(n) if n == 0 then return 0 end return r(n - 1) + 1 end return r(1e6) end) local ok, err = coroutine.resume(co) return {ok, err}": "*2\r\n$-1\r\n$14\r\nstack overflow\r\n",
		"local co = coroutine.create(function() local function r(n) if n == 0 then return 0 end return r(n - 1) + 1 end return r(900) end) return {coroutine.resume(co)}":                         "*2\r\n:1\r\n:900\r\n",
		"return coroutine.wrap(function() local function r(n) return r(n + 1) + 1 end return r(1) end)()":                                                                                         "-ERR stack overflow script: ",
	} {
		if got := evalReply(t, e, nil, 2, body, nil, nil); !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", body, got, want)
		}
	}
	// The limit is on nesting only: a coroutine resumed many times in a
	// row is fine, and the engine works afterwards.
	if got := evalReply(t, e, nil, 2, "local co = coroutine.wrap(function() while true do coroutine.yield(1) end end) local n = 0 for i = 1, 1000 do n = n + co() end return n", nil, nil); got != ":1000\r\n" {
		t.Fatalf("resumed in a row: %q", got)
	}
}

// TestCoroutineTexts: resume and status speak Lua 5.1, and a coroutine
// that is resuming another one ("normal") cannot be resumed.
func TestCoroutineTexts(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	for body, want := range map[string]string{
		"local co = coroutine.create(function() end) coroutine.resume(co) return {coroutine.resume(co)}":                                                                                                            "*2\r\n$-1\r\n$28\r\ncannot resume dead coroutine\r\n",
		"local co co = coroutine.create(function() return coroutine.resume(co) end) return {coroutine.resume(co)}":                                                                                                  "*3\r\n:1\r\n$-1\r\n$31\r\ncannot resume running coroutine\r\n",
		"local co = coroutine.wrap(function() end) co() return co()":                                                                                                                                                "-ERR user_script:1: cannot resume dead coroutine script: ",
		"local co = coroutine.create(function() return coroutine.status(coroutine.running()) end) return {coroutine.resume(co)}":                                                                                    "*2\r\n:1\r\n$7\r\nrunning\r\n",
		"local co = coroutine.create(function() coroutine.yield() end) local a = coroutine.status(co) coroutine.resume(co) local b = coroutine.status(co) coroutine.resume(co) return {a, b, coroutine.status(co)}": "*3\r\n$9\r\nsuspended\r\n$9\r\nsuspended\r\n$4\r\ndead\r\n",
		// co1 resumes co2, which tries to resume co1.
		"local co1 co1 = coroutine.create(function() local co2 = coroutine.create(function() return coroutine.status(co1), coroutine.resume(co1) end) return coroutine.resume(co2) end) return {coroutine.resume(co1)}": "*5\r\n:1\r\n:1\r\n$6\r\nnormal\r\n$-1\r\n$30\r\ncannot resume normal coroutine\r\n",
		"return coroutine.resume(1)":              "-ERR user_script:1: bad argument #1 to 'resume' (coroutine expected) script: ",
		"return coroutine.status({})":             "-ERR user_script:1: bad argument #1 to 'status' (coroutine expected) script: ",
		"return coroutine.create(tostring)":       "-ERR user_script:1: bad argument #1 to 'create' (Lua function expected) script: ",
		"return coroutine.wrap(coroutine.create)": "-ERR user_script:1: bad argument #1 to 'wrap' (Lua function expected) script: ",
	} {
		if got := evalReply(t, e, nil, 2, body, nil, nil); !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", body, got, want)
		}
	}
}

// TestScriptMemoryLimit: a run that keeps more than its limit on the heap
// stops with an OOM error pcall cannot catch; garbage does not count; the
// limit is read at the start of each run.
func TestScriptMemoryLimit(t *testing.T) {
	limit := int64(32 << 20)
	e := New(Config{MemoryLimit: func() int64 { return limit }})
	defer e.Close()
	const oom = "-OOM Lua script exceeded the memory limit of scripts"
	for _, body := range []string{
		"local t = {} for i = 1, 1e8 do t[i] = {} end return #t",
		"local t = {} for i = 1, 1e8 do t[i] = coroutine.create(function() end) end return #t",
		"local t = {} for i = 1, 1e8 do t[i] = string.rep('x', 100) .. i end return #t",
		"local t = {} while true do pcall(function() for i = 1, 1e8 do t[#t + 1] = {} end end) end",
		"local t = {} local co = coroutine.wrap(function() for i = 1, 1e8 do t[i] = {} end end) co()",
		// One call asking for more than the limit, under pcall.
		"local ok, err = pcall(string.rep, 'x', 64 * 2^20) return {ok, err}",
	} {
		// The limit counts from the heap at the start of the run, garbage
		// included: collect the garbage of the previous case first.
		runtime.GC()
		if got := evalReply(t, e, nil, 2, body, nil, nil); !strings.HasPrefix(got, oom) {
			if len(got) > 200 {
				got = got[:200]
			}
			t.Errorf("%s: %q", body, got)
		}
	}
	// Garbage, many times the limit, is fine.
	if got := evalReply(t, e, nil, 2, "local n = 0 for i = 1, 1e6 do local t = {i, i, i, i} n = n + #t end return n", nil, nil); got != ":4000000\r\n" {
		t.Fatalf("garbage: %q", got)
	}
	// Without a limit, the same script that failed runs to its end.
	limit = 0
	if got := evalReply(t, e, nil, 2, "local t = {} for i = 1, 5e5 do t[i] = {} end return #t", nil, nil); got != ":500000\r\n" {
		t.Fatalf("no limit: %q", got)
	}
}
