package keyspace

import (
	"bytes"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/scripting"
)

// Lua scripts: EVAL, EVALSHA, their _RO forms and SCRIPT; functions.go has
// FUNCTION and FCALL. Both run on the shard's scripting.Engine, created
// with the first use.
//
// A script runs on its shard's goroutine like any command, so it is atomic
// on the shard. The commands it calls go through scriptCall, which applies
// the checks of the normal dispatch path (lookup, arity, no_script, writes
// of read-only scripts, slots) and then the common Shard.Call, so command
// statistics, MONITOR and the WAL record helpers see them as usual. The
// records a script produces are collected as one unit (BeginUnit, as EXEC
// does) and written as one Batch record when it ends: recovery applies all
// of a script's writes or none, and never runs Lua again.
//
// Busy scripts: the engine calls scriptInterrupt every
// scripting.InterruptEvery Lua instructions. Once the script has run longer
// than busy-reply-threshold, that hook drains the shard's ring itself (the
// shard goroutine is the only reader of the ring, and it is here): every
// command of other clients is answered -BUSY except the allow_busy ones
// (SCRIPT KILL, FUNCTION KILL, MULTI, ...) and SHUTDOWN NOSAVE, which run. Batches of the
// client whose script runs are set aside and run after it, in order. A
// script never runs inline on a reactor (TryRun refuses batches that may
// run one), so the clients that must send SCRIPT KILL are always read.

// FlagRunsScript marks the commands that run Lua (EVAL*, FCALL*), so that
// TryRun keeps them off the reactors and EXEC of a transaction queuing
// them too. COMMAND does not show it.
const FlagRunsScript = FlagMovableKeys << 8

// shardScripts is the scripting state of a shard, owned by its goroutine
// except for the counters.
type shardScripts struct {
	Eng *scripting.Engine
	// Lua is the client the commands of scripts run as: its database is
	// the caller's when a script starts, and a SELECT inside the script
	// changes only it, as in Redis.
	Lua *Client

	// The script in progress; caller is nil when none runs.
	Caller   *Client
	CallArgs [][]byte
	flags    scripting.Flags
	readOnly bool
	// slot is the hash slot of the script's keys, -1 until one is known
	// (cluster checks of undeclared keys).
	slot     int
	timedOut bool
	// aborted: SHUTDOWN NOSAVE stopped the script; its records are
	// dropped with the process.
	aborted bool
	// countedErr is the last error reply (without "-" and CRLF) of a
	// command the script called, already counted in the error
	// statistics: the script's own reply passing it on is not counted
	// again (call), as Redis counts such an error once.
	countedErr []byte

	w     codec.Writer
	x     Ctx // the context of commands called by scripts
	busyX Ctx // the context of commands served while a script is busy
	inv   scripting.Invocation
	// deferred holds batches of the running script's own client, popped
	// from the ring while it was busy; they run after it.
	deferred []*Batch

	// MaxUnit overrides the WAL record limit of a script's writes in
	// tests; 0 means persistence.MaxPayloadSize.
	MaxUnit int64

	// Figures for INFO, readable from any goroutine.
	cachedScripts atomic.Int64
	scriptsBytes  atomic.Int64
	functions     atomic.Int64
	libraries     atomic.Int64
	functionBytes atomic.Int64
}

const (
	errNoScript          = "NOSCRIPT No matching script. Please use EVAL."
	errNumKeysTooMany    = "ERR Number of keys can't be greater than number of args"
	errNumKeysNegative   = "ERR Number of keys can't be negative"
	errScriptNoCluster   = "ERR Can not run script on cluster, 'no-cluster' flag is set."
	errScriptWriteRO     = "ERR Can not execute a script with write flag using *_ro command."
	errScriptOOM         = "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'"
	errScriptUnknownCmd  = "ERR Unknown Redis command called from script"
	errScriptArity       = "ERR Wrong number of args calling Redis command from script"
	errScriptNoScript    = "ERR This Redis command is not allowed from script"
	errScriptWriteInRO   = "ERR Write commands are not allowed from read-only scripts."
	errScriptCmdOOM      = "OOM command not allowed when used memory > 'maxmemory'."
	errScriptNonLocalKey = "ERR Script attempted to access a non local key in a cluster node"
	errScriptCrossSlot   = "ERR Script attempted to access keys that do not hash to the same slot"
)

