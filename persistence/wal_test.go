package persistence

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

func writeRecords(t testing.TB, w *WAL, n int) []recCopy {
	t.Helper()
	var want []recCopy
	for i := 0; i < n; i++ {
		p := payloadFor(i)
		seq := w.Append(uint16(i%16), OpSet, p)
		want = append(want, recCopy{seq, uint16(i % 16), OpSet, string(p)})
		if i%3 == 2 {
			w.Commit(nil)
		}
	}
	return want
}

func equalRecs(t testing.TB, got, want []recCopy) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("record %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseFsyncPolicy(t *testing.T) {
	for _, p := range []FsyncPolicy{FsyncAlways, FsyncEverySec, FsyncNo} {
		got, err := ParseFsyncPolicy(p.String())
		if err != nil || got != p {
			t.Fatalf("%v: got %v, %v", p, got, err)
		}
	}
	if _, err := ParseFsyncPolicy("sometimes"); err == nil {
		t.Fatal("want error")
	}
}

func TestWALRoundTripAllPolicies(t *testing.T) {
	for _, pol := range []FsyncPolicy{FsyncAlways, FsyncEverySec, FsyncNo} {
		t.Run(pol.String(), func(t *testing.T) {
			fs := NewMemFS()
			w := mustOpen(t, fs, 0, WALOptions{Policy: pol})
			want := writeRecords(t, w, 100)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if w.DurableSequence() != 100 || w.LastSequence() != 100 {
				t.Fatalf("durable %d last %d", w.DurableSequence(), w.LastSequence())
			}
			got, st, err := recoverAll(t, fs.CrashClone(), 0, false)
			if err != nil {
				t.Fatal(err)
			}
			equalRecs(t, got, want)
			if st.LastSeq != 100 || st.Records != 100 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

func TestRotationRecoverAndRemove(t *testing.T) {
	fs := NewMemFS()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncAlways, SegmentSize: 200})
	want := writeRecords(t, w, 60)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	segs := segFiles(t, fs)
	if len(segs) < 5 {
		t.Fatalf("only %d segments", len(segs))
	}
	if w.Stats().Segments != len(segs) {
		t.Fatalf("stats segments %d, files %d", w.Stats().Segments, len(segs))
	}
	got, st, err := recoverAll(t, fs.CrashClone(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	equalRecs(t, got, want)

	// After a snapshot at 30, recovery from 30 replays 31..60.
	got, _, err = recoverAll(t, fs, 30, false)
	if err != nil {
		t.Fatal(err)
	}
	equalRecs(t, got, want[30:])

	// Reopen and append; remove segments covered by a snapshot at 30.
	w = mustOpen(t, fs, st.LastSeq, WALOptions{Policy: FsyncNo, SegmentSize: 200})
	more := writeRecords(t, w, 10)
	if more[0].Seq != 61 {
		t.Fatalf("first new seq %d", more[0].Seq)
	}
	if err := w.RemoveSegmentsBefore(30); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	left := segFiles(t, fs)
	first, _ := parseName(left[0][len(testDir)+1:], 0, "wal", ".log")
	if first > 31 || len(left) >= len(segs)+1 {
		t.Fatalf("after remove: first segment %d, %d segments", first, len(left))
	}
	got, _, err = recoverAll(t, fs.CrashClone(), 30, false)
	if err != nil {
		t.Fatal(err)
	}
	equalRecs(t, got, append(want[30:], more...))
	// From 0 the removed records are missing: that is an error.
	if _, _, err := recoverAll(t, fs, 0, false); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("recover from 0 after removal: %v", err)
	}
}

func TestOpenWALRefusesRecordsAfterLastSeq(t *testing.T) {
	fs := NewMemFS()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncNo})
	writeRecords(t, w, 5)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWAL(fs, testDir, 0, 0, WALOptions{}); !errors.Is(err, ErrSequence) {
		t.Fatalf("got %v", err)
	}
	// An empty segment named lastSeq+1 is reused.
	w = mustOpen(t, fs, 5, WALOptions{})
	_ = w.Close()
	w = mustOpen(t, fs, 5, WALOptions{})
	_ = w.Close()
}

// buildLog writes n records in one segment with FsyncNo and returns the
// durable MemFS, the records and the segment path.
func buildLog(t testing.TB, n int) (*MemFS, []recCopy, string) {
	t.Helper()
	fs := NewMemFS()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncNo})
	want := writeRecords(t, w, n)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	segs := segFiles(t, fs)
	return fs, want, segs[len(segs)-1]
}

