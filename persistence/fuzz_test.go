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
		mem := NewMemFS()
		mem.WriteFile(filepath.Join(testDir, SnapshotName(0, 3)), data)
		_, _, _ = LoadSnapshot(mem, testDir, 0, nil, func(db uint16, kind uint8, key, value []byte, d int64) error {
			if !bytes.Contains(data, key) || !bytes.Contains(data, value) {
				t.Fatal("entry not from the input")
			}
			return nil
		})
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
	snap := fuzzSeedSnapshot(t)
	write("testdata/fuzz/FuzzLoadSnapshot/valid", snap)
	write("testdata/fuzz/FuzzLoadSnapshot/torn", snap[:len(snap)-1])
	write("testdata/fuzz/FuzzLoadSnapshot/flipped", flip(snap, 40))
}
