package commands

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ruvio/ruvio/keyspace"
)

// TestReadMetricsFreshAndStale: a running shard copies its figures for a
// reader; a shard that does not run leaves the reader with the previous
// copy, marked stale, once its context ends.
func TestReadMetricsFreshAndStale(t *testing.T) {
	idle := newTestServer(t, 1)
	run(t, idle, "SET", "k", "v")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var m keyspace.ShardMetrics
	if err := idle.ReadMetrics(ctx, &m); !errors.Is(err, keyspace.ErrMetricsStale) || m.Fresh {
		t.Fatalf("a shard whose loop does not run: err %v, fresh %v", err, m.Fresh)
	}

	srv := newTestServerOpts(t, testOptions(t, 2, time.Now))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	for i := range srv.Shards() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := srv.Shard(i).ReadMetrics(ctx, &m)
		cancel()
		if err != nil || !m.Fresh {
			t.Fatalf("shard %d: err %v, fresh %v", i, err, m.Fresh)
		}
		if len(m.Keys) != len(srv.Shard(i).DBs) || len(m.Commands) == 0 {
			t.Errorf("shard %d: %d databases, %d commands in the copy", i, len(m.Keys), len(m.Commands))
		}
	}
}
