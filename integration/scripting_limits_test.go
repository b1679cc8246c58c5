package integration_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// reqCtx bounds one request; scripts of these tests run for seconds under
// the race detector on a busy machine.
func reqCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestScriptCoroutineBomb: coroutines a script drops cost nothing once
// dropped (each one used to leave a goroutine behind for the life of the
// process), and a script that keeps them stops with an OOM error at
// ruvio-lua-memory-limit instead of growing the server until the kernel
// kills it.
func TestScriptCoroutineBomb(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	before := runtime.NumGoroutine()
	n, err := c.Eval(reqCtx(t), "for i = 1, 50000 do coroutine.create(function() end) end return 1", nil).Int()
	if err != nil || n != 1 {
		t.Fatalf("coroutines dropped: %v %v", n, err)
	}
	// The server runs in this process: its goroutines are counted here.
	if after := runtime.NumGoroutine(); after > before+100 {
		t.Fatalf("%d goroutines before the script, %d after", before, after)
	}

	if v, err := c.ConfigGet(reqCtx(t), "ruvio-lua-memory-limit").Result(); err != nil || v["ruvio-lua-memory-limit"] != "1073741824" {
		t.Fatalf("CONFIG GET ruvio-lua-memory-limit: %v %v", v, err)
	}
	if err := c.ConfigSet(reqCtx(t), "ruvio-lua-memory-limit", "32mb").Err(); err != nil {
		t.Fatal(err)
	}
	// The check's mark is the heap at the start of the run, garbage
	// included, plus the limit: collect the garbage earlier tests left in
	// this process (the server runs in it), or the script may keep that
	// much more before it stops.
	runtime.GC()
	// Every thousand coroutines kept, the script notes how many it has.
	keep := "local t = {} for i = 1, 1e7 do t[i] = coroutine.create(function() end) if i % 1000 == 0 then redis.call('SET', KEYS[1], i) end end return #t"
	err = c.Eval(reqCtx(t), keep, []string{"kept"}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "OOM Lua script exceeded the memory limit of scripts") {
		t.Fatalf("coroutines kept: %v", err)
	}
	kept, err := c.Get(reqCtx(t), "kept").Int()
	if err != nil || kept <= 0 || kept >= 1e5 { // a coroutine takes kilobytes: 32mb holds thousands
		t.Fatalf("the script kept %d coroutines (%v) before it stopped", kept, err)
	}
	t.Logf("stopped after keeping about %d coroutines", kept)
	if n, err := c.Eval(reqCtx(t), "return 1", nil).Int(); err != nil || n != 1 {
		t.Fatalf("after the OOM stop: %v %v", n, err)
	}
}

// TestScriptResumeDepth: a coroutine resuming a new coroutine from inside
// itself, recursively, stops at Lua 5.1's limit of 200 C levels; it used
// to run the shard's goroutine out of stack, which killed the process.
func TestScriptResumeDepth(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	body := "local function f(n) local ok, r = coroutine.resume(coroutine.create(f), n + 1) if not ok then return n .. ': ' .. r end return r end return f(0)"
	if v, err := c.Eval(reqCtx(t), body, nil).Text(); err != nil || v != "199: C stack overflow" {
		t.Fatalf("nested resumes: %q %v", v, err)
	}
	err := c.Eval(reqCtx(t), "local function f(n) return coroutine.wrap(f)(n + 1) end return f(0)", nil).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR user_script:1: C stack overflow") {
		t.Fatalf("nested wraps: %v", err)
	}
	if err := c.Ping(reqCtx(t)).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestScriptKillInCoroutine: a script that allocates in a loop inside a
// coroutine makes the shard busy and SCRIPT KILL stops it. The busy hook
// used not to run inside coroutines at all: no BUSY, no kill, a stuck
// shard.
func TestScriptKillInCoroutine(t *testing.T) {
	s := testserver.Start(t)
	b := s.Client(t)
	if err := b.ConfigSet(reqCtx(t), "busy-reply-threshold", "100").Err(); err != nil {
		t.Fatal(err)
	}
	ra := dialRaw(t, s.Addr())
	ra.send("EVAL", "coroutine.wrap(function() local t = {} while true do t[#t % 1000 + 1] = {} coroutine.create(function() end) end end)()", "0")
	waitBusy(t, b, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
	if err := b.ScriptKill(reqCtx(t)).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if got := ra.read(); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL") {
		t.Fatalf("killed script replied %q", got)
	}
	if err := b.Ping(reqCtx(t)).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestScriptStringFormat: string.format refuses a width or precision of
// more than two digits with Lua 5.1's error, instead of Go's "%!(NOVERB)"
// text, and formats as C's printf.
func TestScriptStringFormat(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	err := c.Eval(reqCtx(t), "return string.format('%2147483647d', 1)", nil).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR user_script:1: invalid format (width or precision too long) script: ") {
		t.Fatalf("long width: %v", err)
	}
	v, err := c.Eval(reqCtx(t), "return string.format('%5.1f|%-4d|%x|%g|%s', 2.25, 7, -1, 1e20, 0/0)", nil).Text()
	if err != nil || v != "  2.2|7   |ffffffffffffffff|1e+20|-nan" {
		t.Fatalf("formatted: %q %v", v, err)
	}
}