// ScriptEngine returns the shard's engine, creating it on first use.
func (sh *Shard) ScriptEngine() *scripting.Engine {
	ss := &sh.Scr
	if ss.Eng == nil {
		ss.Eng = scripting.New(scripting.Config{
			Log:         sh.scriptLog,
			Interrupt:   sh.scriptInterrupt,
			MemoryLimit: sh.ScriptMemoryLimit,
		})
		ss.Lua = NewClient(0, sh.Idx, "lua", "", nil, time.Time{})
		ss.Lua.Authenticated = true
		ss.Lua.Proto = 2
	}
	return ss.Eng
}

// closeScripts releases the engine's Lua states (shard stop).
func (sh *Shard) closeScripts() {
	if sh.Scr.Eng != nil {
		sh.Scr.Eng.Close()
		sh.Scr.Eng = nil
	}
}

// scriptLog receives redis.log messages and the engine's warnings.
func (sh *Shard) scriptLog(level int, msg string) {
	log := sh.Srv.Log
	switch level {
	case scripting.LogDebug, scripting.LogVerbose:
		log.Debug(msg, zap.Int("shard", sh.Idx))
	case scripting.LogNotice:
		log.Info(msg, zap.Int("shard", sh.Idx))
	default:
		log.Warn(msg, zap.Int("shard", sh.Idx))
	}
}

// UpdateScriptFigures refreshes the INFO counters after the cache or the
// libraries changed.
func (sh *Shard) UpdateScriptFigures() {
	ss := &sh.Scr
	if ss.Eng == nil {
		return
	}
	n, b := ss.Eng.CacheStats()
	ss.cachedScripts.Store(int64(n))
	ss.scriptsBytes.Store(b)
	libs, funcs, fb := ss.Eng.LibraryStats()
	ss.libraries.Store(int64(libs))
	ss.functions.Store(int64(funcs))
	ss.functionBytes.Store(fb)
}

// ScriptMemory sums the scripting figures of every shard for INFO.
func (s *Server) ScriptMemory() (scripts, scriptBytes, libs, funcs, funcBytes int64) {
	for _, sh := range s.ShardList {
		ss := &sh.Scr
		scripts += ss.cachedScripts.Load()
		scriptBytes += ss.scriptsBytes.Load()
		libs += ss.libraries.Load()
		funcs += ss.functions.Load()
		funcBytes += ss.functionBytes.Load()
	}
	return
}

// ScriptKeysOrReply splits the arguments of EVAL-like commands (numkeys at
// Args[2]) into keys and arguments, replying the error when numkeys is
// invalid.
func ScriptKeysOrReply(x *Ctx, notInt string) (keys, argv [][]byte, ok bool) {
	n, isInt := ParseInt(x.Args[2])
	switch {
	case !isInt:
		x.W.Error(notInt)
	case n > int64(len(x.Args)-3):
		x.W.Error(errNumKeysTooMany)
	case n < 0:
		x.W.Error(errNumKeysNegative)
	default:
		return x.Args[3 : 3+n], x.Args[3+n:], true
	}
	return nil, nil, false
}

