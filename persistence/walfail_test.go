package persistence

import (
	"errors"
	"testing"
	"time"
)

// seqsOf lists the sequences of recs.
func seqsOf(recs []recCopy) []uint64 {
	var s []uint64
	for _, r := range recs {
		s = append(s, r.Seq)
	}
	return s
}

// wantRecovered checks that fs recovers exactly the records 1..last.
func wantRecovered(t *testing.T, what string, fs FS, last uint64) {
	t.Helper()
	recs, _, err := recoverAll(t, fs, 0, false)
	if err != nil {
		t.Fatalf("%s: recover: %v", what, err)
	}
	if len(recs) != int(last) || last > 0 && recs[len(recs)-1].Seq != last {
		t.Errorf("%s: recovered sequences %v, want 1..%d", what, seqsOf(recs), last)
	}
}

// TestWALFailedFsyncDropsRefusedRecords: records whose fsync failed were
// handed to the kernel, and may still reach the disk (a failed fsync does
// not take them back), though their writes were refused. The WAL cuts
// them off its file, so neither a restart (the page cache kept them) nor
// a crash brings them back; on the sync goroutine and on the inline path
// of a lone client alike.
func TestWALFailedFsyncDropsRefusedRecords(t *testing.T) {
	for _, inline := range []bool{false, true} {
		name := "sync goroutine"
		if inline {
			name = "inline"
		}
		t.Run(name, func(t *testing.T) {
			mem := NewMemFS()
			efs := NewErrorFS(mem)
			w := mustOpen(t, efs, 0, WALOptions{Policy: FsyncAlways})
			rec := newRecorder()
			// Durable records first (a run long enough for the inline path).
			for i := 1; i <= loneRun; i++ {
				if !commitOne(w, rec, i, 7, inline) {
					rec.wait(t, 1)
				}
				settle(t, w)
			}
			efs.Inject(Injection{Op: FSSync, PathContains: "-wal-", Nth: 1})
			w.Append(0, OpSet, []byte("refused 1"))
			w.Append(0, OpSet, []byte("refused 2"))
			if w.Commit(soleCommitter{committerFunc{rec, 99}, 7, inline}) {
				t.Fatal("a failed fsync reported durable")
			}
			rec.wait(t, 1)
			if errs := rec.errors(); !errors.Is(errs[len(errs)-1], ErrInjected) {
				t.Fatalf("errs %v", errs)
			}
			if d := w.DurableSequence(); d != loneRun {
				t.Fatalf("durable sequence %d, want %d", d, loneRun)
			}
			if err := w.Close(); !errors.Is(err, ErrInjected) {
				t.Fatalf("close: %v", err)
			}
			wantRecovered(t, "restart", mem, loneRun)
			wantRecovered(t, "crash", mem.CrashClone(), loneRun)
		})
	}
}

// TestWALFailedGroupKeepsRotatedSegment: a group that spans a rotation has
// its first part fsynced with the closed segment; when the fsync of the
// new segment fails, that part stays durable (DurableSequence says so, so
// its replies may leave) and only the rest is cut off.
func TestWALFailedGroupKeepsRotatedSegment(t *testing.T) {
	mem := NewMemFS()
	efs := NewErrorFS(mem)
	// Every record fills a segment: each group item rotates first.
	w := mustOpen(t, efs, 0, WALOptions{Policy: FsyncAlways, SegmentSize: 1})
	rec := newRecorder()
	// A slow first fsync keeps the sync goroutine busy while items 2 and 3
	// queue, so they are written as one group.
	mem.SetSyncDelay(50 * time.Millisecond)
	w.Append(0, OpSet, []byte("one"))
	w.Commit(committerFunc{rec, 1})
	for w.Stats().Writes == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	efs.Inject(Injection{Op: FSSync, PathContains: SegmentName(0, 3), Nth: 1})
	w.Append(0, OpSet, []byte("two"))
	w.Commit(committerFunc{rec, 2})
	w.Append(0, OpSet, []byte("three"))
	w.Commit(committerFunc{rec, 3})
	rec.wait(t, 3)
	mem.SetSyncDelay(0)
	if errs := rec.errors(); errs[0] != nil || !errors.Is(errs[2], ErrInjected) {
		t.Fatalf("errs %v", errs)
	}
	if d := w.DurableSequence(); d != 2 {
		t.Errorf("durable sequence %d, want 2 (record 2 was fsynced with its segment)", d)
	}
	if err := w.Close(); !errors.Is(err, ErrInjected) {
		t.Fatalf("close: %v", err)
	}
	wantRecovered(t, "restart", mem, 2)
	wantRecovered(t, "crash", mem.CrashClone(), 2)
}
