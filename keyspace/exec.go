package keyspace

import (
	"strconv"
	"time"

	"github.com/ruvio/ruvio/cluster"
)

// Running one command on its shard. Exec takes it from the table lookup
// through admit (arity, DEBUG's permission, authentication, MULTI's
// limits, ACL, slot ownership with CheckSlotsOrReply, the refusals of a replica
// and of a failed log, eviction under maxmemory), subscribed mode, CLIENT
// PAUSE and MULTI queueing, to Call, which runs the handler with what
// surrounds it: the snapshot's copy before a write, command statistics
// with sampled timing, the slow log, error counts, MONITOR and
// client-side caching. The shard loop in shard.go feeds it the batches.

// Exec runs one command: lookup, arity, authentication, slot ownership,
// then the handler.
func (sh *Shard) Exec(x *Ctx, args [][]byte) {
	w := x.W
	c := x.C
	if c.asking {
		c.expireAsking()
	}
	cmd := sh.lookup(args[0])
	before := len(w.Buf)
	if c.ReplyMode != 0 {
		c.startReply()
		defer sh.afterReply(c, w, before)
	}
	if cmd == nil {
		w.Error(unknownCommandError(args))
		sh.CmdStats.countError(w.Buf[before+1:])
		c.flagTx()
		return
	}
	if !sh.admit(x, cmd, args) {
		if c.Tx.Multi && cmd.Name == "exec" {
			// A refused EXEC ends the transaction, naming the refusal.
			sh.execAbort(x, before)
		} else {
			c.flagTx()
		}
		sh.reject(cmd, args, w.Buf[before+1:])
		return
	}
	if c.Proto == 2 && c.SubCount.Load() != 0 && !subscribedModeAllowed(cmd) {
		w.Error(subscribedModeError(cmd, args))
		c.flagTx()
		sh.reject(cmd, args, w.Buf[before+1:])
		return
	}
	// Container commands are counted and shown under their subcommand.
	called := cmd.Called(args)
	if name := &called.fullName; c.lastCmd.Load() != name {
		c.lastCmd.Store(name)
	}
	if sh.Pause.Kind != PauseOff && sh.pauseHolds(x, cmd, args) {
		// Parked before it runs; run again, from here, when the pause
		// ends (pause.go).
		sh.postpone(x)
		return
	}
	if sh.Mig.frozenID != 0 && sh.freezeHolds(x, cmd, args) {
		// A write to a slot range that is moving to another shard waits
		// for the move's outcome (migrate.go), as under a pause.
		sh.postpone(x)
		return
	}
	if c.Tx.Multi && !txControl(cmd) {
		if !subcommandOK(x, cmd, args) {
			c.flagTx()
			sh.reject(cmd, args, w.Buf[before+1:])
			return
		}
		c.Queue(cmd, args)
		c.Tx.pauseFlags |= sh.EffectiveFlags(cmd, args)
		w.SimpleString("QUEUED")
		return
	}
	x.DB = sh.DBs[c.DB]
	x.Args = args
	x.Cmd = cmd
	sh.Call(x, cmd, args)
}

// SetAsking is ASKING: the flag that lets the connection's next command
// reach a slot being imported (Redis's CLIENT_ASKING). Ruvio moves slots
// in one step (no slot is ever importing as clients see it), so nothing
// reads the flag yet; it lives exactly as long as Redis's: until the end
// of the next top-level command, or of the transaction that command opens
// (EXEC ends it), whether the command ran or was refused.
func (x *Ctx) SetAsking() {
	x.C.asking = true
	// Inside EXEC the top-level command is EXEC, which ends it.
	x.C.askingNext = x.S.callDepth <= 1
}

// Asking reports whether ASKING covers the command running for c.
func (c *Client) Asking() bool { return c.asking }

// expireAsking runs as a top-level command starts: the flag ASKING set
// covers this command when ASKING was the one before, and the commands
// of a transaction up to its EXEC; otherwise it has expired.
func (c *Client) expireAsking() {
	switch {
	case c.askingNext:
		c.askingNext = false
	case !c.Tx.Multi:
		c.asking = false
	}
}