// ScriptMayRun checks a script's flags against the command that runs it
// and the server state, and its declared keys against the shard's slots;
// it returns the keys' slot (-1 without keys). On refusal it has replied.
func (sh *Shard) ScriptMayRun(x *Ctx, flags scripting.Flags, ro bool, keys [][]byte) (int, bool) {
	if flags&scripting.FlagEvalCompat == 0 {
		if flags&scripting.FlagNoCluster != 0 && sh.MultiShard() {
			x.W.Error(errScriptNoCluster)
			return 0, false
		}
		if flags&scripting.FlagNoWrites == 0 {
			if ro {
				x.W.Error(errScriptWriteRO)
				return 0, false
			}
			if msg := sh.writesRefused(); msg != "" {
				x.W.Error(msg)
				return 0, false
			}
			if flags&scripting.FlagAllowOOM == 0 && sh.scriptOverMemory() {
				x.W.Error(errScriptOOM)
				return 0, false
			}
		}
	}
	slot := -1
	if len(keys) == 0 || !sh.Srv.RoutesSlots() {
		return slot, true
	}
	topo := sh.Srv.Topology()
	s16, _ := topo.ShardOfKey(keys[0])
	for _, k := range keys[1:] {
		if s, _ := topo.ShardOfKey(k); s != s16 {
			x.W.Error(ErrCrossSlot)
			return 0, false
		}
	}
	// A script may write: it needs what a write needs.
	if msg := sh.Srv.SlotRefusal(topo, s16, sh.Idx, true, x.C); msg != "" {
		x.W.Error(msg)
		return 0, false
	}
	return int(s16), true
}

// writesRefused is the MISCONF reply when the log has failed, else "".
func (sh *Shard) writesRefused() string {
	if msg := sh.replicationRefusal(); msg != "" {
		return msg
	}
	if sh.Journal == nil {
		return ""
	}
	if err := sh.Journal.Err(); err != nil {
		return "MISCONF Errors writing to the write-ahead log of shard " + strconv.Itoa(sh.Idx) + ": " + err.Error() + ". Writes are refused until an operator restarts the server"
	}
	return ""
}

// scriptOverMemory is the maxmemory hook of scripts: true when a script
// without allow-oom (and a denyoom command it calls) must be refused
// because used memory stays over maxmemory after evicting what the policy
// allows.
func (sh *Shard) scriptOverMemory() bool {
	return sh.Srv.Opts.Live.MaxMemory() > 0 && !sh.Srv.IsReplica() && !sh.evictForWrite()
}

// scriptACLDenied is the ACL hook of commands called from scripts (and of
// redis.acl_check_cmd): the end of Redis's "The user executing the script
// …" message when the calling user may not run args, "" when allowed. A
// denial of a call (not of redis.acl_check_cmd) is logged in the lua
// context, as Redis does.
func (sh *Shard) scriptACLDenied(c *Client, cmd *Command, args [][]byte, log bool) string {
	if users := sh.Srv.ACL.Store.Load(); c.ACLUsers != users {
		c.resolveUser(users)
	}
	u := c.ACLUser
	if u != nil && u.Unrestricted() || cmd.Flags&FlagNoAuth != 0 {
		return ""
	}
	if u == nil {
		return "can't run this command or subcommand"
	}
	req := sh.ACLRequest(cmd, args)
	d := u.Check(req)
	defer func() { req.Args = nil }()
	if d.OK() {
		return ""
	}
	if log {
		sh.Srv.AddACLLog(acl.LogEvent{Reason: d.Reason, Context: acl.ContextLua, Object: d.Object(sh.Srv.ACL.Universe, req),
			Username: u.Name(), ClientInfo: c.Info(sh.Srv.Now(), 0)})
	}
	switch d.Reason {
	case acl.ReasonKey:
		return "can't access at least one of the keys mentioned in the command"
	case acl.ReasonChannel:
		return "can't publish to the channel mentioned in the command"
	default:
		return "can't run this command or subcommand"
	}
}

