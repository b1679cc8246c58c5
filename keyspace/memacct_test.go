package keyspace

import (
	"fmt"
	"testing"
)

// TestSnapshotLoadUsesLiveThresholds: a collection loaded from a snapshot
// takes the encoding the live CONFIG thresholds give it, in both
// directions (a compact encoding past a lowered threshold converts; a
// large encoding within a raised one is rebuilt compact where the type
// allows it), as the same data written by commands would.
func TestSnapshotLoadUsesLiveThresholds(t *testing.T) {
	sh := newTestShard(t)
	for i := 0; i < 20; i++ {
		run(t, sh, "HSET", "h", fmt.Sprint("f", i), "v")
		run(t, sh, "ZADD", "z", fmt.Sprint(i), fmt.Sprint("m", i))
		run(t, sh, "SADD", "s", fmt.Sprint(i))
	}
	for _, k := range []string{"h", "z"} {
		expect(t, sh, rBulk("listpack"), "OBJECT", "ENCODING", k)
	}
	expect(t, sh, rBulk("intset"), "OBJECT", "ENCODING", "s")

	out := newTestShard(t)
	expect(t, out, "+OK\r\n", "CONFIG", "SET", "hash-max-listpack-entries", "8",
		"zset-max-listpack-entries", "8", "set-max-intset-entries", "8")
	copySnapshot(t, sh, out)
	for _, k := range []string{"h", "s"} {
		expect(t, out, rBulk("hashtable"), "OBJECT", "ENCODING", k)
	}
	expect(t, out, rBulk("skiplist"), "OBJECT", "ENCODING", "z")
	expect(t, out, rInt(20), "HLEN", "h")
	expect(t, out, rInt(20), "ZCARD", "z")
	expect(t, out, rInt(20), "SCARD", "s")
}

// copySnapshot loads every entry of from into to through the snapshot
// encoding, as recovery does.
func copySnapshot(t *testing.T, from, to *Shard) {
	t.Helper()
	for i, db := range from.dbs {
		db.each(func(e *entry) {
			kind, val := kindString, db.val(e)
			if sv, ok := db.obj(e).(snapshotValue); ok {
				kind, val = sv.snapshotKind(), sv.appendSnapshot(nil)
			}
			if err := to.loadSnapshotEntry(uint16(i), kind, []byte(e.keyView()), val, e.expireAt); err != nil {
				t.Fatal(err)
			}
		})
	}
}
