package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/hash"
	"github.com/ruvio/ruvio/types/rdb"
)

// durApply replays recs into sh the way recovery does: each record is
// encoded with the WAL framing, decoded back and applied.
func durApply(t *testing.T, sh *keyspace.Shard, recs []persistence.Record) {
	t.Helper()
	for _, r := range recs {
		enc, err := persistence.AppendRecord(nil, r)
		if err != nil {
			t.Fatalf("encode record %d: %v", r.Seq, err)
		}
		dec, n, err := persistence.DecodeRecord(enc)
		if err != nil || n != len(enc) {
			t.Fatalf("decode record %d: n=%d err=%v", r.Seq, n, err)
		}
		if err := sh.ApplyRecord(dec); err != nil {
			t.Fatalf("apply record %d (%s): %v", r.Seq, r.Op, err)
		}
	}
}

// durState is a canonical dump of every database of sh: one line per key
// with its value (or object type) and deadline, sorted.
func durState(sh *keyspace.Shard) string {
	var lines []string
	for i, db := range sh.DBs {
		db.Each(func(e *keyspace.Entry) {
			v := strconv.Quote(string(db.Val(e)))
			if db.Obj(e) != nil {
				v = fmt.Sprintf("obj %T %v", db.Obj(e), db.Obj(e))
			}
			lines = append(lines, fmt.Sprintf("db%d %q = %s deadline=%d", i, e.KeyView(), v, e.ExpireAt))
		})
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// durCheckIndex verifies the bookkeeping of every database: key counts,
// the expiring index, and each database's id.
func durCheckIndex(t *testing.T, sh *keyspace.Shard) {
	t.Helper()
	for i, db := range sh.DBs {
		if db.ID != i {
			t.Errorf("db %d has id %d", i, db.ID)
		}
		n, withTTL := 0, 0
		db.Each(func(e *keyspace.Entry) {
			n++
			if e.ExpireAt != 0 {
				withTTL++
				if e.ExpIdx == 0 || int(e.ExpIdx) > len(db.Expiring) || db.Expiring[e.ExpIdx-1] != db.Handle(e) {
					t.Errorf("db %d key %q: deadline %d but not in the expiring index", i, e.KeyView(), e.ExpireAt)
				}
			} else if e.ExpIdx != 0 {
				t.Errorf("db %d key %q: no deadline but in the expiring index", i, e.KeyView())
			}
		})
		if n != db.T.Count {
			t.Errorf("db %d: %d entries, count says %d", i, n, db.T.Count)
		}
		if withTTL != len(db.Expiring) {
			t.Errorf("db %d: %d keys with deadlines, index holds %d", i, withTTL, len(db.Expiring))
		}
	}
}

// durDiff fails the test when two dumps differ, showing the first lines
// that do.
func durDiff(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s: states differ (%d vs %d keys) at line %d:\n got  %s\n want %s", what, len(g), len(w), i, gl, wl)
		}
	}
}

// durReplayChecker runs commands on a source shard and, after each one,
// replays the new records into a mirror shard and compares both.
type durReplayChecker struct {
	t      *testing.T
	src    *keyspace.Shard
	mirror *keyspace.Shard
	j      *recJournal
	done   int // records already applied to the mirror
}

func newDurReplayChecker(t *testing.T) *durReplayChecker {
	src := newTestShard(t)
	return &durReplayChecker{t: t, src: src, mirror: newTestShard(t), j: attachJournal(src)}
}

// do runs args on the source, checks the records it wrote include want
// (when want != 0) and that the replayed mirror equals the source.
func (c *durReplayChecker) do(want persistence.Opcode, args ...string) string {
	t := c.t
	t.Helper()
	reply := run(t, c.src, args...)
	if strings.HasPrefix(reply, "-") {
		t.Fatalf("%q: %q", args, reply)
	}
	recs := c.j.recs[c.done:]
	c.done = len(c.j.recs)
	if want != 0 && !slices.ContainsFunc(recs, func(r persistence.Record) bool { return r.Op == want }) {
		ops := make([]persistence.Opcode, len(recs))
		for i, r := range recs {
			ops[i] = r.Op
		}
		t.Errorf("%q logged %v, want a %s record", args, ops, want)
	}
	durApply(t, c.mirror, recs)
	durDiff(t, fmt.Sprintf("after %q", args), durState(c.mirror), durState(c.src))
	durCheckIndex(t, c.mirror)
	return reply
}

