package persistence

import (
	"sync/atomic"
	"testing"
	"time"
)

// syncedSurvives checks that a crash now keeps every record up to the
// WAL's SyncedSequence, read before the crash.
func syncedSurvives(t *testing.T, fs *MemFS, w *WAL) uint64 {
	t.Helper()
	s := w.SyncedSequence()
	_, st, err := recoverAll(t, fs.CrashClone(), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if st.LastSeq < s {
		t.Fatalf("SyncedSequence %d, but a crash keeps only %d records", s, st.LastSeq)
	}
	return s
}

// TestSyncedSequenceNo: under FsyncNo written records are durable in
// DurableSequence's sense at once, but SyncedSequence moves only with Sync
// and with the background sync of rotated segments, and never past a
// segment still being synced.
func TestSyncedSequenceNo(t *testing.T) {
	fs := NewMemFS()
	var hook atomic.Uint64
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncNo, SegmentSize: 1 << 20,
		OnSynced: func(seq uint64) { hook.Store(seq) }})
	defer w.Close()
	writeRecords(t, w, 30)
	w.Commit(nil)
	if w.DurableSequence() != 30 || w.SyncedSequence() != 0 {
		t.Fatalf("durable %d synced %d, want 30 and 0", w.DurableSequence(), w.SyncedSequence())
	}
	if _, st, _ := recoverAll(t, fs.CrashClone(), 0, true); st.LastSeq != 0 {
		t.Fatalf("a crash kept %d unsynced records", st.LastSeq)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if s := syncedSurvives(t, fs, w); s != 30 || hook.Load() != 30 {
		t.Fatalf("after Sync: synced %d, OnSynced %d, want 30", s, hook.Load())
	}

	// A rotated segment synced in the background: SyncedSequence stays
	// before it until its sync is done, then covers it.
	w2fs := NewMemFS()
	w2fs.SetSyncDelay(100 * time.Millisecond)
	w2 := mustOpen(t, w2fs, 0, WALOptions{Policy: FsyncNo, SegmentSize: 300})
	defer w2.Close()
	for i := 0; i < 40; i++ {
		writeRecords(t, w2, 1)
		w2.Commit(nil)
		syncedSurvives(t, w2fs, w2)
	}
	if len(segFiles(t, w2fs)) < 3 {
		t.Fatalf("want several segments, got %v", segFiles(t, w2fs))
	}
	deadline := time.Now().Add(10 * time.Second)
	for w2.SyncedSequence() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("rotated segments' syncs never advanced SyncedSequence")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := syncedSurvives(t, w2fs, w2); s >= 40 {
		t.Fatalf("synced %d covers the current segment, never synced", s)
	}
	if err := w2.Sync(); err != nil {
		t.Fatal(err)
	}
	for w2.SyncedSequence() != 40 {
		if time.Now().After(deadline) {
			t.Fatalf("after Sync and the background syncs: synced %d, want 40", w2.SyncedSequence())
		}
		time.Sleep(10 * time.Millisecond)
	}
	syncedSurvives(t, w2fs, w2)
}

// TestSyncedSequenceEverySec: SyncedSequence follows the periodic fsync,
// not the writes; under FsyncAlways it is DurableSequence.
func TestSyncedSequenceEverySec(t *testing.T) {
	fs := NewMemFS()
	var hook atomic.Uint64
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncEverySec, SegmentSize: 400,
		OnSynced: func(seq uint64) { hook.Store(seq) }})
	defer w.Close()
	writeRecords(t, w, 20)
	w.Commit(nil)
	if w.DurableSequence() != 20 {
		t.Fatalf("durable %d", w.DurableSequence())
	}
	syncedSurvives(t, fs, w)
	deadline := time.Now().Add(5 * time.Second)
	for w.SyncedSequence() != 20 {
		if time.Now().After(deadline) {
			t.Fatalf("synced %d after the periodic fsync, want 20", w.SyncedSequence())
		}
		syncedSurvives(t, fs, w)
		time.Sleep(20 * time.Millisecond)
	}
	if hook.Load() != 20 {
		t.Fatalf("OnSynced %d", hook.Load())
	}
	syncedSurvives(t, fs, w)

	afs := NewMemFS()
	a := mustOpen(t, afs, 0, WALOptions{Policy: FsyncAlways})
	defer a.Close()
	writeRecords(t, a, 5)
	rec := newRecorder()
	a.Commit(committerFunc{rec, 1})
	rec.wait(t, 1)
	if a.SyncedSequence() != 5 {
		t.Fatalf("always: synced %d", a.SyncedSequence())
	}
	if err := a.Sync(); err != nil {
		t.Fatal(err)
	}
}
