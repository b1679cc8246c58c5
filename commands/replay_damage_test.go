package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/rdb"
)

// damageState is a canonical dump of every database of sh that, unlike
// durState, shows the whole content of each collection (its snapshot
// encoding), so that any change to it shows.
func damageState(sh *keyspace.Shard) string {
	type snapshotter interface{ AppendSnapshot([]byte) []byte }
	var lines []string
	for i, db := range sh.DBs {
		db.Each(func(e *keyspace.Entry) {
			v := strconv.Quote(string(db.Val(e)))
			if o := db.Obj(e); o != nil {
				v = fmt.Sprintf("%T", o)
				if s, ok := o.(snapshotter); ok {
					v += fmt.Sprintf(" %x", s.AppendSnapshot(nil))
				}
			}
			lines = append(lines, fmt.Sprintf("db%d %q = %s deadline=%d", i, e.KeyView(), v, e.ExpireAt))
		})
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// damageWorkload writes at least one record of every opcode the keyspace
// replays. <lease> and <sem> stand for the token of the latest LEASE and
// SEMAPHORE, <hashdump> for a DUMP payload.
var damageWorkload = [][]string{
	{"SET", "k", "v", "EX", "100"},
	{"APPEND", "k", "x"},
	{"SETRANGE", "k", "1", "zz"},
	{"EXPIRE", "k", "500"},
	{"COPY", "k", "k2"},
	{"RENAME", "k2", "k3"},
	{"MOVE", "k3", "1"},
	{"SWAPDB", "0", "1"},
	{"SWAPDB", "0", "1"},
	{"SELECT", "1"},
	{"DEL", "k3"},
	{"SELECT", "0"},

	{"LEASE", "lk", "1000"},
	{"RELEASE", "lk", "<lease>"},
	{"SEMAPHORE", "sk", "2", "1000"},
	{"SEMAPHORE", "sk", "2", "2000"},
	{"RELEASE", "sk", "<sem>"}, // one holder stays: a SemaphoreRelease record
	{"SETV", "vk", "v1"},
	{"LIMIT", "rk", "3", "1000"},
	{"ONCE", "ok", "1000"},
	{"IDEM", "ik", "BEGIN", "fp", "o1", "1000"},

	{"HSET", "h", "f", "v", "g", "w"},
	{"HDEL", "h", "f"},
	{"HEXPIRE", "h", "100", "FIELDS", "1", "g"},
	{"HSETEX", "h", "PX", "5000", "FIELDS", "1", "e", "x"},

	{"RPUSH", "l", "a", "b", "c", "d"},
	{"LPOP", "l"},
	{"LSET", "l", "0", "x"},
	{"LINSERT", "l", "BEFORE", "x", "y"},
	{"LREM", "l", "1", "y"},
	{"LTRIM", "l", "0", "1"},
	{"LMOVE", "l", "l2", "LEFT", "RIGHT"},
	{"RPUSH", "l", "q"},
	{"SORT", "l", "ALPHA", "STORE", "ls"},

	{"SADD", "s", "a", "b", "c"},
	{"SREM", "s", "a"},
	{"SMOVE", "s", "s2", "b"},
	{"SINTERSTORE", "s3", "s", "s"},

	{"ZADD", "z", "1", "a", "2", "b"},
	{"ZREM", "z", "a"},
	{"ZUNIONSTORE", "z2", "1", "z"},

	{"BF.ADD", "bf", "x"},
	{"RESTORE", "rh", "0", "<hashdump>"},

	{"XADD", "st", "1-1", "f", "v"},
	{"XADD", "st", "2-1", "f", "v"},
	{"XADD", "st", "3-1", "f", "v", "g", "w"},
	{"XDEL", "st", "2-1"},
	{"XTRIM", "st", "MINID", "3-0"},
	{"XSETID", "st", "9-9"},
	{"XGROUP", "CREATE", "st", "g", "0"},
	{"XGROUP", "SETID", "st", "g", "0"},
	{"XGROUP", "CREATECONSUMER", "st", "g", "c1"},
	{"XREADGROUP", "GROUP", "g", "c2", "COUNT", "10", "STREAMS", "st", ">"},
	{"XCLAIM", "st", "g", "c1", "0", "3-1"},
	{"XACK", "st", "g", "3-1"},
	{"XGROUP", "DELCONSUMER", "st", "g", "c2"},
	{"XGROUP", "DESTROY", "st", "g"},

	{"SELECT", "2"},
	{"SET", "gone", "1"},
	{"FLUSHDB"},
	{"SELECT", "0"},
	{"FLUSHALL"},
}

// damageRecords runs damageWorkload on a fresh shard and returns the
// records it wrote.
func damageRecords(t *testing.T) []persistence.Record {
	t.Helper()
	sh := newTestShard(t)
	j := attachJournal(sh)
	vars := map[string]string{
		"<hashdump>": restorePayload(rdb.Value{Kind: rdb.KindHash, Pairs: [][]byte{[]byte("f"), []byte("v")}}),
	}
	for _, args := range damageWorkload {
		args = slices.Clone(args)
		for i, a := range args {
			if v, ok := vars[a]; ok {
				args[i] = v
			}
		}
		reply := run(t, sh, args...)
		if strings.HasPrefix(reply, "-") {
			t.Fatalf("%q: %q", args, reply)
		}
		switch args[0] {
		case "LEASE":
			vars["<lease>"] = strings.TrimSuffix(reply[1:], "\r\n")
		case "SEMAPHORE":
			vars["<sem>"] = strings.TrimSuffix(reply[1:], "\r\n")
		}
	}
	// A Batch's entries are damaged one by one, as records of their own.
	var recs []persistence.Record
	for _, r := range j.recs {
		if r.Op != persistence.OpBatch {
			recs = append(recs, r)
			continue
		}
		entries, err := persistence.DecodeBatch(nil, r.Payload)
		if err != nil {
			t.Fatalf("batch %d: %v", r.Seq, err)
		}
		for _, e := range entries {
			recs = append(recs, persistence.Record{Seq: r.Seq, DB: e.DB, Op: e.Op, Payload: e.Payload})
		}
	}
	return recs
}

// damagedPayloads returns every strict prefix of p and p with one byte
// more: none is a valid record of its opcode.
func damagedPayloads(p []byte) [][]byte {
	var out [][]byte
	for n := 0; n < len(p); n++ {
		out = append(out, p[:n:n])
	}
	return append(out, append(bytes.Clone(p), 0))
}

// partialOnDamage are the opcodes whose decoder still changes the keyspace
// before it finds a damaged payload (the record is rejected all the same).
var partialOnDamage = map[persistence.Opcode]bool{
	persistence.OpBloomAdd: true, // adds the items it read before the damage
}

// TestReplayRejectsDamagedRecords replays a record of every opcode in
// every truncated form, and with a trailing byte, into the state it was
// written against: each is an error, never a panic, and changes nothing.
func TestReplayRejectsDamagedRecords(t *testing.T) {
	recs := damageRecords(t)
	seen := map[persistence.Opcode]bool{}
	mirror := newTestShard(t)
	for i, r := range recs {
		seen[r.Op] = true
		for _, bad := range damagedPayloads(r.Payload) {
			before := damageState(mirror)
			err := durTryApply(t, mirror, persistence.Record{Seq: r.Seq, DB: r.DB, Op: r.Op, Payload: bad})
			if !errors.Is(err, keyspace.ErrReplay) {
				t.Errorf("%s payload %x (valid: %x): err = %v, want a replay error", r.Op, bad, r.Payload, err)
			}
			if after := damageState(mirror); after != before {
				if !partialOnDamage[r.Op] {
					t.Errorf("%s payload %x (valid: %x) changed the keyspace:\n before %s\n after  %s", r.Op, bad, r.Payload, before, after)
				}
				mirror = newTestShard(t)
				durApply(t, mirror, recs[:i])
			}
		}
		durApply(t, mirror, recs[i:i+1])
	}
	for op, fn := range keyspace.ReplayOps {
		if fn != nil && !seen[persistence.Opcode(op)] {
			t.Errorf("the workload wrote no %s record", persistence.Opcode(op))
		}
	}
}
