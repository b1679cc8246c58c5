package persistence

import (
	"errors"
	"sync/atomic"
	"testing"
)

// TestWALReaderFollowsRotation: a reader opened on a live log returns
// every record up to the durable sequence, in order, across rotations,
// and picks up records appended later; OnDurable reports each advance.
func TestWALReaderFollowsRotation(t *testing.T) {
	for _, policy := range []FsyncPolicy{FsyncAlways, FsyncEverySec, FsyncNo} {
		t.Run(policy.String(), func(t *testing.T) {
			fs := NewMemFS()
			var durable atomic.Uint64
			w := mustOpen(t, fs, 0, WALOptions{Policy: policy, SegmentSize: 256, OnDurable: func(s uint64) { durable.Store(s) }})
			defer w.Close()
			write := func(from, to uint64) {
				for s := from; s <= to; s++ {
					if got := w.Append(0, OpDel, AppendBytes(nil, []byte("key"))); got != s {
						t.Fatalf("append: seq %d, want %d", got, s)
					}
					if s%3 == 0 {
						commitAndWait(t, w)
					}
				}
				commitAndWait(t, w)
			}
			write(1, 40)
			if durable.Load() != 40 {
				t.Fatalf("OnDurable saw %d, want 40", durable.Load())
			}
			r, err := OpenWALReader(fs, testDir, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var seqs []uint64
			read := func(upto uint64) {
				buf, last, err := r.Next(nil, upto, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				for len(buf) > 0 {
					rec, n, err := DecodeRecord(buf)
					if err != nil {
						t.Fatal(err)
					}
					seqs = append(seqs, rec.Seq)
					buf = buf[n:]
				}
				if len(seqs) > 0 && seqs[len(seqs)-1] != last {
					t.Fatalf("last %d, records end at %d", last, seqs[len(seqs)-1])
				}
			}
			read(30)
			read(40)
			write(41, 70)
			read(durable.Load())
			for i, s := range seqs {
				if s != uint64(11+i) {
					t.Fatalf("record %d has sequence %d; all: %v", i, s, seqs)
				}
			}
			if len(seqs) != 60 {
				t.Fatalf("read %d records, want 60", len(seqs))
			}
			// A position before the first segment is unavailable.
			if err := w.RemoveSegmentsBefore(50); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenWALReader(fs, testDir, 0, 0); !errors.Is(err, ErrUnavailable) {
				t.Fatalf("reader after removed segments: %v", err)
			}
		})
	}
}

// TestAppendEncoded: a replica's log takes its primary's encoded records
// under their own sequence numbers, and refuses a gap or damage.
func TestAppendEncoded(t *testing.T) {
	fs := NewMemFS()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncNo})
	rec := func(seq uint64) []byte {
		b, err := AppendRecord(nil, Record{Seq: seq, Op: OpFlushAll})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if s, err := w.AppendEncoded(rec(1)); err != nil || s != 1 {
		t.Fatalf("AppendEncoded(1): %d %v", s, err)
	}
	if _, err := w.AppendEncoded(rec(3)); !errors.Is(err, ErrSequence) {
		t.Fatalf("a gap: %v", err)
	}
	bad := rec(2)
	bad[len(bad)-1] ^= 1
	if _, err := w.AppendEncoded(bad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("damage: %v", err)
	}
	if _, err := w.AppendEncoded(rec(2)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _, err := recoverAll(t, fs, 0, false)
	if err != nil || len(got) != 2 || got[1].Seq != 2 {
		t.Fatalf("recovered %v, %v", got, err)
	}
}

// doneCommitter signals a channel when its group is durable.
type doneCommitter chan error

func (d doneCommitter) Committed(err error) { d <- err }

// commitAndWait commits the batch and waits until it is durable.
func commitAndWait(t *testing.T, w *WAL) {
	t.Helper()
	d := make(doneCommitter, 1)
	if !w.Commit(d) {
		if err := <-d; err != nil {
			t.Fatal(err)
		}
	}
}

// TestWALReaderPreallocated: on the OS file system segments are
// preallocated, so a reader's read-ahead holds zeros the WAL writes over
// later; the reader must read those records once they are durable.
func TestWALReaderPreallocated(t *testing.T) {
	dir := t.TempDir()
	var durable atomic.Uint64
	w, err := OpenWAL(OSFS{}, dir, 0, 0, WALOptions{Policy: FsyncAlways, SegmentSize: 1 << 20, OnDurable: func(s uint64) { durable.Store(s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := OpenWALReader(OSFS{}, dir, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var last uint64
	for round := 0; round < 50; round++ {
		for i := 0; i < 7; i++ {
			w.Append(0, OpDel, AppendBytes(nil, []byte("key")))
		}
		commitAndWait(t, w)
		_, got, err := r.Next(nil, durable.Load(), 1<<20)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got != durable.Load() || got != last+7 {
			t.Fatalf("round %d: read through %d, durable %d, want %d", round, got, durable.Load(), last+7)
		}
		last = got
	}
}