func TestReplayEveryOpcode(t *testing.T) {
	const (
		none = persistence.Opcode(0)
		set  = persistence.OpSet
		del  = persistence.OpDel
		exp  = persistence.OpExpire
	)
	deadline := strconv.FormatInt(testNowMs+123_456, 10)
	cases := []struct {
		name  string
		setup [][]string
		cmd   []string
		want  persistence.Opcode
	}{
		{"set", nil, []string{"SET", "k", "v"}, set},
		{"set ex", nil, []string{"SET", "k", "v", "EX", "100"}, set},
		{"set over ttl drops it", [][]string{{"SET", "k", "a", "EX", "100"}}, []string{"SET", "k", "b"}, set},
		{"set keepttl", [][]string{{"SET", "k", "a", "EX", "100"}}, []string{"SET", "k", "bb", "KEEPTTL"}, set},
		{"set pxat", nil, []string{"SET", "k", "v", "PXAT", deadline}, set},
		{"set ifeq", [][]string{{"SET", "k", "a", "EX", "100"}}, []string{"SET", "k", "b", "IFEQ", "a", "KEEPTTL"}, set},
		{"set ifeq px get", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "IFEQ", "a", "GET", "PX", "5000"}, set},
		{"delifeq", [][]string{{"SET", "k", "a", "EX", "100"}}, []string{"DELIFEQ", "k", "a"}, del},
		{"cl.throttle new", nil, []string{"CL.THROTTLE", "t", "15", "30", "60"}, set},
		{"cl.throttle again", [][]string{{"CL.THROTTLE", "t", "15", "30", "60"}}, []string{"CL.THROTTLE", "t", "15", "30", "60", "3"}, set},
		{"setex", nil, []string{"SETEX", "k", "10", "v"}, set},
		{"psetex", nil, []string{"PSETEX", "k", "10", "v"}, set},
		{"setnx", nil, []string{"SETNX", "k", "v"}, set},
		{"mset", nil, []string{"MSET", "a", "1", "b", "2", "c", "3"}, set},
		{"msetnx", nil, []string{"MSETNX", "a", "1", "b", "2"}, set},
		{"getset", [][]string{{"SET", "k", "a", "EX", "100"}}, []string{"GETSET", "k", "b"}, set},
		{"incr keeps ttl", [][]string{{"SET", "n", "41", "EX", "100"}}, []string{"INCR", "n"}, set},
		{"incrby", nil, []string{"INCRBY", "n", "-7"}, set},
		{"decr", [][]string{{"SET", "n", "5"}}, []string{"DECR", "n"}, set},
		{"decrby", nil, []string{"DECRBY", "n", "3"}, set},
		{"incrbyfloat", [][]string{{"SET", "n", "1.5", "PX", "5000"}}, []string{"INCRBYFLOAT", "n", "0.25"}, set},
		{"del", [][]string{{"SET", "a", "1"}, {"SET", "b", "2", "EX", "9"}}, []string{"DEL", "a", "b", "c"}, del},
		{"unlink", [][]string{{"SET", "a", "1"}}, []string{"UNLINK", "a"}, del},
		{"getdel", [][]string{{"SET", "a", "1", "EX", "9"}}, []string{"GETDEL", "a"}, del},
		{"expire in the past deletes", [][]string{{"SET", "a", "1"}}, []string{"PEXPIREAT", "a", "1"}, del},
		{"expire", [][]string{{"SET", "a", "1"}}, []string{"EXPIRE", "a", "100"}, exp},
		{"pexpire", [][]string{{"SET", "a", "1"}}, []string{"PEXPIRE", "a", "100"}, exp},
		{"expireat", [][]string{{"SET", "a", "1"}}, []string{"EXPIREAT", "a", strconv.FormatInt(testNowMs/1000+50, 10)}, exp},
		{"pexpireat", [][]string{{"SET", "a", "1"}}, []string{"PEXPIREAT", "a", deadline}, exp},
		{"expire gt", [][]string{{"SET", "a", "1", "EX", "10"}}, []string{"EXPIRE", "a", "100", "GT"}, exp},
		{"persist (deadline 0)", [][]string{{"SET", "a", "1", "EX", "10"}}, []string{"PERSIST", "a"}, exp},
		{"getex ex", [][]string{{"SET", "a", "1"}}, []string{"GETEX", "a", "EX", "10"}, exp},
		{"getex persist (deadline 0)", [][]string{{"SET", "a", "1", "PX", "999"}}, []string{"GETEX", "a", "PERSIST"}, exp},
		{"flushdb", [][]string{{"SET", "a", "1"}, {"SELECT", "1"}, {"SET", "b", "2", "EX", "5"}, {"SET", "c", "3"}}, []string{"FLUSHDB"}, persistence.OpFlushDB},
		{"flushall", [][]string{{"SET", "a", "1", "EX", "5"}, {"SELECT", "7"}, {"SET", "b", "2"}}, []string{"FLUSHALL"}, persistence.OpFlushAll},
		{"swapdb", [][]string{{"SET", "a", "1", "EX", "5"}, {"SELECT", "3"}, {"SET", "b", "2"}, {"SET", "c", "3", "PX", "70"}}, []string{"SWAPDB", "0", "3"}, persistence.OpSwapDB},
		{"swapdb then write", [][]string{{"SET", "a", "1"}, {"SWAPDB", "0", "2"}, {"SET", "a", "x"}}, []string{"SWAPDB", "2", "0"}, persistence.OpSwapDB},
		{"move", [][]string{{"SET", "a", "1", "EX", "50"}, {"SELECT", "2"}, {"SET", "b", "2"}, {"SELECT", "0"}}, []string{"MOVE", "a", "2"}, persistence.OpMove},
		{"move from db 5", [][]string{{"SELECT", "5"}, {"SET", "a", "1"}}, []string{"MOVE", "a", "0"}, persistence.OpMove},
		{"rename", [][]string{{"SET", "a", "1", "EX", "50"}}, []string{"RENAME", "a", "b"}, persistence.OpRename},
		{"rename over ttl", [][]string{{"SET", "a", "1"}, {"SET", "b", "2", "EX", "50"}}, []string{"RENAME", "a", "b"}, persistence.OpRename},
		{"renamenx", [][]string{{"SELECT", "4"}, {"SET", "a", "1", "PX", "500"}}, []string{"RENAMENX", "a", "z"}, persistence.OpRename},
		{"copy", [][]string{{"SET", "a", "1", "EX", "50"}}, []string{"COPY", "a", "b"}, persistence.OpCopy},
		{"restore string", nil, []string{"RESTORE", "s", "5000", restorePayload(rdb.Value{Kind: rdb.KindString, Str: []byte("v")})}, set},
		{"restore string over hash", [][]string{{"HSET", "s", "f", "v"}}, []string{"RESTORE", "s", "0", restorePayload(rdb.Value{Kind: rdb.KindString, Str: []byte("v")}), "REPLACE"}, set},
		{"restore hash", nil, []string{"RESTORE", "h", "0", restorePayload(rdb.Value{Kind: rdb.KindHash, Pairs: [][]byte{[]byte("f"), []byte("v")}})}, persistence.OpRestore},
		{"restore list over string", [][]string{{"SET", "l", "x", "EX", "9"}}, []string{"RESTORE", "l", "7000", restorePayload(rdb.Value{Kind: rdb.KindList, Elems: [][]byte{[]byte("a"), []byte("b")}}), "REPLACE"}, persistence.OpRestore},
		{"restore set absttl", nil, []string{"RESTORE", "st", deadline, restorePayload(rdb.Value{Kind: rdb.KindSet, Elems: [][]byte{[]byte("1"), []byte("-2")}}), "ABSTTL"}, persistence.OpRestore},
		{"restore zset", nil, []string{"RESTORE", "z", "0", restorePayload(rdb.Value{Kind: rdb.KindZSet, Z: []rdb.ZEntry{{Member: []byte("m"), Score: 1.5}}})}, persistence.OpRestore},
		{"restore expired replaces by deleting", [][]string{{"SET", "a", "1"}}, []string{"RESTORE", "a", "1", restorePayload(rdb.Value{Kind: rdb.KindString, Str: []byte("v")}), "REPLACE", "ABSTTL"}, del},
		{"copy replace", [][]string{{"SET", "a", "1"}, {"SET", "b", "2", "EX", "50"}}, []string{"COPY", "a", "b", "REPLACE"}, persistence.OpCopy},
		{"copy db", [][]string{{"SET", "a", "1", "EX", "50"}, {"SELECT", "6"}, {"SET", "a", "old"}, {"SELECT", "0"}}, []string{"COPY", "a", "a", "DB", "6", "REPLACE"}, persistence.OpCopy},
		{"copy then append to the copy", [][]string{{"SET", "a", "12"}, {"COPY", "a", "b"}}, []string{"APPEND", "b", "34"}, persistence.OpAppend},
		{"append", [][]string{{"SET", "a", "1", "EX", "50"}}, []string{"APPEND", "a", "23"}, persistence.OpAppend},
		{"append new key", nil, []string{"APPEND", "a", "xyz"}, set},
		{"setrange inside", [][]string{{"SET", "a", "hello world", "EX", "50"}}, []string{"SETRANGE", "a", "6", "WORLD"}, persistence.OpSetRange},
		{"setrange extends", [][]string{{"SET", "a", "ab"}}, []string{"SETRANGE", "a", "5", "xy"}, persistence.OpSetRange},
		{"setrange new key", nil, []string{"SETRANGE", "a", "3", "xy"}, persistence.OpSetRange},
		{"setrange new key at 0", nil, []string{"SETRANGE", "a", "0", "xy"}, persistence.OpSetRange},
		{"setrange new key far out", nil, []string{"SETRANGE", "a", "100000", "xy"}, persistence.OpSetRange},
		{"setrange expired key", [][]string{{"SET", "a", "abcdef", "PX", "10"}, {"@advance", "10"}}, []string{"SETRANGE", "a", "2", "xy"}, persistence.OpSetRange},
		{"setbit", [][]string{{"SET", "a", "a", "EX", "9"}}, []string{"SETBIT", "a", "100", "1"}, persistence.OpSetRange},
		{"setbit new key", nil, []string{"SETBIT", "a", "100000", "1"}, persistence.OpSetRange},
		{"setbit new key clear bit", nil, []string{"SETBIT", "a", "77", "0"}, persistence.OpSetRange},
		{"bitfield new key", nil, []string{"BITFIELD", "b", "SET", "u8", "80000", "255"}, persistence.OpSetRange},
		{"bitfield new key zero", nil, []string{"BITFIELD", "b", "SET", "u8", "80000", "0"}, persistence.OpSetRange},
		{"bitfield scattered writes", nil, []string{"BITFIELD", "b", "SET", "u8", "0", "1", "INCRBY", "i5", "100", "7", "SET", "i16", "#5000", "-2", "SET", "u4", "3", "9"}, persistence.OpBatch},
		{"bitfield grows existing", [][]string{{"SET", "b", "xyz", "EX", "9"}}, []string{"BITFIELD", "b", "SET", "u8", "8", "7", "SET", "u8", "65536", "0"}, persistence.OpBatch},
		{"bitfield inside existing", [][]string{{"SET", "b", "xyz"}}, []string{"BITFIELD", "b", "SET", "u8", "8", "7", "INCRBY", "u2", "0", "1"}, persistence.OpSetRange},
		{"hexpire", [][]string{{"HSET", "h", "a", "1", "b", "2", "c", "3"}}, []string{"HEXPIRE", "h", "100", "FIELDS", "3", "a", "b", "x"}, persistence.OpHashFieldExpire},
		{"hpexpireat gt", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HPEXPIRE", "h", "500", "FIELDS", "1", "a"}}, []string{"HPEXPIREAT", "h", deadline, "GT", "FIELDS", "2", "a", "b"}, persistence.OpHashFieldExpire},
		{"hexpire in the past deletes", [][]string{{"HSET", "h", "a", "1", "b", "2"}}, []string{"HPEXPIREAT", "h", "1", "FIELDS", "1", "a"}, persistence.OpHashDel},
		{"hexpire in the past deletes the key", [][]string{{"HSET", "h", "a", "1"}}, []string{"HEXPIRE", "h", "0", "FIELDS", "1", "a"}, persistence.OpHashDel},
		{"hpersist", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HEXPIRE", "h", "100", "FIELDS", "2", "a", "b"}}, []string{"HPERSIST", "h", "FIELDS", "1", "a"}, persistence.OpHashFieldExpire},
		{"hset drops a field deadline", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HEXPIRE", "h", "100", "FIELDS", "2", "a", "b"}}, []string{"HSET", "h", "a", "9"}, persistence.OpHashSet},
		{"hincrby keeps a field deadline", [][]string{{"HSET", "h", "n", "1"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "n"}}, []string{"HINCRBY", "h", "n", "5"}, persistence.OpHashSetEx},
		{"hincrbyfloat keeps a field deadline", [][]string{{"HSET", "h", "n", "1"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "n"}}, []string{"HINCRBYFLOAT", "h", "n", "0.5"}, persistence.OpHashSetEx},
		{"hsetex ex", [][]string{{"HSET", "h", "a", "1"}}, []string{"HSETEX", "h", "EX", "100", "FIELDS", "2", "a", "x", "b", "y"}, persistence.OpHashSetEx},
		{"hsetex new key pxat", nil, []string{"HSETEX", "h", "FNX", "PXAT", deadline, "FIELDS", "1", "a", "x"}, persistence.OpHashSetEx},
		{"hsetex keepttl", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "a"}}, []string{"HSETEX", "h", "KEEPTTL", "FIELDS", "2", "a", "x", "b", "y"}, persistence.OpHashSetEx},
		{"hsetex plain drops deadlines", [][]string{{"HSET", "h", "a", "1"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "a"}}, []string{"HSETEX", "h", "FIELDS", "1", "a", "x"}, persistence.OpHashSet},
		{"hsetex in the past deletes", [][]string{{"HSET", "h", "a", "1", "b", "2"}}, []string{"HSETEX", "h", "PXAT", "1", "FIELDS", "1", "a", "x"}, persistence.OpHashDel},
		{"hgetex px", [][]string{{"HSET", "h", "a", "1", "b", "2"}}, []string{"HGETEX", "h", "PX", "5000", "FIELDS", "2", "a", "z"}, persistence.OpHashFieldExpire},
		{"hgetex persist", [][]string{{"HSET", "h", "a", "1"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "a"}}, []string{"HGETEX", "h", "PERSIST", "FIELDS", "1", "a"}, persistence.OpHashFieldExpire},
		{"hgetdel", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "b"}}, []string{"HGETDEL", "h", "FIELDS", "2", "a", "b"}, persistence.OpHashDel},
		{"lazy field expiry", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HPEXPIRE", "h", "10", "FIELDS", "1", "a"}, {"@advance", "10"}}, []string{"HGET", "h", "a"}, persistence.OpHashDel},
		{"lazy field expiry deletes the key", [][]string{{"HSET", "h", "a", "1"}, {"HPEXPIRE", "h", "10", "FIELDS", "1", "a"}, {"@advance", "10"}}, []string{"HMGET", "h", "a", "b"}, persistence.OpHashDel},
		{"hlen counts an expired field", [][]string{{"HSET", "h", "a", "1"}, {"HPEXPIRE", "h", "10", "FIELDS", "1", "a"}, {"@advance", "10"}}, []string{"HLEN", "h"}, none},
		{"hrandfield deletes every expired field", [][]string{{"HSET", "h", "a", "1", "b", "2", "c", "3"}, {"HPEXPIRE", "h", "10", "FIELDS", "2", "a", "b"}, {"@advance", "10"}}, []string{"HRANDFIELD", "h"}, persistence.OpHashDel},
		{"hdel of an expired field", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HPEXPIRE", "h", "10", "FIELDS", "1", "a"}, {"@advance", "10"}}, []string{"HDEL", "h", "a"}, persistence.OpHashDel},
		{"rename keeps field deadlines", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "a"}}, []string{"RENAME", "h", "h2"}, persistence.OpRename},
		{"copy keeps field deadlines", [][]string{{"HSET", "h", "a", "1", "b", "2"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "a"}}, []string{"COPY", "h", "h2"}, persistence.OpCopy},
		{"restore hash with field deadlines", nil, []string{"RESTORE", "h", "0", restorePayload(rdb.Value{Kind: rdb.KindHash, Pairs: [][]byte{[]byte("f"), []byte("v"), []byte("g"), []byte("w")}, FieldTTLs: []int64{testNowMs + 50_000, 0}})}, persistence.OpRestore},
		{"lazy expiry", [][]string{{"SET", "a", "1", "PX", "10"}, {"SET", "b", "2", "PX", "10"}, {"@advance", "10"}, {"GET", "a"}}, []string{"EXISTS", "b"}, del},
		{"expired dst of copy", [][]string{{"SET", "a", "1"}, {"SET", "b", "2", "PX", "10"}, {"@advance", "10"}}, []string{"COPY", "a", "b"}, persistence.OpCopy},
		{"read logs nothing", [][]string{{"SET", "a", "1"}}, []string{"GET", "a"}, none},
		{"sort store", [][]string{{"RPUSH", "l", "3", "1", "2"}, {"SET", "w_1", "9"}, {"HSET", "h_2", "f", "x"}, {"SET", "d", "v", "EX", "50"}}, []string{"SORT", "l", "BY", "w_*", "GET", "#", "GET", "h_*->f", "STORE", "d"}, persistence.OpListStore},
		{"sort store of nothing", [][]string{{"SET", "d", "v"}}, []string{"SORT", "none", "STORE", "d"}, del},
		{"geoadd", nil, []string{"GEOADD", "g", "13.361389", "38.115556", "Palermo"}, persistence.OpZAdd},
		{"geosearchstore", [][]string{{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"}}, []string{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST"}, persistence.OpZStore},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newDurReplayChecker(t)
			for _, s := range tc.setup {
				if s[0] == "@advance" {
					ms, _ := strconv.ParseInt(s[1], 10, 64)
					c.src.NowMs += ms
					continue
				}
				c.do(0, s...)
			}
			before := len(c.j.recs)
			c.do(tc.want, tc.cmd...)
			if tc.want == none && len(c.j.recs) != before {
				t.Errorf("%q logged %d records, want none", tc.cmd, len(c.j.recs)-before)
			}
			// The whole log, replayed at once into a fresh shard, gives the
			// same state too.
			fresh := newTestShard(t)
			durApply(t, fresh, c.j.recs)
			durDiff(t, "full replay", durState(fresh), durState(c.src))
		})
	}
}

