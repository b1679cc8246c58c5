package scripting

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/codec"
)

// runAsync runs a script on its own goroutine and returns a channel with
// its reply; the test then acts on the monitor from its own goroutine.
func runAsync(e *Engine, f *fakeServer, body string, eval bool) <-chan string {
	out := make(chan string, 1)
	go func() {
		w := codec.Writer{Proto: 2}
		inv := &Invocation{Call: f.call}
		if eval {
			s, err := e.Load([]byte(body))
			if err != nil {
				out <- err.Error()
				return
			}
			e.Eval(&w, s, inv)
		} else {
			fn, _ := e.Function("f1")
			e.Fcall(&w, fn, inv)
		}
		out <- string(w.Buf)
	}()
	return out
}

func waitRunning(t *testing.T, m *Monitor) RunInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if info, ok := m.Running(); ok {
			return info
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("script never started")
	return RunInfo{}
}

func TestKill(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"busy loop", "while true do end"},
		{"pcall cannot swallow the kill", "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end"},
		{"coroutine", "local co = coroutine.wrap(function() while true do end end) co()"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := New(Config{})
			defer e.Close()
			m := e.Monitor()
			if err := m.Kill(true); err != ErrNotBusy {
				t.Fatalf("kill while idle: %v", err)
			}
			res := runAsync(e, newFake(e), c.body, true)
			info := waitRunning(t, m)
			if !info.Eval || info.Name != SHA1Hex([]byte(c.body)) || info.Written {
				t.Fatalf("running info %+v", info)
			}
			if err := m.Kill(false); err != ErrBusyScript {
				t.Fatalf("FUNCTION KILL on a script: %v", err)
			}
			if err := m.Kill(true); err != nil {
				t.Fatalf("SCRIPT KILL: %v", err)
			}
			got := <-res
			want := "-ERR Script killed by user with SCRIPT KILL... script: " + info.Name + ", on @user_script:1.\r\n"
			if got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
			if _, ok := m.Running(); ok {
				t.Fatal("still running")
			}
			// The engine is usable afterwards.
			if got := evalReply(t, e, nil, 2, "return 1", nil, nil); got != ":1\r\n" {
				t.Fatalf("after kill: %q", got)
			}
		})
	}
}

