package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/persistence"
)

// These tests drive shards attached to a Disk on a persistence.MemFS
// synchronously: the test goroutine plays the shard loop (run, queue,
// commit as drain does) while the WAL's own goroutines sync.

const durDir = "d"

// durSink collects delivered batches; onDeliver, when set, runs first
// (on the goroutine that delivers).
type durSink struct {
	ch        chan *keyspace.Batch
	onDeliver func(*keyspace.Batch)
}

func (s *durSink) Deliver(b *keyspace.Batch) {
	if s.onDeliver != nil {
		s.onDeliver(b)
	}
	s.ch <- b
}

// durServer is a Server whose shards were opened on a Disk but whose loops
// do not run.
type durServer struct {
	t      *testing.T
	srv    *keyspace.Server
	fs     persistence.FS
	clock  *srvClock
	sink   *durSink
	closed bool
}

// durOpenErr builds a server of n shards on fs and opens every shard.
func durOpenErr(t *testing.T, fs persistence.FS, clock *srvClock, n int, mod func(*keyspace.DiskOptions)) (*durServer, error) {
	t.Helper()
	opts := keyspace.DiskOptions{FS: fs, Dir: durDir, Policy: persistence.FsyncAlways}
	if mod != nil {
		mod(&opts)
	}
	sopts := testOptions(t, n, clock.now)
	sopts.Persistence = keyspace.NewDisk(opts)
	s := newTestServerOpts(t, sopts)
	d := &durServer{t: t, srv: s, fs: fs, clock: clock, sink: &durSink{ch: make(chan *keyspace.Batch, 1<<16)}}
	t.Cleanup(func() { _ = d.close() })
	for _, sh := range s.ShardList {
		if err := s.Opts.Persistence.Open(sh); err != nil {
			return d, err
		}
		c := attachTestClient(sh, int64(sh.Idx+1), clock.now())
		sh.Ctx.Batch = &keyspace.Batch{Client: c}
	}
	return d, nil
}

func durOpen(t *testing.T, fs persistence.FS, clock *srvClock, n int, mod func(*keyspace.DiskOptions)) *durServer {
	t.Helper()
	d, err := durOpenErr(t, fs, clock, n, mod)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return d
}

func newDurClock() *srvClock {
	c := &srvClock{}
	c.ms.Store(testNowMs)
	return c
}

// close finishes snapshots and closes every shard's log, as Server.Close
// does once the loops have stopped.
func (d *durServer) close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	var first error
	for _, sh := range d.srv.ShardList {
		if sh.Journal == nil {
			continue
		}
		sh.FinishSnapshotNow()
		if err := sh.Journal.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (d *durServer) shard(i int) *keyspace.Shard { return d.srv.ShardList[i] }

// durNewBatch builds a batch of commands for client c.
func durNewBatch(c *keyspace.Client, sink keyspace.Sink, cmds ...[]string) *keyspace.Batch {
	b := &keyspace.Batch{Client: c, Sink: sink}
	for _, c := range cmds {
		for _, a := range c {
			b.Argv = append(b.Argv, []byte(a))
		}
		b.Ends = append(b.Ends, len(b.Argv))
	}
	b.Out.Proto = 2
	return b
}

// start runs batches as one drain of sh and commits them, without waiting
// for the log: the replies are delivered when the group is durable.
func (d *durServer) start(sh *keyspace.Shard, batches ...[][]string) []*keyspace.Batch {
	d.t.Helper()
	w := sh.Ctx.W
	sh.NowMs = d.clock.now().UnixMilli()
	var out []*keyspace.Batch
	for _, cmds := range batches {
		b := durNewBatch(sh.Ctx.C, d.sink, cmds...)
		sh.Run(b)
		sh.Queue(b)
		out = append(out, b)
	}
	sh.Commit()
	sh.Ctx.W = w
	return out
}

// wait receives n delivered batches.
func (d *durServer) wait(n int) []*keyspace.Batch {
	d.t.Helper()
	var got []*keyspace.Batch
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case b := <-d.sink.ch:
			got = append(got, b)
		case <-timeout:
			d.t.Fatalf("only %d of %d batches delivered", len(got), n)
		}
	}
	return got
}

