package commands

import (
	"github.com/ruvio/ruvio/types/rdb"
)

// DEBUG OBJECT reports a string's serializedlength as the size of Redis's
// RDB encoding of it (types/rdb writes it as Redis 7.0 does with
// rdbcompression on, its default), so tools that compare the figure with
// Redis's see the same number.

// rdbStringLen is the number of bytes of the RDB encoding of s.
func rdbStringLen(s []byte) int64 {
	return int64(len(rdb.AppendString(nil, s)))
}
