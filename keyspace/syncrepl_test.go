package keyspace

import (
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// seqJournal is a Journal whose last appended sequence the test sets and
// whose groups are durable at once.
type seqJournal struct{ last uint64 }

func (j *seqJournal) Append(uint16, persistence.Opcode, []byte)      {}
func (j *seqJournal) Commit(interface{ Committed(error) }, int) bool { return true }
func (j *seqJournal) Err() error                                     { return nil }
func (j *seqJournal) Sequences() (last, durable uint64)              { return j.last, j.last }
func (j *seqJournal) Tick(*Shard)                                    {}
func (j *seqJournal) Close() error                                   { return nil }

// sinkLog records the batches delivered to it, in order.
type sinkLog struct{ got []string }

func (s *sinkLog) Deliver(b *Batch) {
	name := string(b.Out.Buf)
	if b.CloseAfter {
		name += "(closed)"
	}
	s.got = append(s.got, name)
}

func (s *sinkLog) String() string { return strings.Join(s.got, " ") }

// syncShard returns a shard of a server with sync_replicas = 1 and a
// sync_timeout_ms of 1000 on the clock *now, and the shard's journal.
func syncShard(t *testing.T, now *time.Time) (*Shard, *seqJournal) {
	t.Helper()
	topo, err := cluster.NewTopology("127.0.0.1", 7000, 1, []string{strings.Repeat("a", 40)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Replication.SyncReplicas = 1
	cfg.Replication.SyncTimeoutMs = 1000
	srv, err := NewServer(Options{Config: cfg, Topology: topo, Commands: BuildCommandTable(), Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	sh := srv.ShardList[0]
	j := &seqJournal{}
	sh.Journal = j
	return sh, j
}

// run queues a batch of c whose reply is reply, as if its commands ran
// (touching the data or not), and commits it as its own group.
func run(sh *Shard, sink *sinkLog, c *Client, reply string, touches bool) *Batch {
	b := &Batch{Client: c, Sink: sink, Ends: []int{1}, touchesData: touches}
	b.Out.Buf = append(b.Out.Buf, reply...)
	sh.Queue(b)
	sh.Commit()
	return b
}

// TestSyncHoldOrder: held groups leave in commit order once a replica's
// acknowledgement covers them; a batch that touched no data passes the
// hold when its client has nothing earlier undelivered, and waits behind
// its client's earlier batch otherwise.
func TestSyncHoldOrder(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	sh, j := syncShard(t, &now)
	sink := &sinkLog{}
	a, b := NewClient(1, 0, "a", "", nil, now), NewClient(2, 0, "b", "", nil, now)

	j.last = 10
	run(sh, sink, a, "a1", true)
	run(sh, sink, b, "ping", false) // passes: b has nothing held
	j.last = 12
	run(sh, sink, b, "b1", true)
	run(sh, sink, b, "b-ping", false) // waits behind b1
	if got, want := sink.String(), "ping"; got != want {
		t.Fatalf("delivered %q before any acknowledgement, want %q", got, want)
	}
	if got := sh.SyncHeldReplies(); got != 3 {
		t.Fatalf("SyncHeldReplies = %d, want 3", got)
	}

	// A replica connects and acknowledges 10: a1 goes, b1 (12) waits.
	rc := NewClient(3, 0, "r", "", nil, now)
	link := &ReplicaLink{C: rc, Ack: 10}
	sh.Repl.Replicas = append(sh.Repl.Replicas, link)
	sh.PublishReplicas()
	if got, want := sink.String(), "ping a1"; got != want {
		t.Fatalf("delivered %q after ACK 10, want %q", got, want)
	}
	// A group committed now queues behind b1 although it is covered.
	j.last = 10
	run(sh, sink, a, "a2", true)
	if got, want := sink.String(), "ping a1"; got != want {
		t.Fatalf("delivered %q: a2 overtook the held b1, want %q", got, want)
	}
	link.Ack = 12
	sh.PublishReplicas()
	if got, want := sink.String(), "ping a1 b1 b-ping a2"; got != want {
		t.Fatalf("delivered %q after ACK 12, want %q", got, want)
	}
	if got := sh.SyncHeldReplies(); got != 0 {
		t.Fatalf("SyncHeldReplies = %d, want 0", got)
	}
	if a.undelivered.Load() != 0 || b.undelivered.Load() != 0 {
		t.Fatalf("undelivered a=%d b=%d, want 0", a.undelivered.Load(), b.undelivered.Load())
	}
	// Covered and nothing held: delivered at once.
	run(sh, sink, a, "a3", true)
	if got, want := sink.String(), "ping a1 b1 b-ping a2 a3"; got != want {
		t.Fatalf("delivered %q, want %q", got, want)
	}
}

// TestSyncHoldTimeout: a group held past sync_timeout_ms is dropped, its
// connection closed without its reply and counted; one younger stays.
func TestSyncHoldTimeout(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	sh, j := syncShard(t, &now)
	sink := &sinkLog{}
	a, b := NewClient(1, 0, "a", "", nil, now), NewClient(2, 0, "b", "", nil, now)
	j.last = 5
	run(sh, sink, a, "a1", true)
	now = now.Add(600 * time.Millisecond)
	run(sh, sink, b, "b1", true)
	now = now.Add(400 * time.Millisecond) // a1 is 1000 ms old, b1 400 ms
	sh.syncTick()
	if got, want := sink.String(), "(closed)"; got != want {
		t.Fatalf("delivered %q at a1's deadline, want %q", got, want)
	}
	if !a.Killed() || b.Killed() {
		t.Fatalf("killed: a %v b %v, want a only", a.Killed(), b.Killed())
	}
	if got := sh.SyncTimeouts(); got != 1 {
		t.Fatalf("SyncTimeouts = %d, want 1", got)
	}
	if got := sh.SyncHeldReplies(); got != 1 {
		t.Fatalf("SyncHeldReplies = %d, want 1", got)
	}

	// sync-replicas 0 releases what is held at the next commit.
	if err := sh.Srv.Opts.Live.Set([][2]string{{"sync-replicas", "0"}}); err != nil {
		t.Fatal(err)
	}
	sh.Commit()
	if got, want := sink.String(), "(closed) b1"; got != want {
		t.Fatalf("delivered %q after sync-replicas 0, want %q", got, want)
	}
	if got := sh.SyncHeldReplies(); got != 0 {
		t.Fatalf("SyncHeldReplies = %d, want 0", got)
	}
}

// TestSyncHoldReplicaRole: a replica holds nothing.
func TestSyncHoldReplicaRole(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	sh, j := syncShard(t, &now)
	sh.Srv.Repl.Replica.Store(true)
	sink := &sinkLog{}
	j.last = 7
	run(sh, sink, NewClient(1, 0, "a", "", nil, now), "get", true)
	if got, want := sink.String(), "get"; got != want {
		t.Fatalf("delivered %q on a replica, want %q", got, want)
	}
}
