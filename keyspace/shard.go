package keyspace

import (
	"crypto/rand"
	"encoding/hex"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/persistence"
)

// RingCapacity bounds the batches waiting for one shard. A full ring makes
// reactors stop reading from the connections that feed it.
const RingCapacity = 4096

// spinRounds is how many times an idle keyspace loop yields before it
// parks; a batch that arrives meanwhile is picked up without a wake-up.
const spinRounds = 64

// Waker is a connection that stopped reading because its shard's ring was
// full; the shard calls Wake once there is room again.
type Waker interface {
	Wake()
}

// Shard owns a range of slots: its databases, its log and the goroutine
// that runs every command on them. Only that goroutine touches the data.
type Shard struct {
	Idx int     // the shard's index in Server.ShardList
	Srv *Server // the server the shard belongs to
	DBs []*DB   // the databases, by number
	// Arena holds the entries of every database of the shard.
	Arena *arena
	// MemPublished and MemPeak are the shard's used_memory and its peak,
	// and ArenaMapped the bytes its arena maps, as last published for
	// other goroutines (INFO of another shard, the runtime tuner).
	MemPublished, MemPeak, ArenaMapped atomic.Int64
	// evictCursor rotates the database eviction samples first.
	evictCursor int
	// lastCmd is the command last looked up (lookup), named as sent in
	// lastName[:lastNameLen].
	lastCmd     *Command
	lastName    [maxCommandName]byte
	lastNameLen int

	Ring *ring         // the batches reactors hand to the shard
	Done chan struct{} // closed once the shard's loop has exited
	quit atomic.Bool
	// stopped is set once stop has finished: the loop has exited and the
	// log is closed.
	stopped atomic.Bool
	// owner is the ownership token (1: held); see acquire.
	owner atomic.Int32

	waitMu  sync.Mutex
	waiters []Waker
	waiting atomic.Bool

	// NowMs is the time, in unix milliseconds, the running command sees.
	NowMs int64
	Ctx   Ctx // the context every command of the shard runs with, reused
	// keyIdx is scratch space for key positions.
	keyIdx []int
	// guards are the keys commands guard against changes (offloop.go).
	guards map[WatchKey][]guardRef
	// aclReq, aclKeyRefs and aclKeyIdx are reused by every ACL check of
	// a restricted user (acl.go).
	aclReq     acl.Request
	aclKeyRefs []KeyRef
	aclKeyIdx  []int
	// scratch is reusable space for formatting and WAL payloads.
	scratch []byte
	// expiredFields is the reused list of the hash fields one expiry
	// deletes, for their HashDel record.
	expiredFields [][]byte

	// Journal is the shard's durable log; nil when persistence is off.
	Journal Journal
	// loggedWritesInline lets TryRun run writes although the shard keeps a
	// log (LoggedWritesInline); set when the log is attached.
	loggedWritesInline bool
	// logFail is set once the shard has seen its log fail (logfail.go).
	logFail *logFailure
	// appends counts the records the shard appended to its log; ranWrite
	// is set when a write command runs. runFrom reads both around each
	// command to note what its reply depends on.
	appends  uint64
	ranWrite bool
	// touchedData is set when a command that reads or writes the data
	// runs (Call); runFrom notes it on the batch (syncrepl.go).
	touchedData bool
	// group collects the batches run in one drain that wait for the same
	// durability point; groups recycles them.
	group  *commitGroup
	groups sync.Pool

	// Snap is the snapshot in progress, nil when none; SnapFinishing is
	// set while its file is being finished in the background.
	Snap          *snapshotRun
	SnapFinishing bool // the snapshot's file is being finished
	snapDone      chan snapshotResult
	SnapStatus    snapshotInfo // the last snapshot's outcome (INFO persistence)

	// ActiveExpireOn lets the active expiry cycle run; DEBUG
	// SET-ACTIVE-EXPIRE 0 turns it off.
	ActiveExpireOn atomic.Bool
	// nextCronMs is when the periodic work is due again (unix ms).
	nextCronMs   int64
	expireCursor int

	Stats    shardStats   // the shard's counters (INFO stats)
	CmdStats commandStats // per-command and per-error counters (INFO commandstats, errorstats)

	// FamilyState is the state the command families keep for this shard
	// (package commands: the geo searches' scratch, the CHANGES feed). The
	// engine holds it for them and never reads it; shard goroutine only.
	FamilyState any

	// Pubsub is the shard's subscription tables; deliverTo is scratch
	// space for PUBLISH. groupGen numbers the commit group being built.
	Pubsub    pubsubState
	deliverTo []*Client
	// pushW holds the frames of a command whose reply is silenced.
	pushW    codec.Writer
	groupGen uint64
	// Trk is the CLIENT TRACKING state, nil while no client tracks.
	Trk *shardTracking
	// Slow is the slow log (slowlog.go).
	Slow Slowlog
	// Latency is the latency monitor (latency.go).
	Latency LatencyMonitor
	// hot is the sampled hot-key table (hotkeys.go); a pointer, so that
	// its 10 KB stay out of the shard's hot fields.
	hot *hotKeys
	// metrics is the copy of the shard's figures a scraper reads
	// (metrics.go).
	metrics *metricsPub
	// Pause is the CLIENT PAUSE state (pause.go); writing is set while a
	// write command runs.
	Pause shardPause
	// Mig is the shard's part in slot migrations (migrate.go).
	Mig     shardMigration
	writing bool
	// callDepth counts the command handlers running, nested ones (of EXEC
	// and scripts) included.
	callDepth int
	// runDepth counts the batches running (runFrom); callMark is the clock
	// reading that ended the last top-level command of the running batch
	// (0: none), which the next one takes as its start instead of reading
	// the clock again (Call).
	runDepth int
	callMark time.Duration
	// pushPending lists the clients with frames in pushBuf.
	pushPending []*Client
	// frameBufs are reused for the RESP2 and RESP3 frames of a PUBLISH.
	frameBufs [2][]byte
	// Tx is the watch table and the EXEC record unit (multi.go).
	Tx shardTx
	// Scr is the Lua engine and the running script (scripting.go).
	Scr shardScripts
	// Repl is the shard's replicas, WAITs and tasks (replication.go).
	Repl shardRepl
	// Sync holds the replies that wait for replicas (syncrepl.go).
	Sync syncHold
	// Blk is the table of blocked clients (blocking.go).
	Blk blocking
	// wakeAt maps keys whose blocked clients must be offered the key
	// again at a time (a stream's DELAY hold falling due) to that time
	// (wake.go).
	wakeAt map[BlockKey]int64
}

