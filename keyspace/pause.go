package keyspace

import (
	"math"

	"github.com/ruvio/ruvio/scripting"
)

// CLIENT PAUSE, per shard: each shard is a node of the cluster, and a
// pause stops the clients of the shard it is sent to, as CLIENT PAUSE
// stops one Redis node.
//
// While a shard is paused, a command that the pause covers (every command
// under ALL; under WRITE those that write or may replicate: writes,
// PUBLISH, PFCOUNT, EVAL and FCALL of scripts that may write, EXEC of a
// transaction holding one of these) is not run: its client is parked by
// the blocking facility (blocking.go) at that command, postponed, with no
// key and no deadline, and every later batch of the client waits behind
// it, as a Redis client is blocked with its pipeline behind it; the
// replies of the commands before it leave at once. When the pause ends
// (CLIENT UNPAUSE, or its deadline, on which the shard's block timer
// wakes it) the postponed clients are resumed in the order they were held
// and each runs its held command again from the start: it may be
// postponed again by a new pause. A command refused before it would run
// (wrong arity, unknown, no permission) is answered at once. A pause given
// inside EXEC takes effect after it. Postponed clients count as blocked
// (INFO blocked_clients, CLIENT LIST flag b), but CLIENT UNBLOCK does not
// release them.
//
// While paused the shard neither expires keys (active expiry stops; a
// read finds an expired key missing but leaves it) nor evicts.
//
// Everything here runs on the shard goroutine.

// pauseKind is what a pause stops.
type pauseKind uint8

const (
	pauseOff   pauseKind = iota
	pauseWrite           // commands that write or may replicate
	pauseAll             // every command
)

// shardPause is a shard's pause; the clients it holds are parked in the
// blocking table (blocking.postponed).
type shardPause struct {
	kind  pauseKind
	endMs int64
}

// pauseActive reports whether a pause is in force, ending one whose
// deadline has passed.
func (sh *Shard) pauseActive() bool {
	p := &sh.pause
	if p.kind == pauseOff {
		return false
	}
	if sh.nowMs >= p.endMs {
		p.kind, p.endMs = pauseOff, 0
		return false
	}
	return true
}

// pauseHolds reports whether the pause in force covers cmd, run with args
// by the client of x.
func (sh *Shard) pauseHolds(x *Ctx, cmd *Command, args [][]byte) bool {
	if !sh.pauseActive() {
		return false
	}
	if sh.pause.kind == pauseAll {
		return true
	}
	var flags Flag
	if cmd.Name == "exec" && x.C.tx.multi {
		flags = x.C.tx.pauseFlags
	} else {
		flags = sh.effectiveFlags(cmd, args)
	}
	return flags&(FlagWrite|FlagMayReplicate) != 0
}

// effectiveFlags is the flags of cmd as run with args: those of its
// subcommand added, and for scripts the flags their shebang declares (a
// script that declares no-writes does not write; one that declares flags
// without it may), as Redis computes them before running a script.
func (sh *Shard) effectiveFlags(cmd *Command, args [][]byte) Flag {
	flags := cmd.Flags
	if len(cmd.Subcommands) > 0 && len(args) > 1 {
		if sc := cmd.sub(args[1]); sc != nil {
			flags |= sc.Flags
		}
	}
	if flags&flagRunsScript == 0 || flags&FlagReadOnly != 0 || len(args) < 2 {
		return flags
	}
	var sf scripting.Flags
	switch cmd.Name {
	case "eval":
		f, _, err := scripting.ParseShebang(args[1])
		if err != nil {
			return flags
		}
		sf = f
	case "evalsha":
		if sh.scr.eng == nil {
			return flags
		}
		s, ok := sh.scr.eng.Lookup(string(args[1]))
		if !ok {
			return flags
		}
		sf = s.Flags
	case "fcall":
		if sh.scr.eng == nil {
			return flags
		}
		f, ok := sh.scr.eng.Function(string(args[1]))
		if !ok {
			return flags
		}
		sf = f.Flags
	default:
		return flags
	}
	if sf&scripting.FlagEvalCompat != 0 {
		return flags
	}
	flags &^= FlagWrite | FlagMayReplicate
	if sf&scripting.FlagNoWrites == 0 {
		flags |= FlagWrite
	}
	return flags
}

// postpone parks the client of x, whose command the pause holds, before
// the command runs; run then parks its batch at that command.
func (sh *Shard) postpone(x *Ctx) {
	c := x.C
	if c.isClosed() {
		// Gone: nothing would ever resume it; the command is dropped, as
		// a freed client's would be.
		return
	}
	if c.replyMode&replySkip != 0 {
		// CLIENT REPLY SKIP concerns the held command, run later.
		c.replyMode |= replySkipNext
	}
	bc := &blockedClient{c: c, postponed: true}
	sh.park(bc)
	c.postponed.Store(true)
	sh.blk.postponed = append(sh.blk.postponed, bc)
	if end := sh.pause.endMs; end > 0 {
		sh.armBlockTimer(end)
	}
}

// releasePostponed unblocks the postponed clients once the pause is over:
// they are resumed (each runs its held command again) at the next resume
// point, in the order they were held. It reports whether it unblocked any.
// While the pause lasts it makes sure the shard wakes at its end.
func (sh *Shard) releasePostponed() bool {
	bs := &sh.blk
	if len(bs.postponed) == 0 {
		return false
	}
	if sh.pauseActive() {
		sh.armBlockTimer(sh.pause.endMs)
		return false
	}
	ps := bs.postponed
	bs.postponed = nil
	for _, bc := range ps {
		sh.unblocked(bc)
	}
	return true
}

// expiryPaused reports whether keys must not be deleted for their deadline
// now: a pause is in force and the running command does not write.
func (sh *Shard) expiryPaused() bool {
	return sh.pause.kind != pauseOff && !sh.writing && sh.pauseActive()
}

// CLIENT PAUSE timeout [WRITE|ALL]
func clientPauseCommand(x *Ctx) {
	if len(x.Args) > 4 {
		x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + truncArg(x.Args[1]) + "'. Try CLIENT HELP.")
		return
	}
	kind := pauseAll
	if len(x.Args) == 4 {
		switch {
		case eqFold(x.Args[3], "write"):
			kind = pauseWrite
		case eqFold(x.Args[3], "all"):
		default:
			x.W.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	ms, ok := parseInt(x.Args[2])
	if !ok {
		x.W.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		x.W.Error("ERR timeout is negative")
		return
	}
	sh := x.S
	end := int64(0)
	if ms > 0 {
		end = sh.nowMs + ms
		if end < sh.nowMs {
			end = math.MaxInt64
		}
	}
	// A pause only grows: the stronger kind and the later end win.
	p := &sh.pause
	if !sh.pauseActive() {
		p.kind, p.endMs = pauseOff, 0
	}
	p.kind = max(p.kind, kind)
	p.endMs = max(p.endMs, end)
	x.W.OK()
}

// CLIENT UNPAUSE
func clientUnpauseCommand(x *Ctx) {
	x.S.pause.kind, x.S.pause.endMs = pauseOff, 0
	x.W.OK()
}
