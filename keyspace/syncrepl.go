package keyspace

import (
	"slices"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
)

// Synchronous replication (replication.sync_replicas, CONFIG SET
// sync-replicas): with k > 0 a primary shard holds every reply until k of
// its replicas have acknowledged, as durable (REPLCONF ACK), the shard's
// log up to the sequence the reply may depend on.
//
// The unit is the commit group. Commit records the group's target, the
// shard's last appended sequence: every reply of the group, reads included,
// depends at most on records up to it. Reads are held too on purpose: a
// read must not return a value that is not yet on k replicas, or a
// failover could make that read unlinearizable. Once the log covers the
// group (Committed, possibly on the WAL's sync goroutine), the group goes
// out if the k-th highest acknowledgement among the live replicas reaches
// its target; otherwise it joins the shard's FIFO of held groups, and so
// does every later group while the FIFO is not empty: replies leave in
// commit order. The shard goroutine recomputes the acknowledgement when an
// ACK arrives and when replicas come and go (PublishReplicas), and on its
// periodic tick, and releases the held groups it covers, in order,
// delivering under the FIFO's lock so that a group committed concurrently
// cannot overtake them.
//
// Batches whose commands touched no data (no write, read-only or script
// command ran and nothing was logged: PING, INFO, AUTH, CONFIG, PUBLISH,
// the replication handshake) leave a held group at once when their client has nothing
// earlier still undelivered; so do those of a replica's own connection
// (its ACKs, which never reply). Without that a replica could not connect,
// nor acknowledge, while writes wait for it.
//
// A held group older than sync_timeout_ms is not acknowledged: its
// replies are dropped and its connections closed, since the write may or
// may not have reached the replicas and an error is the honest answer
// (INFO replication sync_timeouts).

// dataFlags are the command flags that make a reply depend on the data.
const dataFlags = FlagWrite | FlagReadOnly | FlagRunsScript

// syncHold is a shard's synchronous replication state.
type syncHold struct {
	// mu guards held, k and acked: Committed runs on the WAL's sync
	// goroutine as well as on the shard's.
	mu sync.Mutex
	// held are the committed groups waiting for acknowledgements, oldest
	// first; mu guards.
	held []*commitGroup
	// k is sync-replicas as the shard last applied it, and acked the k-th
	// highest acknowledgement among the live replicas then (-1: fewer than
	// k replicas). They are written together by the shard goroutine, under
	// mu, so a group is never judged by one k's acknowledgement and
	// another's count.
	k     int
	acked int64
	// holding is set while held is not empty: Committed takes mu only then
	// or when its group must wait.
	holding atomic.Bool
	// heldReplies counts the commands whose replies are held (INFO
	// sync_held_replies); timeouts those dropped at the deadline (INFO
	// sync_timeouts).
	heldReplies atomic.Int64
	timeouts    Counter
	// acks is scratch space for the replicas' acknowledgements; shard
	// goroutine only.
	acks []uint64
}

// SyncHeldReplies is the number of replies held for acknowledgements.
func (sh *Shard) SyncHeldReplies() int64 { return sh.Sync.heldReplies.Load() }

// SyncTimeouts is the number of replies dropped, their connections closed,
// because their acknowledgements did not come within sync_timeout_ms.
func (sh *Shard) SyncTimeouts() int64 { return sh.Sync.timeouts.Load() }

// syncActive reports whether the shard's replies wait for replicas now, or
// earlier ones still do (shard goroutine).
func (sh *Shard) syncActive() bool {
	return sh.Srv.Opts.Live.SyncReplicas() > 0 && !sh.Srv.IsReplica() || sh.Sync.holding.Load()
}

// markSync records, as Commit closes g, whether its replies wait for
// replicas and up to which sequence (shard goroutine).
func (sh *Shard) markSync(g *commitGroup) {
	k := sh.Srv.Opts.Live.SyncReplicas()
	if k != sh.Sync.k {
		// CONFIG SET sync-replicas ran: the acknowledgement is recomputed
		// for the new k before a group is judged by it (the shard
		// goroutine is the only writer of k).
		sh.SyncAcks()
	}
	// An empty group has nothing to hold: no clock read for it.
	g.sync = k > 0 && g.head != nil && !sh.Srv.IsReplica()
	if !g.sync {
		return
	}
	g.target = 0
	if sh.Journal != nil {
		g.target, _ = sh.Journal.Sequences()
	}
	g.heldAtMs = sh.Srv.Now().UnixMilli()
}

// coversLocked reports whether g's replies may go out as far as the
// replicas are concerned; mu held.
func (s *syncHold) coversLocked(g *commitGroup) bool {
	return !g.sync || s.k == 0 || s.acked >= 0 && uint64(s.acked) >= g.target
}

