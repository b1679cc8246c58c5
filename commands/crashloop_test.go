package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
)

// TestDiskWALTriggerCountsWALOnDisk: the WAL-growth snapshot trigger
// counts the WAL written since the last snapshot, whatever process wrote
// it. A server killed and restarted more often than the trigger interval
// still snapshots once the WAL on disk has grown past it.
func TestDiskWALTriggerCountsWALOnDisk(t *testing.T) {
	const limit = 4000
	mem := persistence.NewMemFS()
	clock := newDurClock()
	mod := func(o *keyspace.DiskOptions) { o.SnapshotWALBytes = limit }
	d := durOpen(t, mem, clock, 1, mod)
	sh := d.shard(0)
	written := func(sh *keyspace.Shard) int64 { return int64(sh.Journal.(*keyspace.WALJournal).WAL.Stats().Bytes) }
	key := 0
	// Each run writes a little more than a third of the limit, then dies.
	fill := func(d *durServer, sh *keyspace.Shard) {
		start := written(sh)
		for written(sh)-start < limit/3+100 {
			d.do(sh, "SET", "k"+strconv.Itoa(key), strings.Repeat("v", 100))
			key++
		}
	}
	fill(d, sh)
	sh.Journal.Tick(sh)
	if sh.Snap != nil || sh.SnapFinishing {
		t.Fatal("snapshot before the WAL reached the trigger")
	}
	for run := 2; run <= 3; run++ {
		mem = mem.CrashClone()
		d = durOpen(t, mem, clock, 1, mod)
		sh = d.shard(0)
		fill(d, sh)
		sh.Journal.Tick(sh)
	}
	// Three runs wrote more than the limit in all: the snapshot is due.
	if sh.Snap == nil && !sh.SnapFinishing {
		t.Fatalf("no snapshot after three runs of %d WAL bytes each with snapshot_wal_bytes = %d (the trigger restarted at every start)", written(sh), limit)
	}
	sh.FinishSnapshotNow()
	if sh.SnapStatus.LastSeq != uint64(key) {
		t.Fatalf("snapshot at sequence %d, want %d", sh.SnapStatus.LastSeq, key)
	}
	// After that snapshot the count starts again from the new snapshot.
	mem = mem.CrashClone()
	d = durOpen(t, mem, clock, 1, mod)
	sh = d.shard(0)
	d.do(sh, "SET", "after", "1")
	sh.Journal.Tick(sh)
	if sh.Snap != nil || sh.SnapFinishing {
		t.Fatal("snapshot right after a restart that follows a snapshot: the WAL before it was counted")
	}
}

// TestDiskRemovesStaleSnapshotTemps: the temporary files of snapshots a
// killed process never finished are removed at start, not only after the
// next snapshot succeeds; other files stay.
func TestDiskRemovesStaleSnapshotTemps(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 2, nil)
	key := ""
	for i := 0; key == ""; i++ {
		if _, owner := d.srv.Topology().ShardOfKey([]byte("k" + strconv.Itoa(i))); owner == 0 {
			key = "k" + strconv.Itoa(i)
		}
	}
	d.do(d.shard(0), "SET", key, "1")
	mem = mem.CrashClone()
	stale := []string{
		durDir + "/shard-000-snap-00000000000000000001.tmp",
		durDir + "/shard-001-snap-00000000000000000007.tmp",
	}
	for _, name := range stale {
		mem.WriteFile(name, []byte(strings.Repeat("x", 1000)))
	}
	// Not a snapshot temporary: left alone.
	mem.WriteFile(durDir+"/notes.tmp", []byte("operator's file"))
	d = durOpen(t, mem, clock, 2, nil)
	if got := d.do(d.shard(0), "GET", key); got != "$1\r\n1\r\n" {
		t.Fatalf("GET %s = %q after restart", key, got)
	}
	names := strings.Join(durFiles(t, mem), " ")
	for _, name := range stale {
		if strings.Contains(names, name[len(durDir)+1:]) {
			t.Errorf("stale %s still there after start: %s", name, names)
		}
	}
	if !strings.Contains(names, "notes.tmp") {
		t.Errorf("notes.tmp removed: %s", names)
	}
}
