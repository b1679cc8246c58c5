package persistence

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"go.uber.org/zap"
)

// TestPreallocatedSegmentsOnDisk runs the WAL on the real file system,
// where segments are preallocated: closed segments are trimmed to their
// records, and a process that stops without closing leaves a zero tail
// that recovery trims while keeping every record.
func TestPreallocatedSegmentsOnDisk(t *testing.T) {
	dir := t.TempDir()
	fs := OSFS{}
	w, err := OpenWAL(fs, dir, 0, 0, WALOptions{Policy: FsyncAlways, SegmentSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.f.(Preallocator); !ok {
		t.Skip("OSFS files cannot preallocate on this platform")
	}
	rec := newRecorder()
	const n = 200
	for i := 1; i <= n; i++ {
		w.Append(0, OpSet, []byte(fmt.Sprintf("value-%03d", i)))
		w.Commit(committerFunc{rec, i})
	}
	rec.wait(t, n)
	segs, err := listSegments(fs, dir, 0)
	if err != nil || len(segs) < 2 {
		t.Fatalf("want several segments, got %d (%v)", len(segs), err)
	}
	// Every closed segment holds records only: no preallocated zeros.
	for _, s := range segs[:len(segs)-1] {
		size, err := fs.Stat(s.path)
		if err != nil || size >= 4096+64 || size == 0 {
			t.Errorf("closed segment %s has size %d (%v), want trimmed to its records", filepath.Base(s.path), size, err)
		}
	}
	last := segs[len(segs)-1].path
	if size, _ := fs.Stat(last); size < 4096 {
		t.Fatalf("open segment is %d bytes, want it preallocated", size)
	}
	// Stop without Close: the live segment keeps its zero tail.
	w.f.(osFile).File.Close()
	var got int
	stats, err := Recover(fs, dir, 0, 0, false, nil, func(r Record) error {
		got++
		if want := fmt.Sprintf("value-%03d", r.Seq); string(r.Payload) != want {
			t.Errorf("seq %d: payload %q, want %q", r.Seq, r.Payload, want)
		}
		return nil
	})
	if err != nil || got != n || stats.LastSeq != n {
		t.Fatalf("recovered %d records, last %d, err %v; want %d", got, stats.LastSeq, err, n)
	}
	if size, _ := fs.Stat(last); size >= 4096 {
		t.Errorf("zero tail of %s not trimmed: %d bytes", filepath.Base(last), size)
	}
	// A clean reopen and close trims too.
	w2, err := OpenWAL(fs, dir, 0, stats.LastSeq, WALOptions{Policy: FsyncAlways, SegmentSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	w2.Append(0, OpSet, []byte("after"))
	w2.Commit(nil)
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	segs, _ = listSegments(fs, dir, 0)
	if size, _ := fs.Stat(segs[len(segs)-1].path); size >= 4096 {
		t.Errorf("segment not trimmed at Close: %d bytes", size)
	}
}

// TestRotationSyncsInBackground: under everysec and no, a rotated segment
// is synced off the appending goroutine; a failure there still makes the
// WAL's error sticky, and Close reports it.
func TestRotationSyncsInBackground(t *testing.T) {
	for _, policy := range []FsyncPolicy{FsyncEverySec, FsyncNo} {
		mem := NewMemFS()
		efs := NewErrorFS(mem)
		w := mustOpen(t, efs, 0, WALOptions{Policy: policy, SegmentSize: 256})
		efs.Inject(Injection{Op: FSSync, PathContains: SegmentName(0, 1), Nth: 1})
		for i := 0; i < 40; i++ {
			w.Append(0, OpSet, []byte(fmt.Sprintf("value-%03d", i)))
			w.Commit(nil)
		}
		if err := w.Close(); err == nil || w.Err() == nil {
			t.Fatalf("%v: Close = %v, Err = %v; want the failed sync of the first segment", policy, err, w.Err())
		}
	}
}

// TestPreallocationThatDoesNotFit: a preallocation failing with ENOSPC
// (on ext4 after allocating what fitted) is given back, with a warning
// naming the cause, and the segment grows as it is written; one the file
// system does not support is passed over quietly.
func TestPreallocationThatDoesNotFit(t *testing.T) {
	mem := NewMemFS()
	mem.SetCapacity(4096)
	efs := NewErrorFS(mem)
	log, logs := observedLogger()
	w, err := OpenWAL(efs, testDir, 0, 0, WALOptions{Policy: FsyncAlways, SegmentSize: 1 << 20, Logger: log})
	if err != nil {
		t.Fatalf("open on a volume smaller than a segment: %v", err)
	}
	seg := SegmentName(0, 1)
	if size, _ := mem.Stat(testDir + "/" + seg); size != 0 {
		t.Fatalf("new segment holds %d bytes: the partial preallocation was kept", size)
	}
	if m := logs.FilterMessageSnippet("less free space than persistence.segment_size").All(); len(m) != 1 {
		t.Fatalf("no warning naming the cause: %v", logs.All())
	}
	w.Append(0, OpSet, []byte("value"))
	w.Commit(nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _, err := recoverAll(t, mem, 0, false)
	if err != nil || len(got) != 1 {
		t.Fatalf("recovered %d records: %v", len(got), err)
	}

	// Not supported (a file system without fallocate): no warning.
	mem2 := NewMemFS()
	log2, logs2 := observedLogger()
	w2, err := OpenWAL(NewErrorFS(mem2), testDir, 0, 0, WALOptions{Policy: FsyncAlways, Logger: log2})
	if err != nil {
		t.Fatal(err)
	}
	_ = w2.Close()
	if n := logs2.FilterLevelExact(zap.WarnLevel).Len(); n != 0 {
		t.Fatalf("%d warnings for an unsupported preallocation: %v", n, logs2.All())
	}

	// An injected failure of another kind is given back too.
	mem3 := NewMemFS()
	efs3 := NewErrorFS(mem3)
	efs3.Inject(Injection{Op: FSPreallocate, PathContains: seg, Err: syscall.EIO})
	w3, err := OpenWAL(efs3, testDir, 0, 0, WALOptions{Policy: FsyncAlways})
	if err != nil {
		t.Fatalf("open with a failing preallocation: %v", err)
	}
	_ = w3.Close()
}

// TestAbandon: the log of a refused start removes the segment it created
// when nothing was written to it, and keeps a reused one or one with
// records.
func TestAbandon(t *testing.T) {
	mem := NewMemFS()
	w := mustOpen(t, mem, 0, WALOptions{Policy: FsyncAlways})
	if removed, err := w.Abandon(); err != nil || !removed {
		t.Fatalf("Abandon of an unused new segment: %v %v", removed, err)
	}
	if segs := segFiles(t, mem); len(segs) != 0 {
		t.Fatalf("left %v", segs)
	}
	w = mustOpen(t, mem, 0, WALOptions{Policy: FsyncAlways})
	w.Append(0, OpDel, []byte("k"))
	w.Commit(nil)
	if removed, err := w.Abandon(); err != nil || removed {
		t.Fatalf("Abandon with a record: %v %v", removed, err)
	}
	if got, _, err := recoverAll(t, mem, 0, false); err != nil || len(got) != 1 {
		t.Fatalf("the record was lost: %d %v", len(got), err)
	}
	// An empty segment of that name was there before: it stays.
	mem2 := NewMemFS()
	mem2.WriteFile(testDir+"/"+SegmentName(0, 1), nil)
	w = mustOpen(t, mem2, 0, WALOptions{Policy: FsyncAlways})
	if removed, err := w.Abandon(); err != nil || removed {
		t.Fatalf("Abandon of a reused segment: %v %v", removed, err)
	}
	if segs := segFiles(t, mem2); len(segs) != 1 {
		t.Fatalf("reused segment removed: %v", segs)
	}
}