// release delivers g, whose log is durable, or holds it for its
// acknowledgements (see the top of the file); any goroutine, in commit
// order.
func (g *commitGroup) release() {
	sh := g.sh
	if g.head == nil || !g.sync && !sh.Sync.holding.Load() {
		// The asynchronous path: no lock. holding is cleared only after
		// the last held group was delivered, so nothing is overtaken.
		g.deliver()
		return
	}
	s := &sh.Sync
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.held) == 0 && s.coversLocked(g) {
		g.deliver()
		return
	}
	g.passUnheld()
	if g.head == nil {
		sh.recycleGroup(g)
		return
	}
	s.held = append(s.held, g)
	s.heldReplies.Add(int64(g.cmds))
	s.holding.Store(true)
}

// passUnheld delivers the batches of g that need not wait: a replica
// link's, and those that touched no data of a client with nothing earlier
// undelivered (its replies stay in order). mu held.
func (g *commitGroup) passUnheld() {
	var prev *Batch
	for b := g.head; b != nil; {
		next := b.next
		c := b.Client
		if !c.Replica.Load() && (b.touchesData || c.undelivered.Load() != 1) {
			prev = b
			b = next
			continue
		}
		if prev == nil {
			g.head = next
		} else {
			prev.next = next
		}
		if g.tail == b {
			g.tail = prev
		}
		g.count--
		g.cmds -= len(b.Ends)
		b.next = nil
		b.Sink.Deliver(b)
		c.undelivered.Add(-1)
		b = next
	}
}

// drop closes the connections of g's batches without their replies: the
// acknowledgements did not come in time, so whether the writes reached the
// replicas is unknown. The batches still go through their sink, which
// recycles them and closes the connections once their (empty) output is
// written. mu held.
func (g *commitGroup) drop() {
	for b := g.head; b != nil; {
		next := b.next
		b.next = nil
		c := b.Client
		// Killed, the client's batches still queued are not run.
		c.Kill()
		b.Out.Buf = b.Out.Buf[:0]
		b.CloseAfter = true
		b.Sink.Deliver(b)
		c.undelivered.Add(-1)
		b = next
	}
	g.head, g.tail, g.count, g.cmds = nil, nil, 0, 0
	g.sh.recycleGroup(g)
}

// SyncAcks recomputes the acknowledgement the held replies wait for, after
// an ACK, a replica connecting or leaving, or a change of sync-replicas,
// and releases the held groups it now covers (shard goroutine).
func (sh *Shard) SyncAcks() { sh.syncRelease(false) }

// syncTick is SyncAcks plus the deadline: held groups older than
// sync_timeout_ms are dropped (shard's periodic work).
func (sh *Shard) syncTick() {
	sh.LiveReplicas() // forget closed replicas first
	sh.syncRelease(true)
}

func (sh *Shard) syncRelease(expire bool) {
	s := &sh.Sync
	k := sh.Srv.Opts.Live.SyncReplicas()
	if k == 0 && s.k == 0 && !s.holding.Load() {
		return
	}
	acked := int64(-1)
	if k > 0 {
		acks := s.acks[:0]
		for _, r := range sh.Repl.Replicas {
			if !r.C.IsClosed() && !r.C.Killed() {
				acks = append(acks, r.Ack)
			}
		}
		s.acks = acks
		if len(acks) >= k {
			slices.Sort(acks)
			acked = int64(acks[len(acks)-k])
		}
	}
	var nowMs, timeoutMs int64
	if expire {
		nowMs = sh.Srv.Now().UnixMilli()
		timeoutMs = int64(sh.Srv.Opts.Config.Replication.SyncTimeoutMs)
	}
	s.mu.Lock()
	s.k, s.acked = k, acked
	n, dropped := 0, 0
	for _, g := range s.held {
		cmds := g.cmds
		if s.coversLocked(g) {
			g.deliver()
		} else if expire && nowMs-g.heldAtMs >= timeoutMs {
			dropped += cmds
			g.drop()
		} else {
			break // later groups wait behind this one
		}
		s.heldReplies.Add(-int64(cmds))
		n++
	}
	if n > 0 {
		m := copy(s.held, s.held[n:])
		clear(s.held[m:])
		s.held = s.held[:m]
		s.holding.Store(m > 0)
	}
	s.mu.Unlock()
	if dropped > 0 {
		s.timeouts.Add(int64(dropped))
		sh.Logger().Warn("synchronous replication: replies not acknowledged by enough replicas in time; their connections were closed",
			zap.Int("replies", dropped), zap.Int("sync_replicas", k), zap.Int64("sync_timeout_ms", timeoutMs))
	}
}
