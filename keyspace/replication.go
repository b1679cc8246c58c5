package keyspace

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

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

// SyncCounter is implemented by a Replication that counts, per shard, the
// synchronisations it served as a primary: full ones, resumes, and resumes
// asked for that had to be full (INFO's sync_full, sync_partial_ok and
// sync_partial_err).
type SyncCounter interface {
	SyncCounts(shard int) (full, partialOK, partialErr int64)
}

// SyncCounts is shard's SyncCounter figures, zeros without replication.
func (s *Server) SyncCounts(shard int) (full, partialOK, partialErr int64) {
	if c, ok := s.Opts.Replication.(SyncCounter); ok {
		return c.SyncCounts(shard)
	}
	return 0, 0, 0
}

// LinkDropper is implemented by a Replication whose replica links can be
// dropped on request (CLIENT KILL of the primary's address, or TYPE master).
type LinkDropper interface {
	DropLink(shard int) bool
}

// DropPrimaryLink closes shard's connection to its primary while the process
// is a replica; the link reconnects and resumes. It reports whether one was
// closed.
func (s *Server) DropPrimaryLink(shard int) bool {
	if d, ok := s.Opts.Replication.(LinkDropper); ok && s.IsReplica() {
		return d.DropLink(shard)
	}
	return false
}

// PrimaryAddrOf is the address shard's link dials ("" when not a replica):
// the primary's port plus the shard's index.
func (s *Server) PrimaryAddrOf(shard int) string {
	if !s.IsReplica() {
		return ""
	}
	host, port := s.PrimaryAddr()
	if host == "" {
		return ""
	}
	return net.JoinHostPort(host, strconv.Itoa(port+shard))
}

// replState is the process's replication role.
type replState struct {
	// Replica is set while the process follows a primary.
	Replica atomic.Bool
	// Epoch numbers the REPLICAOF changes: calls of an older follower are
	// refused.
	Epoch atomic.Uint64
	Mu    sync.Mutex
	Host  string // mu guards
	Port  int    // mu guards
}

// IsReplica reports whether the process is a replica.
func (s *Server) IsReplica() bool { return s.Repl.Replica.Load() }

// PrimaryAddr returns the primary's host and port.
func (s *Server) PrimaryAddr() (string, int) {
	s.Repl.Mu.Lock()
	defer s.Repl.Mu.Unlock()
	return s.Repl.Host, s.Repl.Port
}

// StartReplica makes the process a replica of host:port before it serves:
// the shards open as a replica (nothing expires on load) and follow once
// Start has run. Call before Start.
func (s *Server) StartReplica(host string, port int) {
	s.Repl.Mu.Lock()
	s.Repl.Host, s.Repl.Port = host, port
	s.Repl.Mu.Unlock()
	s.Repl.Replica.Store(true)
}

// FollowConfigured starts the links of a replica set up with StartReplica.
func (s *Server) FollowConfigured() error {
	if !s.IsReplica() || s.Opts.Replication == nil {
		return nil
	}
	host, port := s.PrimaryAddr()
	if host == "" {
		// A cluster member waiting for the control plane to name its primary.
		return nil
	}
	return s.Opts.Replication.Follow(host, port, s.Repl.Epoch.Add(1))
}

// shardRepl is a shard's replication state; shard goroutine only unless
// noted.
type shardRepl struct {
	// Replicas are the replicas streaming from this shard.
	Replicas []*ReplicaLink
	// Waits are the clients parked in WAIT; an entry whose client was
	// unblocked otherwise (deadline, CLIENT UNBLOCK, disconnect) is
	// dropped when next looked at.
	Waits []WaitReq
	// Due is set by an ACK when a parked WAIT may be done.
	Due atomic.Bool
	// view is the replicas for other shards' readers (CLUSTER, INFO).
	viewMu sync.Mutex
	view   []ReplicaInfo

	// tasks are functions to run on the shard goroutine (replica apply).
	taskMu   sync.Mutex
	tasks    []func()
	hasTasks atomic.Bool
}

// ReplicaLink is one replica connected to a primary shard.
type ReplicaLink struct {
	C          *Client // the replica's connection
	Addr       string  // its remote address
	NodeID     string  // the node id it announced (REPLCONF)
	ListenPort int     // the port it announced (REPLCONF listening-port)
	AnnounceIP string  // the address it announced ("": its connection's host)
	Ack        uint64  // the highest log sequence it acknowledged
	AckAtMs    int64   // when it last acknowledged (unix ms), for the lag
	SinceMs    int64   // when it connected (unix ms)
}