type shardStats struct {
	Commands Counter
	Batches  Counter
	// InlineBatches counts the batches reactors ran themselves (TryRun).
	InlineBatches Counter
	ExpiredKeys   Counter
	EvictedKeys   Counter
	RingFull      Counter
}

func newShard(srv *Server, idx, databases int) *Shard {
	sh := &Shard{
		Idx:      idx,
		Srv:      srv,
		Ring:     NewRing(RingCapacity),
		Done:     make(chan struct{}),
		snapDone: make(chan snapshotResult, 1),
	}
	// Keys recovered at start are accessed as of now.
	sh.NowMs = srv.Now().UnixMilli()
	sh.Arena = newArena()
	for i := 0; i < databases; i++ {
		db := newDBIn(i, sh.Arena)
		db.clockMs = &sh.NowMs
		db.lfu = srv.Opts.Live.LFU
		db.blk = &sh.Blk
		sh.DBs = append(sh.DBs, db)
	}
	sh.ActiveExpireOn.Store(true)
	sh.initHotKeys()
	sh.metrics = &metricsPub{}
	sh.Ctx.S = sh
	return sh
}

// Index is the shard's number.
func (sh *Shard) Index() int { return sh.Idx }

// Submit hands a batch to the shard. false means the ring is full: the
// caller keeps the bytes, registers with WaitRoom and retries when woken.
func (sh *Shard) Submit(b *Batch) bool {
	if sh.Ring.Push(b) {
		return true
	}
	sh.Stats.RingFull.Add(1)
	return false
}

// WaitRoom registers w to be woken once the shard has drained its ring.
func (sh *Shard) WaitRoom(w Waker) {
	sh.waitMu.Lock()
	sh.waiters = append(sh.waiters, w)
	sh.waitMu.Unlock()
	sh.waiting.Store(true)
	sh.Ring.Signal()
}

