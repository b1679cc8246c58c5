package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Hardening item 10: a server killed again and again, each run writing
// less WAL than the snapshot trigger, still snapshots once the WAL on disk
// since the last snapshot passes it; and the temporaries of snapshots the
// kills interrupted are removed at the next start.
func TestCrashLoopSnapshotsAndCleansTemps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	dir := t.TempDir()
	cfgFile := filepath.Join(t.TempDir(), "trigger.toml")
	if err := os.WriteFile(cfgFile, []byte("[persistence]\nsnapshot_wal_bytes = \"64kb\"\nsnapshot_wal_percent = 0\nsnapshot_every = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--config", cfgFile}
	snaps := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "shard-000-snap-*.snap"))
		return m
	}
	// Each run writes about 30 KB of WAL (300 records of ~100 bytes).
	for run := 0; run < 4; run++ {
		stale := filepath.Join(dir, fmt.Sprintf("shard-000-snap-%020d.tmp", 1000+run))
		if run > 0 {
			if err := os.WriteFile(stale, make([]byte, 1<<20), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: args})
		if run > 0 {
			if _, err := os.Stat(stale); err == nil {
				t.Fatalf("run %d: %s still there after the start", run, filepath.Base(stale))
			}
		}
		c := p.Client(t, 0)
		for i := 0; i < 300; i++ {
			if err := c.Set(callCtx(t), fmt.Sprintf("run%d:%03d", run, i), strings.Repeat("v", 60), 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if run >= 2 {
			// 90 KB since the start of the loop: the trigger (checked hz
			// times a second) fires in this run.
			deadline := time.Now().Add(10 * time.Second)
			for len(snaps()) == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if len(snaps()) == 0 {
				t.Fatalf("run %d: no snapshot after about %d KB of WAL over %d runs with snapshot_wal_bytes = 64kb", run, 30*(run+1), run+1)
			}
		} else if len(snaps()) != 0 {
			t.Fatalf("run %d: snapshot before the trigger: %v", run, snaps())
		}
		p.Kill(t)
	}
	q := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Args: args})
	if n, err := q.Client(t, 0).DBSize(callCtx(t)).Result(); err != nil || n != 1200 {
		t.Fatalf("DBSIZE %d %v, want 1200", n, err)
	}
}