func TestKillRefusedAfterWrite(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	m := e.Monitor()
	var release sync.WaitGroup
	release.Add(1)
	f := newFake(e)
	res := runAsync(e, f, "redis.call('set', 'x', '1') while true do end", true)
	for {
		if info, ok := m.Running(); ok && info.Written {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := m.Kill(true); err != ErrUnkillable {
		t.Fatalf("kill after a write: %v", err)
	}
	// Only a hard stop ends it; the test closes the run by force through
	// the internal kill path, as SHUTDOWN NOSAVE would end the process.
	m.mu.Lock()
	m.killed = true
	close(m.done)
	m.mu.Unlock()
	<-res
}

func TestFunctionKill(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	if _, err := e.LoadLibrary([]byte("#!lua name=lib\nredis.register_function('f1', function() local a = 1 while true do a = a + 1 end end)"), false); err != nil {
		t.Fatal(err)
	}
	m := e.Monitor()
	res := runAsync(e, newFake(e), "", false)
	info := waitRunning(t, m)
	if info.Eval || info.Name != "f1" {
		t.Fatalf("running info %+v", info)
	}
	if err := m.Kill(true); err != ErrBusyFunction {
		t.Fatalf("SCRIPT KILL on a function: %v", err)
	}
	if err := m.Kill(false); err != nil {
		t.Fatalf("FUNCTION KILL: %v", err)
	}
	if got := <-res; got != "-ERR Script killed by user with SCRIPT KILL... script: f1, on @user_function:2.\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestScriptCache(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	body := []byte("return redis.call('get',KEYS[1])")
	s, err := e.Load(body)
	if err != nil {
		t.Fatal(err)
	}
	if s.SHA != "fd758d1589d044dd850a6f05d52f2eefd27f033f" || s.Flags != FlagEvalCompat {
		t.Fatalf("script %s flags %b", s.SHA, s.Flags)
	}
	if again, _ := e.Load(body); again != s {
		t.Fatal("second load compiled again")
	}
	for _, sha := range []string{s.SHA, strings.ToUpper(s.SHA)} {
		if got, ok := e.Lookup(sha); !ok || got != s {
			t.Fatalf("lookup %s", sha)
		}
	}
	if e.Exists("NotValidShaSUM") || e.Exists("ffd632c7d33e571e9f24556ebed26c3479a87130") {
		t.Fatal("unknown script exists")
	}
	if n, b := e.CacheStats(); n != 1 || b != int64(40+len(body)) {
		t.Fatalf("stats %d scripts %d bytes", n, b)
	}
	e.Flush()
	if e.Exists(s.SHA) {
		t.Fatal("script survived flush")
	}
	if n, b := e.CacheStats(); n != 0 || b != 0 {
		t.Fatalf("stats after flush %d %d", n, b)
	}
	// A script handed out before the flush still runs.
	f := newFake(e)
	f.data["k"] = "v"
	w := codec.Writer{}
	e.Eval(&w, s, &Invocation{Keys: bytesList([]string{"k"}), Call: f.call})
	if string(w.Buf) != "$1\r\nv\r\n" {
		t.Fatalf("stale script: %q", w.Buf)
	}
	if _, err := e.Load([]byte("return +")); err == nil || !strings.HasPrefix(err.Error(), "ERR Error compiling script (new function): user_script:1:") {
		t.Fatalf("compile error %v", err)
	}
}

func TestShebang(t *testing.T) {
	for _, c := range []struct {
		body  string
		flags Flags
		n     int
		err   string
	}{
		{"return 1", FlagEvalCompat, 0, ""},
		{"#!lua\nreturn 1", 0, 5, ""},
		{"#!lua flags=no-writes,allow-oom\nreturn 1", FlagNoWrites | FlagAllowOOM, 31, ""},
		{"#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\n", FlagNoWrites | FlagAllowOOM | FlagAllowStale | FlagNoCluster | FlagAllowCrossSlot, 76, ""},
		{"#!lua flags=\nreturn 1", 0, 12, ""},
		{"#!lua", 0, 0, "ERR Invalid script shebang"},
		{"#!not-lua\n", 0, 0, "ERR Unexpected engine in script shebang: #!not-lua"},
		{"#!lua badger=data\n", 0, 0, "ERR Unknown lua shebang option: badger=data"},
		{"#!lua flags=allow-oom,what?\n", 0, 0, "ERR Unexpected flag in script shebang: what?"},
		{"#!lua flags=NO-WRITES\n", 0, 0, "ERR Unexpected flag in script shebang: NO-WRITES"},
		{"#!lua \"x\n", 0, 0, "ERR Invalid engine in script shebang"},
	} {
		flags, n, err := ParseShebang([]byte(c.body))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != c.err || (err == nil && (flags != c.flags || n != c.n)) {
			t.Errorf("%q: flags %b n %d err %q", c.body, flags, n, msg)
		}
	}
	if got := (FlagNoWrites | FlagAllowCrossSlot | FlagEvalCompat).Names(); strings.Join(got, ",") != "no-writes,allow-cross-slot-keys" {
		t.Errorf("names %v", got)
	}
	// The shebang line keeps its newline: errors report the user's lines.
	e := New(Config{})
	defer e.Close()
	if got := evalReply(t, e, nil, 2, "#!lua\nreturn a", nil, nil); !strings.Contains(got, "on @user_script:2.") {
		t.Errorf("line after shebang: %q", got)
	}
}

func TestLibraries(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	lib := "#!lua name=lib1\nlocal function add1(a) return a + 1 end\n" +
		"redis.register_function('f1', function(keys, args) return add1(1) end)\n" +
		"redis.register_function{function_name='f2', callback=function(keys, args) return {keys[1], args[1]} end, flags={'no-writes', 'ALLOW-STALE'}, description='desc'}"
	name, err := e.LoadLibrary([]byte(lib), false)
	if err != nil || name != "lib1" {
		t.Fatalf("load: %q %v", name, err)
	}
	if _, err := e.LoadLibrary([]byte(lib), false); err == nil || err.Error() != "ERR Library 'lib1' already exists" {
		t.Fatalf("load twice: %v", err)
	}
	f2, ok := e.Function("F2")
	if !ok || f2.Flags != FlagNoWrites|FlagAllowStale || f2.Description != "desc" || f2.Library.Name != "lib1" {
		t.Fatalf("f2 %+v", f2)
	}
	w := codec.Writer{}
	e.Fcall(&w, f2, &Invocation{Keys: bytesList([]string{"k"}), Args: bytesList([]string{"a"})})
	if string(w.Buf) != "*2\r\n$1\r\nk\r\n$1\r\na\r\n" {
		t.Fatalf("fcall: %q", w.Buf)
	}
	// A failing replacement keeps the old library.
	if _, err := e.LoadLibrary([]byte("#!lua name=lib1\nredis.register_function('f1', function() return 1 end)\nredis.register_function('f3', 'x')"), true); err == nil ||
		err.Error() != "ERR Error registering functions: ERR second argument to redis.register_function must be a function" {
		t.Fatalf("bad replace: %v", err)
	}
	if f1, ok := e.Function("f1"); !ok || f1.Library.Name != "lib1" {
		t.Fatal("old library lost")
	}
	// Function names are unique across libraries, ignoring case.
	if _, err := e.LoadLibrary([]byte("#!lua name=lib2\nredis.register_function('F1', function() return 1 end)"), false); err == nil || err.Error() != "ERR Function F1 already exists" {
		t.Fatalf("collision: %v", err)
	}
	if libs, fns, bytes := e.LibraryStats(); libs != 1 || fns != 2 || bytes != int64(len("lib1")+len(lib)+len("f1")+len("f2")+len("desc")) {
		t.Fatalf("stats %d %d %d", libs, fns, bytes)
	}
	if _, err := e.LoadLibrary([]byte("#!lua name=lib2\nredis.register_function('f3', function() return 3 end)"), false); err != nil {
		t.Fatal(err)
	}
	if got := e.Libraries(); len(got) != 2 || got[0].Name != "lib1" || got[1].Name != "lib2" || len(got[0].Functions) != 2 {
		t.Fatalf("libraries %v", got)
	}
	if err := e.DeleteLibrary("lib1"); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteLibrary("lib1"); err == nil || err.Error() != "ERR Library not found" {
		t.Fatalf("delete twice: %v", err)
	}
	if _, ok := e.Function("f1"); ok {
		t.Fatal("function of a deleted library")
	}
	f3, _ := e.Function("f3")
	e.FlushLibraries()
	w.Reset()
	e.Fcall(&w, f3, &Invocation{})
	if string(w.Buf) != "-ERR Function not found\r\n" {
		t.Fatalf("stale function: %q", w.Buf)
	}
	if !ValidName("a_B9") || ValidName("") || ValidName("a-b") || ValidName("a\x00b") {
		t.Fatal("ValidName")
	}
}

func TestLog(t *testing.T) {
	type entry struct {
		level int
		msg   string
	}
	var got []entry
	e := New(Config{Log: func(level int, msg string) { got = append(got, entry{level, msg}) }})
	defer e.Close()
	evalReply(t, e, nil, 2, "redis.log(redis.LOG_WARNING, 'hi', 3, {}, 0.5) redis.log(redis.LOG_DEBUG, 'dbg')", nil, nil)
	if len(got) != 2 || got[0] != (entry{LogWarning, "hi 3 0.5"}) || got[1] != (entry{LogDebug, "dbg"}) {
		t.Fatalf("log %v", got)
	}
}

func TestSetrespAndCallArgs(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	f := newFake(e)
	var seen []int
	call := func(args [][]byte, resp int, out []byte) []byte {
		seen = append(seen, resp)
		return f.call(args, resp, out)
	}
	s, _ := e.Load([]byte("redis.call('ping') redis.setresp(3) redis.call('ping') return redis.call('args', 1, 2.5, 9007199254740991, -0.1, 'x')"))
	w := codec.Writer{}
	e.Eval(&w, s, &Invocation{Call: call})
	if len(seen) != 3 || seen[0] != 2 || seen[1] != 3 || seen[2] != 3 {
		t.Fatalf("resp versions %v", seen)
	}
	want := "*5\r\n$1\r\n1\r\n$3\r\n2.5\r\n$16\r\n9007199254740991\r\n$20\r\n-0.10000000000000001\r\n$1\r\nx\r\n"
	if string(w.Buf) != want {
		t.Fatalf("args %q", w.Buf)
	}
	// Each run starts in RESP2 again.
	seen = nil
	s2, _ := e.Load([]byte("return redis.call('ping')"))
	e.Eval(&w, s2, &Invocation{Call: call})
	if seen[0] != 2 {
		t.Fatalf("resp not reset: %v", seen)
	}
	// Without a command callback redis.call is refused.
	if got := evalReply(t, e, nil, 2, "return redis.call('ping')", nil, nil); !strings.HasPrefix(got, "-ERR This Redis command is not allowed from script") {
		t.Fatalf("no callback: %q", got)
	}
}

func TestACLCheck(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	s, _ := e.Load([]byte("return {redis.acl_check_cmd('set', 'xx', 1), redis.acl_check_cmd('hset', 'xx', 'f', 1)}"))
	w := codec.Writer{}
	check := func(args [][]byte) (bool, bool) { return string(args[0]) == "set", true }
	e.Eval(&w, s, &Invocation{ACLCheck: check})
	if string(w.Buf) != "*2\r\n:1\r\n$-1\r\n" {
		t.Fatalf("acl: %q", w.Buf)
	}
	w.Reset()
	s2, _ := e.Load([]byte("return redis.acl_check_cmd('invalid-cmd', 'arg')"))
	e.Eval(&w, s2, &Invocation{ACLCheck: func([][]byte) (bool, bool) { return false, false }})
	if !strings.HasPrefix(string(w.Buf), "-ERR Invalid command passed to redis.acl_check_cmd()") {
		t.Fatalf("unknown: %q", w.Buf)
	}
}

func TestRandomIsDeterministicPerEngine(t *testing.T) {
	a, b := New(Config{}), New(Config{})
	defer a.Close()
	defer b.Close()
	script := "return tostring(math.random())"
	first := evalReply(t, a, nil, 2, script, nil, nil)
	if first != "$16\r\n0.39646477363839\r\n" || evalReply(t, b, nil, 2, script, nil, nil) != first {
		t.Fatalf("first value %q", first)
	}
	if evalReply(t, a, nil, 2, script, nil, nil) == first {
		t.Fatal("second call repeated the first value")
	}
}

func TestErrorsAreTyped(t *testing.T) {
	_, err := New(Config{}).Load([]byte("#!x\n"))
	var se *Error
	if !errors.As(err, &se) || !strings.HasPrefix(se.Msg, "ERR ") {
		t.Fatalf("%T %v", err, err)
	}
}

// TestInterruptHook kills a busy script from the engine's own goroutine,
// through the hook, once it has run a while: the reference server's way.
func TestInterruptHook(t *testing.T) {
	var e *Engine
	calls := 0
	var last time.Duration
	e = New(Config{Interrupt: func(elapsed time.Duration) {
		calls++
		if elapsed < last {
			t.Errorf("elapsed went back: %v after %v", elapsed, last)
		}
		last = elapsed
		if calls == 3 {
			if err := e.Monitor().Kill(true); err != nil {
				t.Errorf("kill from the hook: %v", err)
			}
		}
	}})
	defer e.Close()
	got := evalReply(t, e, nil, 2, "local n = 0 while true do n = n + 1 end", nil, nil)
	if calls < 3 || !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("%d hook calls, reply %q", calls, got)
	}
	// A short script never reaches the hook.
	calls = 0
	evalReply(t, e, nil, 2, "return 1", nil, nil)
	if calls != 0 {
		t.Fatalf("hook ran %d times for a short script", calls)
	}
}

// TestResourceLimits: deep recursion and huge strings fail the script,
// not the process, and the engine keeps working.
func TestResourceLimits(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	for body, want := range map[string]string{
		"local function f(n) return f(n + 1) + 1 end return f(1)": "-ERR stack overflow script: ",
		"return string.rep('x', 2^40)":                            "-ERR not enough memory script: ",
		"return ('xy'):rep(2^30)":                                 "-ERR not enough memory script: ",
	} {
		if got := evalReply(t, e, nil, 2, body, nil, nil); !strings.HasPrefix(got, want) {
			t.Errorf("%q: %q", body, got)
		}
		if got := evalReply(t, e, nil, 2, "local function f(n) if n == 0 then return 0 end return f(n - 1) + 1 end return f(5000)", nil, nil); got != ":5000\r\n" {
			t.Fatalf("after %q: %q", body, got)
		}
	}
	// A command with thousands of arguments (unpack of 7999 values).
	f := newFake(e)
	got := evalReply(t, e, f, 2, "local a = {} for i = 1, 7999 do a[i] = i end return #redis.call('args', unpack(a))", nil, nil)
	if got != ":7999\r\n" {
		t.Fatalf("many args: %q", got)
	}
}

// TestCallbackPanic: a panic in the command callback fails the script
// with an error reply, is logged, and leaves the engine usable.
func TestCallbackPanic(t *testing.T) {
	var logged []string
	e := New(Config{Log: func(level int, msg string) { logged = append(logged, msg) }})
	defer e.Close()
	s, _ := e.Load([]byte("return redis.call('boom')"))
	w := codec.Writer{}
	e.Eval(&w, s, &Invocation{Call: func([][]byte, int, []byte) []byte { panic("callback bug") }})
	if string(w.Buf) != "-ERR Error running command from script script: "+s.SHA+", on @user_script:1.\r\n" || len(logged) != 1 || !strings.Contains(logged[0], "callback bug") {
		t.Fatalf("reply %q, log %q", w.Buf, logged)
	}
	if _, ok := e.Monitor().Running(); ok {
		t.Fatal("still running")
	}
	if got := evalReply(t, e, nil, 2, "return 1", nil, nil); got != ":1\r\n" {
		t.Fatalf("after panic: %q", got)
	}
}

// TestKeysArgvReuse: KEYS and ARGV are refilled between runs, and
// whatever a script did to them never shows in the next run.
func TestKeysArgvReuse(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	show := "local t = {} for k, v in pairs(KEYS) do t[#t+1] = tostring(k) .. '=' .. v end " +
		"for k, v in pairs(ARGV) do t[#t+1] = 'a' .. tostring(k) .. '=' .. v end " +
		"return {#KEYS, #ARGV, tostring(getmetatable(KEYS)), table.concat(t, ',')}"
	for _, c := range []struct {
		mutate     string
		keys, args []string
	}{
		{"", []string{"a", "b", "c"}, []string{"x"}},
		{"KEYS[2] = nil", []string{"a", "b", "c"}, nil},
		{"KEYS.extra = 1 ARGV[9] = 'z'", []string{"a"}, []string{"p", "q"}},
		{"setmetatable(KEYS, {__index = function() return 'meta' end})", []string{"k"}, nil},
		{"table.insert(KEYS, 'more') table.remove(ARGV)", []string{"k1", "k2"}, []string{"v"}},
		{"KEYS[1] = 'changed'", nil, nil},
	} {
		evalReply(t, e, nil, 2, c.mutate+" return 1", c.keys, c.args)
		want := []string{}
		for i, k := range c.keys {
			want = append(want, itoa(i+1)+"="+k)
		}
		for i, a := range c.args {
			want = append(want, "a"+itoa(i+1)+"="+a)
		}
		got := evalReply(t, e, nil, 2, show, c.keys, c.args)
		exp := "*4\r\n:" + itoa(len(c.keys)) + "\r\n:" + itoa(len(c.args)) + "\r\n$3\r\nnil\r\n$" + itoa(len(strings.Join(want, ","))) + "\r\n" + strings.Join(want, ",") + "\r\n"
		if got != exp {
			t.Errorf("after %q: got %q, want %q", c.mutate, got, exp)
		}
	}
}