// Call runs a command that passed its checks: the handler, statistics and
// MONITOR. EXEC calls it for each queued command.
func (sh *Shard) Call(x *Ctx, cmd *Command, args [][]byte) {
	w := x.W
	before := len(w.Buf)
	if sh.Snap != nil && cmd.Flags&FlagWrite != 0 {
		sh.snapshotBeforeWrite(cmd, args, x.DB)
	}
	sh.Stats.Commands.Add(1)
	called := cmd.Called(args)
	// Reading the clock twice per command costs more than a fast command
	// itself: the first calls of each command are timed, then one in
	// timingEvery, weighted to stand for the others.
	st := &sh.CmdStats.ByID[called.ID]
	// With the slow log on (the default) every command is timed.
	slowUs := sh.Srv.Opts.Live.SlowlogSlowerThan()
	sampled := slowUs < 0
	timed := !sampled || st.Calls < timingEvery || st.Calls%timingEvery == 0
	// One clock reading ends a command and starts the next of the same
	// batch: what runs between the two (the first's statistics, the
	// second's checks) counts to the second.
	top := sh.callDepth == 0 && sh.runDepth > 0
	var start time.Duration
	switch {
	case !timed:
	case top && sh.callMark != 0:
		start = sh.callMark
	default:
		start = sh.Srv.elapsed()
	}
	if (cmd.Flags|called.Flags)&dataFlags != 0 {
		sh.touchedData = true
	}
	sh.callDepth++
	writing := sh.writing
	sh.writing = cmd.Flags&FlagWrite != 0
	if sh.writing {
		sh.ranWrite = true
	}
	// A read-only command may read packed collections in place (packed.go).
	acct := &sh.Arena.ObjAcct
	wasReadOnly := acct.readOnly
	acct.readOnly = cmd.Flags&FlagReadOnly != 0
	cmd.Handler(x)
	// Objects the command touched are measured again (memacct.go).
	sh.SettleMem()
	acct.readOnly = wasReadOnly
	sh.writing = writing
	sh.callDepth--
	st.Calls++
	// end stays 0 (no reading to start the next command with) when the
	// call was not timed.
	var end time.Duration
	if timed {
		end = sh.Srv.elapsed()
		d := end - start
		// The threshold in force after the command counts, as in Redis:
		// the CONFIG SET that turns the log on is in it.
		if slowUs = sh.Srv.Opts.Live.SlowlogSlowerThan(); slowUs >= 0 {
			if bc := x.C.Blk; bc != nil && bc.Batch == nil {
				// It parked its client: logged once served (blocking.go).
				bc.callDur = d
			} else {
				sh.slowlogAfter(x, called, args, d, slowUs)
			}
		}
		weight := time.Duration(1)
		if sampled && st.Calls > timingEvery {
			weight = timingEvery
		}
		live := sh.Srv.Opts.Live
		if live.LatencyTracking() {
			// A sampled call stands for the calls between samples, as
			// in Elapsed.
			st.Hist[latencyBucket(d)] += int64(weight)
		}
		if thr := live.LatencyMonitorThreshold(); thr > 0 {
			sh.latencyAfter(called, d, thr)
		}
		st.Elapsed += d * weight
	}
	if top {
		sh.callMark = end
	}
	if len(w.Buf) > before && w.Buf[before] == '-' {
		st.Failed++
		if !sh.errorCounted(w.Buf[before+1:]) {
			sh.CmdStats.countError(w.Buf[before+1:])
		}
	}
	if sh.Srv.Monitors.Count.Load() != 0 {
		sh.feedMonitors(x, cmd, args)
	}
	if sh.Trk != nil {
		sh.trackAfter(x, cmd, args, before)
	}
}

