package persistence

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkRecover replays a last segment of 100k small records followed
// by preallocated zeros (as a crash leaves it), per record.
func BenchmarkRecover(b *testing.B) {
	const n = 100_000
	var log []byte
	payload := []byte("\x0ckey:00000001\x0cval:00000001\x00\x00\x00\x00\x00\x00\x00\x00")
	for i := 0; i < n; i++ {
		log, _ = AppendRecord(log, Record{Seq: uint64(i + 1), Op: OpSet, Payload: payload})
	}
	log = append(log, make([]byte, 8<<20)...)
	base := NewMemFS()
	seg := filepath.Join(testDir, SegmentName(0, 1))
	b.ReportAllocs()
	b.SetBytes(int64(len(log)) / n)
	b.ResetTimer()
	for i := 0; i < b.N; i += n {
		b.StopTimer()
		base.WriteFile(seg, log)
		b.StartTimer()
		if _, err := Recover(base, testDir, 0, 0, false, nil, func(Record) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotWriteLoad writes and loads a snapshot of 100k small
// entries, per entry.
func BenchmarkSnapshotWriteLoad(b *testing.B) {
	const n = 100_000
	for _, phase := range []string{"write", "load"} {
		b.Run(phase, func(b *testing.B) {
			fs := NewMemFS()
			write := func() {
				s, err := CreateSnapshot(fs, testDir, 0, 1, nil)
				if err != nil {
					b.Fatal(err)
				}
				for j := 0; j < n; j++ {
					k := fmt.Appendf(nil, "key:%08d", j)
					if err := s.Add(0, 0, k, k, 0); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := s.Finish(); err != nil {
					b.Fatal(err)
				}
			}
			write()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += n {
				if phase == "write" {
					write()
					continue
				}
				if _, _, err := LoadSnapshot(fs, testDir, 0, nil, func(uint16, uint8, []byte, []byte, int64) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