// durRandomCmd returns a random command of the families the WAL logs
// (and a few reads, which may expire keys lazily) over keys k0..k<nkeys>
// and databases 0..dbs-1. Whole-database commands are rare.
func durRandomCmd(rng *rand.Rand, nowMs int64, nkeys, dbs int) []string {
	key := func() string { return "k" + strconv.Itoa(rng.IntN(nkeys)) }
	num := func(n int) string { return strconv.Itoa(rng.IntN(n)) }
	switch rng.IntN(26) {
	case 0:
		return []string{"SELECT", num(dbs)}
	case 1, 2:
		return []string{"SET", key(), "v" + num(100)}
	case 3:
		return []string{"SET", key(), "v" + num(100), "PX", strconv.Itoa(1 + rng.IntN(60))}
	case 4:
		return []string{"SET", key(), "v", "KEEPTTL"}
	case 5:
		return []string{"DEL", key(), key()}
	case 6:
		return []string{"PEXPIRE", key(), strconv.Itoa(rng.IntN(80) - 5)}
	case 7:
		return []string{"PERSIST", key()}
	case 8:
		return []string{"APPEND", key(), "+" + num(10)}
	case 9:
		return []string{"SETRANGE", key(), num(20), "r" + num(10)}
	case 10:
		return []string{"RENAME", key(), key()}
	case 11:
		return []string{"RENAMENX", key(), key()}
	case 12:
		args := []string{"COPY", key(), key(), "DB", num(dbs)}
		if rng.IntN(2) == 0 {
			args = append(args, "REPLACE")
		}
		return args
	case 13:
		return []string{"MOVE", key(), num(dbs)}
	case 14:
		return []string{"SWAPDB", num(dbs), num(dbs)}
	case 15:
		if rng.IntN(20) == 0 {
			return []string{"FLUSHDB"}
		}
		return []string{"GET", key()}
	case 16:
		if rng.IntN(40) == 0 {
			return []string{"FLUSHALL"}
		}
		return []string{"EXISTS", key()}
	case 17:
		return []string{"INCRBY", "n" + num(3), strconv.Itoa(rng.IntN(100) - 50)}
	case 18:
		return []string{"GETEX", key(), "PX", strconv.Itoa(1 + rng.IntN(60))}
	case 19:
		return []string{"GETDEL", key()}
	case 20:
		return []string{"MSET", key(), "m" + num(9), key(), "m" + num(9)}
	case 21:
		return []string{"SETBIT", key(), num(64), num(2)}
	case 22:
		return []string{"GETSET", key(), "g" + num(9)}
	case 23:
		return []string{"EXPIREAT", key(), strconv.FormatInt(nowMs/1000+int64(rng.IntN(5)), 10)}
	case 24:
		return []string{"GETEX", key(), "PERSIST"}
	default:
		return []string{"SET", key(), "long-" + strings.Repeat(num(10), rng.IntN(50)), "EX", num(1000)}
	}
}

