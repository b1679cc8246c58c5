package keyspace

import (
	"math"
	"sync/atomic"

	"github.com/ruvio/ruvio/scripting"
)

// CLIENT PAUSE, per shard: each shard is a node of the cluster, and a
// pause stops the clients of the shard it is sent to, as CLIENT PAUSE
// stops one Redis node.
//
// While a shard is paused, a command that the pause covers (every command
// under ALL; under WRITE those that write or may replicate: writes,
// PUBLISH, PFCOUNT, EVAL and FCALL of scripts that may write, EXEC of a
// transaction holding one of these) is not run: its batch waits in the
// shard, from that command on, and so does every later batch of the same
// client, as a Redis client is blocked with its pipeline behind it. When
// the pause ends (CLIENT UNPAUSE, or its deadline seen by the next drain or
// tick) the waiting batches run in the order they arrived. A command
// refused before it would run (wrong arity, unknown, no permission) is
// answered at once. A pause given inside EXEC takes effect after it.
//
// While paused the shard neither expires keys (active expiry stops; a
// read finds an expired key missing but leaves it) nor evicts.
//
// Everything here runs on the shard goroutine, but for the count of
// waiting clients that INFO reads.

// pauseKind is what a pause stops.
type pauseKind uint8

const (
	pauseOff   pauseKind = iota
	pauseWrite           // commands that write or may replicate
	pauseAll             // every command
)

// shardPause is a shard's pause and the batches it holds.
type shardPause struct {
	kind  pauseKind
	endMs int64
	// held is the waiting batches in arrival order; next is the index of
	// the first command not run yet.
	held []heldBatch
	// clients counts the clients with held batches, for INFO.
	clients atomic.Int64
	// hit is set by exec when it held the command it was given.
	hit bool
}

type heldBatch struct {
	b    *Batch
	next int
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

// holdBatch keeps b, whose command next the pause holds, until the pause
// ends.
func (sh *Shard) holdBatch(b *Batch, next int) {
	c := b.Client
	if c.held == 0 {
		sh.pause.clients.Add(1)
	}
	c.held++
	sh.pause.held = append(sh.pause.held, heldBatch{b: b, next: next})
}

// releaseHeld runs the held batches once the pause is over and queues them
// for delivery; it returns how many ran. A batch that meets a new pause
// is held again, behind nothing: the list is rebuilt in order.
func (sh *Shard) releaseHeld() int {
	if len(sh.pause.held) == 0 || sh.pauseActive() {
		return 0
	}
	held := sh.pause.held
	sh.pause.held = nil
	for _, h := range held {
		c := h.b.Client
		c.held--
		if c.held == 0 {
			sh.pause.clients.Add(-1)
		}
	}
	for i, h := range held {
		if !sh.runFrom(h.b, h.next) {
			sh.queue(h.b)
		}
		held[i] = heldBatch{}
	}
	return len(held)
}

// pausedClients is the number of clients waiting for a pause to end, on
// every shard.
func (s *Server) pausedClients() int64 {
	var n int64
	for _, sh := range s.shards {
		n += sh.pause.clients.Load()
	}
	return n
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
