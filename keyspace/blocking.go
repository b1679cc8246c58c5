package keyspace

import (
	"container/list"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ruvio/ruvio/codec"
)

// BlockSpec describes how a blocking command waits.
//
// Blocking commands (BLPOP, BZPOPMIN, XREAD BLOCK, ...) park their client
// inside its shard until a key they wait on can serve them, a deadline
// passes, the client is unblocked (CLIENT UNBLOCK) or it disconnects.
//
// # Using it from a command
//
// A handler that finds nothing to serve and may block (x.NoBlock is false:
// not inside EXEC or a script) calls x.Block with a BlockSpec and returns
// without replying. The rest of the client's batch, and any batch of the
// client that arrives meanwhile, waits behind the blocked command, as a
// Redis client's pipelined commands do; replies of the commands before it
// go out at once.
//
// A key that clients wait on is marked ready when it is created
// (DB.insertNew: a push, RENAME, MOVE, COPY, SORT STORE, ...) or written
// or deleted (the record helpers' touchKey hook, which every logged
// mutation passes, expiry and eviction included; FLUSHDB, FLUSHALL and
// SWAPDB mark every waited key of the database through TouchAllInDB). A
// new value kind gets this for free if its log helpers call touchKey (or
// logged), as the existing ones do. After the command that marked it
// finishes (for EXEC and scripts: after the whole transaction or script;
// for expiry: at the shard's tick), the shard offers the key to each
// client waiting on it, in the order they blocked, by calling its Serve
// function. Serve is called whatever the key now holds, even nothing (a
// stream reader can then report a deleted key): it looks the key up again
// itself (an earlier waiter may have emptied it, or it may hold another
// type) and returns false, having written nothing, to stay blocked.
//
// Serve runs with a Ctx set up for the blocked client: x.C, x.DB (the
// database it blocked in), x.Args and x.Cmd (the blocking command, its
// arguments still valid: a closure may keep slices of them), x.W (its
// reply). Whatever Serve writes to the log and the keyspace events it
// emits should be those of the non-blocking form: recovery needs no
// knowledge of blocking. Serve returns true when it replied (served, or
// an error such as WRONGTYPE, which counts as a failed call): the client
// is unblocked and its waiting commands run right after the command that
// served it, in the same commit group (under fsync = always its reply
// waits for the records Serve wrote).
//
// When the deadline passes (checked at least every few milliseconds while
// a deadline is pending) or CLIENT UNBLOCK id TIMEOUT is used, Timeout
// writes the reply (nil: a null array, Redis's reply for every blocking
// command that times out). CLIENT UNBLOCK id ERROR replies
// "-UNBLOCKED client unblocked via CLIENT UNBLOCK". A client that
// disconnects or is killed while blocked is forgotten without a reply.
//
// Everything here runs on the shard goroutine.
type BlockSpec struct {
	// Keys are the keys of x.DB the client waits on; duplicates are
	// ignored. They are copied.
	Keys [][]byte
	// DeadlineMs is the unix millisecond time at which the client times
	// out; 0 waits for ever. ParseBlockTimeoutOrReply computes it.
	DeadlineMs int64
	// Serve tries to serve the client from key; see the type's comment.
	Serve func(x *Ctx, key []byte) bool
	// Timeout writes the reply of a client that timed out; nil writes a
	// null array.
	Timeout func(x *Ctx)

	// HandOver, when set, may deliver the resumed batch itself instead
	// of queueing it for the commit group, and reports whether it did;
	// it is asked only when the blocked command was the batch's last and
	// no later batch of the client is held (WAIT: DeliverNow).
	HandOver func(b *Batch) bool
}

// Block parks the client of x as spec says. The handler calling it must
// not have replied and must return at once. Inside EXEC or a script
// (x.NoBlock) a command must not block: it replies as if timed out.
func (x *Ctx) Block(spec BlockSpec) {
	x.S.block(x, spec)
}

