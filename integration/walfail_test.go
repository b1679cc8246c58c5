package integration_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/app"
	"github.com/ruvio/ruvio/internal/testserver"
	"github.com/ruvio/ruvio/persistence"
)

// startOnFS starts a one-shard server with fsync = always on dir, its logs
// written through fs (nil: the operating system's), and returns a client
// factory and a stop function. The server stops when the test ends at the
// latest.
func startOnFS(t *testing.T, dir string, fs persistence.FS) (func() *redis.Client, func()) {
	t.Helper()
	cfg := config.Default()
	cfg.Persistence.Dir = dir
	cfg.Persistence.WAL = true
	cfg.Persistence.Fsync = "always"
	cfg.Persistence.SnapshotOnShutdown = false
	var a *app.App
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		var port int
		if port, err = testserver.FreePorts(1); err != nil {
			continue
		}
		cfg.Server.Port = port
		if a, err = app.Start(cfg, app.Options{Logger: zap.NewNop(), FS: fs}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Stop(ctx)
	}
	t.Cleanup(stop)
	addr := net.JoinHostPort(cfg.Server.Bind, strconv.Itoa(cfg.Server.Port))
	client := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DisableIdentity: true,
			DialTimeout: 30 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	return client, stop
}

// TestWALFailureRefusedIncrCountsOnce: through the network, an INCR whose
// fsync fails is refused, no other client reads it, and after a restart
// (the kernel kept the record written before the failed fsync) the state
// is the acknowledged one, so the client's retry counts once.
func TestWALFailureRefusedIncrCountsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	efs := persistence.NewErrorFS(persistence.NewOSFS())
	client, stop := startOnFS(t, dir, efs)
	ca, cb := client(), client()
	expect(t, ca, "OK", "SET", "n", "10")
	efs.Inject(persistence.Injection{Op: persistence.FSSync, PathContains: "-wal-", Nth: 1})
	if _, err := ca.Do(ctxT(t), "INCR", "n").Result(); err == nil || !strings.Contains(err.Error(), "the write was not acknowledged") {
		t.Errorf("INCR whose fsync failed: err %v, want the write refused", err)
	}
	if got, err := cb.Do(ctxT(t), "GET", "n").Result(); err == nil || !strings.HasPrefix(err.Error(), "IOERR ") {
		t.Errorf("GET by another client after the refused INCR: %#v (err %v), want IOERR", got, err)
	}
	if _, err := cb.Do(ctxT(t), "INCR", "n").Result(); err == nil || !strings.HasPrefix(err.Error(), "MISCONF ") {
		t.Errorf("INCR after the failure: err %v, want MISCONF", err)
	}
	stop()

	client, _ = startOnFS(t, dir, nil)
	c := client()
	expect(t, c, "10", "GET", "n")
	expect(t, c, int64(11), "INCR", "n")
}
