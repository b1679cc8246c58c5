package persistence

import (
	"errors"
	"testing"
	"time"
)

// soleCommitter is a Committer that names the one client it writes for.
type soleCommitter struct {
	committerFunc
	client int64
	sole   bool
}

func (c soleCommitter) SoleWriter() (int64, bool) { return c.client, c.sole }

// settle waits until the sync goroutine has finished with every queued
// group: it tells a group's Committers before it drops the group from
// inflight, so a recorded notification alone does not mean the WAL is idle.
func settle(t *testing.T, w *WAL) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for w.inflight.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("sync goroutine still busy")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// commitOne appends one record and commits it for client; it returns
// whether the commit was durable at once.
func commitOne(w *WAL, rec *recorder, id int, client int64, sole bool) bool {
	w.Append(0, OpSet, payloadFor(id))
	return w.Commit(soleCommitter{committerFunc{rec, id}, client, sole})
}

// errors returns a copy of the errors recorded so far.
func (r *recorder) errors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

func TestLoneClientSyncsInline(t *testing.T) {
	mem := NewMemFS()
	w := mustOpen(t, mem, 0, WALOptions{Policy: FsyncAlways})
	rec := newRecorder()
	// The first loneRun-1 commits of the run go to the sync goroutine.
	for i := 1; i < loneRun; i++ {
		if commitOne(w, rec, i, 7, true) {
			t.Fatalf("commit %d durable at once before the run is long enough", i)
		}
		rec.wait(t, 1)
		settle(t, w)
	}
	for i := loneRun; i < loneRun+5; i++ {
		if !commitOne(w, rec, i, 7, true) {
			t.Fatalf("commit %d of a lone client not synced inline", i)
		}
		if got := w.DurableSequence(); got != uint64(i) {
			t.Fatalf("after inline commit %d: durable sequence %d", i, got)
		}
	}
	st := w.Stats()
	if st.InlineSyncs != 5 || st.Fsyncs != uint64(loneRun+4) {
		t.Fatalf("inline syncs %d, fsyncs %d", st.InlineSyncs, st.Fsyncs)
	}
	if rec.count() != loneRun-1 {
		t.Fatalf("Committed called %d times, want %d (inline commits are not told)", rec.count(), loneRun-1)
	}
	// Another client breaks the run: back to the sync goroutine.
	if commitOne(w, rec, 100, 8, true) {
		t.Fatal("a second client's commit synced inline")
	}
	rec.wait(t, 1)
	if commitOne(w, rec, 101, 7, true) {
		t.Fatal("the first client's commit synced inline right after another client")
	}
	rec.wait(t, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, _, err := recoverAll(t, mem, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != loneRun+6 {
		t.Fatalf("recovered %d records, want %d", len(recs), loneRun+6)
	}
	for i, r := range recs {
		if r.Seq != uint64(i+1) {
			t.Fatalf("record %d has sequence %d", i, r.Seq)
		}
	}
}

func TestSeveralClientsNeverInline(t *testing.T) {
	w := mustOpen(t, NewMemFS(), 0, WALOptions{Policy: FsyncAlways})
	defer w.Close()
	rec := newRecorder()
	for i := 1; i <= 20; i++ {
		// Alternating clients, then groups that hold several clients.
		client, sole := int64(i%2), true
		if i > 10 {
			client, sole = 0, false
		}
		if commitOne(w, rec, i, client, sole) {
			t.Fatalf("commit %d synced inline", i)
		}
		rec.wait(t, 1)
	}
	if n := w.Stats().InlineSyncs; n != 0 {
		t.Fatalf("inline syncs %d", n)
	}
}

func TestLoneClientWaitsForGroupInFlight(t *testing.T) {
	gfs := newGateFS()
	w := mustOpen(t, gfs, 0, WALOptions{Policy: FsyncAlways})
	rec := newRecorder()
	for i := 1; i < loneRun; i++ {
		commitOne(w, rec, i, 7, true)
		rec.wait(t, 1)
	}
	// Another committer's group is being synced: the lone client's
	// commit must queue behind it, not sync around it.
	gfs.armed.Store(true)
	w.Append(0, OpSet, []byte("x"))
	w.Commit(committerFunc{rec, 50})
	waitFor(t, gfs.entered, "fsync of the other group")
	if commitOne(w, rec, loneRun, 7, true) {
		t.Fatal("synced inline while another group's fsync was in flight")
	}
	gfs.release <- struct{}{}
	rec.wait(t, 2)
	if got := w.DurableSequence(); got != uint64(loneRun+1) {
		t.Fatalf("durable sequence %d", got)
	}
	rec.mu.Lock()
	got := append([]int(nil), rec.got...)
	rec.mu.Unlock()
	if got[len(got)-2] != 50 || got[len(got)-1] != loneRun {
		t.Fatalf("commit order %v", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLoneClientInlineSyncFailure(t *testing.T) {
	efs := NewErrorFS(NewMemFS())
	w := mustOpen(t, efs, 0, WALOptions{Policy: FsyncAlways})
	rec := newRecorder()
	for i := 1; i < loneRun; i++ {
		commitOne(w, rec, i, 7, true)
		rec.wait(t, 1)
		settle(t, w)
	}
	efs.Inject(Injection{Op: FSSync, PathContains: "-wal-", Nth: 1})
	if commitOne(w, rec, loneRun, 7, true) {
		t.Fatal("a failed inline sync reported durable")
	}
	// Committed was told synchronously, with the error.
	if n := rec.count(); n != loneRun {
		t.Fatalf("committed %d times, want %d", n, loneRun)
	}
	rec.wait(t, 1)
	if errs := rec.errors(); !errors.Is(errs[loneRun-1], ErrInjected) {
		t.Fatalf("errs %v", errs)
	}
	efs.Clear()
	if commitOne(w, rec, loneRun+1, 7, true) {
		t.Fatal("durable at once after a failure")
	}
	rec.wait(t, 1)
	if errs := rec.errors(); !errors.Is(errs[loneRun], ErrInjected) || w.DurableSequence() != uint64(loneRun-1) {
		t.Fatalf("errs %v durable %d", errs, w.DurableSequence())
	}
	if err := w.Close(); !errors.Is(err, ErrInjected) {
		t.Fatalf("close: %v", err)
	}
}