// TestReplayRandomMix runs a random mix of every logged command over a few
// keys and databases, with time passing, and replays after each command.
func TestReplayRandomMix(t *testing.T) {
	c := newDurReplayChecker(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		if rng.IntN(20) == 0 {
			c.src.NowMs += int64(rng.IntN(40))
		}
		args := durRandomCmd(rng, c.src.NowMs, 12, 4)
		reply := run(t, c.src, args...)
		// Errors are expected here (wrong types, same object, ...): they
		// log nothing but the lazy expiry of the keys they looked at.
		// Replay and compare after each call.
		recs := c.j.recs[c.done:]
		c.done = len(c.j.recs)
		if strings.HasPrefix(reply, "-") {
			for _, r := range recs {
				if r.Op != persistence.OpDel { // lazy expiry of a key it looked at
					t.Fatalf("%q replied %q but logged a %s record", args, reply, r.Op)
				}
			}
		}
		durApply(t, c.mirror, recs)
		durDiff(t, fmt.Sprintf("step %d %q", i, args), durState(c.mirror), durState(c.src))
	}
	durCheckIndex(t, c.mirror)
	durCheckIndex(t, c.src)
	if len(c.j.recs) < 1000 {
		t.Fatalf("only %d records logged", len(c.j.recs))
	}
}