func TestTornTailEveryOffset(t *testing.T) {
	fs, want, seg := buildLog(t, 10)
	data, _ := fs.ReadFile(seg)
	lastLen := len(encodeCopy(want[9]))
	lastStart := len(data) - lastLen
	cases := 0
	for cut := lastStart; cut < len(data); cut++ {
		for _, zeros := range []int{0, 7, 4096} {
			c := fs.CrashClone()
			damaged := append(append([]byte(nil), data[:cut]...), make([]byte, zeros)...)
			c.WriteFile(seg, damaged)
			log, logs := observedLogger()
			var got []recCopy
			st, err := Recover(c, testDir, 0, 0, false, log, func(r Record) error {
				got = append(got, recCopy{r.Seq, r.DB, r.Op, string(r.Payload)})
				return nil
			})
			if err != nil {
				t.Fatalf("cut %d zeros %d: %v", cut, zeros, err)
			}
			equalRecs(t, got, want[:9])
			if size, _ := c.Stat(seg); size != int64(lastStart) {
				t.Fatalf("cut %d zeros %d: size %d, want %d", cut, zeros, size, lastStart)
			}
			// The incomplete record is what precedes the zeros; zeros
			// alone (a clean end in preallocated space) are not worth a
			// warning.
			incomplete := int64(len(bytes.TrimRight(damaged[lastStart:], "\x00")))
			warned := logs.FilterLevelExact(zap.WarnLevel).Len()
			if st.TruncatedBytes != incomplete || st.ZeroBytes != int64(cut+zeros-lastStart)-incomplete || (incomplete > 0) != (warned == 1) || warned > 1 {
				t.Fatalf("cut %d zeros %d: stats %+v, warnings %d", cut, zeros, st, warned)
			}
			if incomplete > 0 && !strings.Contains(logs.All()[0].Message, fmt.Sprintf("ends with an incomplete record (%d bytes) written before a crash; dropped", incomplete)) {
				t.Fatalf("warning: %q", logs.All()[0].Message)
			}
			// Truncation is durable.
			if size, _ := c.CrashClone().Stat(seg); size != int64(lastStart) {
				t.Fatalf("truncation not synced")
			}
			cases++
		}
	}
	if cases != 3*lastLen {
		t.Fatalf("ran %d cases", cases)
	}
}

// encodeCopy re-encodes a record (for offsets and lengths).
func encodeCopy(r recCopy) []byte {
	b, _ := AppendRecord(nil, Record{Seq: r.Seq, DB: r.DB, Op: r.Op, Payload: []byte(r.Payload)})
	return b
}

