package persistence

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Hardening item 8: a non-final segment cut at a record boundary leaves
// a gap before the next segment. Without repair the start is refused and
// nothing changes; with repair the records before the gap are kept, every
// later segment is moved aside whole (its records counted exactly), the
// log opens after the kept records, and the next start needs no repair.
func TestRepairSegmentGap(t *testing.T) {
	fs := NewMemFS()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncAlways, SegmentSize: 150})
	want := writeRecords(t, w, 60)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	segs := segFiles(t, fs)
	if len(segs) < 4 {
		t.Fatalf("need 4 segments, got %d", len(segs))
	}
	// Cut the second segment after its first record, at a record boundary.
	data, _ := fs.ReadFile(segs[1])
	first, n, err := DecodeRecord(data)
	if err != nil || n == len(data) {
		t.Fatalf("second segment: %v, %d of %d bytes", err, n, len(data))
	}
	fs.WriteFile(segs[1], data[:n])
	kept := int(first.Seq) // records 1..first.Seq survive
	var dropped, droppedBytes int
	originals := map[string][]byte{}
	for _, s := range segs[2:] {
		b, _ := fs.ReadFile(s)
		originals[s] = b
		droppedBytes += len(b)
		for off := 0; off < len(b); {
			_, m, err := DecodeRecord(b[off:])
			if err != nil {
				t.Fatal(err)
			}
			dropped++
			off += m
		}
	}
	missing := fmt.Sprintf("records %d to %d are missing", kept+1, parseSeq(t, segs[2])-1)
	before := dirListing(t, fs)

	_, _, err = recoverAll(t, fs, 0, false)
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.File != segs[2] {
		t.Fatalf("without repair: %v", err)
	}
	if after := dirListing(t, fs); after != before {
		t.Fatalf("refused recovery changed the directory:\n%s\nwas\n%s", after, before)
	}

	log, logs := observedLogger()
	var got []recCopy
	st, err := Recover(fs, testDir, 0, 0, true, log, func(r Record) error {
		got = append(got, recCopy{r.Seq, r.DB, r.Op, string(r.Payload)})
		return nil
	})
	if err != nil {
		t.Fatalf("repair: %v", err)
	}
	equalRecs(t, got, want[:kept])
	if !st.Repaired || st.LastSeq != uint64(kept) {
		t.Fatalf("stats %+v, want repaired up to %d", st, kept)
	}
	msgs := logs.FilterMessageSnippet("persistence: repaired WAL").All()
	if len(msgs) != 1 {
		t.Fatalf("repair logs: %v", logs.All())
	}
	for _, s := range []string{missing, fmt.Sprintf("%d later segments (%d bytes, %d intact records with sequences %d to %d) renamed to .broken", len(segs)-2, droppedBytes, dropped, parseSeq(t, segs[2]), len(want))} {
		if !strings.Contains(msgs[0].Message, s) {
			t.Fatalf("repair log lacks %q: %s", s, msgs[0].Message)
		}
	}
	for s, b := range originals {
		if _, err := fs.Stat(s); err == nil {
			t.Fatalf("%s still in place after repair", s)
		}
		if got, err := fs.ReadFile(s + ".broken"); err != nil || string(got) != string(b) {
			t.Fatalf("%s.broken: %v, %d bytes, want the whole segment (%d bytes)", s, err, len(got), len(b))
		}
	}

	// The log opens after the kept records, and the next start needs no
	// repair.
	w = mustOpen(t, fs, st.LastSeq, WALOptions{Policy: FsyncAlways})
	if seq := w.Append(0, OpDel, []byte("k")); seq != uint64(kept+1) {
		t.Fatalf("next sequence %d, want %d", seq, kept+1)
	}
	w.Commit(nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, st, err = recoverAll(t, fs, 0, false)
	if err != nil || len(got) != kept+1 || st.Repaired {
		t.Fatalf("start after repair: %d records, %+v, %v", len(got), st, err)
	}
}

// parseSeq is the first sequence in a segment's name.
func parseSeq(t *testing.T, path string) int {
	t.Helper()
	name := path[strings.LastIndex(path, "/")+1:]
	seq, ok := parseName(name, 0, "wal", ".log")
	if !ok {
		t.Fatalf("%s is not a segment", path)
	}
	return int(seq)
}

// dirListing is the test directory's names and sizes.
func dirListing(t *testing.T, fs FS) string {
	t.Helper()
	names, err := fs.List(testDir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range names {
		size, _ := fs.Stat(testDir + "/" + n)
		fmt.Fprintf(&b, "%s %d\n", n, size)
	}
	return b.String()
}

// A gap partly covered by the snapshot: the repair keeps the log up to
// the snapshot, names only what neither holds as missing, and the log
// continues after the snapshot.
func TestRepairSegmentGapAfterSnapshot(t *testing.T) {
	fs := NewMemFS()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncAlways, SegmentSize: 150})
	writeRecords(t, w, 60)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	segs := segFiles(t, fs)
	data, _ := fs.ReadFile(segs[1])
	first, n, err := DecodeRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	fs.WriteFile(segs[1], data[:n])
	third := uint64(parseSeq(t, segs[2]))
	snap := first.Seq + 1 // the snapshot holds one record past the cut
	if snap >= third-1 {
		t.Fatalf("second segment too short for the test: %d..%d", first.Seq, third-1)
	}
	log, logs := observedLogger()
	var got []recCopy
	st, err := Recover(fs, testDir, 0, snap, true, log, func(r Record) error {
		got = append(got, recCopy{r.Seq, r.DB, r.Op, string(r.Payload)})
		return nil
	})
	if err != nil || len(got) != 0 || st.LastSeq != snap {
		t.Fatalf("repair after snapshot %d: %d records, last %d, %v", snap, len(got), st.LastSeq, err)
	}
	m := logs.FilterMessageSnippet("persistence: repaired WAL").All()
	if len(m) != 1 || !strings.Contains(m[0].Message, fmt.Sprintf("records %d to %d are missing", snap+1, third-1)) ||
		!strings.Contains(m[0].Message, fmt.Sprintf("kept the records up to sequence %d", snap)) {
		t.Fatalf("repair log: %v", logs.All())
	}
	w = mustOpen(t, fs, st.LastSeq, WALOptions{Policy: FsyncAlways})
	w.Append(0, OpDel, []byte("k"))
	w.Commit(nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, st, err := recoverAll(t, fs, snap, false); err != nil || len(got) != 1 || st.LastSeq != snap+1 {
		t.Fatalf("start after repair: %d records, last %d, %v", len(got), st.LastSeq, err)
	}
}
