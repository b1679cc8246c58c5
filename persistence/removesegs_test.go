package persistence

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// failRemoveFS fails Remove once armed.
type failRemoveFS struct {
	FS
	fail atomic.Bool
}

var errRemove = errors.New("remove refused")

func (f *failRemoveFS) Remove(name string) error {
	if f.fail.Load() {
		return errRemove
	}
	return f.FS.Remove(name)
}

// A segment that cannot be deleted stays listed, with every older one
// after it, and a later call deletes them.
func TestRemoveSegmentsBeforeKeepsWhatItCannotDelete(t *testing.T) {
	fs := &failRemoveFS{FS: NewMemFS()}
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncNo, SegmentSize: 200})
	defer w.Close()
	recs := writeRecords(t, w, 60)
	before := w.Stats().Segments
	if before < 4 {
		t.Fatalf("%d segments", before)
	}
	fs.fail.Store(true)
	if err := w.RemoveSegmentsBefore(recs[40].Seq); !errors.Is(err, errRemove) {
		t.Fatalf("remove: %v", err)
	}
	if got := w.Stats().Segments; got != before {
		t.Fatalf("after a failed remove: %d segments listed, want %d", got, before)
	}
	fs.fail.Store(false)
	if err := w.RemoveSegmentsBefore(recs[40].Seq); err != nil {
		t.Fatal(err)
	}
	if got, files := w.Stats().Segments, len(segFiles(t, fs)); got >= before || int(got) != files {
		t.Fatalf("after remove: %d segments listed, %d files, %d before", got, files, before)
	}
}

// Segments are removed from another goroutine while the shard appends
// and rotates segments (run with -race).
func TestRemoveSegmentsBeforeBesideAppends(t *testing.T) {
	fs := NewMemFS()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncNo, SegmentSize: 200})
	defer w.Close()
	var wg sync.WaitGroup
	var last atomic.Uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 50; i++ {
			if err := w.RemoveSegmentsBefore(last.Load()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 20; i++ {
		recs := writeRecords(t, w, 10)
		last.Store(recs[len(recs)-1].Seq / 2)
	}
	wg.Wait()
	if got, files := w.Stats().Segments, len(segFiles(t, fs)); int(got) != files {
		t.Fatalf("%d segments listed, %d files", got, files)
	}
}
