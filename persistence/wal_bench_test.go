package persistence

import (
	"testing"
)

// nopCommitter counts notifications.
type nopCommitter struct{ ch chan struct{} }

func (c *nopCommitter) Committed(error) { c.ch <- struct{}{} }

func BenchmarkAppend(b *testing.B) {
	w := mustOpen(b, NewMemFS(), 0, WALOptions{Policy: FsyncNo})
	key, val := []byte("key:000000001"), make([]byte, 64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Begin(0, OpSet)
		w.PutBytes(key)
		w.PutBytes(val)
		w.PutI64(0)
		w.End()
		if i%128 == 127 {
			w.resetBatch() // keep the batch bounded without file I/O
		}
	}
	b.StopTimer()
	w.resetBatch()
	_ = w.Close()
}

func TestAppendDoesNotAllocate(t *testing.T) {
	w := mustOpen(t, NewMemFS(), 0, WALOptions{Policy: FsyncNo})
	key, val := []byte("key"), make([]byte, 64)
	run := func() {
		for i := 0; i < 100; i++ {
			w.Append(0, OpDel, key)
			w.AppendParts(0, OpSet, key, val)
		}
		w.Commit(nil)
	}
	run()
	if a := testing.AllocsPerRun(50, run); a != 0 {
		t.Fatalf("%v allocs per batch", a)
	}
	_ = w.Close()
}

func BenchmarkCommitAlways(b *testing.B) {
	w := mustOpen(b, NewMemFS(), 0, WALOptions{Policy: FsyncAlways})
	c := &nopCommitter{ch: make(chan struct{}, 1024)}
	payload := AppendI64(AppendBytes(AppendBytes(nil, []byte("key")), make([]byte, 64)), 0)
	b.ReportAllocs()
	b.ResetTimer()
	outstanding := 0
	for i := 0; i < b.N; i++ {
		for j := 0; j < 8; j++ {
			w.Append(0, OpSet, payload)
		}
		if !w.Commit(c) {
			outstanding++
		}
		for outstanding > 512 {
			<-c.ch
			outstanding--
		}
	}
	for ; outstanding > 0; outstanding-- {
		<-c.ch
	}
	b.StopTimer()
	st := w.Stats()
	b.ReportMetric(st.AvgRecordsPerFsync, "records/fsync")
	_ = w.Close()
}
