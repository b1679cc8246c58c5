package integration_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Synchronous replication (replication.sync_replicas) through the real
// binary: a primary and a replica process on loopback ports, both under
// fsync = always.

// syncTimeout is replication.sync_timeout_ms in these tests: long enough
// for a replica on a busy machine to acknowledge, short enough to wait out.
const syncTimeout = 1500 * time.Millisecond

// syncConfig writes a configuration file with sync_replicas = k.
func syncConfig(t *testing.T, k int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sync.toml")
	body := "[persistence]\nsnapshot_every = 0\n[replication]\nsync_replicas = " + strconv.Itoa(k) +
		"\nsync_timeout_ms = " + strconv.Itoa(int(syncTimeout/time.Millisecond)) + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startSyncPair starts a primary with sync_replicas = 1 and a replica of
// it, and waits for the replica's link.
func startSyncPair(t *testing.T) (p, r *testserver.Process, pc, rc *redis.Client) {
	t.Helper()
	p = testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always",
		Args: []string{"--config", syncConfig(t, 1), "--fsync", "always"}})
	r = testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always",
		Args: []string{"--config", syncConfig(t, 1), "--fsync", "always", "--replicaof", p.Addrs[0]}})
	pc, rc = p.Client(t, 0), r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })
	return p, r, pc, rc
}

// TestSyncReplicasReplyAfterReplica: with sync_replicas = 1 a write's OK
// comes only once the replica has it, so the replica answers it at once.
func TestSyncReplicasReplyAfterReplica(t *testing.T) {
	_, _, pc, rc := startSyncPair(t)
	for i := 0; i < 5; i++ {
		k := "k" + strconv.Itoa(i)
		expect(t, pc, "OK", "SET", k, "v"+strconv.Itoa(i))
		// No polling: the reply meant the replica acknowledged the record.
		expect(t, rc, "v"+strconv.Itoa(i), "GET", k)
	}
	expect(t, pc, int64(5), "INCRBY", "ctr", "5")
	expect(t, rc, "5", "GET", "ctr")
	if got := infoField(t, pc, "replication", "sync_replicas"); got != "1" {
		t.Errorf("INFO sync_replicas: %q, want 1", got)
	}
	if got := infoField(t, pc, "replication", "sync_held_replies"); got != "0" {
		t.Errorf("INFO sync_held_replies: %q, want 0", got)
	}
}

// TestSyncReplicasTimeout: with the replica gone a write is not
// acknowledged: no OK before sync_timeout_ms, then its connection closes.
func TestSyncReplicasTimeout(t *testing.T) {
	p, r, pc, _ := startSyncPair(t)
	expect(t, pc, "OK", "SET", "before", "1")
	r.Kill(t)

	wc := p.Client(t, 0)
	start := time.Now()
	res, err := wc.Do(ctxT(t), "SET", "after", "1").Result()
	elapsed := time.Since(start)
	if err == nil {
		t.Fatalf("SET without its replica: got %#v, want the connection closed", res)
	}
	var rerr redis.Error
	if errors.As(err, &rerr) {
		t.Fatalf("SET without its replica: got the reply error %q, want the connection closed", err)
	}
	if elapsed < syncTimeout {
		t.Errorf("SET failed after %v, before sync_timeout_ms (%v): %v", elapsed, syncTimeout, err)
	}
	if got := infoField(t, pc, "replication", "sync_timeouts"); got != "1" {
		t.Errorf("INFO sync_timeouts: %q, want 1", got)
	}
	if got := infoField(t, pc, "replication", "sync_held_replies"); got != "0" {
		t.Errorf("INFO sync_held_replies: %q, want 0", got)
	}
	// Commands that touch no data are not held meanwhile.
	expect(t, pc, "PONG", "PING")
}

// TestSyncReplicasReadNotDelayed: a read of a key whose write the replica
// already acknowledged replies without waiting.
func TestSyncReplicasReadNotDelayed(t *testing.T) {
	_, _, pc, _ := startSyncPair(t)
	expect(t, pc, "OK", "SET", "r", "value")
	start := time.Now()
	expect(t, pc, "value", "GET", "r")
	expect(t, pc, int64(1), "EXISTS", "r")
	if d := time.Since(start); d >= syncTimeout {
		t.Errorf("two reads took %v, at least sync_timeout_ms", d)
	}
}

// TestSyncReplicasConfigSet: CONFIG SET sync-replicas 0 lets writes reply
// without replicas; back at 1 they wait again.
func TestSyncReplicasConfigSet(t *testing.T) {
	p, r, pc, _ := startSyncPair(t)
	r.Kill(t)
	expect(t, pc, map[interface{}]interface{}{"sync-replicas": "1"}, "CONFIG", "GET", "sync-replicas")
	expect(t, pc, "OK", "CONFIG", "SET", "sync-replicas", "0")
	expect(t, pc, map[interface{}]interface{}{"sync-replicas": "0"}, "CONFIG", "GET", "sync-replicas")
	start := time.Now()
	expect(t, pc, "OK", "SET", "async", "1")
	expect(t, pc, "1", "GET", "async")
	if d := time.Since(start); d >= syncTimeout {
		t.Errorf("SET and GET with sync-replicas 0 took %v", d)
	}
	expectErr(t, pc, "ERR CONFIG SET failed (possibly related to argument 'sync-replicas') - argument must be between 0 and 16 inclusive", "CONFIG", "SET", "sync-replicas", "17")

	expect(t, pc, "OK", "CONFIG", "SET", "sync-replicas", "1")
	wc := p.Client(t, 0)
	if res, err := wc.Do(ctxT(t), "SET", "sync", "1").Result(); err == nil {
		t.Errorf("SET with sync-replicas 1 and no replica: got %#v, want the connection closed", res)
	}
	if got := infoField(t, pc, "replication", "sync_timeouts"); got != "1" {
		t.Errorf("INFO sync_timeouts: %q, want 1", got)
	}
}
