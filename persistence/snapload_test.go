package persistence

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entryOffsets lists the offsets of a version 2 snapshot's entries.
func entryOffsets(t testing.TB, data []byte) []int {
	t.Helper()
	var offs []int
	off := snapHeaderSize
	for off < len(data)-snapTrailerSize {
		offs = append(offs, off)
		if data[off] != snapTagEntry {
			t.Fatalf("no entry at %d", off)
		}
		p := off + snapEntryFixed
		kl, k := binary.Uvarint(data[p:])
		p += k + int(kl)
		vl, v := binary.Uvarint(data[p:])
		off = p + v + int(vl) + snapEntryCRC
	}
	return offs
}

func loadWith(t testing.TB, fs FS, repair bool) ([]snapEntry, SnapshotLoad, error) {
	t.Helper()
	var got []snapEntry
	res, err := LoadSnapshots(fs, testDir, 0, nil, SnapshotLoadOptions{Repair: repair}, func(db uint16, kind uint8, key, value []byte, d int64) error {
		got = append(got, snapEntry{db, kind, string(key), string(value), d})
		return nil
	})
	return got, res, err
}

// One flipped bit anywhere in an entry is reported at that entry's
// offset, in one line that says the snapshot is damaged and what to do;
// --repair then loads every entry before it and counts the rest as lost.
func TestSnapshotDamageNamesFirstBadEntry(t *testing.T) {
	const n = 300
	base := NewMemFS()
	want := writeSnapshot(t, base, 42, n)
	path := filepath.Join(testDir, SnapshotName(0, 42))
	orig, _ := base.ReadFile(path)
	offs := entryOffsets(t, orig)
	if len(offs) != n {
		t.Fatalf("%d entries", len(offs))
	}
	fields := map[string]int{"tag": 0, "db": 1, "kind": 3, "deadline": 6, "key length": snapEntryFixed, "key": snapEntryFixed + 2}
	cases := 0
	for _, k := range []int{0, 1, 150, n - 1} {
		for name, at := range fields {
			fs := base.CrashClone()
			data := flip(orig, offs[k]+at)
			fs.WriteFile(path, data)
			_, _, err := loadWith(t, fs, false)
			var de *SnapshotDamagedError
			if !errors.As(err, &de) || !errors.Is(err, ErrCorrupt) || de.Offset != int64(offs[k]) || de.Intact != uint64(k) || !de.TotalKnown || de.Total != n {
				t.Fatalf("entry %d %s: got %v", k, name, err)
			}
			msg := err.Error()
			for _, s := range []string{"snapshot " + path + " is damaged at offset", "--repair", "backup", ".broken"} {
				if !strings.Contains(msg, s) {
					t.Fatalf("entry %d %s: message lacks %q: %s", k, name, s, msg)
				}
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, "WAL record") {
				t.Fatalf("message: %s", msg)
			}
			// Repair salvages the entries before the damage.
			got, res, err := loadWith(t, fs, true)
			if err != nil {
				t.Fatalf("entry %d %s: repair: %v", k, name, err)
			}
			equalEntries(t, got, want[:k])
			if !res.Found || !res.Salvaged || res.Seq != 42 || res.Lost != uint64(n-k) || !res.LostKnown {
				t.Fatalf("entry %d %s: %+v", k, name, res)
			}
			if b, err := fs.CrashClone().ReadFile(path + ".broken"); err != nil || string(b) != string(data) {
				t.Fatalf("entry %d %s: .broken copy: %v", k, name, err)
			}
			cases++
		}
	}
	if cases != 4*len(fields) {
		t.Fatalf("ran %d cases", cases)
	}
}