func (sh *Shard) wakeWaiters() {
	sh.waitMu.Lock()
	ws := sh.waiters
	sh.waiters = nil
	sh.waiting.Store(false)
	sh.waitMu.Unlock()
	for _, w := range ws {
		w.Wake()
	}
}

func (sh *Shard) start() {
	go sh.loop()
}

// Stop ends the shard's loop and waits for it, then, with persistence,
// finishes a snapshot in progress, takes the shutdown snapshot when
// configured and the log moved since the last one, and closes the log.
// The shard stays acquired: nothing runs on it any more.
func (sh *Shard) Stop() error {
	sh.quit.Store(true)
	sh.Ring.Signal()
	<-sh.Done
	// Keep the token: nothing runs on the shard any more but shutdown.
	sh.Acquire()
	sh.closeScripts()
	if sh.Journal == nil {
		return nil
	}
	// The loop has exited: this goroutine owns the shard now.
	sh.FinishSnapshotNow()
	if j, ok := sh.Journal.(*WALJournal); ok && j.Opts.SnapshotOnShutdown && j.WAL.Err() == nil &&
		j.WAL.LastSequence() != sh.SnapStatus.LastSeq {
		if err := sh.StartSnapshot(); err == nil {
			sh.FinishSnapshotNow()
		} else {
			sh.Logger().Warn("snapshot at shutdown", zap.Error(err))
		}
	}
	return sh.Journal.Close()
}

// loop is the keyspace loop: drain the ring, run every batch, commit, hand
// replies back; when idle, run the active expiry cycle and park.
func (sh *Shard) loop() {
	// The loop is not locked to an OS thread: with GOMAXPROCS=1 (a process
	// pinned to one CPU) a locked goroutine turns every hand-off between
	// reactor and shard into an OS thread switch.
	defer close(sh.Done)
	tick := time.NewTicker(time.Second / time.Duration(max(sh.Srv.Opts.Live.Hz(), 1)))
	defer tick.Stop()
	idle := 0
	for {
		sh.Acquire()
		if sh.metrics.want.Load() {
			sh.publishMetrics()
		}
		n := sh.Drain()
		if n > 0 && sh.NowMs >= sh.nextCronMs {
			// A shard that never goes idle still runs its periodic work.
			sh.cron()
		}
		if n == 0 && sh.quit.Load() {
			sh.Release()
			return
		}
		if n == 0 && sh.Snap != nil {
			sh.SnapshotStep(snapshotBucketsPerStep)
			sh.Release()
			continue
		}
		if n == 0 && sh.Mig.cleanup != nil && sh.cleanupStep() {
			sh.Release()
			continue
		}
		sh.Release()
		if n > 0 {
			idle = 0
			continue
		}
		if idle < spinRounds {
			idle++
			runtime.Gosched()
			continue
		}
		sh.Ring.sleeping.Store(1)
		if !sh.Ring.Empty() || sh.quit.Load() || sh.waiting.Load() || sh.metrics.want.Load() || sh.Repl.hasTasks.Load() || sh.Repl.Due.Load() || sh.Tx.closedN.Load() != 0 {
			sh.Ring.sleeping.Store(0)
			if sh.waiting.Load() {
				sh.wakeWaiters()
			}
			continue
		}
		select {
		case <-sh.Ring.wake:
			sh.Acquire()
			// A closed connection is released at once, not at the next
			// batch or tick (Server.detach signals).
			sh.ReapClosed()
			sh.blockTick()
			sh.Release()
		case <-sh.Blk.timerC():
			sh.Acquire()
			sh.Blk.TimerAt = 0
			sh.blockTick()
			sh.Release()
		case <-tick.C:
			sh.Acquire()
			sh.cron()
			sh.Release()
		}
		sh.Ring.sleeping.Store(0)
		idle = 0
	}
}

// Acquire takes the shard's ownership token: whoever holds it is the only
// goroutine touching the shard's data. The keyspace loop holds it while it
// drains; an idle shard lets a reactor run a batch inline (TryRun).
func (sh *Shard) Acquire() {
	for !sh.owner.CompareAndSwap(0, 1) {
		runtime.Gosched()
	}
}

// Release gives back the ownership token taken by Acquire.
func (sh *Shard) Release() { sh.owner.Store(0) }