// durPayloads returns one valid payload per opcode the keyspace replays.
func durPayloads() map[persistence.Opcode][]byte {
	b := func(s string) []byte { return persistence.AppendBytes(nil, []byte(s)) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	return map[persistence.Opcode][]byte{
		persistence.OpSet:      cat(b("key"), b("value"), persistence.AppendI64(nil, testNowMs+5)),
		persistence.OpDel:      b("key"),
		persistence.OpExpire:   cat(b("key"), persistence.AppendI64(nil, 0)),
		persistence.OpFlushDB:  nil,
		persistence.OpFlushAll: nil,
		persistence.OpSwapDB:   cat(persistence.AppendU16(nil, 0), persistence.AppendU16(nil, 1)),
		persistence.OpMove:     cat(b("key"), persistence.AppendU16(nil, 1)),
		persistence.OpRename:   cat(b("key"), b("dst")),
		persistence.OpCopy:     cat(b("key"), b("dst"), persistence.AppendU16(nil, 2), persistence.AppendU8(nil, 1)),
		persistence.OpAppend:   cat(b("key"), b("suffix")),
		persistence.OpSetRange: cat(b("key"), persistence.AppendU64(nil, 3), b("xyz")),
		persistence.OpRestore: cat(b("key"), persistence.AppendI64(nil, 0), persistence.AppendU8(nil, keyspace.KindHash),
			oneFieldHash().AppendSnapshot(nil)),
		persistence.OpHashSetEx: cat(b("key"), persistence.AppendU8(nil, 0), persistence.AppendI64(nil, testNowMs+5),
			persistence.AppendU64(nil, 1), b("f"), b("v")),
	}
}

// durTryApply applies r to sh and turns a panic into a test failure.
func durTryApply(t *testing.T, sh *keyspace.Shard, r persistence.Record) (err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("applyRecord(%s, db %d, payload %x) panicked: %v", r.Op, r.DB, r.Payload, p)
		}
	}()
	return sh.ApplyRecord(r)
}