// round is start then wait: every batch's reply is released.
func (d *durServer) round(sh *keyspace.Shard, batches ...[][]string) []*keyspace.Batch {
	d.t.Helper()
	bs := d.start(sh, batches...)
	got := d.wait(len(bs))
	for i := range bs {
		if got[i] != bs[i] {
			d.t.Fatalf("batch %d delivered out of order", i)
		}
	}
	return bs
}

// do runs one command as its own batch and returns the reply once released.
func (d *durServer) do(sh *keyspace.Shard, args ...string) string {
	d.t.Helper()
	return string(d.round(sh, [][]string{args})[0].Out.Buf)
}

// durStateAt is durState without the keys whose deadline passed at now.
func durStateAt(sh *keyspace.Shard, now int64) string {
	var lines []string
	for _, l := range strings.Split(durState(sh), "\n") {
		if i := strings.LastIndex(l, " deadline="); i >= 0 {
			at, _ := strconv.ParseInt(l[i+len(" deadline="):], 10, 64)
			if at != 0 && at <= now {
				continue
			}
		}
		if l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// durInfo parses INFO persistence of sh.
func durInfo(sh *keyspace.Shard) map[string]string {
	m := map[string]string{}
	for _, f := range persistenceInfo(sh) {
		m[f.name] = f.value
	}
	return m
}

// durFiles lists the data directory.
func durFiles(t *testing.T, fs persistence.FS) []string {
	t.Helper()
	names, err := fs.List(durDir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// durWrite runs n rounds of random commands (a few batches each) on sh and
// waits for each round to be acknowledged.
func durWrite(d *durServer, sh *keyspace.Shard, rng *rand.Rand, rounds, nkeys int) {
	d.t.Helper()
	for r := 0; r < rounds; r++ {
		if rng.IntN(10) == 0 {
			d.clock.ms.Add(int64(rng.IntN(30)))
		}
		var batches [][][]string
		for b := 0; b < 1+rng.IntN(4); b++ {
			var cmds [][]string
			for c := 0; c < 1+rng.IntN(3); c++ {
				cmds = append(cmds, durRandomCmd(rng, d.clock.ms.Load(), nkeys, len(sh.DBs)))
			}
			batches = append(batches, cmds)
		}
		for _, b := range d.round(sh, batches...) {
			if b.CloseAfter {
				d.t.Fatalf("batch closed: %q", b.Out.Buf)
			}
		}
	}
}

func TestDiskRestartRestoresExactly(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	small := func(o *keyspace.DiskOptions) { o.SegmentSize = 4 << 10 }
	d := durOpen(t, mem, clock, 1, small)
	sh := d.shard(0)
	rng := rand.New(rand.NewPCG(5, 6))
	durWrite(d, sh, rng, 400, 30)
	want := durStateAt(sh, clock.ms.Load())
	seq := sh.Journal.(*keyspace.WALJournal).WAL.LastSequence()
	if seq < 500 {
		t.Fatalf("only %d records", seq)
	}

	// Every reply was released after its fsync: a crash now loses nothing.
	crash := durOpen(t, mem.CrashClone(), clock, 1, small)
	durDiff(t, "after a crash", durStateAt(crash.shard(0), clock.ms.Load()), want)
	if got := crash.shard(0).Journal.(*keyspace.WALJournal).WAL.LastSequence(); got < seq {
		t.Fatalf("wal_last_sequence after the crash %d, want >= %d", got, seq)
	}

	// A clean restart, twice, with writes in between: sequences continue
	// across restarts and segment rotations.
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		d = durOpen(t, mem, clock, 1, small)
		sh = d.shard(0)
		durDiff(t, fmt.Sprintf("restart %d", i), durStateAt(sh, clock.ms.Load()), want)
		durCheckIndex(t, sh)
		durWrite(d, sh, rng, 150, 30)
		want = durStateAt(sh, clock.ms.Load())
		if err := d.close(); err != nil {
			t.Fatal(err)
		}
	}
	d = durOpen(t, mem, clock, 1, small)
	durDiff(t, "final restart", durStateAt(d.shard(0), clock.ms.Load()), want)
	segs := 0
	for _, n := range durFiles(t, mem) {
		if strings.Contains(n, "-wal-") {
			segs++
		}
	}
	if segs < 3 {
		t.Fatalf("expected several WAL segments with 4 KiB rotation, have %v", durFiles(t, mem))
	}
}

// TestDiskCrashKeepsAcknowledgedPrefix takes crash images while group
// commits are in flight: each image recovers to exactly the state after
// some round, never before the last acknowledged one and never after the
// last one run. So a crash loses only unsynced rounds, and only whole ones.
func TestDiskCrashKeepsAcknowledgedPrefix(t *testing.T) {
	mem := persistence.NewMemFS()
	mem.SetSyncDelay(300 * time.Microsecond)
	clock := newDurClock()
	small := func(o *keyspace.DiskOptions) { o.SegmentSize = 2 << 10 }
	d := durOpen(t, mem, clock, 1, small)
	sh := d.shard(0)
	rng := rand.New(rand.NewPCG(7, 8))

	// The sink counts delivered batches in the background so the test
	// goroutine can keep running rounds while syncs are in flight.
	var delivered atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case b := <-d.sink.ch:
				if b.CloseAfter {
					t.Errorf("batch closed: %q", b.Out.Buf)
				}
				delivered.Add(1)
			case <-stop:
				return
			}
		}
	}()
	type image struct {
		fs       *persistence.MemFS
		acked    int // rounds fully delivered before the image
		executed int // rounds run before the image
	}
	var (
		states  = []string{durState(sh)} // state after round i (nothing expires: see below)
		ends    []int64                  // batches delivered once round i is acknowledged
		images  []image
		batches int64
	)
	const rounds = 300
	for r := 0; r < rounds; r++ {
		var bs [][][]string
		for b := 0; b < 1+rng.IntN(3); b++ {
			// Long deadlines only, and a fixed clock: no key expires, so the
			// states compare without time.
			args := durRandomCmd(rng, clock.ms.Load(), 25, len(sh.DBs))
			for i, a := range args {
				if a == "PX" || a == "EX" {
					args[i+1] = strconv.Itoa(100000 + rng.IntN(1000))
				}
			}
			switch args[0] {
			case "PEXPIRE", "EXPIREAT":
				args = []string{"PEXPIRE", args[1], "500000"}
			}
			bs = append(bs, [][]string{args})
		}
		if rng.IntN(25) == 0 {
			// Snapshots run, and finish in the background, while images
			// are taken; they drop covered WAL segments. BGSAVE is a round
			// of its own: a snapshot may hold records not yet synced, so
			// it must start at a round boundary for the states to match.
			bs = [][][]string{{{"BGSAVE"}}}
		}
		d.start(sh, bs...)
		// What the loop does after each drain.
		if sh.Snap != nil {
			sh.SnapshotStep(16)
		}
		sh.PollSnapshot()
		batches += int64(len(bs))
		ends = append(ends, batches)
		states = append(states, durState(sh))
		if rng.IntN(12) == 0 {
			n := delivered.Load()
			acked := 0
			for acked < len(ends) && ends[acked] <= n {
				acked++
			}
			images = append(images, image{fs: mem.CrashClone(), acked: acked, executed: r + 1})
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for delivered.Load() < batches && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(stop)
	<-done
	if delivered.Load() != batches {
		t.Fatalf("%d of %d batches delivered", delivered.Load(), batches)
	}
	images = append(images, image{fs: mem.CrashClone(), acked: rounds, executed: rounds})
	if len(images) < 10 {
		t.Fatalf("only %d crash images", len(images))
	}
	behind := 0
	sh.FinishSnapshotNow()
	if sh.SnapStatus.LastSeq == 0 {
		t.Fatal("no snapshot was taken")
	}
	for i, im := range images {
		c := durOpen(t, im.fs, clock, 1, small)
		got := durState(c.shard(0))
		k := slices.Index(states[im.acked:im.executed+1], got)
		if k < 0 {
			t.Fatalf("image %d (acked %d, executed %d): recovered state is not the state after any round in between:\n%s",
				i, im.acked, im.executed, got)
		}
		if im.acked+k < im.executed {
			behind++
		}
		_ = c.close()
	}
	t.Logf("%d crash images, %d lost unacknowledged rounds; last snapshot at %d", len(images), behind, sh.SnapStatus.LastSeq)
}

// TestDiskFsyncNoLosesOnlyUnsynced: with fsync = no nothing is synced
// before Close, so a crash image recovers a prefix of the rounds (here:
// none), and after Close everything.
func TestDiskFsyncNoLosesOnlyUnsynced(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	no := func(o *keyspace.DiskOptions) { o.Policy = persistence.FsyncNo }
	d := durOpen(t, mem, clock, 1, no)
	sh := d.shard(0)
	if got := d.do(sh, "SET", "a", "1"); got != rOK {
		t.Fatalf("SET: %q", got)
	}
	d.do(sh, "SET", "b", "2")
	want := durState(sh)
	c := durOpen(t, mem.CrashClone(), clock, 1, no)
	if got := durState(c.shard(0)); got != "" {
		t.Fatalf("unsynced writes survived a crash with fsync=no: %s", got)
	}
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	c = durOpen(t, mem.CrashClone(), clock, 1, no)
	durDiff(t, "after close", durState(c.shard(0)), want)

	// Unacknowledged records under fsync=always (run, not committed) are
	// not on disk either.
	mem = persistence.NewMemFS()
	d = durOpen(t, mem, clock, 1, nil)
	sh = d.shard(0)
	d.do(sh, "SET", "a", "1")
	want = durState(sh)
	run(t, sh, "SET", "b", "2")
	run(t, sh, "DEL", "a")
	c = durOpen(t, mem.CrashClone(), clock, 1, nil)
	durDiff(t, "uncommitted", durState(c.shard(0)), want)
}

func TestDiskSnapshotThenWAL(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	small := func(o *keyspace.DiskOptions) { o.SegmentSize = 2 << 10 }
	d := durOpen(t, mem, clock, 1, small)
	sh := d.shard(0)
	rng := rand.New(rand.NewPCG(9, 10))
	durWrite(d, sh, rng, 200, 40)
	if got := d.do(sh, "SAVE"); got != rOK {
		t.Fatalf("SAVE: %q", got)
	}
	j := sh.Journal.(*keyspace.WALJournal)
	snapSeq := j.WAL.LastSequence()
	snap := persistence.SnapshotName(0, snapSeq)
	files := durFiles(t, mem)
	if !slices.Contains(files, snap) {
		t.Fatalf("no %s in %v", snap, files)
	}
	// Segments wholly before the snapshot are gone: a segment is kept
	// only if the next one starts after the snapshot's sequence + 1.
	var firsts []uint64
	for _, n := range files {
		if strings.Contains(n, "-wal-") {
			f, err := strconv.ParseUint(strings.TrimSuffix(n[strings.LastIndex(n, "-")+1:], ".log"), 10, 64)
			if err != nil {
				t.Fatalf("segment name %s: %v", n, err)
			}
			firsts = append(firsts, f)
		}
	}
	slices.Sort(firsts)
	for i := 0; i+1 < len(firsts); i++ {
		if firsts[i+1] <= snapSeq+1 {
			t.Errorf("segment starting at %d is covered by the snapshot at %d but was kept: %v", firsts[i], snapSeq, files)
		}
	}
	if len(firsts) == 0 {
		t.Fatalf("no WAL segment left: %v", files)
	}
	// More writes after the snapshot, over the same keys.
	durWrite(d, sh, rng, 200, 40)
	want := durStateAt(sh, clock.ms.Load())

	for _, name := range []string{"crash", "restart"} {
		fs := persistence.FS(mem.CrashClone())
		if name == "restart" {
			if err := d.close(); err != nil {
				t.Fatal(err)
			}
			fs = mem
		}
		c := durOpen(t, fs, clock, 1, small)
		durDiff(t, name, durStateAt(c.shard(0), clock.ms.Load()), want)
		info := durInfo(c.shard(0))
		if info["snapshot_last_sequence"] != strconv.FormatUint(snapSeq, 10) {
			t.Errorf("%s: snapshot_last_sequence %s, want %d", name, info["snapshot_last_sequence"], snapSeq)
		}
		recs, _ := strconv.ParseUint(info["recovery_wal_records"], 10, 64)
		last, _ := strconv.ParseUint(info["wal_last_sequence"], 10, 64)
		if recs == 0 || recs > last-snapSeq {
			t.Errorf("%s: replayed %d WAL records after a snapshot at %d with last sequence %d", name, recs, snapSeq, last)
		}
		_ = c.close()
	}
}

func TestDiskKeysExpiredWhileDown(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	d.do(sh, "SET", "snap-short", "1", "PX", "1000")
	d.do(sh, "SET", "snap-long", "1", "EX", "100")
	d.do(sh, "SET", "snap-none", "1")
	d.do(sh, "SAVE")
	d.do(sh, "SET", "wal-short", "1", "PX", "1500")
	d.do(sh, "SET", "wal-long", "1", "PX", "100000")
	d.do(sh, "SELECT", "3")
	d.do(sh, "SET", "db3-short", "1", "PX", "10")
	d.do(sh, "SET", "db3-none", "1")
	seq := sh.Journal.(*keyspace.WALJournal).WAL.LastSequence()
	if err := d.close(); err != nil {
		t.Fatal(err)
	}

	clock.ms.Add(2000)
	d = durOpen(t, mem, clock, 1, nil)
	sh = d.shard(0)
	want := `db0 "snap-long" = "1" deadline=` + strconv.FormatInt(testNowMs+100_000, 10) + "\n" +
		`db0 "snap-none" = "1" deadline=0` + "\n" +
		`db0 "wal-long" = "1" deadline=` + strconv.FormatInt(testNowMs+100_000, 10) + "\n" +
		`db3 "db3-none" = "1" deadline=0`
	durDiff(t, "after recovery", durState(sh), want)
	durCheckIndex(t, sh)
	// The deletions were logged (one record per expired key) ...
	if got := sh.Journal.(*keyspace.WALJournal).WAL.LastSequence(); got != seq+3 {
		t.Errorf("wal_last_sequence %d after expiring 3 keys at start, want %d", got, seq+3)
	}
	// ... and are durable before any reply goes out.
	d.do(sh, "PING")
	c := durOpen(t, mem.CrashClone(), clock, 1, nil)
	durDiff(t, "after a crash", durState(c.shard(0)), want)
	if got := c.shard(0).Journal.(*keyspace.WALJournal).WAL.LastSequence(); got != seq+3 {
		t.Errorf("wal_last_sequence %d after a second recovery, want %d", got, seq+3)
	}
}

func TestDiskSaveBgsaveLastsave(t *testing.T) {
	plain := newTestShard(t)
	expect(t, plain, rErr("ERR persistence is disabled (persistence.wal = false)"), "SAVE")
	expect(t, plain, rErr("ERR persistence is disabled (persistence.wal = false)"), "BGSAVE")
	expect(t, plain, rInt(plain.Srv.Started.Unix()), "LASTSAVE")

	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	start := testNowMs / 1000
	if got := d.do(sh, "LASTSAVE"); got != rInt(start) {
		t.Fatalf("LASTSAVE before any snapshot: %q, want %q", got, rInt(start))
	}
	d.do(sh, "SET", "a", "1")
	clock.ms.Add(10_000)
	if got := d.do(sh, "SAVE"); got != rOK {
		t.Fatalf("SAVE: %q", got)
	}
	if got := d.do(sh, "LASTSAVE"); got != rInt(start+10) {
		t.Fatalf("LASTSAVE after SAVE: %q, want %q", got, rInt(start+10))
	}
	info := durInfo(sh)
	if info["snapshot_last_status"] != "ok" || info["rdb_last_bgsave_status"] != "ok" || info["snapshot_last_sequence"] != "1" ||
		info["snapshot_in_progress"] != "0" || info["rdb_changes_since_last_save"] != "0" {
		t.Errorf("INFO after SAVE: %v", info)
	}
	size, err := mem.Stat(filepath.Join(durDir, persistence.SnapshotName(0, 1)))
	if err != nil || info["snapshot_last_size"] != strconv.FormatInt(size, 10) {
		t.Errorf("snapshot_last_size %s, file %d (%v)", info["snapshot_last_size"], size, err)
	}

	d.do(sh, "SET", "b", "2")
	clock.ms.Add(5_000)
	for _, tc := range []struct{ args, want string }{
		{"BGSAVE", "+Background saving started\r\n"},
		{"BGSAVE", rErr("ERR Background save already in progress")},
		{"BGSAVE SCHEDULE", "+Background saving scheduled\r\n"},
		{"SAVE", rErr("ERR Background save already in progress")},
		{"BGSAVE NOW", rErr("ERR syntax error")},
		{"LASTSAVE", rInt(start + 10)},
	} {
		if got := d.do(sh, strings.Fields(tc.args)...); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, got, tc.want)
		}
	}
	info = durInfo(sh)
	if info["snapshot_in_progress"] != "1" || info["rdb_bgsave_in_progress"] != "1" {
		t.Errorf("INFO while BGSAVE runs: %v", info)
	}
	// The shard loop would step the snapshot between batches.
	for sh.Snap != nil {
		sh.SnapshotStep(4)
	}
	sh.FinishSnapshotNow()
	if got := d.do(sh, "LASTSAVE"); got != rInt(start+15) {
		t.Errorf("LASTSAVE after BGSAVE: %q, want %q", got, rInt(start+15))
	}
	if got := durInfo(sh)["snapshot_last_sequence"]; got != "2" {
		t.Errorf("snapshot_last_sequence %s, want 2", got)
	}
	files := durFiles(t, mem)
	if !slices.Contains(files, persistence.SnapshotName(0, 2)) || slices.Contains(files, persistence.SnapshotName(0, 1)) {
		t.Errorf("files after the second snapshot: %v", files)
	}
}