// Damage to the trailer leaves every entry intact: repair loses nothing.
func TestSnapshotDamagedTrailer(t *testing.T) {
	fs := NewMemFS()
	want := writeSnapshot(t, fs, 42, 20)
	path := filepath.Join(testDir, SnapshotName(0, 42))
	data, _ := fs.ReadFile(path)
	tr := len(data) - snapTrailerSize
	for name, at := range map[string]int{"count": tr + 1, "crc": tr + 10} {
		c := fs.CrashClone()
		c.WriteFile(path, flip(data, at))
		_, _, err := loadWith(t, c, false)
		var de *SnapshotDamagedError
		if !errors.As(err, &de) || de.Offset != int64(tr) || de.Intact != 20 {
			t.Fatalf("%s: %v", name, err)
		}
		got, res, err := loadWith(t, c, true)
		if err != nil {
			t.Fatal(err)
		}
		equalEntries(t, got, want)
		if name == "crc" && (res.Lost != 0 || !res.LostKnown) {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	// A file cut short has no trailer: the entries up to the cut load.
	c := fs.CrashClone()
	offs := entryOffsets(t, data)
	c.WriteFile(path, data[:offs[7]+3])
	_, _, err := loadWith(t, c, false)
	var de *SnapshotDamagedError
	if !errors.As(err, &de) || de.Offset != int64(offs[7]) || de.TotalKnown {
		t.Fatalf("cut: %v", err)
	}
	got, res, err := loadWith(t, c, true)
	if err != nil || res.LostKnown {
		t.Fatalf("cut: %+v %v", res, err)
	}
	equalEntries(t, got, want[:7])
}

// An older snapshot is used only when the WAL continues right after it;
// the WAL alone only when it starts at sequence 1; otherwise start-up
// refuses.
func TestSnapshotFallback(t *testing.T) {
	base := NewMemFS()
	wantOld := writeSnapshot(t, base, 10, 50)
	old := filepath.Join(testDir, SnapshotName(0, 10))
	oldData, _ := base.ReadFile(old)
	writeSnapshot(t, base, 20, 50)
	base.WriteFile(old, oldData) // Finish deleted it
	newest := filepath.Join(testDir, SnapshotName(0, 20))
	newData, _ := base.ReadFile(newest)
	base.WriteFile(newest, flip(newData, len(newData)/2))
	seg := func(first uint64) string { return filepath.Join(testDir, SegmentName(0, first)) }

	// WAL from 11: the older snapshot plus the WAL replace the newest.
	c := base.CrashClone()
	c.WriteFile(seg(11), nil)
	log, logs := observedLogger()
	var got []snapEntry
	res, err := LoadSnapshots(c, testDir, 0, log, SnapshotLoadOptions{}, func(db uint16, kind uint8, key, value []byte, d int64) error {
		got = append(got, snapEntry{db, kind, string(key), string(value), d})
		return nil
	})
	if err != nil || !res.Found || res.Seq != 10 || res.Salvaged || len(res.Skipped) != 1 {
		t.Fatalf("older: %+v %v", res, err)
	}
	equalEntries(t, got, wantOld)
	if logs.FilterMessageSnippet("snapshot is damaged: "+newest+" at offset").Len() != 1 || logs.FilterMessageSnippet("falling back to the older snapshot").Len() != 1 {
		t.Fatalf("logs: %v", logs.All())
	}
	if _, err := c.Stat(newest + ".broken"); err != nil {
		t.Fatal("the damaged snapshot was not set aside")
	}

	// WAL from 1: the WAL alone replaces both.
	c = base.CrashClone()
	_ = c.Remove(old)
	c.WriteFile(seg(1), nil)
	if _, res, err := loadWith(t, c, false); err != nil || res.Found {
		t.Fatalf("WAL alone: %+v %v", res, err)
	}

	// WAL from 21 only: nothing can replace the newest snapshot.
	c = base.CrashClone()
	c.WriteFile(seg(15), nil)
	_, _, err = loadWith(t, c, false)
	var de *SnapshotDamagedError
	if !errors.As(err, &de) || de.WALFirst != 15 || !strings.Contains(err.Error(), "the WAL starts at sequence 15") {
		t.Fatalf("no cover: %v", err)
	}
	if _, res, err := loadWith(t, c, true); err != nil || !res.Salvaged || res.Seq != 20 {
		t.Fatalf("no cover, repair: %+v %v", res, err)
	}
}

// Snapshots written before per-entry checksums (version 1) still load.
func TestSnapshotVersion1Golden(t *testing.T) {
	data, err := os.ReadFile("testdata/golden-v1.snap")
	if err != nil {
		t.Fatal(err)
	}
	fs := NewMemFS()
	path := filepath.Join(testDir, SnapshotName(0, 7))
	fs.WriteFile(path, data)
	got, res, err := loadWith(t, fs, false)
	if err != nil || res.Seq != 7 {
		t.Fatal(res, err)
	}
	equalEntries(t, got, []snapEntry{
		{0, 0, "k1", "v1", 0},
		{3, 2, "k2", "", 1767225600000},
		{15, 3, "key three", "value", -1},
	})
	// A damaged version 1 file is refused; its damage cannot be pinned to
	// an entry, and the message says so.
	fs.WriteFile(path, flip(data, 0x50))
	_, _, err = loadWith(t, fs, false)
	var de *SnapshotDamagedError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "version 1") {
		t.Fatalf("damaged v1: %v", err)
	}
}

// A flipped bit in the header's magic or crc leaves the entries readable
// (each has its own CRC); an unknown version is refused even with repair.
func TestSnapshotDamagedHeader(t *testing.T) {
	fs := NewMemFS()
	want := writeSnapshot(t, fs, 42, 20)
	path := filepath.Join(testDir, SnapshotName(0, 42))
	data, _ := fs.ReadFile(path)
	for name, at := range map[string]int{"magic": 2, "crc": 21} {
		c := fs.CrashClone()
		c.WriteFile(path, flip(data, at))
		_, _, err := loadWith(t, c, false)
		var de *SnapshotDamagedError
		if !errors.As(err, &de) || de.Offset != 0 || de.Intact != 20 || !strings.Contains(err.Error(), "20 entries after the damage are intact") {
			t.Fatalf("%s: %v", name, err)
		}
		got, res, err := loadWith(t, c, true)
		if err != nil || !res.Salvaged || res.Lost != 0 {
			t.Fatalf("%s: %+v %v", name, res, err)
		}
		equalEntries(t, got, want)
	}
	// A valid header of a future version.
	future := append([]byte(nil), data...)
	binary.LittleEndian.PutUint16(future[8:], 9)
	binary.LittleEndian.PutUint32(future[20:], crc32Castagnoli(future[:20]))
	c := fs.CrashClone()
	c.WriteFile(path, future)
	for _, repair := range []bool{false, true} {
		_, _, err := loadWith(t, c, repair)
		var de *SnapshotDamagedError
		if !errors.As(err, &de) || de.Salvageable || !strings.Contains(err.Error(), "unsupported version 9") {
			t.Fatalf("repair=%v: %v", repair, err)
		}
	}
}

func crc32Castagnoli(b []byte) uint32 {
	return crc32.Checksum(b, castagnoli)
}