// ParseBlockTimeoutOrReply reads a blocking command's timeout in seconds
// (decimals allowed) and returns the unix millisecond deadline, 0 for
// none. On a bad value it replies Redis's error and returns false. As in
// Redis, the timeout is rounded up to whole milliseconds, and a value too
// large for a millisecond count (including inf) is "negative".
func (x *Ctx) ParseBlockTimeoutOrReply(arg []byte) (deadlineMs int64, ok bool) {
	f, good := parseTimeoutFloat(arg)
	if !good {
		x.W.Error("ERR timeout is not a float or out of range")
		return 0, false
	}
	ms := math.Ceil(f * 1000)
	if ms < 0 || ms >= math.MaxInt64 {
		x.W.Error("ERR timeout is negative")
		return 0, false
	}
	if ms == 0 {
		return 0, true
	}
	d := x.S.NowMs + int64(ms)
	if d < x.S.NowMs {
		d = math.MaxInt64
	}
	return d, true
}

// ParseBlockTimeoutMsOrReply reads a timeout in whole milliseconds (XREAD
// BLOCK) and returns the unix millisecond deadline, 0 for none. On a bad
// value it replies Redis's error and returns false.
func (x *Ctx) ParseBlockTimeoutMsOrReply(arg []byte) (deadlineMs int64, ok bool) {
	ms, good := ParseInt(arg)
	if !good {
		x.W.Error("ERR timeout is not an integer or out of range")
		return 0, false
	}
	if ms < 0 {
		x.W.Error("ERR timeout is negative")
		return 0, false
	}
	if ms == 0 {
		return 0, true
	}
	d := x.S.NowMs + ms
	if d < x.S.NowMs {
		d = math.MaxInt64
	}
	return d, true
}

// parseTimeoutFloat parses a float as the C library's strtold does for
// Redis: no surrounding space, hexadecimal allowed, NaN refused.
func parseTimeoutFloat(arg []byte) (float64, bool) {
	if len(arg) == 0 || len(arg) > 5000 {
		return 0, false
	}
	for _, ch := range arg {
		if ch == '_' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f' {
			return 0, false
		}
	}
	s := string(arg)
	digits := strings.TrimLeft(s, "+-")
	if len(digits) > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') && !strings.ContainsAny(digits, "pP") {
		s += "p0"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !(isRangeErr(err) && !math.IsInf(f, 0)) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// isRangeErr reports whether err is strconv's out-of-range error.
func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// BlockKey names a key of one database.
type BlockKey struct {
	DB  int    // database index
	Key string // the key
}

// Parking. One mechanism holds a client inside its shard, whatever it
// waits for: a blockedClient parks the client's batch at command i (the
// resume point, bc.Next), and every later batch of the client waits behind
// it (bc.held) until it is resumed at the next resume point (after the
// command, EXEC, script or tick that unblocked it), in the order the
// clients were unblocked. What differs between waits is only what
// releases them:
//
//   - a blocking command (Block) waits on keys and a deadline; its reply is
//     written by Serve or Timeout, and the batch resumes after it (i+1);
//   - WAIT (replication.go) is a Block with no keys: replicas'
//     acknowledgements (ResumeWaits) or its deadline write its reply, and
//     the batch resumes after it;
//   - a command held by CLIENT PAUSE (pause.go) is postponed before it
//     runs: it waits on no key and has no deadline of its own, the end of
//     the pause releases every postponed client in the order they were
//     held, and the batch resumes at the command itself (i), which is then
//     run from the start again (and may be postponed again).
//
// Pause and WAIT reuse this parking rather than keeping their own queues
// of held batches so that a client is never held by two mechanisms at once
// (a client blocked in BLPOP is not also in a pause queue, a paused one is
// not served), the replies before the parked command leave at once as
// Redis sends them, disconnects, CLIENT KILL, CLIENT LIST's flag b, INFO's
// blocked_clients, reply modes and the script-busy path treat every wait
// alike, and the shard has one resume path to keep correct.

