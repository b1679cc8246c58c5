package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
)

// TIME: the server's clock as two bulk strings, Unix seconds and the
// microseconds within the second, as Redis replies.
func timeCommand(x *keyspace.Ctx) {
	now := x.S.Srv.Now()
	var tmp [20]byte
	x.W.ArrayHeader(2)
	x.W.Bulk(strconv.AppendInt(tmp[:0], now.Unix(), 10))
	x.W.Bulk(strconv.AppendInt(tmp[:0], int64(now.Nanosecond()/1000), 10))
}