func TestReplayMalformed(t *testing.T) {
	sh := newTestShard(t)
	seed := func() {
		sh.DBs[0].Flush()
		sh.DBs[0].Add([]byte("key"), []byte("value"), nil, 0)
	}
	for op, p := range durPayloads() {
		seed()
		if err := durTryApply(t, sh, persistence.Record{Seq: 1, Op: op, Payload: p}); err != nil {
			t.Fatalf("valid %s payload: %v", op, err)
		}
		// Every strict prefix of a payload with fields is malformed.
		for n := 0; n < len(p); n++ {
			seed()
			err := durTryApply(t, sh, persistence.Record{Seq: 1, Op: op, Payload: p[:n]})
			if err == nil || !errors.Is(err, keyspace.ErrReplay) {
				t.Errorf("%s payload cut to %d of %d bytes: err = %v, want a replay error", op, n, len(p), err)
			}
		}
		// So is a payload with bytes after its last field.
		seed()
		if err := durTryApply(t, sh, persistence.Record{Seq: 1, Op: op, Payload: append(bytes.Clone(p), 0)}); err == nil {
			t.Errorf("%s payload with a trailing byte: no error", op)
		}
		// A length prefix that is not a valid uvarint.
		if len(p) > 0 {
			seed()
			bad := bytes.Repeat([]byte{0xff}, 11)
			if err := durTryApply(t, sh, persistence.Record{Seq: 1, Op: op, Payload: bad}); err == nil {
				t.Errorf("%s payload %x: no error", op, bad)
			}
		}
		// A database that does not exist.
		if err := durTryApply(t, sh, persistence.Record{Seq: 1, DB: uint16(len(sh.DBs)), Op: op, Payload: p}); err == nil {
			t.Errorf("%s in database %d: no error", op, len(sh.DBs))
		}
	}

	// Unknown opcodes (reserved or never assigned).
	for _, op := range []persistence.Opcode{0, 12, 19, 27, 52, 54, 200, 255} {
		err := durTryApply(t, sh, persistence.Record{Seq: 9, Op: op, Payload: []byte("x")})
		if err == nil || !errors.Is(err, keyspace.ErrReplay) || !strings.Contains(err.Error(), "seq 9") {
			t.Errorf("opcode %d: err = %v, want a replay error naming the sequence", op, err)
		}
	}

	// Database numbers out of range inside payloads.
	b := func(s string) []byte { return persistence.AppendBytes(nil, []byte(s)) }
	nDB := uint16(len(sh.DBs))
	for _, r := range []persistence.Record{
		{Op: persistence.OpSwapDB, Payload: append(persistence.AppendU16(nil, 0), persistence.AppendU16(nil, nDB)...)},
		{Op: persistence.OpSwapDB, Payload: append(persistence.AppendU16(nil, math.MaxUint16), persistence.AppendU16(nil, 0)...)},
		{Op: persistence.OpMove, Payload: append(b("key"), persistence.AppendU16(nil, nDB)...)},
		{Op: persistence.OpCopy, Payload: bytes.Join([][]byte{b("key"), b("dst"), persistence.AppendU16(nil, nDB), {0}}, nil)},
	} {
		seed()
		if err := durTryApply(t, sh, r); err == nil {
			t.Errorf("%s %x: no error", r.Op, r.Payload)
		}
	}

	// SETRANGE offsets that cannot be represented or allocated.
	for _, off := range []uint64{math.MaxUint64, math.MaxInt64, 1 << 62, 1 << 40, uint64(math.MaxInt64) - 1} {
		for _, exists := range []bool{true, false} {
			sh.DBs[0].Flush()
			if exists {
				sh.DBs[0].Add([]byte("key"), []byte("value"), nil, 0)
			}
			p := bytes.Join([][]byte{b("key"), persistence.AppendU64(nil, off), b("xyz")}, nil)
			if err := durTryApply(t, sh, persistence.Record{Op: persistence.OpSetRange, Payload: p}); err == nil {
				t.Errorf("SETRANGE at offset %d (key exists: %v): no error", off, exists)
			}
		}
	}
}

