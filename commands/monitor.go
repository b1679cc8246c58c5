package commands

import (
	"github.com/ruvio/ruvio/keyspace"
)

// MONITOR: the connection receives every command the server runs from
// then on. Feed lines for commands run in the same drain as MONITOR may
// reach the client before MONITOR's own +OK.
func monitorCommand(x *keyspace.Ctx) {
	c := x.C
	if c.Monitor.Load() {
		// Redis ignores MONITOR from a client already monitoring.
		return
	}
	if _, ok := c.Conn.(keyspace.AsyncWriter); !ok {
		x.W.Error("ERR this connection cannot receive a MONITOR feed")
		return
	}
	if !c.IsClosed() {
		// A closed client is not added: detach has taken it out already
		// or its shard's release will (forget).
		c.Monitor.Store(true)
		x.S.Srv.Monitors.Add(c)
	}
	x.W.OK()
}