// TryRun runs b at once on the calling goroutine (a reactor) if no other
// goroutine holds the shard and nothing waits in its ring, sparing the
// hand-offs through the ring and back, and commits it. ran is false when
// the shard is busy or b must run on the shard's own goroutine: submit b
// instead. With a log, a batch that may write goes to the loop too unless
// LoggedWritesInline allowed it when the log was attached: the loop
// writes the log once for every batch of a drain, where a write run here
// pays a log write of its own. b's replies arrive through
// b.Sink, as those of a batch the loop drains: during the call when
// nothing needs to become durable first, else once the log has synced.
// The caller must not run a connection's batch inline while an earlier
// batch of the same connection is still in the ring or awaiting the log.
func (sh *Shard) TryRun(b *Batch) (ran bool) {
	if sh.quit.Load() || !sh.owner.CompareAndSwap(0, 1) {
		return false
	}
	if !sh.Ring.Empty() || sh.Repl.hasTasks.Load() || sh.Blk.mailN.Load() != 0 || sh.Repl.Due.Load() || sh.syncActive() {
		// Batches read before this one wait in the ring, or work
		// another goroutine handed the shard (a subscriber's close
		// on another shard, a wake-up) waits for the loop, which does
		// it before it runs the next batch (Drain): both come first,
		// on the loop, as the order across connections of one reactor
		// is the order it read them. Replies that wait for replicas go
		// through the commit group's hold (syncrepl.go), which the
		// loop manages.
		sh.Release()
		return false
	}
	ok, writes := sh.batchMayRunInline(b)
	if !ok || sh.Blk.Keyed.Load() != 0 || b.Client.Blk != nil || sh.Pause.Kind != PauseOff || sh.Mig.frozenID != 0 {
		// Only what batchMayRunInline allows runs here. Whatever may park
		// a client runs on the shard goroutine (blocking.go): a parked
		// client's batches are held there, clients blocked on keys are
		// served there, and so is whatever runs while a pause or a
		// migration's freeze is in force (a read of the frozen range is
		// held too, migrate.go). Clients parked without keys (WAIT, or a
		// pause that has ended: they are resumed in the same hold of the
		// shard that ended it) do not keep others from running inline.
		sh.Release()
		return false
	}
	sh.NowMs = sh.Srv.Now().UnixMilli()
	// Closed clients are released before anything runs, as in drain.
	sh.ReapClosed()
	timerAt := sh.Blk.TimerAt
	if !sh.Run(b) { // nothing here should park (see above)
		sh.Queue(b)
	}
	sh.commitRun()
	if sh.Blk.TimerAt != timerAt {
		// The batch armed the loop's timer (an XADD DELAY hold's wake-up,
		// WakeKeyAt): a parked loop waits on the timer it had, so it is
		// woken to wait on this one.
		sh.Ring.Signal()
	}
	if len(sh.Blk.Resume) > 0 || sh.Blk.mailN.Load() != 0 {
		// A WAIT ended by this batch (CLIENT UNBLOCK) is resumed by the
		// shard goroutine, which the due flag wakes.
		sh.Repl.Due.Store(true)
		sh.Ring.Signal()
	}
	if writes {
		// As after a drain: used_memory as other goroutines read it.
		sh.publishMem()
	}
	sh.Stats.Batches.Add(1)
	sh.Stats.InlineBatches.Add(1)
	sh.Release()
	return true
}

// commitRun ends a run of batches, the loop's drain or a reactor's inline
// batch: BCAST invalidations and pushes collected meanwhile are sent, then
// the commit group is closed, which hands the replies over now or once
// the log has synced.
func (sh *Shard) commitRun() {
	if sh.Trk != nil {
		sh.trackBroadcast()
	}
	if len(sh.pushPending) > 0 {
		sh.flushPushes()
	}
	sh.Commit()
}

// endRun ends runFrom: the clock reading of its last command is no start
// for what runs next.
func (sh *Shard) endRun() {
	sh.runDepth--
	sh.callMark = 0
}