// TestReplayRandomPayloads throws random bytes at every opcode: errors are
// fine, panics are not.
func TestReplayRandomPayloads(t *testing.T) {
	sh := newTestShard(t)
	rng := rand.New(rand.NewPCG(3, 4))
	valid := durPayloads()
	for i := 0; i < 20000; i++ {
		op := persistence.Opcode(rng.IntN(14))
		var p []byte
		switch rng.IntN(3) {
		case 0: // random bytes
			p = make([]byte, rng.IntN(40))
			for k := range p {
				p[k] = byte(rng.Uint32())
			}
		case 1: // a valid payload with random flips
			p = bytes.Clone(valid[op])
			for k := 0; k < 1+rng.IntN(3) && len(p) > 0; k++ {
				p[rng.IntN(len(p))] ^= byte(1 + rng.IntN(255))
			}
		default: // valid key fields, random fixed-width tail
			p = persistence.AppendBytes(nil, []byte("key"+strconv.Itoa(rng.IntN(3))))
			p = binary.LittleEndian.AppendUint64(p, rng.Uint64())
			p = persistence.AppendBytes(p, []byte("v"))
			p = binary.LittleEndian.AppendUint16(p, uint16(rng.Uint32()))
		}
		if rng.IntN(4) == 0 {
			sh.DBs[0].Add([]byte("key"+strconv.Itoa(rng.IntN(3))), []byte("val"), nil, 0)
		}
		_ = durTryApply(t, sh, persistence.Record{Seq: uint64(i), DB: uint16(rng.IntN(len(sh.DBs) + 1)), Op: op, Payload: p})
		if i%1000 == 0 {
			durCheckIndex(t, sh)
			for _, db := range sh.DBs {
				db.Flush()
			}
		}
	}
	durCheckIndex(t, sh)
}

// FuzzReplayRecord: applyRecord never panics, whatever the payload.
func FuzzReplayRecord(f *testing.F) {
	for op, p := range durPayloads() {
		f.Add(uint8(op), uint16(0), p)
	}
	f.Fuzz(func(t *testing.T, op uint8, db uint16, payload []byte) {
		sh := newTestShard(t)
		sh.DBs[0].Add([]byte("key"), []byte("value"), nil, testNowMs)
		_ = durTryApply(t, sh, persistence.Record{Seq: 1, DB: db % 20, Op: persistence.Opcode(op), Payload: payload})
		durCheckIndex(t, sh)
	})
}

// restorePayload is the DUMP payload of v.
func restorePayload(v rdb.Value) string { return string(rdb.AppendDump(nil, &v)) }

// oneFieldHash is a hash of one field, for record payloads.
func oneFieldHash() *keyspace.HashObj {
	o := &keyspace.HashObj{}
	o.H.Set(hash.DefaultConfig, []byte("f"), []byte("v"))
	return o
}