// ReplicaInfo describes a replica of a shard for CLUSTER and INFO.
type ReplicaInfo struct {
	Addr       string // the replica's remote address
	NodeID     string // the node id it announced
	ListenPort int    // the port it announced
	// AnnounceIP is the address the replica announced ("": its
	// connection's host).
	AnnounceIP string
	Ack        uint64 // the highest log sequence it acknowledged
	AckAtMs    int64  // when it last acknowledged (unix ms)
}

// WaitReq is a client parked in WAIT: a blocked client without keys
// (blocking.go) that acknowledgements wake instead of writes.
type WaitReq struct {
	Bc     *blockedClient // the parked client
	Want   int            // the number of replicas WAIT asked for
	Target uint64         // the log sequence they must acknowledge
	// AOF marks a WAITAOF, which replies [local, replicas]; Local says it
	// also waits for this shard's log to be fsynced through Target.
	AOF, Local bool
}

// do runs fn on the shard goroutine and waits for it; false when the
// shard has stopped.
func (sh *Shard) do(fn func()) bool {
	done := make(chan struct{})
	r := &sh.Repl
	r.taskMu.Lock()
	r.tasks = append(r.tasks, func() { fn(); close(done) })
	r.taskMu.Unlock()
	r.hasTasks.Store(true)
	sh.Ring.Signal()
	select {
	case <-done:
		return true
	case <-sh.Done:
		return false
	}
}

// Post queues fn to run on the shard goroutine without waiting for it.
func (sh *Shard) Post(fn func()) {
	r := &sh.Repl
	r.taskMu.Lock()
	r.tasks = append(r.tasks, fn)
	r.taskMu.Unlock()
	r.hasTasks.Store(true)
	sh.Ring.Signal()
}

// runTasks runs the queued tasks; drain calls it with the token held.
func (sh *Shard) runTasks() int {
	r := &sh.Repl
	r.taskMu.Lock()
	ts := r.tasks
	r.tasks = nil
	r.hasTasks.Store(false)
	r.taskMu.Unlock()
	if len(ts) > 0 {
		sh.NowMs = sh.Srv.Now().UnixMilli()
	}
	for _, t := range ts {
		t()
	}
	return len(ts)
}

// ---- primary side ----

// ClientStream is a replica's connection as a ReplicaStream.
type ClientStream struct {
	C *Client // the replica's connection
}

// Write queues b on the connection's asynchronous writer; false once the
// connection is gone or cut off (or cannot write asynchronously). An
// empty b writes nothing but has the event loop refresh its count of the
// outbound buffer: a sender waiting for Pending to fall polls with it, as
// nothing else refreshes that count on a connection that sends no input.
func (s ClientStream) Write(b []byte) bool {
	if s.C.Killed() || s.C.IsClosed() {
		return false
	}
	w, ok := s.C.Conn.(AsyncWriter)
	if !ok {
		return false
	}
	w.WriteAsync(b)
	return !s.C.Killed()
}

// Pending is the reply bytes the connection has not written yet.
func (s ClientStream) Pending() int64 { return s.C.Out.Pending() }

// Close closes the connection.
func (s ClientStream) Close() {
	if s.C.Conn != nil {
		_ = s.C.Conn.Close()
	}
}

// RunChain is the run ids a replica of this shard would follow: this
// process's, then, on a replica, those its link learned of its primary
// and the primaries above it.
func (sh *Shard) RunChain() []string {
	chain := []string{sh.Srv.RunID()}
	if sh.Srv.IsReplica() {
		chain = append(chain, sh.Srv.Link(sh.Idx).PrimaryChain...)
	}
	return chain
}

// RunID is the process's run id (INFO server run_id).
func (s *Server) RunID() string { return s.runID }

// LiveReplicas drops replicas whose connection closed and returns the
// rest.
func (sh *Shard) LiveReplicas() []*ReplicaLink {
	rs := sh.Repl.Replicas
	k := 0
	for _, r := range rs {
		if !r.C.IsClosed() && !r.C.Killed() {
			rs[k] = r
			k++
		}
	}
	if k != len(rs) {
		clear(rs[k:])
		sh.Repl.Replicas = rs[:k]
		sh.PublishReplicas()
	}
	return sh.Repl.Replicas
}