// RunScript runs one script or function invocation: run calls the engine
// with the prepared Invocation.
func (sh *Shard) RunScript(x *Ctx, flags scripting.Flags, ro bool, slot int, keys, argv [][]byte, run func(inv *scripting.Invocation)) {
	ss := &sh.Scr
	ss.Caller, ss.CallArgs = x.C, x.Args
	ss.flags, ss.slot = flags, slot
	ss.readOnly = ro || flags&scripting.FlagNoWrites != 0 && flags&scripting.FlagEvalCompat == 0
	ss.timedOut, ss.aborted = false, false
	ss.countedErr = ss.countedErr[:0]
	ss.Lua.DB = x.C.DB
	ss.inv = scripting.Invocation{Keys: keys, Args: argv, Call: sh.scriptCall, ACLCheck: sh.scriptACLCheck}
	// Inside EXEC the script's records join the transaction's unit.
	own := !sh.Tx.Recording
	if own {
		sh.BeginUnit()
	}
	run(&ss.inv)
	if ss.aborted && sh.Tx.Recording {
		// SHUTDOWN NOSAVE stopped it: nothing of it reaches the log.
		sh.Tx.batch.Reset()
	}
	if own {
		sh.EndUnit()
	}
	ss.inv = scripting.Invocation{}
	ss.Caller, ss.CallArgs = nil, nil
	x.DB = sh.DBs[x.C.DB]
}

// noteCountedError remembers reply (an error after its "-") as counted.
func (ss *shardScripts) noteCountedError(reply []byte) {
	ss.countedErr = append(ss.countedErr[:0], bytes.TrimSuffix(reply, []byte("\r\n"))...)
}

// errorCounted reports whether reply, the error a command just answered,
// is already in the error statistics: inside a script it is counted and
// remembered; a script's own reply that passes on the error of a command
// it called is not counted again.
func (sh *Shard) errorCounted(reply []byte) bool {
	ss := &sh.Scr
	if ss.Caller != nil {
		ss.noteCountedError(reply)
		return false
	}
	if len(ss.countedErr) == 0 {
		return false
	}
	counted := bytes.HasPrefix(reply, ss.countedErr)
	ss.countedErr = ss.countedErr[:0]
	return counted
}

// scriptACLCheck answers redis.acl_check_cmd.
func (sh *Shard) scriptACLCheck(args [][]byte) (allowed, known bool) {
	cmd := sh.Srv.Cmds.Lookup(args[0])
	if cmd == nil {
		return false, false
	}
	return sh.scriptACLDenied(sh.Scr.Caller, cmd.Called(args), args, false) == "", true
}

