package persistence

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

func fuzzSeedLog() []byte {
	var b []byte
	for i, g := range goldenRecords()[:5] {
		b, _ = AppendRecord(b, Record{Seq: uint64(i + 1), DB: g.db, Op: g.op, Payload: g.p})
	}
	return b
}

func FuzzRecover(f *testing.F) {
	seed := fuzzSeedLog()
	f.Add(seed, false)
	f.Add(seed[:len(seed)-3], false)
	f.Add(append(append([]byte(nil), seed...), make([]byte, 100)...), true)
	f.Add(flip(seed, 30), true)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, data []byte, repair bool) {
		for _, last := range []bool{true, false} {
			mem := NewMemFS()
			seg := filepath.Join(testDir, SegmentName(0, 1))
			mem.WriteFile(seg, data)
			if !last {
				mem.WriteFile(filepath.Join(testDir, SegmentName(0, 1<<40)), nil)
			}
			var n int
			_, err := Recover(mem, testDir, 0, 0, repair, nil, func(r Record) error {
				enc, err := AppendRecord(nil, r)
				if err != nil || !bytes.Contains(data, enc) {
					t.Fatalf("recovered a record not present intact in the input: %+v", r)
				}
				n++
				if r.Seq != uint64(n) {
					t.Fatalf("record %d has seq %d", n, r.Seq)
				}
				return nil
			})
			if err == nil && last {
				// What is left must be exactly the records that were applied.
				rest, _ := mem.ReadFile(seg)
				for k := 0; k < n; k++ {
					_, m, derr := DecodeRecord(rest)
					if derr != nil {
						t.Fatalf("kept record %d does not decode: %v", k, derr)
					}
					rest = rest[m:]
				}
				if len(rest) != 0 {
					t.Fatalf("%d bytes after the recovered records were kept", len(rest))
				}
			}
		}
	})
}

func fuzzSeedSnapshot(t testing.TB) []byte {
	mem := NewMemFS()
	s, err := CreateSnapshot(mem, testDir, 0, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Add(0, 1, []byte("k1"), []byte("v1"), 0)
	_ = s.Add(3, 2, []byte("k2"), nil, 1767225600000)
	_ = s.AddRaw(15, 3, nil, -1, []byte("a"), []byte("b"))
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	b, _ := mem.ReadFile(filepath.Join(testDir, SnapshotName(0, 3)))
	return b
}

func FuzzLoadSnapshot(f *testing.F) {
	seed := fuzzSeedSnapshot(f)
	f.Add(seed)
	f.Add(seed[:len(seed)-1])
	f.Add(flip(seed, 40))
	f.Add([]byte(snapMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, repair := range []bool{false, true} {
			mem := NewMemFS()
			mem.WriteFile(filepath.Join(testDir, SnapshotName(0, 3)), data)
			var n uint64
			res, err := LoadSnapshots(mem, testDir, 0, nil, SnapshotLoadOptions{Repair: repair}, func(db uint16, kind uint8, key, value []byte, d int64) error {
				if !bytes.Contains(data, key) || !bytes.Contains(data, value) {
					t.Fatal("entry not from the input")
				}
				n++
				return nil
			})
			if err == nil && res.Entries != n {
				t.Fatalf("reported %d entries, passed %d", res.Entries, n)
			}
			if res.Salvaged && !repair {
				t.Fatal("salvaged without repair")
			}
		}
	})
}

// TestWriteFuzzSeeds rewrites the committed seed corpora under -update.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*updateGolden {
		t.Skip("run with -update to rewrite testdata/fuzz seeds")
	}
	var osfs OSFS
	write := func(name string, vals ...any) {
		var b bytes.Buffer
		b.WriteString("go test fuzz v1\n")
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				fmt.Fprintf(&b, "[]byte(%q)\n", v)
			case bool:
				fmt.Fprintf(&b, "bool(%v)\n", v)
			case uint8:
				fmt.Fprintf(&b, "byte(%d)\n", v)
			case uint16:
				fmt.Fprintf(&b, "uint16(%d)\n", v)
			}
		}
		if err := osfs.MkdirAll(filepath.Dir(name)); err != nil {
			t.Fatal(err)
		}
		fl, err := osfs.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fl.Write(b.Bytes())
		_ = fl.Close()
	}
	seed := fuzzSeedLog()
	write("testdata/fuzz/FuzzRecover/valid", seed, false)
	write("testdata/fuzz/FuzzRecover/torn", seed[:len(seed)-3], false)
	write("testdata/fuzz/FuzzRecover/zeros", append(append([]byte(nil), seed...), make([]byte, 64)...), true)
	write("testdata/fuzz/FuzzRecover/flipped", flip(seed, 30), true)
	// FuzzTailClassification: records, mode (0/1 flip, 2 crash), byte
	// position, xor, trailing zeros.
	write("testdata/fuzz/FuzzTailClassification/length-flip", uint8(10), uint8(0), uint16(5), uint8(0x80), uint16(100))
	write("testdata/fuzz/FuzzTailClassification/length-high-byte", uint8(20), uint8(0), uint16(3), uint8(0x40), uint16(4096))
	write("testdata/fuzz/FuzzTailClassification/payload-flip", uint8(10), uint8(1), uint16(40), uint8(0x01), uint16(0))
	write("testdata/fuzz/FuzzTailClassification/crash-mid-record", uint8(30), uint8(2), uint16(300), uint8(0xff), uint16(4096))
	// The seeds without a suffix are version 1 snapshots, kept as they
	// were written: the loader still reads that version.
	snap := fuzzSeedSnapshot(t)
	write("testdata/fuzz/FuzzLoadSnapshot/valid-v2", snap)
	write("testdata/fuzz/FuzzLoadSnapshot/torn-v2", snap[:len(snap)-1])
	write("testdata/fuzz/FuzzLoadSnapshot/flipped-v2", flip(snap, 40))
	write("testdata/fuzz/FuzzLoadSnapshot/flipped-entry-crc-v2", flip(snap, 60))
}
