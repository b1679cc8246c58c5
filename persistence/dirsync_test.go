package persistence

import (
	"sync/atomic"
	"testing"
)

// countDirFS counts SyncDir calls.
type countDirFS struct {
	*MemFS
	dirSyncs atomic.Int64
}

func (c *countDirFS) SyncDir(dir string) error {
	c.dirSyncs.Add(1)
	return c.MemFS.SyncDir(dir)
}

// Under fsync no (and everysec) a rotation leaves the directory sync of
// the new segment to the next sync: a crash before it may lose that
// segment, never a record counted durable, and recovers a prefix; after
// Sync every record survives.
func TestRotationDefersTheDirectorySync(t *testing.T) {
	fs := &countDirFS{MemFS: NewMemFS()}
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncNo, SegmentSize: 200})
	defer w.Close()
	want := writeRecords(t, w, 40)
	w.Commit(nil)       // writeRecords commits every third record
	w.background.Wait() // closed segments: synced with their directory entries
	if w.Stats().Segments < 3 {
		t.Fatalf("%d segments", w.Stats().Segments)
	}
	durable := w.SyncedSequence()

	got, _, err := recoverAll(t, fs.CrashClone(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > len(want) || uint64(len(got)) < durable {
		t.Fatalf("after a crash: %d records, %d written, %d durable", len(got), len(want), durable)
	}
	equalRecs(t, got, want[:len(got)])

	before := fs.dirSyncs.Load()
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if fs.dirSyncs.Load() != before+1 {
		t.Fatalf("Sync made %d directory syncs, want 1", fs.dirSyncs.Load()-before)
	}
	got, _, err = recoverAll(t, fs.CrashClone(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	equalRecs(t, got, want)

	// The segment Sync covered needs no directory sync when it closes;
	// the next one, created unsynced, does.
	rotateOnce := func() {
		t.Helper()
		n := w.Stats().Segments
		for i := 0; w.Stats().Segments == n; i++ {
			if i > 1000 {
				t.Fatal("no segment switch")
			}
			writeRecords(t, w, 3)
		}
		w.background.Wait()
	}
	before = fs.dirSyncs.Load()
	rotateOnce()
	if got := fs.dirSyncs.Load() - before; got != 0 {
		t.Fatalf("closing a segment whose entry was synced made %d directory syncs", got)
	}
	rotateOnce()
	if got := fs.dirSyncs.Load() - before; got != 1 {
		t.Fatalf("closing a segment created unsynced made %d directory syncs, want 1", got)
	}
}
