package persistence

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

type snapEntry struct {
	db       uint16
	kind     uint8
	key, val string
	deadline int64
}

func writeSnapshot(t testing.TB, fs FS, seq uint64, n int) []snapEntry {
	t.Helper()
	s, err := CreateSnapshot(fs, testDir, 0, seq, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []snapEntry
	for i := 0; i < n; i++ {
		e := snapEntry{uint16(i % 16), uint8(i % 5), fmt.Sprintf("key-%d", i), string(payloadFor(i*7 + int(seq))), int64(i)}
		if i%10 == 0 {
			e.val = string(make([]byte, 40000)) // crosses buffer boundaries
		}
		var err error
		if i%2 == 0 {
			err = s.Add(e.db, e.kind, []byte(e.key), []byte(e.val), e.deadline)
		} else {
			h := len(e.val) / 2
			err = s.AddRaw(e.db, e.kind, []byte(e.key), e.deadline, []byte(e.val[:h]), []byte(e.val[h:]))
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
	}
	size, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := fs.Stat(filepath.Join(testDir, SnapshotName(0, seq))); got != size {
		t.Fatalf("size %d, file %d", size, got)
	}
	return want
}

func loadAll(t testing.TB, fs FS) ([]snapEntry, uint64, bool, error) {
	var got []snapEntry
	seq, found, err := LoadSnapshot(fs, testDir, 0, nil, func(db uint16, kind uint8, key, value []byte, d int64) error {
		got = append(got, snapEntry{db, kind, string(key), string(value), d})
		return nil
	})
	return got, seq, found, err
}

func equalEntries(t testing.TB, got, want []snapEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("entry %d differs", i)
		}
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	mem := NewMemFS()
	if _, _, found, err := loadAll(t, mem); found || err == nil {
		// the directory does not exist yet: List fails
		t.Logf("empty: found=%v err=%v", found, err)
	}
	_ = mem.MkdirAll(testDir)
	if _, _, found, err := loadAll(t, mem); found || err != nil {
		t.Fatal(found, err)
	}
	want := writeSnapshot(t, mem, 42, 300)
	// Survives a crash: data and rename were synced.
	got, seq, found, err := loadAll(t, mem.CrashClone())
	if err != nil || !found || seq != 42 {
		t.Fatal(seq, found, err)
	}
	equalEntries(t, got, want)
	// A newer snapshot replaces the older file.
	want2 := writeSnapshot(t, mem, 50, 3)
	names, _ := mem.List(testDir)
	if len(names) != 1 || names[0] != SnapshotName(0, 50) {
		t.Fatalf("files %v", names)
	}
	got, seq, _, _ = loadAll(t, mem)
	if seq != 50 {
		t.Fatal(seq)
	}
	equalEntries(t, got, want2)
}

func TestSnapshotFallbackAndTmpIgnored(t *testing.T) {
	mem := NewMemFS()
	want := writeSnapshot(t, mem, 10, 50)
	// Keep a copy of the older snapshot: Finish deletes it.
	old := filepath.Join(testDir, SnapshotName(0, 10))
	oldData, _ := mem.ReadFile(old)
	writeSnapshot(t, mem, 20, 50)
	mem.WriteFile(old, oldData)
	newest := filepath.Join(testDir, SnapshotName(0, 20))
	newData, _ := mem.ReadFile(newest)

	// An unfinished tmp of a newer snapshot is ignored.
	s, err := CreateSnapshot(mem, testDir, 0, 30, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Add(0, 0, []byte("k"), []byte("v"), 0)

	damage := map[string][]byte{
		"torn":       newData[:len(newData)-5],
		"flip":       flip(newData, len(newData)/2),
		"header":     flip(newData, 3),
		"empty":      nil,
		"count":      flip(newData, len(newData)-20),
		"wrong-name": nil,
	}
	for name, d := range damage {
		c := mem.CrashClone()
		// The WAL continues after the older snapshot, so it can stand in.
		c.WriteFile(filepath.Join(testDir, SegmentName(0, 11)), nil)
		if name == "wrong-name" {
			// A valid file under another sequence's name is rejected.
			_ = c.Rename(newest, filepath.Join(testDir, SnapshotName(0, 25)))
		} else {
			c.WriteFile(newest, d)
		}
		log, logs := observedLogger()
		var got []snapEntry
		seq, found, err := LoadSnapshot(c, testDir, 0, log, func(db uint16, kind uint8, key, value []byte, dl int64) error {
			got = append(got, snapEntry{db, kind, string(key), string(value), dl})
			return nil
		})
		if err != nil || !found || seq != 10 {
			t.Fatalf("%s: seq %d found %v err %v", name, seq, found, err)
		}
		equalEntries(t, got, want)
		if logs.FilterMessageSnippet("persistence: snapshot is damaged").Len() != 1 {
			t.Fatalf("%s: fallback not logged", name)
		}
	}
	s.Abort()
	if _, err := mem.Stat(filepath.Join(testDir, "shard-000-snap-00000000000000000030.tmp")); err == nil {
		t.Fatal("abort left the tmp file")
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x10
	return c
}

func TestSnapshotWriteErrors(t *testing.T) {
	mem := NewMemFS()
	efs := NewErrorFS(mem)
	efs.Inject(Injection{Op: FSWrite, PathContains: "-snap-", Nth: 1})
	s, err := CreateSnapshot(efs, testDir, 0, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, snapBufSize)
	for i := 0; i < 3; i++ {
		_ = s.Add(0, 0, []byte("k"), big, 0)
	}
	if _, err := s.Finish(); !errors.Is(err, ErrInjected) {
		t.Fatalf("finish: %v", err)
	}
	names, _ := mem.List(testDir)
	if len(names) != 0 {
		t.Fatalf("left %v", names)
	}
	efs.Clear()
	efs.Inject(Injection{Op: FSRename, PathContains: "-snap-"})
	s, _ = CreateSnapshot(efs, testDir, 0, 8, nil)
	_ = s.Add(0, 0, []byte("k"), []byte("v"), 0)
	if _, err := s.Finish(); !errors.Is(err, ErrInjected) {
		t.Fatalf("finish: %v", err)
	}
	if _, err := s.Finish(); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
	if err := s.Add(0, 0, nil, nil, 0); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
}

func TestSnapshotFinishFromOtherGoroutine(t *testing.T) {
	mem := NewMemFS()
	s, _ := CreateSnapshot(mem, testDir, 0, 1, nil)
	for i := 0; i < 1000; i++ {
		_ = s.Add(0, 1, []byte(fmt.Sprint(i)), make([]byte, 3000), 0)
	}
	done := make(chan error)
	go func() { _, err := s.Finish(); done <- err }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, _, found, err := loadAll(t, mem)
	if err != nil || !found || len(got) != 1000 {
		t.Fatal(len(got), found, err)
	}
}
