package keyspace

import (
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

// Pause kinds.
const (
	PauseOff   pauseKind = iota // no pause
	PauseWrite                  // commands that write or may replicate
	PauseAll                    // every command
)

// shardPause is a shard's pause; the clients it holds are parked in the
// blocking table (blocking.Postponed).
type shardPause struct {
	Kind  pauseKind
	EndMs int64
}

// PauseActive reports whether a pause is in force, ending one whose
// deadline has passed.
func (sh *Shard) PauseActive() bool {
	p := &sh.Pause
	if p.Kind == PauseOff {
		return false
	}
	if sh.NowMs >= p.EndMs {
		p.Kind, p.EndMs = PauseOff, 0
		return false
	}
	return true
}

// pauseHolds reports whether the pause in force covers cmd, run with args
// by the client of x.
func (sh *Shard) pauseHolds(x *Ctx, cmd *Command, args [][]byte) bool {
	if !sh.PauseActive() {
		return false
	}
	if sh.Pause.Kind == PauseAll {
		return true
	}
	var flags Flag
	if cmd.Name == "exec" && x.C.Tx.Multi {
		flags = x.C.Tx.pauseFlags
	} else {
		flags = sh.EffectiveFlags(cmd, args)
	}
	return flags&(FlagWrite|FlagMayReplicate) != 0
}

// EffectiveFlags is the flags of cmd as run with args: those of its
// subcommand added, and for scripts the flags their shebang declares (a
// script that declares no-writes does not write; one that declares flags
// without it may), as Redis computes them before running a script.
func (sh *Shard) EffectiveFlags(cmd *Command, args [][]byte) Flag {
	flags := cmd.Flags
	if len(cmd.Subcommands) > 0 && len(args) > 1 {
		if sc := cmd.Sub(args[1]); sc != nil {
			flags |= sc.Flags
		}
	}
	if flags&FlagRunsScript == 0 || flags&FlagReadOnly != 0 || len(args) < 2 {
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
		if sh.Scr.Eng == nil {
			return flags
		}
		s, ok := sh.Scr.Eng.Lookup(string(args[1]))
		if !ok {
			return flags
		}
		sf = s.Flags
	case "fcall":
		if sh.Scr.Eng == nil {
			return flags
		}
		f, ok := sh.Scr.Eng.Function(string(args[1]))
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
	if c.IsClosed() {
		// Gone: nothing would ever resume it; the command is dropped, as
		// a freed client's would be.
		return
	}
	if c.ReplyMode&replySkip != 0 {
		// CLIENT REPLY SKIP concerns the held command, run later.
		c.ReplyMode |= ReplySkipNext
	}
	bc := &blockedClient{c: c, Postponed: true}
	sh.park(bc)
	c.Postponed.Store(true)
	sh.Blk.Postponed = append(sh.Blk.Postponed, bc)
	if end := sh.Pause.EndMs; end > 0 {
		sh.ArmBlockTimer(end)
	}
}

// ReleasePostponed unblocks the postponed clients once the pause is over:
// they are resumed (each runs its held command again) at the next resume
// point, in the order they were held. It reports whether it unblocked any.
// While the pause lasts it makes sure the shard wakes at its end.
func (sh *Shard) ReleasePostponed() bool {
	bs := &sh.Blk
	if len(bs.Postponed) == 0 || sh.Mig.frozenID != 0 {
		return false
	}
	if sh.PauseActive() {
		sh.ArmBlockTimer(sh.Pause.EndMs)
		return false
	}
	ps := bs.Postponed
	bs.Postponed = nil
	for _, bc := range ps {
		sh.unblocked(bc)
	}
	return true
}

// expiryPaused reports whether keys must not be deleted for their deadline
// now: a pause is in force and the running command does not write.
func (sh *Shard) expiryPaused() bool {
	return sh.Pause.Kind != PauseOff && !sh.writing && sh.PauseActive()
}