func TestDiskInfoPersistence(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	for i := 0; i < 5; i++ {
		d.round(sh, [][]string{{"SET", "a", "1"}, {"INCR", "n"}}, [][]string{{"SET", "b", "2"}})
	}
	reply := d.do(sh, "INFO", "persistence")
	if !strings.HasPrefix(reply, "$") || !strings.Contains(reply, "# Persistence\r\n") {
		t.Fatalf("INFO persistence: %q", reply)
	}
	fields := map[string]string{}
	for _, l := range strings.Split(reply, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			fields[k] = v
		}
	}
	want := map[string]string{
		"aof_enabled":             "1",
		"wal_enabled":             "1",
		"wal_fsync_policy":        "always",
		"wal_commit_delay_max_us": "100",
		"wal_last_sequence":       "15",
		"wal_durable_sequence":    "15",
		"aof_last_write_status":   "ok",
		"wal_error":               "",
		"snapshot_in_progress":    "0",
		"snapshot_last_status":    "ok",
		"rdb_bgsave_in_progress":  "0",
		"loading":                 "0",
	}
	for k, v := range want {
		if got, ok := fields[k]; !ok || got != v {
			t.Errorf("%s: %q (present %v), want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"wal_last_fsync_latency_us", "wal_commands_per_fsync", "wal_fsyncs", "wal_segments", "wal_bytes",
		"wal_avg_fsync_latency_us", "wal_commit_delays", "wal_commit_delays_early", "wal_commit_delay_total_us", "wal_commit_delay_avg_us",
		"snapshot_last_time", "snapshot_last_duration_ms", "snapshot_last_size", "snapshot_last_sequence",
		"recovery_time_ms", "recovery_wal_records", "rdb_last_save_time", "rdb_changes_since_last_save"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("INFO persistence lacks %s", k)
		}
	}
	if f, _ := strconv.ParseFloat(fields["wal_commands_per_fsync"], 64); f < 1 {
		t.Errorf("wal_commands_per_fsync %q", fields["wal_commands_per_fsync"])
	}
	// Without persistence the section says so.
	plain := newTestShard(t)
	if got := run(t, plain, "INFO", "persistence"); !strings.Contains(got, "aof_enabled:0\r\n") || !strings.Contains(got, "wal_enabled:0\r\n") {
		t.Errorf("INFO persistence without a WAL: %q", got)
	}
}

