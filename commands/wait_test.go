package commands

import (
	"testing"

	"github.com/ruvio/ruvio/keyspace"
)

// TestWaitParksOnBlockingFacility: WAIT is a blocked client with no keys.
// Its batch stops at it, the client's later batches are held behind it,
// an ACK (repl.due) resumes it with the count, and a deadline ends it
// with the count so far.
func TestWaitParksOnBlockingFacility(t *testing.T) {
	sh := newTestShard(t)
	a, _ := sh.Srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", nil)
	repl, _ := sh.Srv.Connected(0, "127.0.0.1:50002", "127.0.0.1:7000", nil)
	sink := &recordSink{}
	run := func(c *keyspace.Client, cmds ...[]string) (*keyspace.Batch, bool) {
		bt := durNewBatch(c, sink, cmds...)
		kept := sh.Run(bt)
		if !kept {
			sh.Queue(bt)
		}
		sh.Commit()
		return bt, kept
	}
	a1, kept := run(a, []string{"SET", "k", "v"}, []string{"WAIT", "1", "0"}, []string{"GET", "k"})
	if !kept || string(a1.Out.Buf) != "+OK\r\n" || sh.Blk.N.Load() != 1 || sh.Blk.Keyed.Load() != 0 || !a.Blocked.Load() {
		t.Fatalf("after WAIT: kept %v out %q blocked %d keyed %d", kept, a1.Out.Buf, sh.Blk.N.Load(), sh.Blk.Keyed.Load())
	}
	if _, kept := run(a, []string{"INCR", "n"}); !kept {
		t.Fatal("a later batch of a client in WAIT ran")
	}
	// No replica acknowledged: resuming changes nothing.
	sh.Repl.Due.Store(true)
	if n := sh.ResumeWaits(); n != 0 || len(sink.got) != 0 {
		t.Fatalf("resumed %d, delivered %d without an ACK", n, len(sink.got))
	}
	// A replica acknowledging the target wakes it.
	sh.Repl.Replicas = append(sh.Repl.Replicas, &keyspace.ReplicaLink{C: repl})
	sh.Repl.Due.Store(true)
	sh.ResumeWaits()
	sh.Commit()
	if len(sink.got) != 2 || sink.got[0] != a1 {
		t.Fatalf("delivered %v", sink.got)
	}
	if got := string(a1.Out.Buf); got != "+OK\r\n:1\r\n$1\r\nv\r\n" {
		t.Fatalf("resumed batch: %q", got)
	}
	if got := string(sink.got[1].Out.Buf); got != ":1\r\n" {
		t.Fatalf("held batch: %q", got)
	}
	if sh.Blk.N.Load() != 0 || a.Blk != nil || len(sh.Repl.Waits) != 0 {
		t.Fatal("state left behind after the ACK")
	}

	// A deadline: WAIT 2 answers the count so far.
	a2, _ := run(a, []string{"WAIT", "2", "100"})
	sh.NowMs += 100
	sh.ExpireBlocked()
	sh.ResumeBlocked()
	sh.Commit()
	if got := string(a2.Out.Buf); got != ":1\r\n" {
		t.Fatalf("timed out WAIT: %q", got)
	}
	// The next WAIT drops the ended one's entry.
	run(a, []string{"WAIT", "2", "0"})
	if len(sh.Repl.Waits) != 1 || sh.Repl.Waits[0].Bc != a.Blk {
		t.Fatalf("waits %v", sh.Repl.Waits)
	}
	sh.Srv.Disconnected(a)
	sh.ReapClosed()
	if sh.Blk.N.Load() != 0 || a.Blk != nil {
		t.Fatal("a disconnected client is still in WAIT")
	}
}
