package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
)

// A flipped bit in the only snapshot: start-up refuses with the snapshot
// named as damaged; --repair keeps the entries before the damage and the
// WAL after the snapshot, and writes a fresh snapshot so that the next
// start needs no repair.
func TestDiskDamagedSnapshotRepair(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	// Small segments: SAVE drops those before the snapshot, so the WAL
	// alone cannot stand in for it.
	small := func(o *keyspace.DiskOptions) { o.SegmentSize = 1 << 10 }
	d := durOpen(t, mem, clock, 1, small)
	sh := d.shard(0)
	const n = 200
	for i := 0; i < n; i++ {
		if got := d.do(sh, "SET", fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)); got != rOK {
			t.Fatalf("SET: %q", got)
		}
	}
	if got := d.do(sh, "SAVE"); got != rOK {
		t.Fatalf("SAVE: %q", got)
	}
	snapSeq := sh.Journal.(*keyspace.WALJournal).WAL.LastSequence()
	for i := 0; i < 5; i++ {
		d.do(sh, "SET", fmt.Sprintf("after%d", i), "x")
	}
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(durDir, persistence.SnapshotName(0, snapSeq))
	data, err := mem.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x04
	mem.WriteFile(snap, data)

	_, err = durOpenErr(t, mem.CrashClone(), clock, 1, small)
	var de *persistence.SnapshotDamagedError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "--repair") || strings.Contains(err.Error(), "recover WAL") {
		t.Fatalf("without repair: %v", err)
	}

	r := durOpen(t, mem, clock, 1, func(o *keyspace.DiskOptions) { small(o); o.Repair = true })
	sh = r.shard(0)
	missing := 0
	for i := 0; i < n; i++ {
		switch got := r.do(sh, "GET", fmt.Sprintf("k%d", i)); got {
		case "$-1\r\n":
			missing++
		case fmt.Sprintf("$%d\r\nv%d\r\n", len(fmt.Sprint(i))+1, i):
		default:
			t.Fatalf("k%d: %q", i, got)
		}
	}
	if missing == 0 || missing == n {
		t.Fatalf("%d of %d keys missing after salvage", missing, n)
	}
	for i := 0; i < 5; i++ {
		if got := r.do(sh, "GET", fmt.Sprintf("after%d", i)); got != "$1\r\nx\r\n" {
			t.Fatalf("after%d (from the WAL): %q", i, got)
		}
	}
	state := durStateAt(sh, clock.ms.Load())
	if err := r.close(); err != nil {
		t.Fatal(err)
	}
	files := durFiles(t, mem)
	if !slices.Contains(files, filepath.Base(snap)+".broken") {
		t.Fatalf("no .broken copy: %v", files)
	}
	// The fresh snapshot replaced the damaged one: no repair needed now.
	again := durOpen(t, mem.CrashClone(), clock, 1, small)
	durDiff(t, "after repair", durStateAt(again.shard(0), clock.ms.Load()), state)
	_ = again.close()
}