// blockedClient is one parked client.
type blockedClient struct {
	c     *Client
	db    int
	spec  BlockSpec
	args  [][]byte
	cmd   *Command
	keys  []BlockKey
	elems []*list.Element
	// Batch holds the rest of the client's commands (and the reply of
	// the blocked one); Next is the index of the first not run yet.
	Batch *Batch
	Next  int
	// held are the client's batches that arrived while it was blocked.
	held []*Batch
	// done is set once the client was served or timed out: its batch
	// is waiting to be resumed.
	done bool
	// Postponed is set when CLIENT PAUSE held the client before its
	// command ran; the batch resumes at that command, which runs again.
	Postponed bool
	// callDur is how long the command ran before it parked, for the slow
	// log (slowlogUnblocked).
	callDur time.Duration
	// silent: the client asked for no reply to the blocked command
	// (CLIENT REPLY OFF or SKIP when it blocked); pushes still go out.
	silent bool
	// offLoop: the client waits for work off the shard goroutine
	// (offloop.go), which only its Finish ends.
	offLoop bool
}

// blocking is a shard's table of blocked clients.
type blocking struct {
	// Waiting lists, per key, the clients blocked on it in arrival order.
	Waiting map[BlockKey]*list.List
	// Clients are the parked clients (not yet resumed).
	Clients map[*Client]*blockedClient
	// ready are the keys written since they were last served.
	ready    []BlockKey
	readySet map[BlockKey]struct{}
	// Resume are the unblocked clients whose commands run next.
	Resume []*blockedClient
	// Postponed are the clients held by CLIENT PAUSE, in the order they
	// were held (pause.go); they are in Clients too.
	Postponed []*blockedClient
	// nextDeadline is a lower bound of the earliest deadline (0: none).
	nextDeadline int64
	timer        *time.Timer
	TimerAt      int64
	// N mirrors len(clients) for other goroutines; timed counts those
	// with a deadline. INFO counts the registry instead (BlockedClients):
	// a detached client still parked here until its release is not one.
	N, timed atomic.Int64
	// Keyed counts the clients waiting on keys (not WAIT): while there
	// are any, every batch runs on the shard goroutine, where waiters are
	// served and resumed.
	Keyed atomic.Int64
	// x is the context Serve and Timeout run with.
	x Ctx

	// mu guards mail, the CLIENT UNBLOCK requests of other shards.
	mu    sync.Mutex
	mail  []unblockReq
	mailN atomic.Int32
}

type unblockReq struct {
	c        *Client
	errReply bool
}

// init makes the tables on first use.
func (bs *blocking) init() {
	if bs.Waiting == nil {
		bs.Waiting = make(map[BlockKey]*list.List)
		bs.Clients = make(map[*Client]*blockedClient)
		bs.readySet = make(map[BlockKey]struct{})
	}
}

// timerC is the channel the keyspace loop waits on for the next deadline.
func (bs *blocking) timerC() <-chan time.Time {
	if bs.timer == nil {
		return nil
	}
	return bs.timer.C
}

// Splitter is a Sink that can hand out a fresh batch for the same
// connection: when a command blocks, the replies before it leave in the
// original batch and the commands after it move to the new one, which is
// delivered once they have run. The original batch must then be written
// without ending the connection's turn (its flow control counts the new
// batch instead). Called on the shard goroutine.
type Splitter interface {
	Split() *Batch
}

