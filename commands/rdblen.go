package commands

import (
	"github.com/ruvio/ruvio/types/rdb"
)

// rdbStringLen is the number of bytes of the RDB encoding of s.
func rdbStringLen(s []byte) int64 {
	return int64(len(rdb.AppendString(nil, s)))
}
