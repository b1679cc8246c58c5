package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"testing"
)

// ghostChecks lists what a released client must no longer hold on its
// shard; each returns a non-empty description of what is left.
func ghostLeft(sh *keyspace.Shard, c *keyspace.Client) []string {
	var left []string
	sh.Pubsub.Mu.Lock()
	for k, t := range sh.Pubsub.Tables {
		for name, list := range t {
			for _, o := range list {
				if o == c {
					left = append(left, subscribeWords[k].sub+" "+name)
				}
			}
		}
	}
	sh.Pubsub.Mu.Unlock()
	if c.SubCount.Load() != 0 {
		left = append(left, "subscription count")
	}
	if sh.Srv.Monitors.Count.Load() != 0 || c.Monitor.Load() {
		left = append(left, "monitor")
	}
	if c.Blk != nil || len(sh.Blk.Clients) != 0 || len(sh.Blk.Waiting) != 0 || c.Blocked.Load() {
		left = append(left, "wait")
	}
	if n, _ := sh.Srv.BlockedClients(); n != 0 {
		left = append(left, "blocked_clients")
	}
	if len(c.Tx.Watched) != 0 || len(sh.Tx.Watched) != 0 {
		left = append(left, "watched keys")
	}
	if c.Trk != nil || sh.Trk != nil && len(sh.Trk.Clients) != 0 {
		left = append(left, "tracking")
	}
	if sh.Srv.ClientRegistry.LookupClient(c.ID) != nil {
		left = append(left, "registry")
	}
	return left
}

// registeringCommands are the commands that leave per-connection state on
// the shard; RESP3 so that BLPOP runs while subscribed, and last, as it
// parks the rest of a batch.
var registeringCommands = [][]string{
	{"HELLO", "3"},
	{"CLIENT", "SETNAME", "ghost"},
	{"WATCH", "wk"},
	{"CLIENT", "TRACKING", "ON"},
	{"GET", "tk"},
	{"MONITOR"},
	{"SUBSCRIBE", "ch"},
	{"PSUBSCRIBE", "ch*"},
	{"SSUBSCRIBE", "sch"},
	{"BLPOP", "bl", "0"},
}

// TestClosedClientRegistersNothing: a batch that reaches the shard after
// its connection closed (the close overtook it) runs, but registers
// nothing of the connection: no subscription, wait, watch, tracking or
// MONITOR outlives the close, before or after the shard's release.
func TestClosedClientRegistersNothing(t *testing.T) {
	for i := range registeringCommands {
		sh := newTestShard(t)
		c, _ := sh.Srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", &feedConn{})
		sh.Srv.Disconnected(c)
		cmds := registeringCommands[i:]
		b := durNewBatch(c, &recordSink{}, cmds...)
		if !sh.Run(b) {
			sh.Queue(b)
		}
		sh.Commit()
		if left := ghostLeft(sh, c); len(left) != 0 {
			t.Errorf("from %v on, run after the close: left %v", cmds[0], left)
		}
		sh.ReapClosed()
		if left := ghostLeft(sh, c); len(left) != 0 {
			t.Errorf("from %v on, after the release: left %v", cmds[0], left)
		}
	}
}

// TestCloseReleasesEverything: a client that registered everything and
// then closed is released by its shard: nothing of it is left.
func TestCloseReleasesEverything(t *testing.T) {
	for _, multi := range []bool{false, true} {
		sh := newTestShard(t)
		c, _ := sh.Srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", &feedConn{})
		cmds := registeringCommands
		if multi {
			cmds = [][]string{{"WATCH", "wk"}, {"CLIENT", "TRACKING", "ON", "BCAST"}, {"MULTI"}, {"SET", "a", "b"}}
		}
		b := durNewBatch(c, &recordSink{}, cmds...)
		if !sh.Run(b) {
			sh.Queue(b)
		}
		sh.Commit()
		if c.Blk == nil && !multi {
			t.Fatalf("BLPOP did not park: %q", b.Out.Buf)
		}
		sh.Srv.Disconnected(c)
		sh.ReapClosed()
		if left := ghostLeft(sh, c); len(left) != 0 {
			t.Errorf("multi %v: left %v", multi, left)
		}
	}
}

// TestClientKillReleasesAtOnce: CLIENT KILL releases the victim before
// its reply: the commands after it in the same batch no longer see it.
func TestClientKillReleasesAtOnce(t *testing.T) {
	sh := newTestShard(t)
	v, _ := sh.Srv.Connected(0, "127.0.0.1:50001", "127.0.0.1:7000", &feedConn{})
	b := durNewBatch(v, &recordSink{}, registeringCommands...)
	if !sh.Run(b) {
		sh.Queue(b)
	}
	sh.Commit()
	k, _ := sh.Srv.Connected(0, "127.0.0.1:50002", "127.0.0.1:7000", nil)
	kb := durNewBatch(k, &recordSink{}, []string{"CLIENT", "KILL", "ID", itoa(int(v.ID))},
		[]string{"PUBLISH", "ch", "m"}, []string{"PUBSUB", "NUMPAT"})
	sh.Run(kb)
	if got, want := string(kb.Out.Buf), ":1\r\n:0\r\n:0\r\n"; got != want {
		t.Errorf("CLIENT KILL, PUBLISH, PUBSUB NUMPAT: %q, want %q", got, want)
	}
	if left := ghostLeft(sh, v); len(left) != 0 {
		t.Errorf("after CLIENT KILL: left %v", left)
	}
	if !v.Killed() {
		t.Error("the victim is not marked killed: its queued commands would run")
	}
}