func (sh *Shard) block(x *Ctx, spec BlockSpec) {
	bs := &sh.Blk
	c := x.C
	if c.IsClosed() {
		// The connection is gone (its close overtook this batch): a wait
		// would never end. It times out at once, with no reply, and the
		// commands after it are not run: as in Redis, a client that left
		// while it would have blocked is not answered from there on, even
		// when the replies before still go out (a client that shut down
		// only its sending side, eventloop's linger).
		before := len(x.W.Buf)
		if spec.Timeout != nil {
			spec.Timeout(x)
		}
		x.W.Buf = x.W.Buf[:before]
		if x.Batch != nil && x.Batch.Client == c {
			x.Batch.CloseAfter = true
		}
		return
	}
	bs.init()
	bc := &blockedClient{c: c, db: x.DB.ID, spec: spec, args: x.Args, cmd: x.Cmd,
		silent: c.ReplyMode&(ReplyOff|replySkip) != 0}
	bc.spec.Keys = nil
	for _, k := range spec.Keys {
		bk := BlockKey{DB: bc.db, Key: string(k)}
		dup := false
		for _, o := range bc.keys {
			if o == bk {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		bc.keys = append(bc.keys, bk)
		q := bs.Waiting[bk]
		if q == nil {
			q = list.New()
			bs.Waiting[bk] = q
		}
		bc.elems = append(bc.elems, q.PushBack(bc))
	}
	sh.park(bc)
	if d := spec.DeadlineMs; d > 0 {
		bs.timed.Add(1)
		if bs.nextDeadline == 0 || d < bs.nextDeadline {
			bs.nextDeadline = d
		}
		sh.ArmBlockTimer(d)
	}
}

// park registers bc as its client's wait: the command running now parks
// the client (run then calls parkBatch).
func (sh *Shard) park(bc *blockedClient) {
	bs := &sh.Blk
	bs.init()
	c := bc.c
	c.Blk = bc
	bs.Clients[c] = bc
	bs.N.Store(int64(len(bs.Clients)))
	if len(bc.keys) > 0 {
		bs.Keyed.Add(1)
	}
	c.blockTimed.Store(bc.spec.DeadlineMs > 0)
	c.Blocked.Store(true)
}

// maxTimerWaitMs bounds one wait of the block timer: a later deadline is
// reached by arming it again when it fires (ExpireBlocked,
// ReleasePostponed), and the millisecond count stays far from overflowing
// a time.Duration.
const maxTimerWaitMs = 24 * 3600 * 1000

// ArmBlockTimer makes the keyspace loop wake at deadline d (unix ms).
func (sh *Shard) ArmBlockTimer(d int64) {
	bs := &sh.Blk
	if bs.TimerAt != 0 && bs.TimerAt <= d {
		return
	}
	ms := d - sh.Srv.Now().UnixMilli() + 1
	ms = max(min(ms, maxTimerWaitMs), 1)
	wait := time.Duration(ms) * time.Millisecond
	if bs.timer == nil {
		bs.timer = time.NewTimer(wait)
	} else {
		bs.timer.Reset(wait)
	}
	bs.TimerAt = d
}

// unlinkBlocked removes bc from the key queues and the client table.
func (sh *Shard) unlinkBlocked(bc *blockedClient) {
	bs := &sh.Blk
	if len(bc.keys) > 0 {
		bs.Keyed.Add(-1)
	}
	for i, k := range bc.keys {
		q := bs.Waiting[k]
		if q == nil {
			continue
		}
		q.Remove(bc.elems[i])
		if q.Len() == 0 {
			delete(bs.Waiting, k)
		}
	}
	bc.keys, bc.elems = nil, nil
	if bc.Postponed {
		for i, p := range bs.Postponed {
			if p == bc {
				bs.Postponed = slices.Delete(bs.Postponed, i, i+1)
				break
			}
		}
		bc.c.Postponed.Store(false)
	}
	if bc.offLoop {
		bc.c.OffLoop.Store(false)
	}
	delete(bs.Clients, bc.c)
	bs.N.Store(int64(len(bs.Clients)))
	if bc.spec.DeadlineMs > 0 {
		bs.timed.Add(-1)
	}
	bc.c.Blocked.Store(false)
	bc.c.blockTimed.Store(false)
}

// unblocked ends the wait of bc, whose reply has been written: its
// remaining commands run at the next resume point.
func (sh *Shard) unblocked(bc *blockedClient) {
	sh.unlinkBlocked(bc)
	bc.done = true
	sh.Blk.Resume = append(sh.Blk.Resume, bc)
}

// signalKey marks key of database db ready when clients wait on it; the
// touchKey hook calls it for every mutation.
func (sh *Shard) signalKey(db int, key string) { sh.Blk.signalKey(db, key) }

// Signal is signalKey for a new key (DB.insertNew: every key created,
// renamed or moved into place).
func (bs *blocking) Signal(db int, key []byte) { bs.signalKey(db, string(key)) }

func (bs *blocking) signalKey(db int, key string) {
	bk := BlockKey{DB: db, Key: key}
	if _, ok := bs.Waiting[bk]; !ok {
		return
	}
	if _, ok := bs.readySet[bk]; ok {
		return
	}
	bk.Key = string([]byte(key)) // the caller's string may alias a buffer
	bs.readySet[bk] = struct{}{}
	bs.ready = append(bs.ready, bk)
}

// signalDB marks every waited-on key of database db ready (FLUSHDB,
// FLUSHALL, SWAPDB).
func (sh *Shard) signalDB(db int) {
	for bk := range sh.Blk.Waiting {
		if bk.DB == db {
			sh.signalKey(bk.DB, bk.Key)
		}
	}
}

// blockCtx prepares the serving context for bc.
func (sh *Shard) blockCtx(bc *blockedClient) *Ctx {
	x := &sh.Blk.x
	b := bc.Batch
	b.Out.Proto = bc.c.Proto
	*x = Ctx{S: sh, C: bc.c, DB: sh.DBs[bc.db], Args: bc.args, W: &b.Out, Cmd: bc.cmd, Batch: b}
	return x
}

// serveReady offers every ready key to the clients waiting on it, in the
// order they blocked, until no key is ready. Called after each top-level
// command, so pushes inside EXEC or a script are seen only once they end.
func (sh *Shard) serveReady() {
	bs := &sh.Blk
	for i := 0; i < len(bs.ready); i++ {
		bk := bs.ready[i]
		delete(bs.readySet, bk)
		q := bs.Waiting[bk]
		if q == nil {
			continue
		}
		key := []byte(bk.Key)
		for el := q.Front(); el != nil; {
			next := el.Next()
			bc := el.Value.(*blockedClient)
			if bc.c.Killed() || bc.c.IsClosed() {
				// Its connection is gone: the reaper forgets it.
				el = next
				continue
			}
			x := sh.blockCtx(bc)
			before := len(x.W.Buf)
			var start time.Time
			if sh.Srv.Opts.Live.SlowlogSlowerThan() >= 0 {
				start = sh.Srv.Now()
			}
			if sh.Snap != nil && bc.cmd.Flags&FlagWrite != 0 {
				// Serving writes outside a command: a running snapshot
				// writes the buckets of the command's keys before they
				// change, as call does for a write command.
				sh.snapshotBeforeWrite(bc.cmd, bc.args, x.DB)
			}
			if bc.spec.Serve(x, key) {
				if sh.Journal != nil && sh.logFail == nil {
					// The reply depends on the records of the write
					// that made the key ready (logfail.go).
					sh.noteDep(x.Batch, before, bc.cmd.Flags&FlagWrite != 0)
				}
				sh.slowlogUnblocked(x, bc, start)
				sh.countBlockedError(bc, before)
				bc.silence(x.W, before)
				if sh.Trk != nil {
					// Clients caching the keys it wrote are told now.
					sh.trackAfter(x, bc.cmd, bc.args, before)
				}
				sh.unblocked(bc)
			}
			*x = Ctx{}
			if bs.Waiting[bk] != q {
				break // the queue emptied and was dropped
			}
			el = next
		}
	}
	bs.ready = bs.ready[:0]
}

// countBlockedError counts an error reply written to bc from before on
// as a failed call of its command (INFO commandstats, errorstats), as the
// call itself was counted when it blocked.
func (sh *Shard) countBlockedError(bc *blockedClient, before int) {
	buf := bc.Batch.Out.Buf
	if len(buf) <= before || buf[before] != '-' {
		return
	}
	sh.CmdStats.ByID[bc.cmd.Called(bc.args).ID].Failed++
	sh.CmdStats.countError(buf[before+1:])
}

// timeoutBlocked replies to bc as timed out and unblocks it.
func (sh *Shard) timeoutBlocked(bc *blockedClient) {
	x := sh.blockCtx(bc)
	before := len(x.W.Buf)
	if bc.spec.Timeout != nil {
		bc.spec.Timeout(x)
	} else {
		x.W.NullArray()
	}
	bc.silence(x.W, before)
	*x = Ctx{}
	sh.unblocked(bc)
}

// silence drops the reply written from before on when the client asked
// for none.
func (bc *blockedClient) silence(w *codec.Writer, before int) {
	if bc.silent && len(w.Buf) > before {
		w.Buf = w.Buf[:before]
	}
}

// ExpireBlocked times out the clients whose deadline has passed.
func (sh *Shard) ExpireBlocked() {
	bs := &sh.Blk
	if bs.nextDeadline == 0 {
		return
	}
	if sh.NowMs < bs.nextDeadline {
		if bs.TimerAt == 0 {
			sh.ArmBlockTimer(bs.nextDeadline)
		}
		return
	}
	next := int64(0)
	var due []*blockedClient
	for _, bc := range bs.Clients {
		d := bc.spec.DeadlineMs
		if d == 0 {
			continue
		}
		if d <= sh.NowMs {
			due = append(due, bc)
			continue
		}
		if next == 0 || d < next {
			next = d
		}
	}
	bs.nextDeadline = next
	for _, bc := range due {
		if bc.c.Killed() || bc.c.IsClosed() {
			continue
		}
		sh.timeoutBlocked(bc)
	}
	if next != 0 {
		bs.TimerAt = 0
		sh.ArmBlockTimer(next)
	}
}

// blockTick runs the timeouts, the forgotten clients and the unblock
// requests of other shards; the keyspace loop calls it when its timer
// fires or it is woken, cron and drain call it too. It commits what it
// queued.
func (sh *Shard) blockTick() {
	bs := &sh.Blk
	if len(bs.Clients) == 0 && bs.mailN.Load() == 0 && len(bs.ready) == 0 {
		return
	}
	sh.NowMs = sh.Srv.Now().UnixMilli()
	sh.ReapClosed()
	if bs.mailN.Load() != 0 {
		bs.mu.Lock()
		mail := bs.mail
		bs.mail = nil
		bs.mailN.Store(0)
		bs.mu.Unlock()
		for _, m := range mail {
			sh.UnblockClient(m.c, m.errReply)
		}
	}
	if len(bs.ready) > 0 {
		// Keys written outside a command (expiry, eviction).
		sh.serveReady()
	}
	sh.ExpireBlocked()
	sh.wakeDueKeys()
	if len(bs.Postponed) > 0 {
		sh.ReleasePostponed() // resumed and committed below
	}
	if len(bs.Resume) > 0 {
		sh.ResumeBlocked()
		if len(sh.pushPending) > 0 {
			sh.flushPushes()
		}
		sh.Commit()
	}
}

// UnblockClient is CLIENT UNBLOCK on the client's own shard: it reports
// whether c was blocked. A client held by CLIENT PAUSE is not: only the
// end of the pause releases it.
func (sh *Shard) UnblockClient(c *Client, errReply bool) bool {
	bc := c.Blk
	if bc == nil || bc.done || bc.Postponed || bc.offLoop {
		return false
	}
	x := sh.blockCtx(bc)
	sh.slowlogUnblocked(x, bc, time.Time{})
	*x = Ctx{}
	if errReply {
		sh.endBlockedWithError(bc, "UNBLOCKED client unblocked via CLIENT UNBLOCK")
	} else {
		sh.timeoutBlocked(bc)
	}
	return true
}

// endBlockedWithError ends bc's blocked command with the error reply msg
// (counted in the error statistics, silenced by CLIENT REPLY OFF as any
// reply) and queues the client to resume.
func (sh *Shard) endBlockedWithError(bc *blockedClient, msg string) {
	x := sh.blockCtx(bc)
	before := len(x.W.Buf)
	x.W.Error(msg)
	sh.countBlockedError(bc, before)
	bc.silence(x.W, before)
	*x = Ctx{}
	sh.unblocked(bc)
}

// roleChangeUnblocked is Redis's reply to a command blocked on a primary
// that becomes a replica.
const roleChangeUnblocked = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"

// UnblockForRoleChange ends every command blocked on this shard (on keys,
// or WAIT) with Redis's -UNBLOCKED error and closes its client after the
// reply, as Redis does when a primary becomes a replica: the keys now
// change only through the primary's records, and a client served by one of
// them would take from the replica what the primary still holds. Clients
// held by CLIENT PAUSE stay held.
func (sh *Shard) UnblockForRoleChange() {
	bs := &sh.Blk
	var ended []*blockedClient
	for _, bc := range bs.Clients {
		if !bc.done && !bc.Postponed && !bc.offLoop {
			ended = append(ended, bc)
		}
	}
	for _, bc := range ended {
		bc.Batch.CloseAfter = true
		sh.endBlockedWithError(bc, roleChangeUnblocked)
	}
	if len(bs.Resume) > 0 {
		sh.ResumeBlocked()
		if len(sh.pushPending) > 0 {
			sh.flushPushes()
		}
		sh.Commit()
	}
}

// slowlogUnblocked enters the command of bc, served or ended by CLIENT
// UNBLOCK, in the slow log, as Redis does for a blocked command (its
// first run was not logged, call left it for now): its duration is the
// first run's and the serving's since start (zero: none), not the time
// spent waiting. A command that timed out is not logged, as in Redis 7.0.
func (sh *Shard) slowlogUnblocked(x *Ctx, bc *blockedClient, start time.Time) {
	slowUs := sh.Srv.Opts.Live.SlowlogSlowerThan()
	if slowUs < 0 {
		return
	}
	d := bc.callDur
	if !start.IsZero() {
		d += sh.Srv.Now().Sub(start)
	}
	sh.slowlogAfter(x, bc.cmd.Called(bc.args), bc.args, d, slowUs)
}

// dropBlocked forgets a disconnected client's wait and its batches. The
// parked batch and those held behind it are handed back to their sink
// with no reply (what the parked one answered before it blocked has gone
// out already): a client that left while blocked is not answered, as in
// Redis, but its connection learns that nothing more is coming (a socket
// kept for the replies in flight is closed, eventloop's linger).
func (sh *Shard) dropBlocked(c *Client) {
	bc := c.Blk
	if bc == nil {
		return
	}
	if !bc.done {
		offLoop := bc.offLoop
		sh.unlinkBlocked(bc)
		// A batch waiting for work off the shard goroutine stays that
		// work's until its Finish.
		if !offLoop {
			if bc.Batch != nil {
				sh.handBack(bc.Batch)
			}
			for _, b := range bc.held {
				sh.handBack(b)
			}
		}
	}
	c.Blk = nil
	bc.Batch, bc.held = nil, nil
}

// handBack delivers a batch of a client that has left with no reply. It
// goes through the commit group, behind the replies made before the
// client parked (the part of its batch before the blocking command), which
// may still wait in the open group or for the log's sync: delivered
// first, the empty batch would end a half-closed client's connection
// (eventloop's linger) before those replies reached it.
func (sh *Shard) handBack(b *Batch) {
	b.Out.Buf = b.Out.Buf[:0]
	sh.Queue(b)
}

// holdIfBlocked sets b aside when its client is blocked; it reports
// whether it did.
func (sh *Shard) holdIfBlocked(b *Batch) bool {
	bc := b.Client.Blk
	if bc == nil {
		return false
	}
	bc.held = append(bc.held, b)
	return true
}

// parkBatch is called by run when the command at index i of b parked its
// client: the commands after it (for a postponed client, it and those
// after it) wait with the client. It reports whether b itself was kept (it
// must then not be queued for delivery).
func (sh *Shard) parkBatch(b *Batch, i int) (kept bool) {
	bc := b.Client.Blk
	next := i + 1
	if bc.Postponed {
		next = i
	}
	if len(b.Out.Buf) == 0 {
		bc.Batch, bc.Next = b, next
		return true
	}
	sp, ok := b.Sink.(Splitter)
	if !ok {
		bc.Batch, bc.Next = b, next
		return true
	}
	nb := sp.Split()
	nb.Client = b.Client
	// The parked command's reply starts nb's output: what it depends on
	// is noted when it is served.
	nb.deps, nb.depGen = nb.deps[:0], 0
	nb.Data, b.Data = b.Data, nb.Data[:0]
	nb.Argv, b.Argv = b.Argv, nb.Argv[:0]
	nb.Ends, b.Ends = b.Ends, nb.Ends[:0]
	nb.ProtoErr, b.ProtoErr = b.ProtoErr, ""
	bc.Batch, bc.Next = nb, next
	// The parked command's arguments live in the batch's data, which
	// moved with them.
	return false
}

// ResumeBlocked runs the waiting commands of the clients unblocked since
// the last call, and queues their batches for delivery.
func (sh *Shard) ResumeBlocked() int {
	bs := &sh.Blk
	n := 0
	for len(bs.Resume) > 0 {
		bc := bs.Resume[0]
		copy(bs.Resume, bs.Resume[1:])
		bs.Resume[len(bs.Resume)-1] = nil
		bs.Resume = bs.Resume[:len(bs.Resume)-1]
		c := bc.c
		if c.Blk != bc || bc.Batch == nil {
			continue // dropped meanwhile
		}
		c.Blk = nil
		b := bc.Batch
		last := bc.Next >= len(b.Ends) && len(bc.held) == 0
		if !sh.runFrom(b, bc.Next) && !(last && bc.spec.HandOver != nil && bc.spec.HandOver(b)) {
			sh.Queue(b)
		}
		n++
		for i, h := range bc.held {
			if c.Blk != nil {
				c.Blk.held = append(c.Blk.held, bc.held[i:]...)
				break
			}
			if !sh.runFrom(h, 0) {
				sh.Queue(h)
			}
			n++
		}
		if len(bs.ready) > 0 {
			sh.serveReady()
		}
		if len(bs.Postponed) > 0 {
			// A resumed batch may have ended a pause (CLIENT UNPAUSE):
			// its clients resume in this same loop.
			sh.ReleasePostponed()
		}
	}
	return n
}

// BlockedClients is the number of blocked clients of every shard, and
// how many of them have a deadline. It counts the open connections of the
// registry, so a client closed or killed stops counting at once, before
// its shard has released its wait.
func (s *Server) BlockedClients() (n, timed int64) {
	r := s.ClientRegistry
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.clients {
		if c.Blocked.Load() {
			n++
			if c.blockTimed.Load() {
				timed++
			}
		}
	}
	return n, timed
}

// RequestUnblock is CLIENT UNBLOCK for a client of another shard: the
// request is handed to that shard.
func (sh *Shard) RequestUnblock(c *Client, errReply bool) {
	bs := &sh.Blk
	bs.mu.Lock()
	bs.mail = append(bs.mail, unblockReq{c: c, errReply: errReply})
	bs.mailN.Store(int32(len(bs.mail)))
	bs.mu.Unlock()
	sh.Ring.Signal()
}

// bstr views b as a string without copying, for lookups that do not keep
// it.
func bstr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