// batchMayRunInline reports whether b's commands may run on a reactor
// (TryRun), from their flags alone, and whether any of them writes. Each
// reads data, is fast (Redis's readonly or fast flag) or writes where
// writes may run inline (below); none is administrative, runs a script,
// blocks, or parks its client for work off the loop. Everything else is
// left to the shard goroutine:
//   - containers (CLIENT PAUSE among them), EXEC, WAIT and WAITAOF have
//     none of those flags, and an unknown name has no command;
//   - administrative commands: DEBUG SLEEP can take minutes, and the
//     shutdown timeout and INFO know a busy loop, not a busy reactor;
//     SHUTDOWN and CONFIG SET change how the server runs;
//   - scripts (EVAL_RO reads), so that a long one never holds a reactor
//     whose other clients may need to send SCRIPT KILL (scripting.go);
//   - blocking commands (XREAD reads) and MIGRATE, which park their client;
//   - writes while the shard keeps a log, unless LoggedWritesInline
//     allowed them when the log was attached.
//
// A write without Redis's fast flag (SET, DEL, SUNIONSTORE) runs here
// when writes may: its cost is that of the reads that run here anyway
// (SUNION), since dropping an overwritten value is the collector's work.
func (sh *Shard) batchMayRunInline(b *Batch) (ok, writes bool) {
	for i := range b.Ends {
		args := b.Command(i)
		if len(args) == 0 {
			continue
		}
		cmd := sh.lookup(args[0])
		if cmd == nil || cmd.Flags&(FlagAdmin|FlagRunsScript|FlagBlocking|FlagParksOffLoop) != 0 {
			return false, false
		}
		switch {
		case cmd.Flags&FlagWrite != 0:
			if sh.Journal != nil && !sh.loggedWritesInline {
				return false, false
			}
			writes = true
		case cmd.Flags&(FlagReadOnly|FlagFast) == 0:
			return false, false
		}
	}
	return true, writes
}

// LoggedWritesInline reports whether reactors may run lone writes on an
// idle shard that keeps a log whose fsync policy is policy: when
// server.inline_writes asks for it, the log is not synced before each
// reply (under fsync always the reply waits for the sync goroutine, or a
// lone client's fsync would stall the reactor), and the process has more
// than one P (procs, runtime.GOMAXPROCS). A write run inline pays a log
// write of its own, which the loop shares among a drain's batches. With
// one P handing the batch to the loop is a goroutine switch, and cheaper;
// with more, it wakes the loop's thread through the kernel, and running
// the write inline takes 16–45 % off its CPU (bench/README.md, "Unpinned:
// writes inline, and one P per shard").
func LoggedWritesInline(asked bool, policy persistence.FsyncPolicy, procs int) bool {
	return asked && policy != persistence.FsyncAlways && procs > 1
}

// timingEvery is the sampling period of per-command timing (INFO
// commandstats usec).
const timingEvery = 16

// maxBatchesPerDrain bounds one drain so replies start flowing even under
// a constant stream of batches.
const maxBatchesPerDrain = 512

// Drain runs every batch waiting in the ring (up to a bound) as one group
// and returns how many it ran.
func (sh *Shard) Drain() int {
	sh.ReapClosed()
	if sh.Blk.mailN.Load() != 0 {
		sh.blockTick()
	}
	n := 0
	if sh.Repl.hasTasks.Load() {
		n += sh.runTasks()
	}
	if sh.Repl.Due.Load() {
		n += sh.ResumeWaits()
	}
	for n < maxBatchesPerDrain {
		b := sh.Ring.Pop()
		if b == nil {
			break
		}
		if n == 0 {
			sh.NowMs = sh.Srv.Now().UnixMilli()
		}
		if !sh.Run(b) {
			sh.Queue(b)
		}
		n++
		if sh.Tx.closedN.Load() != 0 {
			// A client ended by this batch or closed meanwhile is
			// released before the next batch runs.
			sh.ReapClosed()
		}
		if len(sh.Blk.Resume) > 0 {
			n += sh.ResumeBlocked()
		}
		if len(sh.Scr.deferred) > 0 {
			n += sh.runDeferred()
		}
		if sh.Repl.Due.Load() {
			n += sh.ResumeWaits()
		}
		if len(sh.Blk.Postponed) > 0 && sh.ReleasePostponed() {
			n += sh.ResumeBlocked()
		}
	}
	if len(sh.Blk.Clients) > 0 && sh.Blk.nextDeadline != 0 && n > 0 {
		sh.ExpireBlocked()
		if len(sh.Blk.Resume) > 0 {
			n += sh.ResumeBlocked()
		}
	}
	if n > 0 {
		sh.commitRun()
		sh.publishMem()
		sh.Stats.Batches.Add(int64(n))
		if sh.Snap != nil {
			sh.SnapshotStep(snapshotBucketsPerStep)
		}
		if sh.Mig.cleanup != nil {
			sh.cleanupStep()
		}
		sh.PollSnapshot()
		if sh.waiting.Load() {
			sh.wakeWaiters()
		}
	}
	return n
}