// PublishReplicas copies the replica list for other goroutines.
func (sh *Shard) PublishReplicas() {
	v := make([]ReplicaInfo, 0, len(sh.Repl.Replicas))
	for _, r := range sh.Repl.Replicas {
		v = append(v, ReplicaInfo{Addr: r.Addr, NodeID: r.NodeID, ListenPort: r.ListenPort, AnnounceIP: r.AnnounceIP, Ack: r.Ack, AckAtMs: r.AckAtMs})
	}
	sh.Repl.viewMu.Lock()
	sh.Repl.view = v
	sh.Repl.viewMu.Unlock()
	// An acknowledgement, or a replica come or gone, may release replies
	// held for synchronous replication.
	sh.SyncAcks()
}

// Replicas returns the replicas of shard i (any goroutine).
func (s *Server) Replicas(i int) []ReplicaInfo {
	r := &s.ShardList[i].Repl
	r.viewMu.Lock()
	defer r.viewMu.Unlock()
	return append([]ReplicaInfo(nil), r.view...)
}

// AckedAtLeast counts the replicas that acknowledged seq or later.
func (sh *Shard) AckedAtLeast(seq uint64) int {
	n := 0
	for _, r := range sh.LiveReplicas() {
		if r.Ack >= seq {
			n++
		}
	}
	return n
}

// GoodReplicas counts the replicas heard from within min-replicas-max-lag.
func (sh *Shard) GoodReplicas() int64 {
	lagMs := sh.Srv.Opts.Live.MinReplicasMaxLag() * 1000
	n := int64(0)
	for _, r := range sh.LiveReplicas() {
		if sh.NowMs-r.AckAtMs <= lagMs {
			n++
		}
	}
	return n
}

// replicationRefusal is the error for a write refused for replication's
// sake (READONLY on a replica, NOREPLICAS on a primary), else "".
func (sh *Shard) replicationRefusal() string {
	if sh.Srv.IsReplica() {
		if sh.Srv.ReadOnlyReplica() {
			return ErrReadOnlyReplica
		}
		// replica-read-only no: the write is served, in memory only
		// (sh.record drops its records).
		return ""
	}
	if min := sh.Srv.Opts.Live.MinReplicasToWrite(); min > 0 && sh.GoodReplicas() < min {
		return "NOREPLICAS Not enough good replicas to write."
	}
	return ""
}

// ErrReadOnlyReplica is the reply to a client's write on a replica under
// replica-read-only yes.
const ErrReadOnlyReplica = "READONLY You can't write against a read only replica."

// ReadOnlyReplica reports whether the process is a replica that refuses its
// clients' writes (replica-read-only yes, the default).
func (s *Server) ReadOnlyReplica() bool { return s.IsReplica() && s.Opts.Live.ReplicaReadOnly() }

// staleRefusal is the MASTERDOWN error for a command that needs fresh data
// on a replica whose link is down under replica-serve-stale-data no.
func (sh *Shard) staleRefusal(cmd *Command) string {
	if !sh.Srv.IsReplica() || cmd.Flags&FlagStale != 0 || sh.Srv.Opts.Live.ReplicaServeStaleData() || sh.Srv.Opts.Replication == nil {
		return ""
	}
	if sh.Srv.Opts.Replication.Link(sh.Idx).Up {
		return ""
	}
	return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
}

// ---- WAIT ----

// LiveWaits drops the entries of WAITs whose client is no longer parked
// in them (deadline, CLIENT UNBLOCK, disconnect) and returns the rest.
func (sh *Shard) LiveWaits() []WaitReq {
	k := 0
	for _, w := range sh.Repl.Waits {
		if w.Bc.c.Blk == w.Bc && !w.Bc.done {
			sh.Repl.Waits[k] = w
			k++
		}
	}
	clear(sh.Repl.Waits[k:])
	return sh.Repl.Waits[:k]
}

// WaitReply writes WAIT's count unless the client turned replies off.
func WaitReply(x *Ctx, count int) {
	if x.C.ReplyMode&ReplyOff == 0 {
		x.W.Int(int64(count))
	}
}

