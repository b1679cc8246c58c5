package integration_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/cluster/control"
)

// TestClusterSenderSweepsAGivenAwayRangeAfterARestart kills a sender with
// the keys of a range it gave away still on it, as a kill in the middle of
// their deletion does, after it applied a later state that moved nothing
// of its own; after its restart those keys must go. CLIENT PAUSE WRITE
// holds the deletion back (it runs only while no pause is in force), and a
// migration between the two other groups makes the later state. The
// control plane hands a restarted member the newest state it has at each
// moment, so which replayed states the member sees first depends on
// timing; keyspace's TestCleanupAfterRestart covers the order in which the
// keys used to stay.
func TestClusterSenderSweepsAGivenAwayRangeAfterARestart(t *testing.T) {
	ms := startClusterAcrossHosts(t, 3, 0)
	c := clusterClientOf(t, ms)
	moving := cluster.SlotRange{Start: 0, End: 99}
	keys := keysInSlots("swept:", moving, 2000)
	setKeysToNames(t, c, keys)

	cc := controlClient(t, ms[0])
	st, err := cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	from := groupServing(&st.State, moving)
	if from == nil {
		t.Fatalf("the range is not within one group: %+v", st.State.Groups)
	}
	sender := memberNamed(t, ms, from.Primary)
	to, third := (from.ID+1)%3, (from.ID+2)%3
	for _, m := range ms {
		if m != sender {
			cc = controlClient(t, m) // not through the member that is killed
			break
		}
	}

	sc := redis.NewClient(&redis.Options{Addr: sender.addr(), MaxRetries: -1, DisableIdentity: true})
	defer sc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	err = sc.Do(ctx, "CLIENT", "PAUSE", "120000", "WRITE").Err()
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	mg, err := cc.Migrate(control.MigrateArgs{Slots: moving, To: to, FromShard: -1, ToShard: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !awaitMigrationEnd(t, cc, mg, 30*time.Second, ms) {
		t.Fatalf("migration %d aborted\n%s", mg.ID, clusterOutputs(ms))
	}
	if n := countKeysInRange(t, sender.addr(), moving); n != int64(len(keys)) {
		t.Fatalf("the paused sender holds %d keys of the range it gave away, want all %d still there", n, len(keys))
	}

	// A later state that moves nothing of the sender's: an empty range
	// of the third group goes to the receiving one.
	st, err = cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	first := st.State.Groups[third].Slots[0].Start
	empty := cluster.SlotRange{Start: first, End: first + 9}
	if n := countKeysInRange(t, memberNamed(t, ms, st.State.Groups[third].Primary).addr(), empty); n != 0 {
		t.Fatalf("range %v holds %d keys, want none", empty, n)
	}
	mg2, err := cc.Migrate(control.MigrateArgs{Slots: empty, To: to, FromShard: -1, ToShard: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !awaitMigrationEnd(t, cc, mg2, 30*time.Second, ms) {
		t.Fatalf("migration %d aborted\n%s", mg2.ID, clusterOutputs(ms))
	}
	st, err = cc.Status()
	if err != nil {
		t.Fatal(err)
	}
	// The sender has applied that state once its applied epoch says so.
	deadline := time.Now().Add(20 * time.Second)
	for appliedEpoch(t, sender.dir) < st.State.Epoch {
		if time.Now().After(deadline) {
			t.Fatalf("the sender has not applied epoch %d (applied %d)\n%s", st.State.Epoch, appliedEpoch(t, sender.dir), clusterOutputs(ms))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := countKeysInRange(t, sender.addr(), moving); n != int64(len(keys)) {
		t.Fatalf("the paused sender deleted keys of the range (%d of %d left) before the kill", n, len(keys))
	}

	sender.proc.Kill(t)
	sender.proc = sender.proc.Restart(t)
	waitClusterOK(t, ms, 40*time.Second)
	deadline = time.Now().Add(20 * time.Second)
	for countKeysInRange(t, sender.addr(), moving) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the restarted sender still holds keys of the range it gave away\n%s", clusterOutputs(ms))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, k := range keys {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		v, err := c.Get(ctx, k).Result()
		cancel()
		if err != nil || v != k {
			t.Fatalf("GET %s = %q, %v\n%s", k, v, err, clusterOutputs(ms))
		}
	}
}

// appliedEpoch reads the topology epoch a member keeps in its data
// directory (cluster-applied-epoch), 0 before it has one.
func appliedEpoch(t *testing.T, dir string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cluster-applied-epoch"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	e, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatalf("cluster-applied-epoch: %v", err)
	}
	return e
}