// cron runs the periodic work of an idle shard.
func (sh *Shard) cron() {
	sh.ReapClosed()
	sh.NowMs = sh.Srv.Now().UnixMilli()
	sh.nextCronMs = sh.NowMs + int64(1000/max(sh.Srv.Opts.Live.Hz(), 1))
	// A pause stops expiry and eviction too; a replica deletes and
	// evicts nothing itself: its primary's records do.
	paused := sh.PauseActive()
	replica := sh.Srv.IsReplica()
	if sh.Srv.Opts.Live.ActiveExpire() && sh.ActiveExpireOn.Load() && !paused && !replica {
		start := sh.latencyStart()
		sh.ActiveExpireCycle()
		sh.SettleMem()
		sh.latencyEnd(LatencyEventExpireCycle, start)
		sh.Commit()
	}
	if sh.maxMemoryShare() != 0 && !paused && !replica {
		start := sh.latencyStart()
		sh.evictInBackground()
		sh.latencyEnd(LatencyEventEviction, start)
		sh.Commit()
	}
	sh.publishMem()
	if sh.Idx == 0 {
		sh.Srv.MemTuner.tune(sh.Srv)
		sh.Srv.MemTuner.PurgeIdleHeap(sh.NowMs)
	}
	if sh.Journal != nil {
		sh.Journal.Tick(sh)
	}
	sh.syncTick()
	sh.pollLocalWaits()
	if sh.Trk != nil {
		sh.trackLimit()
		sh.trackBroadcast()
		sh.trackSweep()
	}
	if len(sh.pushPending) > 0 {
		sh.flushPushes()
	}
	// After the expiry cycle: a deletion may concern a waiter. It also
	// resumes the clients of a pause that ended.
	sh.blockTick()
}

// Run executes every command of b and appends the replies to b.Out. It
// reports whether b was kept by a parked client (blocked, or held by a
// CLIENT PAUSE; then it must not be queued for delivery).
func (sh *Shard) Run(b *Batch) (kept bool) { return sh.runFrom(b, 0) }