// scriptCall is the engine's CallFunc: it runs one redis.call / redis.pcall
// command on the shard after the checks Redis applies to commands of
// scripts, and appends its reply encoded in RESP version resp to out.
func (sh *Shard) scriptCall(args [][]byte, resp int, out []byte) []byte {
	ss := &sh.Scr
	w := &ss.w
	w.Buf, w.Proto = out, resp
	before := len(w.Buf)
	cmd := sh.Srv.Cmds.Lookup(args[0])
	refuse := func(msg string) []byte {
		w.Error(msg)
		if cmd != nil {
			sh.reject(cmd, args, w.Buf[before+1:])
		} else {
			sh.CmdStats.countError(w.Buf[before+1:])
		}
		ss.noteCountedError(w.Buf[before+1:])
		out := w.Buf
		w.Buf = nil
		return out
	}
	if cmd == nil {
		return refuse(errScriptUnknownCmd)
	}
	called := cmd
	if len(cmd.Subcommands) > 0 && len(args) > 1 {
		if called = cmd.Sub(args[1]); called == nil {
			cmd = nil
			return refuse(errScriptUnknownCmd)
		}
	}
	if !ArityOK(cmd.Arity, len(args)) || !ArityOK(called.Arity, len(args)) {
		return refuse(errScriptArity)
	}
	if msg := sh.scriptACLDenied(ss.Caller, called, args, true); msg != "" {
		return refuse("ERR The user executing the script " + msg)
	}
	flags := cmd.Flags | called.Flags
	if flags&FlagNoScript != 0 {
		return refuse(errScriptNoScript)
	}
	// A read-only script may not run commands that may replicate either
	// (PUBLISH, PFCOUNT, ...), so it can run during CLIENT PAUSE WRITE.
	if ss.readOnly && flags&(FlagWrite|FlagMayReplicate) != 0 {
		return refuse(errScriptWriteInRO)
	}
	if flags&FlagWrite != 0 {
		if msg := sh.writesRefused(); msg != "" {
			return refuse(msg)
		}
		if sh.Tx.Recording && int64(sh.Tx.batch.Size())+writeBound(args) > ss.unitLimit() {
			// The script's unit must fit one WAL record; a failed append
			// would stop the shard's writes.
			return refuse("ERR the script's writes would exceed one write-ahead log record (" + strconv.FormatInt(ss.unitLimit(), 10) + " bytes)")
		}
	}
	if sh.tainted() && called.Flags&FlagStale == 0 {
		// The shard's memory holds writes that were refused (logfail.go).
		return refuse(sh.unservedError())
	}
	if flags&FlagDenyOOM != 0 && ss.flags&scripting.FlagAllowOOM == 0 && sh.scriptOverMemory() {
		// A script without a shebang is refused only before its first
		// write, as in Redis, so it never stops half-way.
		if ss.flags&scripting.FlagEvalCompat == 0 || !sh.scriptWritten() {
			return refuse(errScriptCmdOOM)
		}
	}
	if sh.MultiShard() && called.FirstKey > 0 {
		if msg := sh.scriptKeysLocal(called, args); msg != "" {
			return refuse(msg)
		}
	}
	if flags&FlagWrite != 0 {
		ss.Eng.MarkWritten()
	}
	x := &ss.x
	*x = Ctx{S: sh, C: ss.Lua, DB: sh.DBs[ss.Lua.DB], Args: args, W: w, Cmd: cmd, NoBlock: true}
	room, why := sh.scriptReplyRoom()
	w.Limit = before + int(min(room, int64(math.MaxInt-before)))
	sh.Call(x, cmd, args)
	if w.Full() {
		// The reply was cut short where it reached the bound: the script
		// gets an error instead (its caller stays connected).
		w.Buf = w.Buf[:before]
		w.Error("ERR the reply of '" + cmd.Name + "' exceeds " + strconv.FormatInt(room, 10) + " bytes, " + why)
	}
	w.Limit = 0
	out = w.Buf
	*x = Ctx{}
	w.Buf = nil
	return out
}

// scriptReplyRoom is how large a reply a command called by the running
// script may build, and why: the hard output buffer limit of its caller's
// class, or the server's largest reply for a class without one. The reply
// becomes a Lua value rather than output, but it is built on the caller's
// behalf and is bounded by the same setting.
func (sh *Shard) scriptReplyRoom() (int64, string) {
	if c := sh.Scr.Caller; c != nil {
		if hard := sh.Srv.Opts.Live.OutputBufferLimit(c.OutputClass()).Hard; hard > 0 {
			return hard, "the hard client-output-buffer-limit of the script's caller"
		}
	}
	return sh.Srv.maxReplyBytes(), "the largest reply the server builds"
}

// unitLimit is the most WAL payload bytes a script's writes may take.
func (ss *shardScripts) unitLimit() int64 {
	if ss.MaxUnit > 0 {
		return ss.MaxUnit
	}
	return persistence.MaxPayloadSize
}

// writeBound bounds the WAL bytes one write command with args may log.
func writeBound(args [][]byte) int64 {
	n := int64(0)
	for _, a := range args {
		n += int64(len(a)) + batchEntryOverhead
	}
	return n
}

// scriptWritten reports whether the running script has written.
func (sh *Shard) scriptWritten() bool {
	info, ok := sh.Scr.Eng.Monitor().Running()
	return ok && info.Written
}