// WaitAOFReply writes WAITAOF's [local, replicas] unless the client
// turned replies off.
func WaitAOFReply(x *Ctx, local bool, count int) {
	if x.C.ReplyMode&ReplyOff != 0 {
		return
	}
	x.W.ArrayHeader(2)
	if local {
		x.W.Int(1)
	} else {
		x.W.Int(0)
	}
	x.W.Int(int64(count))
}

// LocalSynced reports whether this shard's log has fsynced every record
// through seq, as WAITAOF's local count means it. Under fsync always a
// reply leaves only once the records before it are synced (the group
// commit), so every record already written counts.
func (sh *Shard) LocalSynced(seq uint64) bool {
	j, ok := sh.Journal.(*WALJournal)
	if !ok || j.Opts.Policy == persistence.FsyncNo {
		return false
	}
	return j.Opts.Policy == persistence.FsyncAlways || j.WAL.SyncedSequence() >= seq
}

// LocalFsyncOff reports whether WAITAOF's numlocal must be refused: no
// log, or a log the server never fsyncs by itself (fsync no), which is
// what Redis's appendonly no is to it.
func (sh *Shard) LocalFsyncOff() bool {
	j, ok := sh.Journal.(*WALJournal)
	return !ok || j.Opts.Policy == persistence.FsyncNo
}

// pollLocalWaits marks the parked WAITAOFs due for another look when one
// waits for this shard's fsync (fsync everysec syncs off the loop and
// nothing else wakes them); the periodic tick calls it.
func (sh *Shard) pollLocalWaits() {
	for _, w := range sh.Repl.Waits {
		if w.Local {
			sh.Repl.Due.Store(true)
			return
		}
	}
}

// ResumeWaits unblocks the parked WAITs whose replicas have acknowledged
// enough, forgets those unblocked otherwise, and runs what the woken
// clients sent meanwhile. It returns how many batches it finished, each
// queued for the commit (or handed over at once, see DeliverNow).
func (sh *Shard) ResumeWaits() int {
	sh.Repl.Due.Store(false)
	if len(sh.Repl.Waits) == 0 {
		return 0
	}
	sh.NowMs = sh.Srv.Now().UnixMilli()
	for _, w := range sh.Repl.Waits {
		bc := w.Bc
		if bc.c.Blk != bc || bc.done || bc.c.Killed() || bc.c.IsClosed() {
			// Ended otherwise, or gone (the reaper forgets it).
			continue
		}
		if count := sh.AckedAtLeast(w.Target); count >= w.Want && (!w.Local || sh.LocalSynced(w.Target)) {
			x := sh.blockCtx(bc)
			before := len(x.W.Buf)
			if w.AOF {
				WaitAOFReply(x, sh.LocalSynced(w.Target), count)
			} else {
				WaitReply(x, count)
			}
			bc.silence(x.W, before)
			*x = Ctx{}
			sh.unblocked(bc)
		}
	}
	sh.Repl.Waits = sh.LiveWaits()
	if len(sh.Blk.Resume) == 0 {
		return 0
	}
	return sh.ResumeBlocked()
}

// DeliverNow hands a finished WAIT's batch to its connection at once,
// instead of through the commit group (which, under fsync always, waits for
// the sync of writes of other clients), when that is safe: the batch ended
// with the WAIT, so its replies depend only on records up to target, which
// the log has made durable; and every earlier batch of the client has been
// handed over, so replies stay in order.
func (sh *Shard) DeliverNow(b *Batch, target uint64) bool {
	c := b.Client
	if sh.syncActive() {
		// The batch's replies (the commands before the WAIT) wait for
		// the replicas like any other (syncrepl.go).
		return false
	}
	j, ok := sh.Journal.(*WALJournal)
	if !ok || c.Blk != nil || c.undelivered.Load() != 0 || j.WAL.DurableSequence() < target ||
		c.SubCount.Load() != 0 || c.Trk != nil || len(c.pushBuf) > 0 {
		return false
	}
	b.Sink.Deliver(b)
	return true
}

// ---- replica side ----

// ReplicationShards is the shard count a replica announces.
func (s *Server) ReplicationShards() int { return len(s.ShardList) }

// LastSequence is shard's last appended sequence: where a replica resumes.
func (s *Server) LastSequence(shard int) uint64 {
	if j, ok := s.ShardList[shard].Journal.(*WALJournal); ok {
		return j.WAL.LastSequence()
	}
	return 0
}