// runFrom runs the commands of b from index first on.
func (sh *Shard) runFrom(b *Batch, first int) (kept bool) {
	sh.runDepth++
	sh.callMark = 0
	defer sh.endRun()
	c := b.Client
	if b.ArgvMem != 0 {
		c.AddArgvMem(-b.ArgvMem)
		b.ArgvMem = 0
	}
	if c.Blk != nil {
		// Parked: its commands wait behind the parked one.
		return sh.holdIfBlocked(b)
	}
	x := &sh.Ctx
	x.C = c
	x.W = &b.Out
	x.Batch = b
	if c.Killed() {
		// Cut off for its output: what it still had queued is not run.
		b.CloseAfter = true
		x.Batch = nil
		return false
	}
	// The writer stops taking the batch's replies where the client would
	// reach the hard limit of its output class, so that one reply (a huge
	// negative SRANDMEMBER count) cannot grow memory before the check
	// below sees it.
	sh.limitReplies(b)
	// Until the shard has seen its log fail, the replies note the records
	// they depend on: a failed group releases only those the log made
	// durable (logfail.go).
	track := sh.Journal != nil && sh.observeLogFailure() == nil
	if track {
		sh.noteDep(b, len(b.Out.Buf), false)
	}
	if len(b.Ends)-first >= warmMin && c.DB < len(sh.DBs) {
		sh.warmKeys(b, first, sh.DBs[c.DB])
	}
	for i := first; i < len(b.Ends); i++ {
		args := b.Command(i)
		if len(args) == 0 {
			continue
		}
		b.Out.Proto = c.Proto
		start, appends := len(b.Out.Buf), sh.appends
		sh.ranWrite = false
		sh.touchedData = false
		sh.Exec(x, args)
		if sh.touchedData || sh.appends != appends {
			b.touchesData = true
		}
		if track && sh.appends != appends {
			if b.depGen != sh.groupGen+1 {
				// The first records of this commit group: the replies
				// from here on depend on them (a group is made durable
				// whole).
				sh.noteDep(b, start, sh.ranWrite)
				b.depGen = sh.groupGen + 1
			}
			if sh.Journal.Err() != nil {
				// The log failed while the command ran (it may have
				// dropped a record, ErrRecordTooLarge): what it did can
				// never become durable.
				sh.lostWrites(b, start)
				track = false
			}
		}
		if len(sh.Blk.ready) > 0 {
			sh.serveReady()
			// Serving used its own context; this batch goes on.
			x.C, x.W, x.Batch = c, &b.Out, b
		}
		if c.Blk != nil && c.Blk.Batch == nil {
			c.Touch(sh.NowMs * int64(time.Millisecond))
			x.Batch = nil
			x.Args = nil
			b.Out.Limit = 0 // whatever is written later (the served reply) is not bounded here
			return sh.parkBatch(b, i)
		}
		if b.Out.Full() {
			// Its reply was cut short: nothing of it may be sent.
			sh.cutOff(b)
			break
		}
		if b.CloseAfter {
			break
		}
	}
	// Frames delivered to the client later in this drain (Pub/Sub) are
	// appended to b.Out too, and must never be dropped.
	b.Out.Limit = 0
	if b.ProtoErr != "" && !b.CloseAfter {
		b.Out.Error("ERR " + b.ProtoErr)
		b.CloseAfter = true
	}
	c.Touch(sh.NowMs * int64(time.Millisecond))
	x.Batch = nil
	x.Args = nil
	return false
}

// limitReplies sets how far b's replies may grow: to the hard output
// buffer limit of its client's class, less what the client already has
// pending, or, for a class without a hard limit, by the server's largest
// reply (limits.max_reply_size).
func (sh *Shard) limitReplies(b *Batch) {
	c := b.Client
	room := sh.Srv.maxReplyBytes()
	if limit := sh.Srv.Opts.Live.OutputBufferLimit(c.OutputClass()).Hard; limit > 0 {
		// At least 1: a client already at its limit is cut off at its
		// first byte of reply, and a Limit of 0 would mean none.
		room = max(limit-c.Out.Pending(), 1)
	}
	b.Out.Limit = len(b.Out.Buf) + int(min(room, int64(math.MaxInt-len(b.Out.Buf))))
}

// cutOff disconnects the client of b, whose replies would reach the hard
// output buffer limit of its class (or the largest reply, for a class
// without one): the replies are dropped and its remaining commands are not
// run.
func (sh *Shard) cutOff(b *Batch) {
	c := b.Client
	if c.Kill() {
		lim := sh.Srv.Opts.Live.OutputBufferLimit(c.OutputClass())
		why := OverHard
		if lim.Hard <= 0 {
			why = OverReply
		}
		sh.Srv.OutputCutOff(sh.Logger(), c, why, lim, c.Out.Pending()+int64(len(b.Out.Buf)))
	}
	b.Out.Buf = b.Out.Buf[:0]
	b.CloseAfter = true
}

// commitGroup is the set of batches run since the last commit; they are
// released together once the log covers them.
type commitGroup struct {
	sh    *Shard
	head  *Batch
	tail  *Batch
	count int
	// cmds counts the commands of the group, for commands-per-fsync.
	cmds int
	// sync is set when the group's replies wait for sync-replicas
	// replicas to acknowledge the log up to target; heldAtMs is when the
	// group was closed, for sync_timeout_ms (syncrepl.go).
	sync     bool
	target   uint64
	heldAtMs int64
}

// Committed releases the group's replies (Journal calls it when the log
// covering the group is durable). When the log failed, each batch's
// replies leave up to the first that depends on a record the log did not
// make durable; that one becomes an error and the connection is closed
// (settleFailed). Under synchronous replication the replies may wait
// further for the replicas (syncrepl.go).
func (g *commitGroup) Committed(err error) {
	sh := g.sh
	if err != nil {
		// Final: a failed log makes nothing more durable.
		_, durable := sh.Journal.Sequences()
		for b := g.head; b != nil; b = b.next {
			settleFailed(sh, b, durable, err)
		}
		// What is left of the replies depends on durable records only.
		g.target = min(g.target, durable)
	}
	g.release()
}

