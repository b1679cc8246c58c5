package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"testing"
)

// The flags CLIENT PAUSE WRITE judges a command by: a script's shebang
// decides whether EVAL may write.
func TestPauseEffectiveFlags(t *testing.T) {
	sh := newTestShard(t)
	cmds := sh.Srv.Cmds
	writes := func(args ...string) bool {
		cmd := cmds.Lookup([]byte(args[0]))
		return sh.EffectiveFlags(cmd, argsOf(args...))&(keyspace.FlagWrite|keyspace.FlagMayReplicate) != 0
	}
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"get", "k"}, false},
		{[]string{"set", "k", "v"}, true},
		{[]string{"publish", "c", "m"}, true},
		{[]string{"pfcount", "h"}, true},
		{[]string{"eval", "return 1", "0"}, true},
		{[]string{"eval", "#!lua\nreturn 1", "0"}, true},
		{[]string{"eval", "#!lua flags=no-writes\nreturn 1", "0"}, false},
		{[]string{"eval_ro", "return 1", "0"}, false},
		{[]string{"evalsha", "0000000000000000000000000000000000000000", "0"}, true},
		{[]string{"fcall", "nosuch", "0"}, true},
		{[]string{"client", "list"}, false},
		{[]string{"config", "set", "hz", "10"}, true},
	}
	for _, c := range cases {
		if got := writes(c.args...); got != c.want {
			t.Errorf("%q: pausable %v, want %v", c.args, got, c.want)
		}
	}
}

// splitSink records delivered batches and splits a parked one, as a
// connection does: the replies before the parked command leave at once.
type splitSink struct{ recordSink }

func (s *splitSink) Split() *keyspace.Batch { return &keyspace.Batch{Sink: s} }

// A command held by CLIENT PAUSE parks its client with the blocking
// facility: the replies before it leave, it and every later batch of the
// client wait, CLIENT UNBLOCK does not release it, and when the pause
// ends it runs again from the start.
func TestPauseParksAndResumes(t *testing.T) {
	sh := newTestShard(t)
	admin, _ := sh.Srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", nil)
	a, _ := sh.Srv.Connected(0, "127.0.0.1:50002", "127.0.0.1:7000", nil)
	sink := &splitSink{}
	// run is one batch of a drain: run, queue, release and resume.
	run := func(c *keyspace.Client, cmds ...[]string) (*keyspace.Batch, bool) {
		bt := durNewBatch(c, sink, cmds...)
		kept := sh.Run(bt)
		if !kept {
			sh.Queue(bt)
		}
		if len(sh.Blk.Postponed) > 0 && sh.ReleasePostponed() {
			sh.ResumeBlocked()
		}
		sh.Commit()
		return bt, kept
	}
	reply := func(c *keyspace.Client, cmds ...[]string) string {
		bt, kept := run(c, cmds...)
		if kept {
			t.Fatalf("%q kept", cmds)
		}
		return string(bt.Out.Buf)
	}
	if got := reply(admin, []string{"CLIENT", "PAUSE", "60000", "WRITE"}); got != "+OK\r\n" {
		t.Fatalf("CLIENT PAUSE: %q", got)
	}
	a1 := reply(a, []string{"GET", "k"}, []string{"SET", "k", "v"}, []string{"GET", "k"})
	if a1 != "$-1\r\n" {
		t.Fatalf("replies before the held SET: %q", a1)
	}
	bc := a.Blk
	if bc == nil || !bc.Postponed || bc.Next != 1 || !a.Blocked.Load() || !a.Postponed.Load() || sh.Blk.N.Load() != 1 || len(sh.Blk.Postponed) != 1 {
		t.Fatalf("paused client not parked at its SET: %+v", bc)
	}
	if _, kept := run(a, []string{"INCR", "n"}); !kept {
		t.Fatal("a later batch of a paused client ran")
	}
	id := strconv.FormatInt(a.ID, 10)
	if got := reply(admin, []string{"CLIENT", "UNBLOCK", id}); got != ":0\r\n" {
		t.Fatalf("CLIENT UNBLOCK of a paused client: %q", got)
	}
	if got := reply(admin, []string{"GET", "k"}); got != "$-1\r\n" {
		t.Fatalf("GET while paused: %q", got)
	}
	delivered := len(sink.got)
	if got := reply(admin, []string{"CLIENT", "UNPAUSE"}); got != "+OK\r\n" {
		t.Fatalf("CLIENT UNPAUSE: %q", got)
	}
	got := sink.got[delivered:]
	if len(got) != 3 || string(got[1].Out.Buf) != "+OK\r\n$1\r\nv\r\n" || string(got[2].Out.Buf) != ":1\r\n" {
		t.Fatalf("after UNPAUSE delivered %d batches", len(got))
	}
	if a.Blk != nil || a.Blocked.Load() || a.Postponed.Load() || sh.Blk.N.Load() != 0 || len(sh.Blk.Postponed) != 0 || len(sh.Blk.Clients) != 0 {
		t.Fatal("state left behind after the pause")
	}

	// A pause with a deadline wakes the shard at its end; the held
	// command meets a second pause and parks again.
	reply(admin, []string{"CLIENT", "PAUSE", "100", "ALL"})
	end := sh.Pause.EndMs
	if _, kept := run(a, []string{"PING"}); !kept {
		t.Fatal("PING ran under PAUSE ALL")
	}
	if sh.Blk.TimerAt != end {
		t.Fatalf("block timer at %d, want the pause's end %d", sh.Blk.TimerAt, end)
	}
	sh.NowMs = end
	sh.Pause.Kind, sh.Pause.EndMs = keyspace.PauseAll, end+100 // paused again before the tick
	if sh.ReleasePostponed() || a.Blk == nil {
		t.Fatal("released while a pause is in force")
	}
	sh.NowMs = end + 100
	if !sh.ReleasePostponed() {
		t.Fatal("not released at the pause's end")
	}
	sh.ResumeBlocked()
	sh.Commit()
	if got := string(sink.got[len(sink.got)-1].Out.Buf); got != "+PONG\r\n" || a.Blk != nil {
		t.Fatalf("after the deadline: %q", got)
	}

	// A paused client that disconnects leaves nothing behind.
	reply(admin, []string{"CLIENT", "PAUSE", "60000", "WRITE"})
	run(a, []string{"DEL", "k"})
	sh.Srv.Disconnected(a)
	sh.ReapClosed()
	if sh.Blk.N.Load() != 0 || a.Blk != nil || len(sh.Blk.Postponed) != 0 || len(sh.Blk.Clients) != 0 {
		t.Fatal("a disconnected paused client is still parked")
	}
	reply(admin, []string{"CLIENT", "UNPAUSE"})
	if got := reply(admin, []string{"EXISTS", "k"}); got != ":1\r\n" {
		t.Fatalf("the disconnected client's DEL ran: %q", got)
	}
}
