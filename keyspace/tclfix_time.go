package keyspace

import "strconv"

// TIME: the server's clock as two bulk strings, Unix seconds and the
// microseconds within the second, as Redis replies. (It belongs with the
// server family; it lives here until server_cmds.go registers it.)
func timeCommand(x *Ctx) {
	now := x.S.srv.now()
	var tmp [20]byte
	x.W.ArrayHeader(2)
	x.W.Bulk(strconv.AppendInt(tmp[:0], now.Unix(), 10))
	x.W.Bulk(strconv.AppendInt(tmp[:0], int64(now.Nanosecond()/1000), 10))
}

func registerTclFixTime(t commandTable) {
	t.add(&Command{Name: "time", Arity: 1, Flags: FlagLoading | FlagStale | FlagFast, Group: "server", Since: "2.0.0", Summary: "Returns the server time.", Complexity: "O(1)", Handler: timeCommand})
}
