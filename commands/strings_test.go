package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"testing"

	"github.com/ruvio/ruvio/persistence"
)

func TestStringsSetrangeHugeOffset(t *testing.T) {
	sh := newTestShard(t)
	tooBig := rErr(keyspace.ErrStringTooBig)
	// An offset near MaxInt64 must not overflow past the size check.
	expect(t, sh, tooBig, "setrange", "k", "9223372036854775807", "A")
	expect(t, sh, tooBig, "setrange", "k", "2147483647", "A")
	expect(t, sh, rInt(0), "exists", "k")
	expect(t, sh, rInt(0), "setrange", "k", "9223372036854775807", "")
	expect(t, sh, rErr(keyspace.ErrOffsetRange), "setrange", "k", "-1", "A")
	expect(t, sh, rInt(3), "setrange", "k", "2", "A")
	expect(t, sh, rBulk("\x00\x00A"), "get", "k")
}

func TestStringsSetbitGetbit(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, rInt(0), "setbit", "k", "1", "1")
	expectOps(t, j, "setbit on a missing key", persistence.OpSetRange)
	expect(t, sh, rBulk("\x40"), "get", "k")
	expect(t, sh, rInt(1), "setbit", "k", "1", "1")
	expectOps(t, j, "setbit to the same value")
	expect(t, sh, rInt(1), "setbit", "k", "1", "0")
	expectOps(t, j, "setbit that changes a bit", persistence.OpSetRange)
	expect(t, sh, rInt(0), "setbit", "k", "17", "0")
	expectOps(t, j, "setbit that grows the string", persistence.OpSetRange)
	expect(t, sh, rBulk("\x00\x00\x00"), "get", "k")
	expect(t, sh, rInt(0), "setbit", "k", "23", "1")
	expect(t, sh, rInt(1), "getbit", "k", "23")
	expect(t, sh, rInt(0), "getbit", "k", "22")
	expect(t, sh, rInt(0), "getbit", "k", "1000")
	expect(t, sh, rInt(0), "getbit", "missing", "0")

	// "1" is the byte 0x31: bits 2, 3 and 7 are set.
	expect(t, sh, rOK, "set", "n", "1")
	for bit, want := range []int64{0, 0, 1, 1, 0, 0, 0, 1} {
		expect(t, sh, rInt(want), "getbit", "n", itoa(bit))
	}
	expect(t, sh, rInt(0), "setbit", "n", "6", "1")
	expect(t, sh, rBulk("3"), "get", "n")

	badOff := rErr("ERR bit offset is not an integer or out of range")
	badBit := rErr("ERR bit is not an integer or out of range")
	expect(t, sh, badOff, "setbit", "k", "-1", "1")
	expect(t, sh, badOff, "setbit", "k", "4294967296", "1")
	expect(t, sh, badOff, "setbit", "k", "x", "1")
	expect(t, sh, badOff, "getbit", "k", "4294967296")
	expect(t, sh, badOff, "getbit", "k", "-1")
	expect(t, sh, badBit, "setbit", "k", "0", "2")
	expect(t, sh, badBit, "setbit", "k", "0", "-1")
	expect(t, sh, badBit, "setbit", "k", "0", "01")
	expect(t, sh, rOK, "config", "set", "proto-max-bulk-len", "1mb")
	expect(t, sh, badOff, "setbit", "k", itoa(8<<20), "1")
	expect(t, sh, rInt(0), "setbit", "k", itoa(8<<20-1), "1")

	sh.DBs[0].Add([]byte("l"), nil, &fakeListObj{items: []string{"a"}}, 0)
	expect(t, sh, rErr(keyspace.ErrWrongType), "setbit", "l", "0", "1")
	expect(t, sh, rErr(keyspace.ErrWrongType), "getbit", "l", "0")
}

func TestStringsLCS(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rOK, "mset", "a", "ohmytext", "b", "mynewtext")
	expect(t, sh, rBulk("mytext"), "lcs", "a", "b")
	expect(t, sh, rInt(6), "lcs", "a", "b", "len")
	expect(t, sh, rBulk(""), "lcs", "a", "missing")
	expect(t, sh, rInt(0), "lcs", "missing", "missing2", "LEN")
	idx := "*4\r\n$7\r\nmatches\r\n" +
		rArr(rArr(rArr(rInt(4), rInt(7)), rArr(rInt(5), rInt(8))),
			rArr(rArr(rInt(2), rInt(3)), rArr(rInt(0), rInt(1)))) +
		rBulk("len") + rInt(6)
	expect(t, sh, idx, "lcs", "a", "b", "idx")
	withLen := "*4\r\n$7\r\nmatches\r\n" +
		rArr(rArr(rArr(rInt(4), rInt(7)), rArr(rInt(5), rInt(8)), rInt(4))) +
		rBulk("len") + rInt(6)
	expect(t, sh, withLen, "lcs", "a", "b", "idx", "minmatchlen", "3", "withmatchlen")
	expect(t, sh, rErr("ERR If you want both the length and indexes, please just use IDX."), "lcs", "a", "b", "len", "idx")
	expect(t, sh, rErr(keyspace.ErrSyntax), "lcs", "a", "b", "foo")
	expect(t, sh, rErr(keyspace.ErrSyntax), "lcs", "a", "b", "minmatchlen")
	expect(t, sh, rErr(keyspace.ErrNotInt), "lcs", "a", "b", "minmatchlen", "x")
	sh.DBs[0].Add([]byte("l"), nil, &fakeListObj{items: []string{"a"}}, 0)
	expect(t, sh, rErr("ERR The specified keys must contain string values"), "lcs", "a", "l")
	expect(t, sh, rOK, "config", "set", "proto-max-bulk-len", "1mb")
	big := make([]byte, 600)
	expect(t, sh, rOK, "mset", "x", string(big), "y", string(big))
	expect(t, sh, rErr("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"), "lcs", "x", "y")
}

func TestStringsTimeAndFunctionFlush(t *testing.T) {
	sh := newTestShard(t)
	// The test clock is testNowMs exactly.
	expect(t, sh, rArr(rBulk("1700000000"), rBulk("0")), "time")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("time")), "time", "x")
	expect(t, sh, rOK, "function", "flush")
	expect(t, sh, rOK, "function", "flush", "async")
	expect(t, sh, rOK, "function", "FLUSH", "SYNC")
	expect(t, sh, rErr("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"), "function", "flush", "now")
	expect(t, sh, "*0\r\n", "function", "list")
	expect(t, sh, rErr("ERR Missing library metadata"), "function", "load", "x")
}
