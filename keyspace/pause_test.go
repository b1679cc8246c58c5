package keyspace

import (
	"strconv"
	"testing"
)

// The flags CLIENT PAUSE WRITE judges a command by: a script's shebang
// decides whether EVAL may write.
func TestPauseEffectiveFlags(t *testing.T) {
	sh := newTestShard(t)
	cmds := sh.srv.cmds
	writes := func(args ...string) bool {
		cmd := cmds.lookup([]byte(args[0]))
		return sh.effectiveFlags(cmd, argsOf(args...))&(FlagWrite|FlagMayReplicate) != 0
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

func (s *splitSink) Split() *Batch { return &Batch{Sink: s} }

// A command held by CLIENT PAUSE parks its client with the blocking
// facility: the replies before it leave, it and every later batch of the
// client wait, CLIENT UNBLOCK does not release it, and when the pause
// ends it runs again from the start.
func TestPauseParksAndResumes(t *testing.T) {
	sh := newTestShard(t)
	admin, _ := sh.srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", nil)
	a, _ := sh.srv.Connected(0, "127.0.0.1:50002", "127.0.0.1:7000", nil)
	sink := &splitSink{}
	// run is one batch of a drain: run, queue, release and resume.
	run := func(c *Client, cmds ...[]string) (*Batch, bool) {
		bt := durNewBatch(c, sink, cmds...)
		kept := sh.run(bt)
		if !kept {
			sh.queue(bt)
		}
		if len(sh.blk.postponed) > 0 && sh.releasePostponed() {
			sh.resumeBlocked()
		}
		sh.commit()
		return bt, kept
	}
	reply := func(c *Client, cmds ...[]string) string {
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
	bc := a.blk
	if bc == nil || !bc.postponed || bc.next != 1 || !a.blocked.Load() || !a.postponed.Load() || sh.blk.n.Load() != 1 || len(sh.blk.postponed) != 1 {
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
	if a.blk != nil || a.blocked.Load() || a.postponed.Load() || sh.blk.n.Load() != 0 || len(sh.blk.postponed) != 0 || len(sh.blk.clients) != 0 {
		t.Fatal("state left behind after the pause")
	}

	// A pause with a deadline wakes the shard at its end; the held
	// command meets a second pause and parks again.
	reply(admin, []string{"CLIENT", "PAUSE", "100", "ALL"})
	end := sh.pause.endMs
	if _, kept := run(a, []string{"PING"}); !kept {
		t.Fatal("PING ran under PAUSE ALL")
	}
	if sh.blk.timerAt != end {
		t.Fatalf("block timer at %d, want the pause's end %d", sh.blk.timerAt, end)
	}
	sh.nowMs = end
	sh.pause.kind, sh.pause.endMs = pauseAll, end+100 // paused again before the tick
	if sh.releasePostponed() || a.blk == nil {
		t.Fatal("released while a pause is in force")
	}
	sh.nowMs = end + 100
	if !sh.releasePostponed() {
		t.Fatal("not released at the pause's end")
	}
	sh.resumeBlocked()
	sh.commit()
	if got := string(sink.got[len(sink.got)-1].Out.Buf); got != "+PONG\r\n" || a.blk != nil {
		t.Fatalf("after the deadline: %q", got)
	}

	// A paused client that disconnects leaves nothing behind.
	reply(admin, []string{"CLIENT", "PAUSE", "60000", "WRITE"})
	run(a, []string{"DEL", "k"})
	sh.srv.Disconnected(a)
	sh.reapClosed()
	if sh.blk.n.Load() != 0 || a.blk != nil || len(sh.blk.postponed) != 0 || len(sh.blk.clients) != 0 {
		t.Fatal("a disconnected paused client is still parked")
	}
	reply(admin, []string{"CLIENT", "UNPAUSE"})
	if got := reply(admin, []string{"EXISTS", "k"}); got != ":1\r\n" {
		t.Fatalf("the disconnected client's DEL ran: %q", got)
	}
}