// scriptKeysLocal checks the keys a script's command names, in cluster
// mode (several shards): they must be this shard's and, unless the script
// allows cross-slot keys, in the slot of its other keys.
func (sh *Shard) scriptKeysLocal(cmd *Command, args [][]byte) string {
	ss := &sh.Scr
	topo := sh.Srv.Topology()
	sh.keyIdx = cmd.KeyIndexes(args, sh.keyIdx[:0])
	for _, i := range sh.keyIdx {
		s16, owner := topo.ShardOfKey(args[i])
		if owner != sh.Idx {
			return errScriptNonLocalKey
		}
		if sh.Mig.frozenID != 0 && sh.slotFrozen(s16) {
			return errSlotMoving
		}
		if ss.flags&scripting.FlagAllowCrossSlot != 0 {
			continue
		}
		if ss.slot < 0 {
			ss.slot = int(s16)
		} else if ss.slot != int(s16) {
			return errScriptCrossSlot
		}
	}
	return ""
}

// busyThreshold is busy-reply-threshold (lua-time-limit).
func (sh *Shard) busyThreshold() time.Duration {
	v, _ := sh.Srv.Opts.Live.Value("busy-reply-threshold")
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		ms = 5000
	}
	return time.Duration(ms) * time.Millisecond
}

// ScriptMemoryLimit is how much one script may add to the heap:
// ruvio-lua-memory-limit, at most maxmemory, 0 when neither is set.
func (sh *Shard) ScriptMemoryLimit() int64 {
	live := sh.Srv.Opts.Live
	limit := int64(0)
	if v, ok := live.Value("ruvio-lua-memory-limit"); ok {
		limit, _ = strconv.ParseInt(v, 10, 64)
	}
	if m := live.MaxMemory(); m > 0 && (limit <= 0 || m < limit) {
		limit = m
	}
	return max(limit, 0)
}

// scriptInterrupt is the engine's instruction-count hook, on the shard
// goroutine: past busy-reply-threshold it serves the other clients.
func (sh *Shard) scriptInterrupt(elapsed time.Duration) {
	ss := &sh.Scr
	if ss.Caller == nil {
		return
	}
	if !ss.timedOut {
		if elapsed < sh.busyThreshold() {
			return
		}
		ss.timedOut = true
		name := ""
		if info, ok := ss.Eng.Monitor().Running(); ok {
			name = info.Name
		}
		sh.Logger().Warn("Slow script detected: still in execution after " + strconv.FormatInt(elapsed.Milliseconds(), 10) +
			" milliseconds. You can try killing the script using the SCRIPT KILL command. Script name is: " + name + ".")
	}
	sh.serveBusy()
}

// serveBusy drains the ring while a script is busy: other clients get
// BUSY (or their kill / SHUTDOWN NOSAVE run), the running script's client
// waits.
func (sh *Shard) serveBusy() {
	ss := &sh.Scr
	// Batches run earlier in this drain wait for a commit that would come
	// only after the script: release their replies now.
	served := sh.group != nil && sh.group.head != nil
	for {
		b := sh.Ring.Pop()
		if b == nil {
			break
		}
		if b.Client == ss.Caller {
			ss.deferred = append(ss.deferred, b)
			continue
		}
		if sh.holdIfBlocked(b) {
			continue
		}
		sh.runBusy(b)
		sh.Queue(b)
		served = true
	}
	if served {
		// Earlier batches of this drain are released too: their records
		// are in the log already, the script's are held in its unit.
		sh.Commit()
	}
	if sh.waiting.Load() {
		sh.wakeWaiters()
	}
}

