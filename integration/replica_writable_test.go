package integration_test

import (
	"strings"
	"testing"
	"time"
)

// TestWritableReplica: with replica-read-only no a replica serves its
// clients' writes, in memory only, while it keeps applying its primary's
// records in the primary's sequence; its own replicas do not get them, and
// turning the setting back on refuses writes again.
func TestWritableReplica(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	expect(t, pc, "OK", "SET", "shared", "from-primary")
	r := startReplica(t, p, 1)
	rc := r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })

	expectErr(t, rc, "READONLY You can't write against a read only replica.", "SET", "local", "1")
	if info := rc.Info(ctxT(t), "replication").Val(); !strings.Contains(info, "slave_read_only:1") {
		t.Errorf("INFO replication on a read-only replica:\n%s", info)
	}
	expect(t, rc, "OK", "CONFIG", "SET", "replica-read-only", "no")
	expect(t, rc, map[interface{}]interface{}{"replica-read-only": "no"}, "CONFIG", "GET", "replica-read-only")
	if info := rc.Info(ctxT(t), "replication").Val(); !strings.Contains(info, "slave_read_only:0") {
		t.Errorf("INFO replication on a writable replica:\n%s", info)
	}

	// Local writes of several kinds, a transaction and a script.
	expect(t, rc, "OK", "SET", "local", "1")
	expect(t, rc, int64(2), "INCR", "local")
	expect(t, rc, int64(2), "RPUSH", "local:list", "a", "b")
	expect(t, rc, "OK", "DEBUG", "POPULATE", "5", "pop")
	if err := rc.Eval(ctxT(t), "return redis.call('set', KEYS[1], 'lua')", []string{"local:lua"}).Err(); err != nil {
		t.Fatalf("EVAL writing on a writable replica: %v", err)
	}
	expect(t, rc, "lua", "GET", "local:lua")

	// The primary's records keep arriving in sequence after them.
	expect(t, pc, "OK", "SET", "shared", "again")
	expect(t, pc, "OK", "SET", "later", "x")
	expect(t, pc, int64(1), "WAIT", "1", "5000")
	expect(t, rc, "again", "GET", "shared")
	expect(t, rc, "x", "GET", "later")
	expect(t, rc, "2", "GET", "local")
	if !linkUp(rc) {
		t.Fatalf("the replica's link went down after local writes:\n%s", r.Output())
	}
	// The primary knows nothing of them.
	expect(t, pc, int64(0), "EXISTS", "local", "local:list", "local:lua", "pop:0")

	// A sub-replica follows the replica's log: the primary's records only.
	sub := startReplica(t, r, 1)
	sc := sub.Client(t, 0)
	waitFor(t, 10*time.Second, "the sub-replica's link", func() bool { return linkUp(sc) })
	waitFor(t, 10*time.Second, "the primary's records on the sub-replica", func() bool {
		return sc.Get(ctxT(t), "later").Val() == "x"
	})
	expect(t, sc, int64(0), "EXISTS", "local", "local:list", "local:lua", "pop:0")

	// A key past its deadline whose deletion the primary has not sent: a
	// write re-creates it (without the deadline), a read leaves it.
	expect(t, pc, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	expect(t, pc, "OK", "SET", "gone1", "5", "PX", "10")
	expect(t, pc, "OK", "SET", "gone2", "5", "PX", "10")
	expect(t, pc, int64(1), "WAIT", "1", "5000")
	time.Sleep(50 * time.Millisecond)
	before := rc.DBSize(ctxT(t)).Val()
	expect(t, rc, int64(1), "INCR", "gone1")
	expect(t, rc, int64(-1), "TTL", "gone1")
	expect(t, rc, nil, "GET", "gone2")
	if after := rc.DBSize(ctxT(t)).Val(); after != before {
		t.Errorf("DBSIZE %d after the write and the read, %d before: one entry per key", after, before)
	}
	expect(t, pc, "OK", "DEBUG", "SET-ACTIVE-EXPIRE", "1")

	expect(t, rc, "OK", "CONFIG", "SET", "replica-read-only", "yes")
	expectErr(t, rc, "READONLY You can't write against a read only replica.", "SET", "local", "3")
	expectErr(t, rc, "READONLY You can't write against a read only replica.", "DEBUG", "POPULATE", "1", "again")
}
