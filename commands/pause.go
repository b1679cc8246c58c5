package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
)

// CLIENT PAUSE timeout [WRITE|ALL]
func clientPauseCommand(x *keyspace.Ctx) {
	if len(x.Args) > 4 {
		x.W.Error("ERR unknown subcommand or wrong number of arguments for '" + keyspace.TruncArg(x.Args[1]) + "'. Try CLIENT HELP.")
		return
	}
	kind := keyspace.PauseAll
	if len(x.Args) == 4 {
		switch {
		case keyspace.EqFold(x.Args[3], "write"):
			kind = keyspace.PauseWrite
		case keyspace.EqFold(x.Args[3], "all"):
		default:
			x.W.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	ms, ok := keyspace.ParseInt(x.Args[2])
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
		end = sh.NowMs + ms
		if end < sh.NowMs {
			end = math.MaxInt64
		}
	}
	// A pause only grows: the stronger kind and the later end win.
	p := &sh.Pause
	if !sh.PauseActive() {
		p.Kind, p.EndMs = keyspace.PauseOff, 0
	}
	p.Kind = max(p.Kind, kind)
	p.EndMs = max(p.EndMs, end)
	x.W.OK()
}

// CLIENT UNPAUSE
func clientUnpauseCommand(x *keyspace.Ctx) {
	x.S.Pause.Kind, x.S.Pause.EndMs = keyspace.PauseOff, 0
	x.W.OK()
}
