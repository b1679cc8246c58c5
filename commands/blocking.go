package commands

import (
	"github.com/ruvio/ruvio/keyspace"
)

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]
func clientUnblockCommand(x *keyspace.Ctx) {
	if len(x.Args) > 4 {
		x.W.Error(keyspace.ErrWrongArgs("client|unblock"))
		return
	}
	errReply := false
	if len(x.Args) == 4 {
		switch {
		case keyspace.EqFold(x.Args[3], "timeout"):
		case keyspace.EqFold(x.Args[3], "error"):
			errReply = true
		default:
			x.W.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	}
	id, ok := keyspace.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	var target *keyspace.Client
	for _, c := range x.S.Srv.Clients() {
		if c.ID == id {
			target = c
			break
		}
	}
	if target == nil {
		x.W.Int(0)
		return
	}
	if target.Shard == x.S.Idx {
		if x.S.UnblockClient(target, errReply) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
		return
	}
	if !target.Blocked.Load() || target.Postponed.Load() || target.OffLoop.Load() || target.Shard >= len(x.S.Srv.ShardList) {
		x.W.Int(0)
		return
	}
	x.S.Srv.ShardList[target.Shard].RequestUnblock(target, errReply)
	x.W.Int(1)
}