// TestDiskFsyncFailure injects a failing fsync: the write is not
// acknowledged, the shard refuses writes from then on, and recovery does
// not bring the failed write back.
func TestDiskFsyncFailure(t *testing.T) {
	for _, op := range []persistence.FSOp{persistence.FSSync, persistence.FSWrite} {
		t.Run(op.String(), func(t *testing.T) {
			mem := persistence.NewMemFS()
			efs := persistence.NewErrorFS(mem)
			clock := newDurClock()
			d := durOpen(t, efs, clock, 1, nil)
			sh := d.shard(0)
			if got := d.do(sh, "SET", "a", "1"); got != rOK {
				t.Fatalf("SET a: %q", got)
			}
			efs.Inject(persistence.Injection{Op: op, PathContains: "-wal-"})
			b := d.round(sh, [][]string{{"SET", "b", "2"}, {"INCR", "a"}})[0]
			reply := string(b.Out.Buf)
			if !strings.HasPrefix(reply, "-") || strings.Count(reply, "\r\n") != 1 ||
				!strings.Contains(reply, persistence.ErrInjected.Error()) {
				t.Errorf("failed group replied %q: want only an error naming the cause", reply)
			}
			if !b.CloseAfter {
				t.Error("the connection of an unacknowledged write stays open")
			}
			if err := sh.Journal.Err(); !errors.Is(err, persistence.ErrInjected) {
				t.Fatalf("journal error: %v", err)
			}
			// Later writes are refused: never acknowledged.
			b = d.round(sh, [][]string{{"SET", "c", "3"}})[0]
			if reply := string(b.Out.Buf); !strings.HasPrefix(reply, "-") || strings.Contains(reply, "OK") {
				t.Errorf("write after the failure replied %q", reply)
			}
			sh.Ctx.W.Reset()
			if got := run(t, sh, "SET", "c", "3"); !strings.HasPrefix(got, "-MISCONF ") || !strings.Contains(got, persistence.ErrInjected.Error()) {
				t.Errorf("write command after the failure: %q, want -MISCONF naming the cause", got)
			}
			info := durInfo(sh)
			if info["aof_last_write_status"] != "err" || !strings.Contains(info["wal_error"], persistence.ErrInjected.Error()) {
				t.Errorf("INFO after the failure: aof_last_write_status=%s wal_error=%q", info["aof_last_write_status"], info["wal_error"])
			}
			if err := d.close(); !errors.Is(err, persistence.ErrInjected) {
				t.Errorf("close: %v", err)
			}
			// After a crash, only the acknowledged write is there.
			c := durOpen(t, mem.CrashClone(), clock, 1, nil)
			durDiff(t, "after the crash", durState(c.shard(0)), `db0 "a" = "1" deadline=0`)
		})
	}
}

