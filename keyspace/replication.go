package keyspace

import (
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// This file holds the keyspace's side of replication: the replicas a
// primary shard serves (REPLSYNC, REPLCONF ACK), WAIT, the replica role
// (read-only, no expiry or eviction of its own, records applied with the
// recovery code), REPLICAOF, ROLE and INFO replication. The protocol and
// the links themselves are the replication package's; the process wires
// them in as Options.Replication.

// ReplicaStream is the connection of a replica on its primary, as the
// sender of the replication package writes to it.
type ReplicaStream interface {
	// Write queues b (not modified afterwards); false once the connection
	// is gone or cut off.
	Write(b []byte) bool
	// Pending is the bytes queued and not yet in the socket.
	Pending() int64
	// Close closes the connection.
	Close()
}

// LinkStatus is a replica shard's view of its link to the primary.
type LinkStatus struct {
	// Up is set while the link is established and streaming.
	Up bool
	// Syncing is set while a snapshot is being received.
	Syncing bool
	// LastIO is when the primary last sent anything (zero: never).
	LastIO time.Time
	// PrimarySequence is the primary's durable sequence last heard of.
	PrimarySequence uint64
	// DownSince is when the link went down (zero while up).
	DownSince time.Time
	// PrimaryChain is the run ids of the primary and of the primaries it
	// replicates from, nearest first, as the last handshake learned them.
	PrimaryChain []string
}

// Replication is what the keyspace needs of the replication package.
type Replication interface {
	// Serve streams shard's records after `after` to out until out fails.
	Serve(shard int, after uint64, out ReplicaStream)
	// Follow makes every shard follow the primary at host:port (shard i
	// its port+i), replacing any previous primary; epoch tags the
	// follower's calls of ApplyReplicated and InstallReplicaSnapshot.
	Follow(host string, port int, epoch uint64) error
	// Unfollow stops following; it does not wait for the links to end.
	Unfollow()
	// Link is shard's link status while following.
	Link(shard int) LinkStatus
}

// replState is the process's replication role.
type replState struct {
	// replica is set while the process follows a primary.
	replica atomic.Bool
	// epoch numbers the REPLICAOF changes: calls of an older follower are
	// refused.
	epoch atomic.Uint64
	mu    sync.Mutex
	host  string // mu guards
	port  int    // mu guards
}

// isReplica reports whether the process is a replica.
func (s *Server) isReplica() bool { return s.repl.replica.Load() }

// primaryAddr returns the primary's host and port.
func (s *Server) primaryAddr() (string, int) {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	return s.repl.host, s.repl.port
}

// StartReplica makes the process a replica of host:port before it serves:
// the shards open as a replica (nothing expires on load) and follow once
// Start has run. Call before Start.
func (s *Server) StartReplica(host string, port int) {
	s.repl.mu.Lock()
	s.repl.host, s.repl.port = host, port
	s.repl.mu.Unlock()
	s.repl.replica.Store(true)
}

// FollowConfigured starts the links of a replica set up with StartReplica.
func (s *Server) FollowConfigured() error {
	if !s.isReplica() || s.opts.Replication == nil {
		return nil
	}
	host, port := s.primaryAddr()
	return s.opts.Replication.Follow(host, port, s.repl.epoch.Add(1))
}

// shardRepl is a shard's replication state; shard goroutine only unless
// noted.
type shardRepl struct {
	// replicas are the replicas streaming from this shard.
	replicas []*replicaLink
	// waits are the clients parked in WAIT; an entry whose client was
	// unblocked otherwise (deadline, CLIENT UNBLOCK, disconnect) is
	// dropped when next looked at.
	waits []waitReq
	// due is set by an ACK when a parked WAIT may be done.
	due atomic.Bool
	// view is the replicas for other shards' readers (CLUSTER, INFO).
	viewMu sync.Mutex
	view   []ReplicaInfo

	// tasks are functions to run on the shard goroutine (replica apply).
	taskMu   sync.Mutex
	tasks    []func()
	hasTasks atomic.Bool
}

// replicaLink is one replica connected to a primary shard.
type replicaLink struct {
	c          *Client
	addr       string
	nodeID     string
	listenPort int
	announceIP string
	ack        uint64
	ackAtMs    int64
	sinceMs    int64
}

// ReplicaInfo describes a replica of a shard for CLUSTER and INFO.
type ReplicaInfo struct {
	Addr       string
	NodeID     string
	ListenPort int
	// AnnounceIP is the address the replica announced ("": its
	// connection's host).
	AnnounceIP string
	Ack        uint64
	AckAtMs    int64
}

// waitReq is a client parked in WAIT: a blocked client without keys
// (blocking.go) that acknowledgements wake instead of writes.
type waitReq struct {
	bc     *blockedClient
	want   int
	target uint64
}

// do runs fn on the shard goroutine and waits for it; false when the
// shard has stopped.
func (sh *Shard) do(fn func()) bool {
	done := make(chan struct{})
	r := &sh.repl
	r.taskMu.Lock()
	r.tasks = append(r.tasks, func() { fn(); close(done) })
	r.taskMu.Unlock()
	r.hasTasks.Store(true)
	sh.ring.signal()
	select {
	case <-done:
		return true
	case <-sh.done:
		return false
	}
}

// post queues fn to run on the shard goroutine without waiting for it.
func (sh *Shard) post(fn func()) {
	r := &sh.repl
	r.taskMu.Lock()
	r.tasks = append(r.tasks, fn)
	r.taskMu.Unlock()
	r.hasTasks.Store(true)
	sh.ring.signal()
}

// runTasks runs the queued tasks; drain calls it with the token held.
func (sh *Shard) runTasks() int {
	r := &sh.repl
	r.taskMu.Lock()
	ts := r.tasks
	r.tasks = nil
	r.hasTasks.Store(false)
	r.taskMu.Unlock()
	if len(ts) > 0 {
		sh.nowMs = sh.srv.now().UnixMilli()
	}
	for _, t := range ts {
		t()
	}
	return len(ts)
}

// ---- primary side ----

// clientStream is a replica's connection as a ReplicaStream.
type clientStream struct{ c *Client }

func (s clientStream) Write(b []byte) bool {
	if s.c.Killed() || s.c.isClosed() {
		return false
	}
	w, ok := s.c.Conn.(AsyncWriter)
	if !ok {
		return false
	}
	if len(b) == 0 {
		return true
	}
	w.WriteAsync(b)
	return !s.c.Killed()
}

func (s clientStream) Pending() int64 { return s.c.Out.Pending() }

func (s clientStream) Close() {
	if s.c.Conn != nil {
		_ = s.c.Conn.Close()
	}
}

// REPLSYNC shards shard after-sequence history-id: a replica's shard asks
// for the records after its last one (see the replication package); a
// history id other than the shard's means a full resync.
func replsyncCommand(x *Ctx) {
	sh := x.S
	shards, ok1 := parseInt(x.Args[1])
	shard, ok2 := parseInt(x.Args[2])
	after, err := strconv.ParseUint(string(x.Args[3]), 10, 64)
	if !ok1 || !ok2 || err != nil {
		x.W.Error(errNotInt)
		return
	}
	if n := len(sh.srv.shards); shards != int64(n) {
		x.W.Error(fmt.Sprintf("ERR shard count mismatch: the replica has %d shards and this primary %d; a replica must have as many shards as its primary", shards, n))
		return
	}
	if shard != int64(sh.idx) {
		x.W.Error(fmt.Sprintf("ERR replica shard %d connected to the port of shard %d", shard, sh.idx))
		return
	}
	if _, ok := sh.journal.(*walJournal); !ok || sh.srv.opts.Replication == nil {
		x.W.Error("ERR replication needs the write-ahead log (persistence.wal = true)")
		return
	}
	if id := x.C.replRunID; id != "" && slices.Contains(sh.runChain(), id) {
		sh.logger().Warn("replication: refused a replica that this server replicates from (a replication loop)", zap.String("replica", x.C.RemoteAddr))
		x.W.Error("ERR replication loop: this server is a replica of the server asking to replicate from it")
		return
	}
	if sh.srv.isReplica() && !sh.srv.link(sh.idx).Up {
		// As Redis refuses SYNC: a replica serves replicas of its own only
		// while it follows its primary. A server told to replicate from
		// itself, or two replicating from each other, so never come up.
		x.W.Error("NOMASTERLINK Can't SYNC while not connected with my master")
		return
	}
	for _, r := range sh.repl.replicas {
		if r.c == x.C {
			x.W.Error("ERR the connection is already a replica link")
			return
		}
	}
	x.C.SetOutputClass(config.OutputReplica)
	x.C.replica.Store(true)
	sh.repl.replicas = append(sh.repl.replicas, &replicaLink{c: x.C, addr: x.C.RemoteAddr, listenPort: x.C.replPort, announceIP: x.C.replIP, nodeID: x.C.replNodeID, ackAtMs: sh.nowMs, sinceMs: sh.nowMs})
	sh.publishReplicas()
	j := sh.journal.(*walJournal)
	if string(x.Args[4]) != j.replID {
		after = fullResync
	}
	sh.srv.opts.Replication.Serve(sh.idx, after, clientStream{c: x.C})
	// No reply: the stream's frames follow on the connection.
}

// fullResync as the sequence a replica resumes after asks for a snapshot.
const fullResync = ^uint64(0)

// REPLCONF option value [option value ...]: ACK <sequence> from a
// replica (no reply), LISTENING-PORT and CAPA (+OK).
func replconfCommand(x *Ctx) {
	if len(x.Args)%2 == 0 {
		x.W.Error(errSyntax)
		return
	}
	sh := x.S
	answer := false
	for i := 1; i < len(x.Args); i += 2 {
		opt, val := strings.ToLower(string(x.Args[i])), x.Args[i+1]
		switch opt {
		case "ack":
			seq, err := strconv.ParseUint(string(val), 10, 64)
			if err != nil {
				return
			}
			for _, r := range sh.repl.replicas {
				if r.c == x.C {
					if seq > r.ack {
						r.ack = seq
					}
					r.ackAtMs = sh.nowMs
					if len(sh.repl.waits) > 0 {
						sh.repl.due.Store(true)
						// Run inline by a reactor, the ACK must still wake the
						// loop that finishes the WAITs.
						sh.ring.signal()
					}
					sh.publishReplicas()
				}
			}
			return // ACK never replies
		case "getack":
			return
		case "listening-port":
			p, ok := parseInt(val)
			if !ok {
				x.W.Error(errNotInt)
				return
			}
			x.C.replPort = int(p)
			for _, r := range sh.repl.replicas {
				if r.c == x.C {
					r.listenPort = int(p)
				}
			}
		case "ip-address":
			x.C.replIP = string(val)
			for _, r := range sh.repl.replicas {
				if r.c == x.C {
					r.announceIP = string(val)
				}
			}
		case "ruvio-node-id":
			// The replica shard's node id, for CLUSTER SHARDS and NODES.
			x.C.replNodeID = string(val)
		case "ruvio-run-id":
			// The replica's run id; the answer is this shard's chain
			// (replication package), which the replica checks for itself.
			x.C.replRunID = string(val)
			answer = true
		case "capa", "rdb-only":
		default:
			x.W.Error("ERR Unrecognized REPLCONF option: " + string(x.Args[i]))
			return
		}
	}
	if answer {
		x.W.SimpleString(strings.Join(sh.runChain(), " "))
		return
	}
	x.W.OK()
}

// runChain is the run ids a replica of this shard would follow: this
// process's, then, on a replica, those its link learned of its primary
// and the primaries above it.
func (sh *Shard) runChain() []string {
	chain := []string{sh.srv.runID}
	if sh.srv.isReplica() {
		chain = append(chain, sh.srv.link(sh.idx).PrimaryChain...)
	}
	return chain
}

// RunID is the process's run id (INFO server run_id).
func (s *Server) RunID() string { return s.runID }

// liveReplicas drops replicas whose connection closed and returns the
// rest.
func (sh *Shard) liveReplicas() []*replicaLink {
	rs := sh.repl.replicas
	k := 0
	for _, r := range rs {
		if !r.c.isClosed() && !r.c.Killed() {
			rs[k] = r
			k++
		}
	}
	if k != len(rs) {
		clear(rs[k:])
		sh.repl.replicas = rs[:k]
		sh.publishReplicas()
	}
	return sh.repl.replicas
}

// publishReplicas copies the replica list for other goroutines.
func (sh *Shard) publishReplicas() {
	v := make([]ReplicaInfo, 0, len(sh.repl.replicas))
	for _, r := range sh.repl.replicas {
		v = append(v, ReplicaInfo{Addr: r.addr, NodeID: r.nodeID, ListenPort: r.listenPort, AnnounceIP: r.announceIP, Ack: r.ack, AckAtMs: r.ackAtMs})
	}
	sh.repl.viewMu.Lock()
	sh.repl.view = v
	sh.repl.viewMu.Unlock()
}

// Replicas returns the replicas of shard i (any goroutine).
func (s *Server) Replicas(i int) []ReplicaInfo {
	r := &s.shards[i].repl
	r.viewMu.Lock()
	defer r.viewMu.Unlock()
	return append([]ReplicaInfo(nil), r.view...)
}

// ackedAtLeast counts the replicas that acknowledged seq or later.
func (sh *Shard) ackedAtLeast(seq uint64) int {
	n := 0
	for _, r := range sh.liveReplicas() {
		if r.ack >= seq {
			n++
		}
	}
	return n
}

// goodReplicas counts the replicas heard from within min-replicas-max-lag.
func (sh *Shard) goodReplicas() int64 {
	lagMs := sh.srv.opts.Live.MinReplicasMaxLag() * 1000
	n := int64(0)
	for _, r := range sh.liveReplicas() {
		if sh.nowMs-r.ackAtMs <= lagMs {
			n++
		}
	}
	return n
}

// replicationRefusal is the error for a write refused for replication's
// sake (READONLY on a replica, NOREPLICAS on a primary), else "".
func (sh *Shard) replicationRefusal() string {
	if sh.srv.isReplica() {
		return errReadOnlyReplica
	}
	if min := sh.srv.opts.Live.MinReplicasToWrite(); min > 0 && sh.goodReplicas() < min {
		return "NOREPLICAS Not enough good replicas to write."
	}
	return ""
}

const errReadOnlyReplica = "READONLY You can't write against a read only replica."

// staleRefusal is the MASTERDOWN error for a command that needs fresh data
// on a replica whose link is down under replica-serve-stale-data no.
func (sh *Shard) staleRefusal(cmd *Command) string {
	if !sh.srv.isReplica() || cmd.Flags&FlagStale != 0 || sh.srv.opts.Live.ReplicaServeStaleData() || sh.srv.opts.Replication == nil {
		return ""
	}
	if sh.srv.opts.Replication.Link(sh.idx).Up {
		return ""
	}
	return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
}

// ---- WAIT ----

// WAIT numreplicas timeout: parks the calling client until numreplicas
// replicas of the shard acknowledged the shard's last sequence as durable,
// or timeout milliseconds passed (0: forever); replies how many did.
//
// WAIT parks with the blocking facility (blocking.go) rather than a
// mechanism of its own: a WAIT is a blocked client with no keys, so it
// gets the same resume point in its batch, the same holding of the
// client's later batches, deadlines on the shard timer, CLIENT UNBLOCK
// (TIMEOUT replies the count so far, ERROR the UNBLOCKED error, as Redis
// 7.0), disconnect handling, INFO blocked_clients and CLIENT LIST's flag
// b. What differs is only what wakes it: no key is ever ready for it;
// an acknowledgement sets repl.due and resumeWaits checks the parked
// WAITs, unblocking those whose count is reached.
func waitCommand(x *Ctx) {
	want, ok := parseInt(x.Args[1])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	timeout, ok := parseInt(x.Args[2])
	if !ok {
		x.W.Error("ERR timeout is not an integer or out of range")
		return
	}
	if timeout < 0 {
		x.W.Error(errNegTimeout)
		return
	}
	sh := x.S
	if sh.srv.isReplica() {
		x.W.Int(0)
		return
	}
	target := sh.replOffset()
	n := sh.ackedAtLeast(target)
	if int64(n) >= want || x.NoBlock || x.Batch == nil {
		x.W.Int(int64(n))
		return
	}
	deadline := int64(0)
	if timeout > 0 {
		deadline = sh.nowMs + timeout
		if deadline < sh.nowMs {
			deadline = math.MaxInt64
		}
	}
	x.Block(BlockSpec{
		DeadlineMs: deadline,
		// Timeout (and CLIENT UNBLOCK TIMEOUT) replies the count so far.
		Timeout: func(x *Ctx) { waitReply(x, x.S.ackedAtLeast(target)) },
		// No key is ever ready for a WAIT: resumeWaits wakes it.
		Serve:    func(*Ctx, []byte) bool { return false },
		handOver: func(b *Batch) bool { return sh.deliverNow(b, target) },
	})
	if x.C.blk == nil {
		return // a closed client: Block replied at once
	}
	// Entries of WAITs that ended otherwise go first: without ACKs
	// (no replica) resumeWaits would never drop them.
	sh.repl.waits = sh.liveWaits()
	sh.repl.waits = append(sh.repl.waits, waitReq{bc: x.C.blk, want: int(want), target: target})
}

// liveWaits drops the entries of WAITs whose client is no longer parked
// in them (deadline, CLIENT UNBLOCK, disconnect) and returns the rest.
func (sh *Shard) liveWaits() []waitReq {
	k := 0
	for _, w := range sh.repl.waits {
		if w.bc.c.blk == w.bc && !w.bc.done {
			sh.repl.waits[k] = w
			k++
		}
	}
	clear(sh.repl.waits[k:])
	return sh.repl.waits[:k]
}

// waitReply writes WAIT's count unless the client turned replies off.
func waitReply(x *Ctx, count int) {
	if x.C.replyMode&replyOff == 0 {
		x.W.Int(int64(count))
	}
}

// resumeWaits unblocks the parked WAITs whose replicas have acknowledged
// enough, forgets those unblocked otherwise, and runs what the woken
// clients sent meanwhile. It returns how many batches it finished, each
// queued for the commit (or handed over at once, see deliverNow).
func (sh *Shard) resumeWaits() int {
	sh.repl.due.Store(false)
	if len(sh.repl.waits) == 0 {
		return 0
	}
	sh.nowMs = sh.srv.now().UnixMilli()
	for _, w := range sh.repl.waits {
		bc := w.bc
		if bc.c.blk != bc || bc.done || bc.c.Killed() || bc.c.isClosed() {
			// Ended otherwise, or gone (the reaper forgets it).
			continue
		}
		if count := sh.ackedAtLeast(w.target); count >= w.want {
			x := sh.blockCtx(bc)
			before := len(x.W.Buf)
			waitReply(x, count)
			bc.silence(x.W, before)
			*x = Ctx{}
			sh.unblocked(bc)
		}
	}
	sh.repl.waits = sh.liveWaits()
	if len(sh.blk.resume) == 0 {
		return 0
	}
	return sh.resumeBlocked()
}

// deliverNow hands a finished WAIT's batch to its connection at once,
// instead of through the commit group (which, under fsync always, waits for
// the sync of writes of other clients), when that is safe: the batch ended
// with the WAIT, so its replies depend only on records up to target, which
// the log has made durable; and every earlier batch of the client has been
// handed over, so replies stay in order.
func (sh *Shard) deliverNow(b *Batch, target uint64) bool {
	c := b.Client
	j, ok := sh.journal.(*walJournal)
	if !ok || c.blk != nil || c.undelivered.Load() != 0 || j.wal.DurableSequence() < target ||
		c.subCount.Load() != 0 || c.trk != nil || len(c.pushBuf) > 0 {
		return false
	}
	b.Sink.Deliver(b)
	return true
}

// ---- replica side ----

// ReplicationShards is the shard count a replica announces.
func (s *Server) ReplicationShards() int { return len(s.shards) }

// LastSequence is shard's last appended sequence: where a replica resumes.
func (s *Server) LastSequence(shard int) uint64 {
	if j, ok := s.shards[shard].journal.(*walJournal); ok {
		return j.wal.LastSequence()
	}
	return 0
}

// DurableSequence is shard's durable sequence: what a replica acknowledges.
func (s *Server) DurableSequence(shard int) uint64 {
	if j, ok := s.shards[shard].journal.(*walJournal); ok {
		return j.wal.DurableSequence()
	}
	return 0
}

// SyncedSequence is the last sequence shard's log has fsynced with every
// record before it: what a replica acknowledges (under fsync everysec and
// no, records written but not synced are not acknowledged).
func (s *Server) SyncedSequence(shard int) uint64 {
	if j, ok := s.shards[shard].journal.(*walJournal); ok {
		return j.wal.SyncedSequence()
	}
	return 0
}

// SyncForAck fsyncs shard's log when its policy is fsync no, whose WAL
// never syncs by itself: a replica's follower calls it (at most once a
// second, only while written records are not synced) so that it has
// something durable to acknowledge. Under always and everysec the log
// syncs on its own and this does nothing.
func (s *Server) SyncForAck(shard int) error {
	sh := s.shards[shard]
	var err error
	if !sh.do(func() {
		if j, ok := sh.journal.(*walJournal); ok && j.opts.Policy == persistence.FsyncNo {
			err = j.wal.Sync()
		}
	}) {
		return errShardStopped
	}
	if err != nil {
		return fmt.Errorf("sync shard %d's log for the acknowledgement: %w", shard, err)
	}
	return nil
}

// errStaleFollower refuses the calls of a follower replaced by REPLICAOF.
var errStaleFollower = errors.New("keyspace: the replica follows another primary now")

// errShardStopped is returned when the shard stopped before a task ran.
var errShardStopped = errors.New("keyspace: shard stopped")

// ApplyReplicated applies encoded records from the primary on shard's
// goroutine, with the recovery code, and appends them to the shard's log
// under their own sequence numbers. It returns once they are applied; the
// log makes them durable under its policy.
func (s *Server) ApplyReplicated(shard int, epoch uint64, recs []byte) error {
	sh := s.shards[shard]
	var err error
	if !sh.do(func() { err = sh.applyReplicated(epoch, recs) }) {
		return errShardStopped
	}
	return err
}

func (sh *Shard) applyReplicated(epoch uint64, recs []byte) error {
	if !sh.srv.isReplica() || sh.srv.repl.epoch.Load() != epoch {
		return errStaleFollower
	}
	j, ok := sh.journal.(*walJournal)
	if !ok {
		return errors.New("keyspace: a replica needs the write-ahead log")
	}
	if err := j.wal.Err(); err != nil {
		return err
	}
	if sh.snap != nil {
		// A running snapshot copies buckets before commands change them;
		// replicated records bypass commands, so it is finished first.
		sh.finishSnapshotNow()
	}
	for len(recs) > 0 {
		last := j.wal.LastSequence()
		r, n, err := persistence.DecodeRecord(recs)
		if err != nil {
			return fmt.Errorf("replication: corrupted record after sequence %d: %w", last, err)
		}
		if r.Seq != last+1 {
			return fmt.Errorf("replication: record %d does not follow sequence %d", r.Seq, last)
		}
		if err := sh.applyRecord(r); err != nil {
			return fmt.Errorf("replication: record %d: %w", r.Seq, err)
		}
		if _, err := j.wal.AppendEncoded(recs[:n]); err != nil {
			return fmt.Errorf("replication: append record %d: %w", r.Seq, err)
		}
		j.appended++
		recs = recs[n:]
	}
	sh.breakAllWatches()
	return nil
}

// breakAllWatches fails the transactions of every client watching keys of
// the shard: replicated records change keys without the per-key hooks of
// commands, so a replica treats each applied group as touching them all.
func (sh *Shard) breakAllWatches() {
	if len(sh.tx.watched) == 0 {
		return
	}
	var broken []*Client
	for _, ws := range sh.tx.watched {
		for _, wk := range ws {
			broken = append(broken, wk.c)
		}
	}
	for _, c := range broken {
		if !c.tx.dirtyCAS {
			c.dirty()
		}
		sh.unwatchAll(c)
	}
}

// InstallReplicaSnapshot makes the snapshot file at path (in the data
// directory) shard's whole state at seq: the shard's log and snapshots
// are removed, the file becomes its snapshot, the data is loaded from it
// and a new log starts after seq. seq 0 with path "" empties the shard.
func (s *Server) InstallReplicaSnapshot(shard int, epoch uint64, path string, seq uint64, replID string) error {
	sh := s.shards[shard]
	var err error
	if !sh.do(func() {
		if err = sh.installSnapshot(epoch, path, seq); err == nil {
			// The new history's id goes last: a crash before it leaves the
			// old id, which only costs another full resync.
			err = sh.setReplID(replID)
		}
	}) {
		return errShardStopped
	}
	return err
}

func (sh *Shard) installSnapshot(epoch uint64, path string, seq uint64) error {
	if !sh.srv.isReplica() || sh.srv.repl.epoch.Load() != epoch {
		return errStaleFollower
	}
	j, ok := sh.journal.(*walJournal)
	if !ok {
		return errors.New("keyspace: a replica needs the write-ahead log")
	}
	sh.finishSnapshotNow()
	// Commit what was appended, then close the log: the old history goes.
	sh.commit()
	if err := j.wal.Close(); err != nil {
		sh.logger().Warn("closing the WAL before a full resync", zap.Error(err))
	}
	o := j.opts
	// Segments and snapshots go first: a crash before the rename leaves
	// an empty shard (or an older consistent prefix), never the new
	// snapshot followed by records of the old history.
	if err := persistence.RemoveShardFiles(o.FS, o.Dir, sh.idx); err != nil {
		return sh.failInstall(err)
	}
	if path != "" {
		final := o.Dir + "/" + persistence.SnapshotName(sh.idx, seq)
		if err := o.FS.Rename(path, final); err != nil {
			return sh.failInstall(err)
		}
		if err := o.FS.SyncDir(o.Dir); err != nil {
			return sh.failInstall(err)
		}
	}
	for _, db := range sh.dbs {
		db.flush()
	}
	sh.breakAllWatches()
	if path != "" {
		if _, err := persistence.LoadSnapshots(o.FS, o.Dir, sh.idx, sh.srv.log, persistence.SnapshotLoadOptions{}, sh.loadSnapshotEntry); err != nil {
			return sh.failInstall(err)
		}
	}
	wal, err := persistence.OpenWAL(o.FS, o.Dir, sh.idx, seq, sh.walOptions(o))
	if err != nil {
		return sh.failInstall(err)
	}
	j.wal = wal
	j.appended = 0
	sh.snapStatus.lastSeq = seq
	// Replicas of this replica streamed the history just replaced: they
	// reconnect and resync from the new one.
	sh.dropReplicas()
	if path != "" {
		sh.snapStatus.lastStatus = "ok"
	}
	if h := sh.srv.opts.OnDurable; h != nil {
		h(sh.idx, seq)
	}
	return nil
}

// failInstall reports a full resync that could not be installed. The
// shard's log is closed by then: the process must be restarted, which the
// error says (the shard refuses writes meanwhile, and a replica takes
// none).
func (sh *Shard) failInstall(err error) error {
	return fmt.Errorf("replication: installing the primary's snapshot on shard %d failed (restart the replica): %w", sh.idx, err)
}

// ---- REPLICAOF, ROLE, INFO ----

// REPLICAOF host port | REPLICAOF NO ONE (and SLAVEOF).
func replicaofCommand(x *Ctx) {
	sh := x.S
	srv := sh.srv
	host, portArg := string(x.Args[1]), string(x.Args[2])
	if strings.EqualFold(host, "no") && strings.EqualFold(portArg, "one") {
		if srv.isReplica() {
			srv.repl.replica.Store(false)
			srv.repl.epoch.Add(1)
			if srv.opts.Replication != nil {
				srv.opts.Replication.Unfollow()
			}
			// A promoted replica starts a history of its own: its old
			// primary's replicas must not resume from it as if nothing had
			// diverged (a history id per shard, changed on each shard).
			for _, o := range srv.shards {
				renew := func() {
					if err := o.setReplID(randomHex(40)); err != nil {
						o.logger().Error("storing the new replication id", zap.Error(err))
					}
				}
				if o == sh {
					renew()
				} else {
					o.post(renew)
				}
			}
			srv.repl.mu.Lock()
			srv.repl.host, srv.repl.port = "", 0
			srv.repl.mu.Unlock()
			sh.logger().Info("REPLICAOF NO ONE: this process is a primary now")
		}
		x.W.OK()
		return
	}
	port, ok := parseInt(x.Args[2])
	if !ok || port < 0 || port > 65535 {
		x.W.Error("ERR Invalid master port")
		return
	}
	// Shard i of a replica follows shard i of the primary, which listens
	// on the primary's shard 0 port + i: sent to shard i, the port named
	// is the primary's shard i, so every shard follows its counterpart
	// whichever port the operator reached.
	base := int(port) - sh.idx
	if base < 0 {
		x.W.Error(fmt.Sprintf("ERR Invalid master port: this is shard %d, so %d must be the port of the primary's shard %d, and its shard 0 would be at %d", sh.idx, port, sh.idx, base))
		return
	}
	if srv.opts.Replication == nil {
		x.W.Error("ERR replication needs the write-ahead log (persistence.wal = true)")
		return
	}
	if h, p := srv.primaryAddr(); srv.isReplica() && h == host && p == base {
		x.W.SimpleString("OK Already connected to specified master")
		return
	}
	srv.repl.mu.Lock()
	srv.repl.host, srv.repl.port = host, base
	srv.repl.mu.Unlock()
	srv.repl.replica.Store(true)
	// As Redis does on a new primary, the replicas of this process are
	// disconnected: they reconnect and learn the new chain of primaries
	// (and a loop back to them is refused at their handshake).
	for _, o := range srv.shards {
		if o == sh {
			o.dropReplicas()
		} else {
			o.post(o.dropReplicas)
		}
	}
	if err := srv.opts.Replication.Follow(host, base, srv.repl.epoch.Add(1)); err != nil {
		x.W.Error("ERR " + err.Error())
		return
	}
	sh.logger().Info("REPLICAOF: following a primary", zap.String("primary", net.JoinHostPort(host, portArg)),
		zap.Int("shard", sh.idx), zap.String("primary_shard_0", net.JoinHostPort(host, strconv.Itoa(base))))
	x.W.OK()
}

// dropReplicas closes the connections of the shard's replicas (shard
// goroutine).
func (sh *Shard) dropReplicas() {
	for _, r := range sh.repl.replicas {
		if r.c.Conn != nil {
			_ = r.c.Conn.Close()
		}
	}
}

// ROLE: a primary shard reports its sequence and its replicas; a replica
// the primary's address, its link state and its own sequence.
func roleCommand(x *Ctx) {
	sh := x.S
	if sh.srv.isReplica() {
		host, port := sh.srv.primaryAddr()
		x.W.ArrayHeader(5)
		x.W.BulkString("slave")
		x.W.BulkString(host)
		x.W.Int(int64(port + sh.idx))
		x.W.BulkString(linkState(sh.srv.link(sh.idx)))
		x.W.Int(int64(sh.replOffset()))
		return
	}
	rs := sh.liveReplicas()
	x.W.ArrayHeader(3)
	x.W.BulkString("master")
	x.W.Int(int64(sh.replOffset()))
	x.W.ArrayHeader(len(rs))
	for _, r := range rs {
		host, port := r.hostPort()
		x.W.ArrayHeader(3)
		x.W.BulkString(host)
		x.W.BulkString(port)
		x.W.BulkString(strconv.FormatUint(r.ack, 10))
	}
}

// hostPort is the address the replica is reached on, as Sentinel and ROLE
// report it: what it announced (REPLCONF ip-address and listening-port),
// else its connection's.
func (r *replicaLink) hostPort() (string, string) {
	host, port := splitAddr(r.addr)
	if r.listenPort > 0 {
		port = strconv.Itoa(r.listenPort)
	}
	if r.announceIP != "" {
		host = r.announceIP
	}
	return host, port
}

// link is shard's link status ("" host: not following).
func (s *Server) link(shard int) LinkStatus {
	if s.opts.Replication == nil {
		return LinkStatus{}
	}
	return s.opts.Replication.Link(shard)
}

func linkState(l LinkStatus) string {
	switch {
	case l.Up:
		return "connected"
	case l.Syncing:
		return "sync"
	}
	return "connect"
}

func splitAddr(a string) (string, string) {
	h, p, err := net.SplitHostPort(a)
	if err != nil {
		return a, "0"
	}
	return h, p
}

// replOffset is the shard's replication offset: the sequence of the last
// record appended to its WAL, 0 without one.
func (sh *Shard) replOffset() uint64 {
	if j, ok := sh.journal.(*walJournal); ok {
		return j.wal.LastSequence()
	}
	return 0
}

func infoReplication(x *Ctx, ib *infoBuilder) {
	sh := x.S
	backlog, _ := sh.srv.opts.Live.Value("repl-backlog-size")
	off := sh.replOffset()
	if sh.srv.isReplica() {
		host, port := sh.srv.primaryAddr()
		l := sh.srv.link(sh.idx)
		ib.str("role", "slave")
		ib.str("master_host", host)
		ib.int("master_port", int64(port+sh.idx))
		if l.Up {
			ib.str("master_link_status", "up")
		} else {
			ib.str("master_link_status", "down")
		}
		lastIO := int64(-1)
		if !l.LastIO.IsZero() {
			lastIO = int64(sh.srv.now().Sub(l.LastIO) / time.Second)
		}
		ib.int("master_last_io_seconds_ago", lastIO)
		ib.int("master_sync_in_progress", int64(boolInt(l.Syncing)))
		ib.int("slave_read_repl_offset", int64(off))
		ib.int("slave_repl_offset", int64(off))
		ib.int("ruvio_master_durable_sequence", int64(l.PrimarySequence))
		ib.int("ruvio_durable_sequence", int64(sh.srv.DurableSequence(sh.idx)))
		if !l.Up && !l.DownSince.IsZero() {
			ib.int("master_link_down_since_seconds", int64(sh.srv.now().Sub(l.DownSince)/time.Second))
		}
		ib.int("slave_priority", sh.srv.opts.Live.ReplicaPriority())
		ib.int("slave_read_only", 1)
		ib.int("replica_announced", int64(boolInt(sh.srv.opts.Live.ReplicaAnnounced())))
		ib.int("connected_slaves", int64(len(sh.liveReplicas())))
	} else {
		ib.str("role", "master")
		rs := sh.liveReplicas()
		ib.int("connected_slaves", int64(len(rs)))
		if min := sh.srv.opts.Live.MinReplicasToWrite(); min > 0 {
			ib.int("min_slaves_good_slaves", sh.goodReplicas())
		}
		for i, r := range rs {
			host, port := r.hostPort()
			ib.str("slave"+strconv.Itoa(i), fmt.Sprintf("ip=%s,port=%s,state=online,offset=%d,lag=%d,ruvio_seq_lag=%d",
				host, port, r.ack, (sh.nowMs-r.ackAtMs)/1000, off-min(off, r.ack)))
		}
	}
	ib.str("master_failover_state", "no-failover")
	ib.str("master_replid", sh.srv.ReplID(sh.idx))
	ib.str("master_replid2", strings.Repeat("0", 40))
	ib.int("master_repl_offset", int64(off))
	ib.int("second_repl_offset", -1)
	ib.int("repl_backlog_active", 0)
	ib.str("repl_backlog_size", backlog)
	ib.int("repl_backlog_first_byte_offset", 0)
	ib.int("repl_backlog_histlen", 0)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// registerReplicationCommands registers ROLE, WAIT, REPLICAOF, SLAVEOF,
// REPLCONF and REPLSYNC.
func registerReplicationCommands(t commandTable) {
	t.add(
		&Command{Name: "role", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast, Group: "server", Categories: []string{"admin", "dangerous"}, Since: "2.8.12", Summary: "Returns the replication role.", Complexity: "O(1)", Handler: roleCommand},
		&Command{Name: "wait", Arity: 3, Flags: FlagNoScript, Group: "generic", Categories: []string{"connection"}, Since: "3.0.0", Summary: "Blocks until the asynchronous replication of all preceding write commands sent by the connection is completed.", Complexity: "O(1)", Handler: waitCommand},
		&Command{Name: "replicaof", Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagStale | FlagNoAsyncLoading, Group: "server", Since: "5.0.0", Summary: "Configures a server as replica of another, or promotes it to a master.", Complexity: "O(1)", Handler: replicaofCommand},
		&Command{Name: "slaveof", Arity: 3, Flags: FlagAdmin | FlagNoScript | FlagStale | FlagNoAsyncLoading, Group: "server", Since: "1.0.0", Summary: "Sets a Redis server as a replica of another, or promotes it to being a master.", Complexity: "O(1)", Handler: replicaofCommand},
		&Command{Name: "replconf", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale | FlagAllowBusy, Group: "server", Since: "3.0.0", Summary: "An internal command for configuring the replication stream.", Complexity: "O(1)", Handler: replconfCommand},
		&Command{Name: "replsync", Arity: 5, Flags: FlagAdmin | FlagNoScript | FlagNoMulti | FlagStale, Group: "server", Since: "0.1.0", Summary: "Starts the replication stream of a shard for a replica (the replication package's protocol).", Complexity: "O(1)", Handler: replsyncCommand},
	)
}

// ---- history ids ----

// replIDName is the file holding shard's history id.
func replIDName(shard int) string { return fmt.Sprintf("shard-%03d-replid", shard) }

// loadReplID reads shard's history id, creating a random one for a shard
// that has none (a new data directory starts a new history).
// created says the id is new (the file was written now).
func loadReplID(fs persistence.FS, dir string, shard int) (id string, created bool, err error) {
	path := dir + "/" + replIDName(shard)
	if f, err := fs.Open(path); err == nil {
		buf := make([]byte, 64)
		n, _ := f.ReadAt(buf, 0)
		_ = f.Close()
		if id := strings.TrimSpace(string(buf[:n])); len(id) == 40 {
			return id, false, nil
		}
	}
	id = randomHex(40)
	return id, true, storeReplID(fs, dir, shard, id)
}

// storeReplID writes shard's history id durably (tmp, fsync, rename, dir
// fsync).
func storeReplID(fs persistence.FS, dir string, shard int, id string) error {
	path := dir + "/" + replIDName(shard)
	tmp := path + ".tmp"
	f, err := fs.Create(tmp)
	if err != nil {
		return err
	}
	if _, err = f.Write([]byte(id + "\n")); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fs.Rename(tmp, path)
	}
	if err == nil {
		err = fs.SyncDir(dir)
	} else {
		_ = fs.Remove(tmp) // a failed write leaves no temporary behind
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReplID is shard's history id ("" without a log); any goroutine.
func (s *Server) ReplID(shard int) string {
	sh := s.shards[shard]
	sh.repl.viewMu.Lock()
	defer sh.repl.viewMu.Unlock()
	if j, ok := sh.journal.(*walJournal); ok {
		return j.replID
	}
	return ""
}

// setReplID changes shard's history id (shard goroutine).
func (sh *Shard) setReplID(id string) error {
	j, ok := sh.journal.(*walJournal)
	if !ok {
		return nil
	}
	if err := storeReplID(j.fs, j.dir, sh.idx, id); err != nil {
		return err
	}
	sh.repl.viewMu.Lock()
	j.replID = id
	sh.repl.viewMu.Unlock()
	return nil
}

// HostPort is the address clients reach the replica on: its connection's
// host and the port it announced (else the connection's port).
func (r ReplicaInfo) HostPort() (string, int) {
	host, port := splitAddr(r.Addr)
	p, _ := strconv.Atoi(port)
	if r.ListenPort > 0 {
		p = r.ListenPort
	}
	if r.AnnounceIP != "" {
		host = r.AnnounceIP
	}
	return host, p
}