// deliver hands every batch of g to its sink and recycles g.
func (g *commitGroup) deliver() {
	for b := g.head; b != nil; {
		next := b.next
		b.next = nil
		c := b.Client
		b.Sink.Deliver(b)
		c.undelivered.Add(-1)
		b = next
	}
	g.head, g.tail, g.count, g.cmds = nil, nil, 0, 0
	g.sh.recycleGroup(g)
}

// Writers is the number of batches (connections' turns) in the group: the
// WAL's commit delay counts the writers it expects by it.
func (g *commitGroup) Writers() int { return g.count }

// SoleWriter names the client whose batches the group holds, when they
// are all one client's: the WAL syncs a lone client's commits on the
// committing goroutine.
func (g *commitGroup) SoleWriter() (int64, bool) {
	if g.head == nil {
		return 0, false
	}
	c := g.head.Client
	for b := g.head.next; b != nil; b = b.next {
		if b.Client != c {
			return 0, false
		}
	}
	return c.ID, true
}

// Queue adds b, whose commands have run, to the commit group being built:
// its replies go out when the group is committed (Commit), after the
// push frames its client had collected before it.
func (sh *Shard) Queue(b *Batch) {
	g := sh.group
	if g == nil {
		g = sh.newGroup()
		sh.group = g
	}
	if g.tail == nil {
		g.head = b
	} else {
		g.tail.next = b
	}
	g.tail = b
	g.count++
	g.cmds += len(b.Ends)
	b.Client.undelivered.Add(1)
	if c := b.Client; c.SubCount.Load() != 0 || c.Trk != nil || len(c.pushBuf) > 0 {
		// Frames collected before this batch ran go out before its replies.
		sh.flushPush(c)
		c.queued, c.queuedGen = b, sh.groupGen
	}
}

// Commit closes the current group: replies go out now when nothing needs
// to become durable first, or later from the journal.
func (sh *Shard) Commit() {
	g := sh.group
	sh.groupGen++
	if sh.Journal == nil {
		if g != nil && g.head != nil {
			sh.group = nil
			sh.markSync(g)
			g.Committed(nil)
		}
		return
	}
	if g == nil {
		g = sh.newGroup()
	}
	sh.group = nil
	sh.markSync(g)
	if sh.Journal.Commit(g, g.cmds) {
		g.Committed(nil)
	}
}

func (sh *Shard) newGroup() *commitGroup {
	if g, ok := sh.groups.Get().(*commitGroup); ok {
		return g
	}
	return &commitGroup{sh: sh}
}

// recycleGroup returns g to the shard's pool; the journal's sync goroutine
// calls it too, hence a sync.Pool rather than a free list.
func (sh *Shard) recycleGroup(g *commitGroup) {
	g.sync, g.target, g.heldAtMs = false, 0, 0
	sh.groups.Put(g)
}

// Journal is a shard's durable log as the keyspace sees it.
type Journal interface {
	// Append adds one record to the current group; shard goroutine only.
	Append(db uint16, op persistence.Opcode, payload []byte)
	// Commit closes the records appended since the last Commit. It
	// returns true when replies may go out now; otherwise it calls
	// g.Committed later, in commit order.
	Commit(g interface{ Committed(error) }, commands int) bool
	// Err is the sticky error after a failed write or fsync.
	Err() error
	// Sequences are the sequence of the last record appended and the last
	// one made durable (every record up to it is); safe from any
	// goroutine.
	Sequences() (last, durable uint64)
	// Tick runs periodic work (snapshot schedule) on the shard goroutine.
	Tick(sh *Shard)
	// Close flushes and closes the log.
	Close() error
}

// RandomHex returns n random hexadecimal digits from crypto/rand (run
// ids, replication ids).
func RandomHex(n int) string {
	b := make([]byte, (n+1)/2)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)[:n]
}

// Logger returns the server's logger with the shard's index attached.
func (sh *Shard) Logger() *zap.Logger { return sh.Srv.Log.With(zap.Int("shard", sh.Idx)) }