// A flipped byte at the end of the final record leaves a complete frame
// with a bad CRC: a write cut short leaves zeros, not other bytes, so this
// is damage, not a torn tail.
func TestFlippedFinalRecordIsDamage(t *testing.T) {
	fs, want, seg := buildLog(t, 10)
	data, _ := fs.ReadFile(seg)
	data[len(data)-1] ^= 0xff // last record's payload
	if len(want[9].Payload) == 0 {
		t.Fatal("the final record needs a payload")
	}
	fs.WriteFile(seg, data)
	_, _, err := recoverAll(t, fs, 0, false)
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.Offset != int64(len(data)-len(encodeCopy(want[9]))) {
		t.Fatalf("got %v", err)
	}
	got, st, err := recoverAll(t, fs, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	equalRecs(t, got, want[:9])
	if !st.Repaired || st.TruncatedBytes != int64(len(encodeCopy(want[9]))) {
		t.Fatalf("stats %+v", st)
	}
}

func TestCorruptionInMiddle(t *testing.T) {
	fs, want, seg := buildLog(t, 10)
	data, _ := fs.ReadFile(seg)
	off := len(encodeCopy(want[0])) + len(encodeCopy(want[1]))
	data[off+RecordHeaderSize-1] ^= 0x40 // opcode byte of record 3
	fs.WriteFile(seg, data)
	_, _, err := recoverAll(t, fs, 0, false)
	var ce *CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) || ce.File != seg || ce.Offset != int64(off) {
		t.Fatalf("got %v", err)
	}
	// Unchanged without repair.
	if size, _ := fs.Stat(seg); size != int64(len(data)) {
		t.Fatal("file changed without repair")
	}
	log, logs := observedLogger()
	var got []recCopy
	st, err := Recover(fs, testDir, 0, 0, true, log, func(r Record) error {
		got = append(got, recCopy{r.Seq, r.DB, r.Op, string(r.Payload)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	equalRecs(t, got, want[:2])
	if !st.Repaired || st.LastSeq != 2 || logs.FilterMessageSnippet("persistence: repaired WAL: cut "+seg).Len() != 1 {
		t.Fatalf("stats %+v", st)
	}
	broken, err := fs.CrashClone().ReadFile(seg + ".broken")
	if err != nil || string(broken) != string(data[off:]) {
		t.Fatalf("broken file: %v", err)
	}
	// After repair the log opens at the repaired sequence.
	w := mustOpen(t, fs, st.LastSeq, WALOptions{})
	if w.Append(0, OpDel, []byte("k")) != 3 {
		t.Fatal("bad next sequence")
	}
	_ = w.Close()
}

func TestCorruptionInNonLastSegment(t *testing.T) {
	fs := NewMemFS()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncAlways, SegmentSize: 150})
	want := writeRecords(t, w, 40)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	segs := segFiles(t, fs)
	if len(segs) < 3 {
		t.Fatal("need 3 segments")
	}
	// Truncate the first segment in the middle of its last record: in a
	// non-last segment that is corruption, not a torn tail.
	data, _ := fs.ReadFile(segs[0])
	fs.WriteFile(segs[0], data[:len(data)-3])
	_, _, err := recoverAll(t, fs, 0, false)
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.File != segs[0] {
		t.Fatalf("got %v", err)
	}
	got, st, err := recoverAll(t, fs, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	equalRecs(t, got, want[:len(got)])
	if st.LastSeq != uint64(len(got)) {
		t.Fatalf("last %d", st.LastSeq)
	}
	if left := segFiles(t, fs); len(left) != 1 {
		t.Fatalf("later segments not moved aside: %v", left)
	}
	if _, err := fs.Stat(segs[1] + ".broken"); err != nil {
		t.Fatal(err)
	}
	// A sequence gap inside a segment is corruption too.
	fs2, want2, seg := buildLog(t, 5)
	data, _ = fs2.ReadFile(seg)
	l0 := len(encodeCopy(want2[0]))
	l1 := len(encodeCopy(want2[1]))
	fs2.WriteFile(seg, append(append([]byte(nil), data[:l0]...), data[l0+l1:]...))
	if _, _, err := recoverAll(t, fs2, 0, false); !errors.As(err, &ce) || ce.Offset != int64(l0) {
		t.Fatalf("gap: %v", err)
	}
}

func TestFsyncFailureIsSticky(t *testing.T) {
	mem := NewMemFS()
	efs := NewErrorFS(mem)
	w := mustOpen(t, efs, 0, WALOptions{Policy: FsyncAlways})
	rec := newRecorder()
	w.Append(0, OpSet, []byte("a"))
	if w.Commit(committerFunc{rec, 1}) {
		t.Fatal("immediate")
	}
	rec.wait(t, 1)
	efs.Inject(Injection{Op: FSSync, PathContains: "-wal-", Nth: 1})
	w.Append(0, OpSet, []byte("b"))
	w.Commit(committerFunc{rec, 2})
	rec.wait(t, 1)
	efs.Clear()
	w.Append(0, OpSet, []byte("c"))
	w.Commit(committerFunc{rec, 3})
	if w.Commit(committerFunc{rec, 4}) { // empty batch after failure: not immediate
		t.Fatal("immediate after failure")
	}
	rec.wait(t, 2)
	if rec.errs[0] != nil || !errors.Is(rec.errs[1], ErrInjected) || !errors.Is(rec.errs[2], ErrInjected) || !errors.Is(rec.errs[3], ErrInjected) {
		t.Fatalf("errs %v", rec.errs)
	}
	if !errors.Is(w.Err(), ErrInjected) || w.DurableSequence() != 1 {
		t.Fatalf("err %v durable %d", w.Err(), w.DurableSequence())
	}
	if err := w.Close(); !errors.Is(err, ErrInjected) {
		t.Fatalf("close: %v", err)
	}
}

func TestWriteFailureEverySec(t *testing.T) {
	efs := NewErrorFS(NewMemFS())
	w := mustOpen(t, efs, 0, WALOptions{Policy: FsyncEverySec})
	efs.Inject(Injection{Op: FSWrite, Nth: 1})
	w.Append(0, OpSet, []byte("a"))
	rec := newRecorder()
	if w.Commit(committerFunc{rec, 1}) {
		t.Fatal("immediate after write failure")
	}
	rec.wait(t, 1)
	if !errors.Is(rec.errs[0], ErrInjected) || !errors.Is(w.Err(), ErrInjected) {
		t.Fatal(rec.errs, w.Err())
	}
	w.Append(0, OpSet, []byte("b"))
	if w.Commit(committerFunc{rec, 2}) {
		t.Fatal("immediate")
	}
	rec.wait(t, 1)
	_ = w.Close()
}

func TestGroupCommit(t *testing.T) {
	mem := NewMemFS()
	w := mustOpen(t, mem, 0, WALOptions{Policy: FsyncAlways})
	rec := newRecorder()
	// First commit starts a slow fsync.
	mem.SetSyncDelay(time.Second)
	w.Append(0, OpSet, []byte("first"))
	w.Commit(committerFunc{rec, 0})
	deadline := time.Now().Add(time.Second)
	for w.Stats().Writes == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	syncsBefore := mem.SyncCount()
	const n = 50
	for i := 1; i <= n; i++ {
		if i%5 != 0 {
			w.Append(0, OpSet, []byte(fmt.Sprint(i)))
		}
		if w.Commit(committerFunc{rec, i}) { // never immediate: a sync is in flight
			t.Fatalf("commit %d immediate", i)
		}
	}
	// No Commit waited for the fsync in flight: nobody has been told
	// anything yet, not even the first batch.
	if got := rec.count(); got != 0 {
		t.Fatalf("%d notifications while the first fsync was still running: Commit waited for it", got)
	}
	rec.wait(t, n+1)
	for i, id := range rec.got {
		if id != i || rec.errs[i] != nil {
			t.Fatalf("notification %d: id %d err %v", i, id, rec.errs[i])
		}
	}
	// The in-flight fsync plus exactly one for the 50 queued batches.
	if got := mem.SyncCount() - syncsBefore; got != 1 {
		t.Fatalf("%d fsyncs after the first, want 1", got)
	}
	st := w.Stats()
	if st.Fsyncs != 2 || st.LastRecordsPerFsync != n-n/5 || w.DurableSequence() != uint64(1+n-n/5) {
		t.Fatalf("stats %+v", st)
	}
	mem.SetSyncDelay(0)
	// Nothing in flight: an empty commit is immediate.
	if !w.Commit(nil) {
		t.Fatal("empty commit with nothing in flight not immediate")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCrashCloneLosesUnsynced(t *testing.T) {
	mem := NewMemFS()
	w := mustOpen(t, mem, 0, WALOptions{Policy: FsyncNo})
	want := writeRecords(t, w, 9) // written, never fsynced
	crashed := mem.CrashClone()
	got, _, err := recoverAll(t, crashed, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("unsynced records survived: %d", len(got))
	}
	if err := w.Close(); err != nil { // fsyncs
		t.Fatal(err)
	}
	got, _, err = recoverAll(t, mem.CrashClone(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	equalRecs(t, got, want)

	// FsyncAlways: everything acknowledged survives a crash.
	mem = NewMemFS()
	w = mustOpen(t, mem, 0, WALOptions{Policy: FsyncAlways})
	rec := newRecorder()
	w.Append(0, OpSet, []byte("x"))
	w.Commit(committerFunc{rec, 1})
	rec.wait(t, 1)
	w.Append(0, OpSet, []byte("unacknowledged"))
	got, _, err = recoverAll(t, mem.CrashClone(), 0, false)
	if err != nil || len(got) != 1 || got[0].Payload != "x" {
		t.Fatalf("got %v %v", got, err)
	}
	_ = w.Close()
}

func TestEverySecSyncs(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the everysec timer")
	}
	mem := NewMemFS()
	w := mustOpen(t, mem, 0, WALOptions{Policy: FsyncEverySec})
	w.Append(0, OpSet, []byte("x"))
	if !w.Commit(nil) {
		t.Fatal("not immediate")
	}
	deadline := time.Now().Add(3 * time.Second)
	for w.Stats().Fsyncs == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if w.Stats().Fsyncs == 0 {
		t.Fatal("no background fsync")
	}
	got, _, err := recoverAll(t, mem.CrashClone(), 0, false)
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	_ = w.Close()
}

func TestBeginPutEnd(t *testing.T) {
	mem := NewMemFS()
	w := mustOpen(t, mem, 0, WALOptions{Policy: FsyncNo})
	w.Begin(3, OpCopy)
	w.PutBytes([]byte("src"))
	w.PutBytes([]byte("dst"))
	w.PutU16(7)
	w.PutU8(1)
	seq := w.End()
	seq2 := w.AppendParts(1, OpAppend, AppendBytes(nil, []byte("k")), AppendBytes(nil, []byte("sfx")))
	w.Commit(nil)
	_ = w.Close()
	got, _, err := recoverAll(t, mem, 0, false)
	if err != nil || seq != 1 || seq2 != 2 || len(got) != 2 {
		t.Fatal(err, seq, seq2, got)
	}
	r := NewPayloadReader([]byte(got[0].Payload))
	src, _ := r.Bytes()
	dst, _ := r.Bytes()
	db, _ := r.U16()
	rep, err := r.U8()
	if string(src) != "src" || string(dst) != "dst" || db != 7 || rep != 1 || err != nil || r.Done() != nil {
		t.Fatal("bad payload")
	}
}
