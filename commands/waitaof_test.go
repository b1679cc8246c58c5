package commands

import (
	"testing"

	"github.com/ruvio/ruvio/keyspace"
)

// WAITAOF's arguments and errors, as Redis 7.2 words them; the test shard
// has no log, which is appendonly no to WAITAOF.
func TestWaitaofArguments(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rArr(rInt(0), rInt(0)), "WAITAOF", "0", "0", "0")
	expect(t, sh, rErr("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled."), "WAITAOF", "1", "0", "0")
	expect(t, sh, rErr("ERR value is out of range, value must between 0 and 1"), "WAITAOF", "2", "0", "0")
	expect(t, sh, rErr("ERR value is out of range, value must between 0 and 1"), "WAITAOF", "-1", "0", "0")
	expect(t, sh, rErr(keyspace.ErrNotInt), "WAITAOF", "x", "0", "0")
	expect(t, sh, rErr("ERR value is out of range, must be positive"), "WAITAOF", "0", "-1", "0")
	expect(t, sh, rErr(keyspace.ErrNotInt), "WAITAOF", "0", "x", "0")
	expect(t, sh, rErr("ERR timeout is not an integer or out of range"), "WAITAOF", "0", "0", "x")
	expect(t, sh, rErr("ERR timeout is negative"), "WAITAOF", "0", "0", "-1")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("waitaof")), "WAITAOF", "0", "0")
}