// DurableSequence is shard's durable sequence: what a replica acknowledges.
func (s *Server) DurableSequence(shard int) uint64 {
	if j, ok := s.ShardList[shard].Journal.(*WALJournal); ok {
		return j.WAL.DurableSequence()
	}
	return 0
}

// SyncedSequence is the last sequence shard's log has fsynced with every
// record before it: what a replica acknowledges (under fsync everysec and
// no, records written but not synced are not acknowledged).
func (s *Server) SyncedSequence(shard int) uint64 {
	if j, ok := s.ShardList[shard].Journal.(*WALJournal); ok {
		return j.Published().SyncedSequence()
	}
	return 0
}

// SyncForAck fsyncs shard's log when its policy is fsync no, whose WAL
// never syncs by itself: a replica's follower calls it (at most once a
// second, only while written records are not synced) so that it has
// something durable to acknowledge. Under always and everysec the log
// syncs on its own and this does nothing.
func (s *Server) SyncForAck(shard int) error {
	sh := s.ShardList[shard]
	var err error
	if !sh.do(func() {
		if j, ok := sh.Journal.(*WALJournal); ok && j.Opts.Policy == persistence.FsyncNo {
			err = j.WAL.Sync()
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
	sh := s.ShardList[shard]
	var err error
	if !sh.do(func() { err = sh.applyReplicated(epoch, recs) }) {
		return errShardStopped
	}
	return err
}

func (sh *Shard) applyReplicated(epoch uint64, recs []byte) error {
	if !sh.Srv.IsReplica() || sh.Srv.Repl.Epoch.Load() != epoch {
		return errStaleFollower
	}
	j, ok := sh.Journal.(*WALJournal)
	if !ok {
		return errors.New("keyspace: a replica needs the write-ahead log")
	}
	if err := j.WAL.Err(); err != nil {
		return err
	}
	if sh.Snap != nil {
		// A running snapshot copies buckets before commands change them;
		// replicated records bypass commands, so it is finished first.
		sh.FinishSnapshotNow()
	}
	for len(recs) > 0 {
		last := j.WAL.LastSequence()
		r, n, err := persistence.DecodeRecord(recs)
		if err != nil {
			return fmt.Errorf("replication: corrupted record after sequence %d: %w", last, err)
		}
		if r.Seq != last+1 {
			return fmt.Errorf("replication: record %d does not follow sequence %d", r.Seq, last)
		}
		if err := sh.ApplyRecord(r); err != nil {
			return fmt.Errorf("replication: record %d: %w", r.Seq, err)
		}
		if _, err := j.WAL.AppendEncoded(recs[:n]); err != nil {
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
	if len(sh.Tx.Watched) == 0 {
		return
	}
	var broken []*Client
	for _, ws := range sh.Tx.Watched {
		for _, wk := range ws {
			broken = append(broken, wk.C)
		}
	}
	for _, c := range broken {
		if !c.Tx.DirtyCAS {
			c.dirty()
		}
		sh.UnwatchAll(c)
	}
}

// InstallReplicaSnapshot makes the snapshot file at path (in the data
// directory) shard's whole state at seq: the shard's log and snapshots
// are removed, the file becomes its snapshot, the data is loaded from it
// and a new log starts after seq. seq 0 with path "" empties the shard.
func (s *Server) InstallReplicaSnapshot(shard int, epoch uint64, path string, seq uint64, replID string) error {
	sh := s.ShardList[shard]
	var err error
	if !sh.do(func() {
		if err = sh.installSnapshot(epoch, path, seq); err == nil {
			// The new history's id goes last: a crash before it leaves the
			// old id, which only costs another full resync.
			err = sh.SetReplID(replID)
		}
	}) {
		return errShardStopped
	}
	return err
}

func (sh *Shard) installSnapshot(epoch uint64, path string, seq uint64) error {
	if !sh.Srv.IsReplica() || sh.Srv.Repl.Epoch.Load() != epoch {
		return errStaleFollower
	}
	j, ok := sh.Journal.(*WALJournal)
	if !ok {
		return errors.New("keyspace: a replica needs the write-ahead log")
	}
	sh.FinishSnapshotNow()
	// Commit what was appended, then close the log: the old history goes.
	sh.Commit()
	if err := j.WAL.Close(); err != nil {
		sh.Logger().Warn("closing the WAL before a full resync", zap.Error(err))
	}
	o := j.Opts
	// Segments and snapshots go first: a crash before the rename leaves
	// an empty shard (or an older consistent prefix), never the new
	// snapshot followed by records of the old history.
	if err := persistence.RemoveShardFiles(o.FS, o.Dir, sh.Idx); err != nil {
		return sh.failInstall(err)
	}
	if path != "" {
		final := o.Dir + "/" + persistence.SnapshotName(sh.Idx, seq)
		if err := o.FS.Rename(path, final); err != nil {
			return sh.failInstall(err)
		}
		if err := o.FS.SyncDir(o.Dir); err != nil {
			return sh.failInstall(err)
		}
	}
	for _, db := range sh.DBs {
		db.Flush()
	}
	sh.breakAllWatches()
	if path != "" {
		if _, err := persistence.LoadSnapshots(o.FS, o.Dir, sh.Idx, sh.Srv.Log, persistence.SnapshotLoadOptions{}, sh.LoadSnapshotEntry); err != nil {
			return sh.failInstall(err)
		}
	}
	wal, err := persistence.OpenWAL(o.FS, o.Dir, sh.Idx, seq, sh.walOptions(o))
	if err != nil {
		return sh.failInstall(err)
	}
	j.WAL = wal
	j.published.Store(wal)
	j.appended = 0
	sh.SnapStatus.LastSeq = seq
	// Replicas of this replica streamed the history just replaced: they
	// reconnect and resync from the new one.
	sh.DropReplicas()
	if path != "" {
		sh.SnapStatus.LastStatus = "ok"
	}
	if h := sh.Srv.Opts.OnDurable; h != nil {
		h(sh.Idx, seq)
	}
	return nil
}

// failInstall reports a full resync that could not be installed. The
// shard's log is closed by then: the process must be restarted, which the
// error says (the shard refuses writes meanwhile, and a replica takes
// none).
func (sh *Shard) failInstall(err error) error {
	return fmt.Errorf("replication: installing the primary's snapshot on shard %d failed (restart the replica): %w", sh.Idx, err)
}

// ---- REPLICAOF, ROLE, INFO ----

// DropReplicas closes the connections of the shard's replicas (shard
// goroutine).
func (sh *Shard) DropReplicas() {
	for _, r := range sh.Repl.Replicas {
		if r.C.Conn != nil {
			_ = r.C.Conn.Close()
		}
	}
}

// HostPort is the address the replica is reached on, as Sentinel and ROLE
// report it: what it announced (REPLCONF ip-address and listening-port),
// else its connection's.
func (r *ReplicaLink) HostPort() (string, string) {
	host, port := splitAddr(r.Addr)
	if r.ListenPort > 0 {
		port = strconv.Itoa(r.ListenPort)
	}
	if r.AnnounceIP != "" {
		host = r.AnnounceIP
	}
	return host, port
}

// Link is shard's link status ("" host: not following).
func (s *Server) Link(shard int) LinkStatus {
	if s.Opts.Replication == nil {
		return LinkStatus{}
	}
	return s.Opts.Replication.Link(shard)
}

func splitAddr(a string) (string, string) {
	h, p, err := net.SplitHostPort(a)
	if err != nil {
		return a, "0"
	}
	return h, p
}

// ReplOffset is the shard's replication offset: the sequence of the last
// record appended to its WAL, 0 without one.
func (sh *Shard) ReplOffset() uint64 {
	if j, ok := sh.Journal.(*WALJournal); ok {
		return j.WAL.LastSequence()
	}
	return 0
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
	id = RandomHex(40)
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
	sh := s.ShardList[shard]
	sh.Repl.viewMu.Lock()
	defer sh.Repl.viewMu.Unlock()
	if j, ok := sh.Journal.(*WALJournal); ok {
		return j.ReplID
	}
	return ""
}

// SetReplID changes shard's history id (shard goroutine).
func (sh *Shard) SetReplID(id string) error {
	j, ok := sh.Journal.(*WALJournal)
	if !ok {
		return nil
	}
	if err := storeReplID(j.fs, j.dir, sh.Idx, id); err != nil {
		return err
	}
	sh.Repl.viewMu.Lock()
	j.ReplID = id
	sh.Repl.viewMu.Unlock()
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
