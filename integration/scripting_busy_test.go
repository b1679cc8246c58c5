package integration_test

import (
	"context"
	"os"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// waitBusy polls PING on c until it answers BUSY (the script passed
// busy-reply-threshold), failing after a bound.
func waitBusy(t *testing.T, c *redis.Client, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if err != nil && strings.HasPrefix(err.Error(), "BUSY") {
			if err.Error() != want {
				t.Fatalf("BUSY reply %q, want %q", err, want)
			}
			return
		}
		if time.Now().After(deadline) {
			_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
			t.Fatalf("no BUSY reply after 10s (last: %v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestScriptBusyKill: a script looping forever makes the shard's other
// clients get BUSY past busy-reply-threshold; SCRIPT KILL stops it and the
// shard serves normally again. Also FUNCTION KILL for a function, and the
// mismatched kills.
func TestScriptBusyKill(t *testing.T) {
	s := testserver.Start(t)
	a, b := s.Client(t), s.Client(t)
	if err := b.ConfigSet(ctxT(t), "busy-reply-threshold", "100").Err(); err != nil {
		t.Fatal(err)
	}
	if err := b.ScriptKill(ctxT(t)).Err(); err == nil || err.Error() != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("SCRIPT KILL while idle: %v", err)
	}
	done := make(chan error, 1)
	// The script's own client pipelines a command behind it, sent once
	// the shard is busy: it waits for the script and runs after it.
	ra := dialRaw(t, s.Addr())
	ra.send("EVAL", "while true do end", "0")
	waitBusy(t, b, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
	ra.send("INCR", "behind")
	if err := b.Set(ctxT(t), "k", "v", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY") {
		t.Fatalf("SET while busy: %v", err)
	}
	if err := b.FunctionKill(ctxT(t)).Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY") {
		t.Fatalf("FUNCTION KILL on a script: %v", err)
	}
	// MULTI is allowed while busy; a refused command aborts the EXEC.
	if err := b.Do(ctxT(t), "MULTI").Err(); err != nil {
		t.Fatalf("MULTI while busy: %v", err)
	}
	if err := b.Incr(ctxT(t), "xx").Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY") {
		t.Fatalf("INCR in MULTI while busy: %v", err)
	}
	wantErr(t, "EXEC while busy", b.Do(ctxT(t), "EXEC").Err(), "EXECABORT Transaction discarded because of: BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
	if err := b.ScriptKill(ctxT(t)).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if got := ra.read(); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL") {
		t.Fatalf("killed script replied %q", got)
	}
	if got := ra.read(); got != ":1\r\n" {
		t.Fatalf("command pipelined behind the script: %q", got)
	}
	if v, err := b.Ping(ctxT(t)).Result(); err != nil || v != "PONG" {
		t.Fatalf("after kill: %v %v", v, err)
	}
	if v, err := a.Incr(ctxT(t), "n").Result(); err != nil || v != 1 {
		t.Fatalf("the killed script's client: %v %v", v, err)
	}

	// A function, killed with FUNCTION KILL.
	lib := "#!lua name=spin\nredis.register_function('spin', function() while true do end end)"
	if err := b.FunctionLoad(ctxT(t), lib).Err(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- a.FCall(context.Background(), "spin", nil).Err() }()
	waitBusy(t, b, "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.")
	st, err := b.Do(ctxT(t), "FUNCTION", "STATS").Result()
	if err != nil || !strings.Contains(strings.ToLower(fmtReply(st)), "spin") {
		t.Fatalf("FUNCTION STATS while busy: %v %v", st, err)
	}
	if err := b.ScriptKill(ctxT(t)).Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY") {
		t.Fatalf("SCRIPT KILL on a function: %v", err)
	}
	if err := b.FunctionKill(ctxT(t)).Err(); err != nil {
		t.Fatalf("FUNCTION KILL: %v", err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("killed function replied %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("function not stopped 10s after FUNCTION KILL")
	}
	if err := b.Ping(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
}

// fmtReply flattens a reply for substring checks.
func fmtReply(v any) string {
	switch v := v.(type) {
	case []any:
		var sb strings.Builder
		for _, e := range v {
			sb.WriteString(fmtReply(e))
			sb.WriteByte(' ')
		}
		return sb.String()
	case map[any]any:
		var sb strings.Builder
		for k, e := range v {
			sb.WriteString(fmtReply(k) + " " + fmtReply(e) + " ")
		}
		return sb.String()
	case string:
		return v
	}
	return ""
}

// TestScriptUnkillableShutdown: a script that wrote cannot be killed
// (UNKILLABLE), but SHUTDOWN NOSAVE still stops the server, and the
// script's partial writes are not recovered.
func TestScriptUnkillableShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	dir := t.TempDir()
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir})
	a, b := p.Client(t, 0), p.Client(t, 0)
	if err := b.ConfigSet(ctxT(t), "lua-time-limit", "100").Err(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = a.Eval(context.Background(), "redis.call('set', KEYS[1], 'partial') while true do end", []string{"w"}).Err()
	}()
	waitBusy(t, b, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
	err := b.ScriptKill(ctxT(t)).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "UNKILLABLE") {
		t.Fatalf("SCRIPT KILL after a write: %v", err)
	}
	_ = b.Do(ctxT(t), "SHUTDOWN", "NOSAVE").Err()
	select {
	case <-p.Exited():
	case <-time.After(15 * time.Second):
		t.Fatalf("server still running 15s after SHUTDOWN NOSAVE\n%s", p.Output())
	}
	p2 := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir})
	c := p2.Client(t, 0)
	if n := c.Exists(ctxT(t), "w").Val(); n != 0 {
		t.Fatalf("the aborted script's write was recovered")
	}
	p2.Kill(t)
}
