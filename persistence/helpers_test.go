package persistence

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

const testDir = "/data"

type recCopy struct {
	Seq     uint64
	DB      uint16
	Op      Opcode
	Payload string
}

func recoverAll(t testing.TB, fs FS, afterSeq uint64, repair bool) ([]recCopy, RecoveryStats, error) {
	t.Helper()
	var out []recCopy
	st, err := Recover(fs, testDir, 0, afterSeq, repair, zap.NewNop(), func(r Record) error {
		out = append(out, recCopy{r.Seq, r.DB, r.Op, string(r.Payload)})
		return nil
	})
	return out, st, err
}

func observedLogger() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zap.DebugLevel)
	return zap.New(core), logs
}

func mustOpen(t testing.TB, fs FS, last uint64, opts WALOptions) *WAL {
	t.Helper()
	w, err := OpenWAL(fs, testDir, 0, last, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// recorder is a Committer that records notifications.
type recorder struct {
	mu   sync.Mutex
	got  []int
	errs []error
	ch   chan struct{}
}

func newRecorder() *recorder { return &recorder{ch: make(chan struct{}, 1<<16)} }

type committerFunc struct {
	r  *recorder
	id int
}

func (c committerFunc) Committed(err error) {
	c.r.mu.Lock()
	c.r.got = append(c.r.got, c.id)
	c.r.errs = append(c.r.errs, err)
	c.r.mu.Unlock()
	c.r.ch <- struct{}{}
}

func (r *recorder) wait(t testing.TB, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		<-r.ch
	}
}

func segFiles(t testing.TB, fs FS) []string {
	t.Helper()
	names, err := fs.List(testDir)
	if err != nil {
		t.Fatal(err)
	}
	var segs []string
	for _, n := range names {
		if _, ok := parseName(n, 0, "wal", ".log"); ok {
			segs = append(segs, filepath.Join(testDir, n))
		}
	}
	return segs
}

func payloadFor(i int) []byte {
	return bytes.Repeat([]byte{byte('a' + i%26)}, i%37)
}

// count is the number of notifications received so far.
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}
