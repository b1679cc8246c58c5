package persistence

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a Clock that moves only when the test says so. Every After
// call is reported on waits; the channel it returns fires only if the test
// sends on it.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits chan fakeWait
}

type fakeWait struct {
	d  time.Duration
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Unix(1_700_000_000, 0), waits: make(chan fakeWait, 64)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.waits <- fakeWait{d: d, ch: ch}
	return ch
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// gateFS holds the next File.Sync, once armed, until the test releases it:
// the test then knows exactly which commits queue behind the sync.
type gateFS struct {
	FS
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

type gateFile struct {
	File
	g *gateFS
}

func newGateFS() *gateFS {
	return &gateFS{FS: NewMemFS(), entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (g *gateFS) Create(name string) (File, error) {
	f, err := g.FS.Create(name)
	if err != nil {
		return nil, err
	}
	return gateFile{File: f, g: g}, nil
}

func (f gateFile) Sync() error {
	if f.g.armed.CompareAndSwap(true, false) {
		f.g.entered <- struct{}{}
		<-f.g.release
	}
	return f.File.Sync()
}

// waitFor fails the test if ch yields nothing within a generous bound (a
// hang means the WAL waited where it must not; nothing here is timed).
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

func TestCommitDelayPlan(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	const sync = 300 * time.Microsecond
	cases := []struct {
		name     string
		expected int
		arrived  int
		since    time.Duration // since the last sync ended
		max      time.Duration
		want     int
		limit    time.Duration
	}{
		{"lone client", 1, 1, 50 * time.Microsecond, time.Hour, 1, 0},
		{"everyone here", 50, 50, 0, time.Hour, 50, 0},
		{"more than expected", 10, 12, 0, time.Hour, 12, 0},
		{"half missing", 50, 25, 0, time.Hour, 50, sync},
		{"one missing of fifty", 50, 49, 0, time.Hour, 50, sync / 49},
		{"bounded by max", 50, 25, 0, 100 * time.Microsecond, 50, 100 * time.Microsecond},
		{"off", 50, 25, 0, 0, 25, 0},
		{"writers released long ago", 50, 1, 2 * time.Millisecond, time.Hour, 1, 0},
		{"writers released just now", 50, 1, time.Millisecond, time.Hour, 50, sync * 49},
	}
	for _, c := range cases {
		var d commitDelay
		d.synced(t0, sync, c.expected, 0)
		want, limit := d.plan(t0.Add(c.since), c.arrived, c.max)
		if want != c.want || limit != c.limit {
			t.Errorf("%s: plan = %d writers, %v; want %d, %v", c.name, want, limit, c.want, c.limit)
		}
	}
	// No fsync measured yet: no basis for a delay.
	var d commitDelay
	d.synced(t0, 0, 50, 0)
	if _, limit := d.plan(t0, 1, time.Hour); limit != 0 {
		t.Errorf("delay %v before any fsync was measured", limit)
	}
	// Expected writers are those released plus those queued meanwhile.
	d.synced(t0, sync, 20, 30)
	if want, _ := d.plan(t0, 30, time.Hour); want != 50 {
		t.Errorf("want %d writers, expected 50 (20 released + 30 queued)", want)
	}
}

// TestCommitDelayArrivalRate: once delays show writers arriving too slowly
// to pay (fewer than the group holds within one sync time), groups sync at
// once except one probe in probeEvery; faster arrivals bring the delay back.
func TestCommitDelayArrivalRate(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	const sync = 300 * time.Microsecond
	var d commitDelay
	d.synced(t0, sync, 50, 0)
	d.delayed(2, 100*time.Microsecond) // 20k writers/s: 6 per sync, fewer than 25 queued
	for i := 1; i < probeEvery; i++ {
		if _, limit := d.plan(t0, 25, time.Hour); limit != 0 {
			t.Fatalf("group %d delayed %v although writers arrive too slowly", i, limit)
		}
	}
	if _, limit := d.plan(t0, 25, time.Hour); limit != sync {
		t.Fatalf("probe group: delay %v, want %v", limit, sync)
	}
	d.delayed(25, 50*time.Microsecond) // 500k/s: the average (~140k/s) brings 42 per sync
	if _, limit := d.plan(t0, 25, time.Hour); limit != sync {
		t.Fatalf("after fast arrivals: delay %v, want %v", limit, sync)
	}
	d.delayed(0, 0) // ended at once: nothing learned
	if _, limit := d.plan(t0, 25, time.Hour); limit != sync {
		t.Fatalf("after an instant delay: delay %v, want %v", limit, sync)
	}
}

// TestCommitDelayLoneClientNotDelayed: one client committing and waiting,
// round after round, is never held back, whatever the maximum delay.
func TestCommitDelayLoneClientNotDelayed(t *testing.T) {
	clk := newFakeClock()
	w := mustOpen(t, NewMemFS(), 0, WALOptions{Policy: FsyncAlways, Clock: clk,
		MaxCommitDelay: func() time.Duration { return time.Hour }})
	rec := newRecorder()
	const rounds = 200
	for i := 0; i < rounds; i++ {
		w.Append(0, OpSet, payloadFor(i))
		if w.Commit(committerFunc{rec, i}) {
			t.Fatalf("commit %d immediate", i)
		}
		waitFor(t, rec.ch, "the lone client's commit") // hangs if the syncer waited on the fake clock
		clk.advance(200 * time.Microsecond)            // each fsync "takes" no time; the client comes back
	}
	if st := w.Stats(); st.CommitDelays != 0 || st.Fsyncs != rounds {
		t.Fatalf("lone client: %d delays, %d fsyncs for %d commits", st.CommitDelays, st.Fsyncs, rounds)
	}
	if n := len(clk.waits); n != 0 {
		t.Fatalf("the syncer armed %d timers for a lone client", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// delaySetup makes the next group expect 4 writers: commit 0 starts an
// fsync that "takes" syncTime on the fake clock, and commits 1..3 queue
// behind it. It returns once the syncer, holding 1..3, is waiting for the
// fourth writer, with the wait it asked for.
func delaySetup(t *testing.T, maxDelay time.Duration) (*WAL, *fakeClock, *recorder, fakeWait) {
	t.Helper()
	const syncTime = 300 * time.Microsecond
	fs, clk := newGateFS(), newFakeClock()
	w := mustOpen(t, fs, 0, WALOptions{Policy: FsyncAlways, Clock: clk,
		MaxCommitDelay: func() time.Duration { return maxDelay }})
	t.Cleanup(func() { _ = w.Close() })
	rec := newRecorder()
	fs.armed.Store(true)
	w.Append(0, OpSet, payloadFor(0))
	w.Commit(committerFunc{rec, 0})
	waitFor(t, fs.entered, "the first fsync")
	for i := 1; i <= 3; i++ {
		w.Append(0, OpSet, payloadFor(i))
		w.Commit(committerFunc{rec, i})
	}
	clk.advance(syncTime)
	fs.release <- struct{}{}
	waitFor(t, rec.ch, "commit 0")
	wait := waitFor(t, clk.waits, "the commit delay")
	if rec.count() != 1 {
		t.Fatalf("%d commits told before the delay ended", rec.count())
	}
	return w, clk, rec, wait
}

// TestCommitDelayBounded: the wait asked for is the smaller of the
// configured maximum and syncTime × missing ÷ arrived, and when it passes
// the group goes without the missing writer.
func TestCommitDelayBounded(t *testing.T) {
	for _, c := range []struct {
		max, want time.Duration
	}{
		{time.Hour, 100 * time.Microsecond}, // 300 µs × 1 missing ÷ 3 arrived
		{40 * time.Microsecond, 40 * time.Microsecond},
	} {
		w, clk, rec, wait := delaySetup(t, c.max)
		if wait.d != c.want {
			t.Fatalf("max %v: delay %v, want %v", c.max, wait.d, c.want)
		}
		clk.advance(wait.d)
		wait.ch <- clk.Now()
		for i := 0; i < 3; i++ {
			waitFor(t, rec.ch, "the delayed group")
		}
		st := w.Stats()
		if st.CommitDelays != 1 || st.CommitDelaysEarly != 0 || st.CommitDelayTotal != c.want || st.Fsyncs != 2 || st.LastRecordsPerFsync != 3 {
			t.Fatalf("max %v: stats %+v", c.max, st)
		}
	}
}

// TestCommitDelayEndsWhenWritersArrive: the delay ends as soon as the
// expected writer queues, without the timer, and one fsync covers all four.
func TestCommitDelayEndsWhenWritersArrive(t *testing.T) {
	w, clk, rec, _ := delaySetup(t, time.Hour)
	clk.advance(10 * time.Microsecond)
	w.Append(0, OpSet, payloadFor(4))
	w.Commit(committerFunc{rec, 4})
	for i := 0; i < 4; i++ {
		waitFor(t, rec.ch, "the delayed group")
	}
	for i, id := range rec.got {
		if id != i || rec.errs[i] != nil {
			t.Fatalf("notification %d: id %d err %v", i, id, rec.errs[i])
		}
	}
	st := w.Stats()
	if st.CommitDelays != 1 || st.CommitDelaysEarly != 1 || st.CommitDelayTotal != 10*time.Microsecond ||
		st.Fsyncs != 2 || st.LastRecordsPerFsync != 4 || w.DurableSequence() != 5 {
		t.Fatalf("stats %+v", st)
	}
}

// TestCommitDelayCloseEndsWait: Close during a delay writes and syncs the
// held group at once.
func TestCommitDelayCloseEndsWait(t *testing.T) {
	w, _, rec, _ := delaySetup(t, time.Hour)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		waitFor(t, rec.ch, "the held group")
	}
	if w.DurableSequence() != 4 {
		t.Fatalf("durable sequence %d after Close, want 4", w.DurableSequence())
	}
}

// TestCommitDelaySyncFailure: a group held back and then failed by the
// fsync reports the error to every Committer.
func TestCommitDelaySyncFailure(t *testing.T) {
	mem := NewMemFS()
	efs := NewErrorFS(mem)
	clk := newFakeClock()
	w := mustOpen(t, efs, 0, WALOptions{Policy: FsyncAlways, Clock: clk,
		MaxCommitDelay: func() time.Duration { return time.Hour }})
	rec := newRecorder()
	efs.Inject(Injection{Op: FSSync, Nth: 1})
	w.Append(0, OpSet, payloadFor(0))
	w.Commit(committerFunc{rec, 0})
	waitFor(t, rec.ch, "the failed commit")
	if rec.errs[0] == nil || w.Err() == nil {
		t.Fatal("fsync failure not reported")
	}
	// After the failure nothing waits: later commits are told at once.
	w.Append(0, OpSet, payloadFor(1))
	w.Commit(committerFunc{rec, 1})
	waitFor(t, rec.ch, "the commit after the failure")
	if rec.errs[1] == nil || w.Stats().CommitDelays != 0 {
		t.Fatalf("after failure: err %v, %d delays", rec.errs[1], w.Stats().CommitDelays)
	}
	_ = w.Close()
}