// admit checks arity, authentication, slot ownership and the log's health
// before a command runs; on refusal it has replied.
func (sh *Shard) admit(x *Ctx, cmd *Command, args [][]byte) bool {
	w := x.W
	if !ArityOK(cmd.Arity, len(args)) {
		w.Error(ErrWrongArgs(cmd.Name))
		return false
	}
	// DEBUG can stop a shard (DEBUG SLEEP); enable-debug-command says who
	// may run it, checked before authentication as Redis does.
	if cmd.Name == "debug" && !DebugAllowed(sh.Srv.Opts.Live.EnableDebugCommand(), x.C.RemoteAddr) {
		w.Error(ErrDebugNotAllowed)
		return false
	}
	if !x.C.Authenticated && cmd.Flags&FlagNoAuth == 0 && sh.Srv.AuthRequired() {
		w.Error(errNoAuth)
		return false
	}
	flags := cmd.Flags
	if x.C.Tx.Multi {
		if flags&FlagNoMulti != 0 {
			w.Error(errNotInMulti)
			return false
		}
		if cmd.Name == "exec" {
			// EXEC is refused for what its queued commands would need.
			flags |= x.C.Tx.flags
		}
	}
	if !sh.checkACL(x, cmd, args) {
		return false
	}
	if sh.Srv.RoutesSlots() && (cmd.FirstKey > 0 || cmd.NumKeysAt > 0 || cmd.MovableKeys != nil) {
		if !sh.CheckSlotsOrReply(x, cmd, args) {
			return false
		}
	}
	if msg := sh.staleRefusal(cmd); msg != "" {
		w.Error(msg)
		return false
	}
	if flags&FlagWrite != 0 {
		if msg := sh.replicationRefusal(); msg != "" {
			w.Error(msg)
			return false
		}
	}
	if flags&FlagWrite != 0 && sh.Journal != nil {
		if err := sh.Journal.Err(); err != nil {
			w.Error("MISCONF Errors writing to the write-ahead log of shard " + strconv.Itoa(sh.Idx) + ": " + err.Error() + ". Writes are refused until an operator restarts the server")
			return false
		}
	}
	if sh.tainted() && !servedWhileTainted(x.C, cmd, args) {
		// Its memory holds writes that were refused (logfail.go).
		w.Error(sh.unservedError())
		return false
	}
	if sh.Srv.Opts.Live.MaxMemory() > 0 && !sh.PauseActive() {
		// Every command evicts first, as in Redis: a read finds the
		// invalidations of the keys evicted for it before its reply.
		ok := sh.evictForWrite()
		if !ok && cmd.Flags&FlagDenyOOM != 0 {
			w.Error(errOOM)
			return false
		}
	}
	return true
}

// CheckSlotsOrReply replies CROSSSLOT or MOVED when the keys of a call are not all
// in one slot owned by this shard.
func (sh *Shard) CheckSlotsOrReply(x *Ctx, cmd *Command, args [][]byte) bool {
	sh.keyIdx = cmd.KeyIndexes(args, sh.keyIdx[:0])
	if len(sh.keyIdx) == 0 {
		return true
	}
	topo := sh.Srv.Topology()
	slot := cluster.KeySlot(args[sh.keyIdx[0]])
	for _, i := range sh.keyIdx[1:] {
		if cluster.KeySlot(args[i]) != slot {
			x.W.Error(ErrCrossSlot)
			return false
		}
	}
	if topo.ShardOf(slot) == sh.Idx && !topo.Multi {
		return true
	}
	if msg := sh.Srv.SlotRefusal(topo, slot, sh.Idx, cmd.Flags&FlagWrite != 0, x.C); msg != "" {
		x.W.Error(msg)
		return false
	}
	return true
}

// unknownCommandError formats Redis's unknown-command reply.
func unknownCommandError(args [][]byte) string {
	b := make([]byte, 0, 128)
	b = append(b, "ERR unknown command '"...)
	b = AppendTruncated(b, args[0], 128)
	b = append(b, "', with args beginning with: "...)
	total := 0
	for _, a := range args[1:] {
		if total >= 128 {
			break
		}
		b = append(b, '\'')
		b = AppendTruncated(b, a, 128-total)
		b = append(b, "' "...)
		total += len(a)
	}
	return string(b)
}

// AppendTruncated appends at most n bytes of s to dst, with CR and LF
// turned into spaces, for quoting an argument in a one-line error.
func AppendTruncated(dst, s []byte, n int) []byte {
	if len(s) > n {
		s = s[:n]
	}
	for _, c := range s {
		if c == '\r' || c == '\n' {
			c = ' '
		}
		dst = append(dst, c)
	}
	return dst
}