// TestDiskSnapshotFailure: a failing snapshot fsync fails SAVE, leaves no
// files behind and does not stop writes.
func TestDiskSnapshotFailure(t *testing.T) {
	mem := persistence.NewMemFS()
	efs := persistence.NewErrorFS(mem)
	clock := newDurClock()
	d := durOpen(t, efs, clock, 1, nil)
	sh := d.shard(0)
	d.do(sh, "SET", "a", "1")
	efs.Inject(persistence.Injection{Op: persistence.FSSync, PathContains: "-snap-"})
	if got := d.do(sh, "SAVE"); got != rErr("ERR snapshot failed, see the server log") {
		t.Errorf("SAVE: %q", got)
	}
	info := durInfo(sh)
	if info["snapshot_last_status"] != "err" || info["rdb_last_bgsave_status"] != "err" {
		t.Errorf("INFO after a failed snapshot: %v", info)
	}
	for _, n := range durFiles(t, mem) {
		if strings.Contains(n, "-snap-") {
			t.Errorf("failed snapshot left %s", n)
		}
	}
	if got := d.do(sh, "SET", "b", "2"); got != rOK {
		t.Errorf("SET after a failed snapshot: %q", got)
	}
	efs.Clear()
	if got := d.do(sh, "SAVE"); got != rOK {
		t.Errorf("SAVE after the failure cleared: %q", got)
	}
	c := durOpen(t, mem.CrashClone(), clock, 1, nil)
	durDiff(t, "after a crash", durState(c.shard(0)), durState(sh))
}

