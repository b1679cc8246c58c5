package persistence

import (
	"bytes"
	"runtime"
	"testing"
)

// TestSnapshotBigValueNotCopied: an entry whose value is large is written
// from where it lies, not copied into the writer's buffers, and the file
// reads back entry for entry, small entries around it included. A 512 MB
// string cost the snapshot 512 MB more.
func TestSnapshotBigValueNotCopied(t *testing.T) {
	const size = 32 << 20
	fs := NewOSFS()
	dir := t.TempDir()
	s, err := CreateSnapshot(fs, dir, 0, 9, nil)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	big[0], big[size-1] = 'A', 'Z'
	want := []snapEntry{
		{0, 1, "small-1", "v1", 0},
		{2, 0, "big", string(big), 77},
		{0, 3, "small-2", string(make([]byte, 40000)), 5},
		{1, 0, "big-2", string(big[:snapBigValue]), 0},
	}
	if err := s.Add(want[0].db, want[0].kind, []byte(want[0].key), []byte(want[0].val), want[0].deadline); err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	// In pieces, as a collection hands its encoding over.
	if err := s.AddRaw(2, 0, []byte("big"), 77, big[:size/3], big[size/3:]); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; got > size/4 {
		t.Errorf("adding a %d MB value allocated %d MB", size>>20, got>>20)
	}
	if err := s.Add(0, 3, []byte("small-2"), []byte(want[2].val), 5); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(1, 0, []byte("big-2"), big[:snapBigValue], 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	var got []snapEntry
	seq, found, err := LoadSnapshot(fs, dir, 0, nil, func(db uint16, kind uint8, key, value []byte, d int64) error {
		got = append(got, snapEntry{db, kind, string(key), string(value), d})
		return nil
	})
	if err != nil || !found || seq != 9 {
		t.Fatalf("load: seq %d found %v err %v", seq, found, err)
	}
	equalEntries(t, got, want)
}
