package commands

import (
	"strconv"

	"github.com/ruvio/ruvio/keyspace"
)

// DEBUG POPULATE count [prefix] [size]: creates the string keys prefix:0 .. prefix:count-1
// ("key" by default) holding "value:N", padded with zero bytes or cut to size when size is
// given, leaving any that exist alone. The keys are written like SET's, so they reach the WAL
// and the replicas. On a shard that routes slots, keys of other shards' slots are left out; a
// replica refuses, as its log holds only its primary's records.
func debugPopulate(x *keyspace.Ctx) {
	count, ok := keyspace.ParseInt(x.Args[2])
	if !ok || count < 0 {
		x.W.Error("ERR value is out of range, must be positive")
		return
	}
	prefix := []byte("key")
	if len(x.Args) > 3 {
		prefix = x.Args[3]
	}
	size := int64(-1)
	if len(x.Args) > 4 {
		n, ok := keyspace.ParseInt(x.Args[4])
		if !ok || n < 0 {
			x.W.Error("ERR value is out of range, must be positive")
			return
		}
		if n > x.S.Srv.Opts.Live.ProtoMaxBulkLen() {
			x.W.Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
			return
		}
		size = n
	}
	if x.S.Srv.ReadOnlyReplica() {
		x.W.Error(keyspace.ErrReadOnlyReplica)
		return
	}
	key := make([]byte, 0, len(prefix)+21)
	for j := int64(0); j < count; j++ {
		key = strconv.AppendInt(append(append(key[:0], prefix...), ':'), j, 10)
		if keySlotRefusal(x, key, true) != "" {
			continue
		}
		if x.S.Lookup(x.DB, key) != nil {
			continue
		}
		val := strconv.AppendInt([]byte("value:"), j, 10)
		if size >= 0 {
			v := make([]byte, size)
			copy(v, val)
			val = v
		}
		x.S.StoreString(x.DB, key, val, 0, false)
	}
	x.W.OK()
}