// TestDiskTwoShards recovers two shards of one directory independently.
func TestDiskTwoShards(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 2, nil)
	n := 0
	for i := 0; n < 200; i++ {
		key := "key" + strconv.Itoa(i)
		_, owner := d.srv.Topology().ShardOfKey([]byte(key))
		sh := d.shard(owner)
		if got := d.do(sh, "SET", key, strconv.Itoa(i), "EX", strconv.Itoa(1+i%50)); got != rOK {
			t.Fatalf("SET %s on shard %d: %q", key, owner, got)
		}
		n++
	}
	want := []string{durState(d.shard(0)), durState(d.shard(1))}
	if want[0] == "" || want[1] == "" {
		t.Fatal("keys all landed on one shard")
	}
	c := durOpen(t, mem.CrashClone(), clock, 2, nil)
	for i := range want {
		durDiff(t, "shard "+strconv.Itoa(i), durState(c.shard(i)), want[i])
	}
}

// TestDiskRepliesWaitForEarlierWrites: under fsync = always no reply, a
// read's included, leaves before the log covering every mutation run
// before it is durable, and replies leave in order.
func TestDiskRepliesWaitForEarlierWrites(t *testing.T) {
	mem := persistence.NewMemFS()
	mem.SetSyncDelay(2 * time.Millisecond)
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	wal := sh.Journal.(*keyspace.WALJournal).WAL
	type seen struct {
		b       *keyspace.Batch
		durable uint64
	}
	var mu sync.Mutex
	var order []seen
	d.sink.onDeliver = func(b *keyspace.Batch) {
		mu.Lock()
		order = append(order, seen{b, wal.DurableSequence()})
		mu.Unlock()
	}
	var need []uint64 // last sequence run before each batch's reply
	var all []*keyspace.Batch
	for i := 0; i < 50; i++ {
		var cmds [][]string
		switch i % 3 {
		case 0:
			cmds = [][]string{{"SET", "k" + strconv.Itoa(i), "v"}}
		case 1:
			cmds = [][]string{{"GET", "k" + strconv.Itoa(i-1)}}
		default:
			cmds = [][]string{{"PING"}, {"DBSIZE"}}
		}
		bs := d.start(sh, cmds)
		all = append(all, bs...)
		for range bs {
			need = append(need, wal.LastSequence())
		}
	}
	d.wait(len(all))
	mu.Lock()
	defer mu.Unlock()
	for i, s := range order {
		if s.b != all[i] {
			t.Fatalf("reply %d delivered out of order", i)
		}
		if s.durable < need[i] {
			t.Errorf("reply %d (%q) left with the log durable to %d, but %d records ran before it", i, s.b.Out.Buf, s.durable, need[i])
		}
	}
}