// busyAllowed reports whether a command runs while a script is busy: the
// allow_busy commands of Redis (MULTI, WATCH, SCRIPT KILL, FUNCTION
// KILL, FUNCTION STATS, AUTH, HELLO, ...), SHUTDOWN only with NOSAVE.
func (sh *Shard) busyAllowed(args [][]byte) bool {
	cmd := sh.Srv.Cmds.Lookup(args[0])
	if cmd == nil || cmd.Called(args).Flags&FlagAllowBusy == 0 {
		return false
	}
	if cmd.Name == "shutdown" {
		return len(args) == 2 && EqFold(args[1], "nosave")
	}
	return true
}

// runBusy answers one batch while a script is busy.
func (sh *Shard) runBusy(b *Batch) {
	ss := &sh.Scr
	c := b.Client
	if c.Killed() {
		b.CloseAfter = true
		return
	}
	busy := scripting.ErrBusyScript.Msg
	if info, ok := ss.Eng.Monitor().Running(); ok && !info.Eval {
		busy = scripting.ErrBusyFunction.Msg
	}
	x := &ss.busyX
	*x = Ctx{S: sh, C: c, W: &b.Out, Batch: b}
	for i := 0; i < len(b.Ends) && !b.CloseAfter; i++ {
		args := b.Command(i)
		if len(args) == 0 {
			continue
		}
		b.Out.Proto = c.Proto
		if !sh.busyAllowed(args) {
			// Refused like a failed check: a transaction in progress
			// is flagged, and its EXEC aborted naming the refusal.
			before := len(b.Out.Buf)
			b.Out.Error(busy)
			if c.Tx.Multi && EqFold(args[0], "exec") {
				sh.execAbort(x, before)
			} else {
				c.flagTx()
			}
			continue
		}
		sh.Exec(x, args)
		if EqFold(args[0], "shutdown") && b.CloseAfter {
			// The process stops: end the script even if it wrote.
			ss.aborted = true
			ss.Eng.Monitor().Abort()
		}
	}
	if b.ProtoErr != "" && !b.CloseAfter {
		b.Out.Error("ERR " + b.ProtoErr)
		b.CloseAfter = true
	}
	*x = Ctx{}
}

// runDeferred runs the batches set aside while a script was busy and
// queues them for commit; drain calls it after each batch.
func (sh *Shard) runDeferred() int {
	n := 0
	for len(sh.Scr.deferred) > 0 {
		d := sh.Scr.deferred[0]
		copy(sh.Scr.deferred, sh.Scr.deferred[1:])
		sh.Scr.deferred[len(sh.Scr.deferred)-1] = nil
		sh.Scr.deferred = sh.Scr.deferred[:len(sh.Scr.deferred)-1]
		if !sh.Run(d) {
			sh.Queue(d)
		}
		n++
	}
	return n
}

// EvalGeneric runs EVAL, EVALSHA and their _RO forms: x.Args[1] is the
// script (loaded and cached) or, with bySHA, the SHA1 of a cached one; ro
// is set for the read-only forms. The call is shown to MONITOR before the
// commands of its script.
func (sh *Shard) EvalGeneric(x *Ctx, bySHA, ro bool) {
	if sh.Srv.Monitors.Count.Load() != 0 {
		sh.WriteMonitors(x.C, x.Args)
	}
	keys, argv, ok := ScriptKeysOrReply(x, ErrNotInt)
	if !ok {
		return
	}
	e := sh.ScriptEngine()
	var s *scripting.Script
	if bySHA {
		if s, ok = e.Lookup(string(x.Args[1])); !ok {
			x.W.Error(errNoScript)
			return
		}
	} else {
		var err error
		if s, err = e.Load(x.Args[1]); err != nil {
			x.W.Error(err.Error())
			return
		}
		sh.UpdateScriptFigures()
	}
	slot, ok := sh.ScriptMayRun(x, s.Flags, ro, keys)
	if !ok {
		return
	}
	sh.RunScript(x, s.Flags, ro, slot, keys, argv, func(inv *scripting.Invocation) { e.Eval(x.W, s, inv) })
}
