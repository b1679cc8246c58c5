package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/persistence"
)

// durLoadSnapshot loads the newest snapshot of shard 0 in fs alone into a
// fresh shard and returns it with the snapshot's sequence.
func durLoadSnapshot(t *testing.T, fs persistence.FS) (*keyspace.Shard, uint64) {
	t.Helper()
	fresh := newTestShard(t)
	seq, found, err := persistence.LoadSnapshot(fs, durDir, 0, nil, fresh.LoadSnapshotEntry)
	if err != nil || !found {
		t.Fatalf("load snapshot: found %v, err %v", found, err)
	}
	return fresh, seq
}

// durPreload fills the databases of sh directly through commands: many
// keys in database 0, fewer in others, some with deadlines, some of them
// already passed (still present until something looks at them).
func durPreload(t *testing.T, d *durServer, sh *keyspace.Shard, rng *rand.Rand) {
	t.Helper()
	sizes := map[int]int{0: 6000, 1: 700, 3: 300, 5: 1}
	for db, n := range sizes {
		run(t, sh, "SELECT", strconv.Itoa(db))
		for i := 0; i < n; i++ {
			k := "k" + strconv.Itoa(i)
			switch rng.IntN(6) {
			case 0:
				run(t, sh, "SET", k, "v"+strconv.Itoa(i), "PX", strconv.Itoa(1+rng.IntN(3000)))
			case 1:
				run(t, sh, "SET", k, strings.Repeat("x", rng.IntN(300)), "EX", "1000")
			default:
				run(t, sh, "SET", k, "v"+strconv.Itoa(i))
			}
		}
	}
	run(t, sh, "SELECT", "0")
	sh.Commit()
	d.do(sh, "PING") // everything above is durable
	// Let some deadlines pass: those keys stay until looked at.
	d.clock.ms.Add(1500)
	sh.NowMs = d.clock.ms.Load()
}

// durSnapshotMutation is a random write (or a read that may expire a
// key) over the preloaded key space, in a random database, that does not
// finish a running snapshot early.
func durSnapshotMutation(rng *rand.Rand, nowMs int64) []string {
	key := func() string {
		if rng.IntN(10) == 0 {
			return "new" + strconv.Itoa(rng.IntN(3000)) // keys created during the snapshot
		}
		return "k" + strconv.Itoa(rng.IntN(6000))
	}
	n := strconv.Itoa(rng.IntN(1000))
	switch rng.IntN(16) {
	case 0, 1:
		return []string{"SET", key(), "during-" + n}
	case 2:
		return []string{"SET", key(), "during-" + n, "PX", strconv.Itoa(1 + rng.IntN(5000))}
	case 3, 4:
		return []string{"DEL", key(), key()}
	case 5:
		return []string{"PEXPIRE", key(), strconv.Itoa(rng.IntN(5000) - 100)}
	case 6:
		return []string{"PERSIST", key()}
	case 7:
		return []string{"APPEND", key(), "+" + n}
	case 8:
		return []string{"RENAME", key(), key()}
	case 9:
		return []string{"SETRANGE", key(), strconv.Itoa(rng.IntN(10)), "r" + n}
	case 10:
		return []string{"INCR", "ctr" + strconv.Itoa(rng.IntN(50))}
	case 11:
		return []string{"GET", key()} // lazy expiry
	case 12:
		return []string{"MSET", key(), "m" + n, key(), "m" + n}
	case 13:
		return []string{"GETDEL", key()}
	case 14:
		return []string{"EXPIREAT", key(), strconv.FormatInt(nowMs/1000+int64(rng.IntN(3)), 10)}
	default:
		return []string{"SELECT", strconv.Itoa([]int{0, 0, 0, 1, 3, 5}[rng.IntN(6)])}
	}
}

// TestSnapshotWhileWriting starts a snapshot and keeps writing between
// small snapshot steps until it completes: the snapshot file, loaded
// alone, equals the state when it started; the snapshot plus the WAL
// equals the state at the end.
func TestSnapshotWhileWriting(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			mem := persistence.NewMemFS()
			clock := newDurClock()
			d := durOpen(t, mem, clock, 1, nil)
			sh := d.shard(0)
			rng := rand.New(rand.NewPCG(seed, 42))
			durPreload(t, d, sh, rng)

			atStart := durState(sh)
			seqAtStart := sh.Journal.(*keyspace.WALJournal).WAL.LastSequence()
			if got := run(t, sh, "BGSAVE"); got != "+Background saving started\r\n" {
				t.Fatalf("BGSAVE: %q", got)
			}
			buckets := len(sh.DBs[0].T.Slots)
			writes, steps := 0, 0
			for sh.Snap != nil {
				for i := rng.IntN(6); i > 0; i-- {
					args := durSnapshotMutation(rng, clock.ms.Load())
					_ = run(t, sh, args...)
					writes++
				}
				switch rng.IntN(50) {
				case 0: // time passes: more keys expire, some lazily, some actively
					clock.ms.Add(int64(rng.IntN(300)))
					sh.NowMs = clock.ms.Load()
				case 1:
					sh.ActiveExpireCycle()
				case 2: // a drain ends: its group is committed
					sh.Commit()
				}
				sh.SnapshotStep(1 + rng.IntN(4))
				steps++
				if steps > 100*buckets {
					t.Fatal("snapshot does not finish")
				}
			}
			sh.FinishSnapshotNow()
			if st := sh.SnapStatus; st.LastStatus != "ok" || st.LastSeq != seqAtStart {
				t.Fatalf("snapshot status %+v, want ok at sequence %d", st, seqAtStart)
			}
			if writes < 5000 {
				t.Fatalf("only %d writes during the snapshot", writes)
			}
			sh.Commit()
			d.do(sh, "PING")

			loaded, seq := durLoadSnapshot(t, mem)
			if seq != seqAtStart {
				t.Fatalf("snapshot at sequence %d, want %d", seq, seqAtStart)
			}
			durDiff(t, "snapshot", durState(loaded), atStart)
			durCheckIndex(t, loaded)

			// Recovery: the snapshot, then the WAL after it.
			final := durStateAt(sh, clock.ms.Load())
			c := durOpen(t, mem.CrashClone(), clock, 1, nil)
			durDiff(t, "recovery", durStateAt(c.shard(0), clock.ms.Load()), final)
			durCheckIndex(t, c.shard(0))
			t.Logf("%d writes over %d steps of a snapshot of %d buckets", writes, steps, buckets)
		})
	}
}

// TestSnapshotFinishedByWideCommands: commands that reach beyond their keys
// complete a running snapshot first; it still holds the state at its start
// and none of their effects.
func TestSnapshotFinishedByWideCommands(t *testing.T) {
	for _, cmd := range [][]string{
		{"FLUSHDB"},
		{"FLUSHALL"},
		{"SWAPDB", "0", "1"},
		{"MOVE", "k1", "2"},
		{"COPY", "k2", "k2", "DB", "4"},
		{"COPY", "k3", "copy-of-k3"},
	} {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			mem := persistence.NewMemFS()
			clock := newDurClock()
			d := durOpen(t, mem, clock, 1, nil)
			sh := d.shard(0)
			for i := 0; i < 400; i++ {
				run(t, sh, "SET", "k"+strconv.Itoa(i), strconv.Itoa(i))
			}
			run(t, sh, "SELECT", "1")
			run(t, sh, "SET", "in-db1", "x", "EX", "100")
			run(t, sh, "SELECT", "0")
			atStart := durState(sh)
			run(t, sh, "BGSAVE")
			sh.SnapshotStep(3)
			run(t, sh, "SET", "k5", "changed")
			run(t, sh, "DEL", "k6")
			if sh.Snap == nil {
				t.Fatal("snapshot finished too early for the test")
			}
			if got := run(t, sh, cmd...); strings.HasPrefix(got, "-") {
				t.Fatalf("%q: %q", cmd, got)
			}
			if sh.Snap != nil || sh.SnapFinishing {
				t.Fatalf("%q did not complete the snapshot", cmd)
			}
			loaded, _ := durLoadSnapshot(t, mem)
			durDiff(t, "snapshot", durState(loaded), atStart)
			sh.Commit()
			d.do(sh, "PING")
			c := durOpen(t, mem.CrashClone(), clock, 1, nil)
			durDiff(t, "recovery", durState(c.shard(0)), durState(sh))
		})
	}
}

// TestSnapshotOnShutdownAndSchedule: a clean stop writes a snapshot when
// asked to, and the WAL-size schedule starts one from Tick.
func TestSnapshotOnShutdownAndSchedule(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, func(o *keyspace.DiskOptions) { o.SnapshotWALBytes = 2000 })
	sh := d.shard(0)
	for i := 0; i < 30; i++ {
		d.do(sh, "SET", "k"+strconv.Itoa(i), strings.Repeat("v", 100))
	}
	sh.Journal.Tick(sh)
	if sh.Snap == nil && !sh.SnapFinishing {
		t.Fatalf("no snapshot after %d WAL bytes with snapshot_wal_bytes = 2000", sh.Journal.(*keyspace.WALJournal).WAL.Stats().Bytes)
	}
	sh.FinishSnapshotNow()
	if sh.SnapStatus.LastSeq != 30 {
		t.Fatalf("scheduled snapshot at %d, want 30", sh.SnapStatus.LastSeq)
	}

	// Shutdown snapshot: Shard.stop runs it once the loop has exited.
	mem = persistence.NewMemFS()
	d = durOpen(t, mem, clock, 1, func(o *keyspace.DiskOptions) { o.SnapshotOnShutdown = true })
	sh = d.shard(0)
	d.do(sh, "SET", "a", "1")
	d.do(sh, "SET", "b", "2")
	close(sh.Done) // the loop never ran: stop finds it finished
	if err := sh.Stop(); err != nil {
		t.Fatal(err)
	}
	d.closed = true
	loaded, seq := durLoadSnapshot(t, mem)
	if seq != 2 {
		t.Fatalf("shutdown snapshot at %d, want 2", seq)
	}
	durDiff(t, "shutdown snapshot", durState(loaded), durState(sh))
}

// durLoopClient submits batches to a running shard loop and waits for
// their replies.
type durLoopClient struct {
	sh   *keyspace.Shard
	c    *keyspace.Client
	sink *durSink
}

func (lc *durLoopClient) do(t *testing.T, cmds ...[]string) *keyspace.Batch {
	b := durNewBatch(lc.c, lc.sink, cmds...)
	for !lc.sh.Submit(b) {
		time.Sleep(time.Millisecond)
	}
	select {
	case got := <-lc.sink.ch:
		return got
	case <-time.After(10 * time.Second):
		t.Error("no reply within 10s")
		return nil
	}
}

// TestSnapshotUnderConcurrentWriters runs the real shard loop with several
// clients writing as fast as they can while BGSAVE runs: the snapshot,
// loaded alone, equals the WAL replayed up to the snapshot's sequence,
// which is the state at that sequence.
func TestSnapshotUnderConcurrentWriters(t *testing.T) {
	mem := persistence.NewMemFS()
	opts := testOptions(t, 1, nil)
	opts.Persistence = keyspace.NewDisk(keyspace.DiskOptions{FS: mem, Dir: durDir, Policy: persistence.FsyncAlways})
	s := newTestServerOpts(t, opts)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = s.Close()
		}
	})
	sh := s.Shard(0)
	client := func(id int64) *durLoopClient {
		c := keyspace.NewClient(id, 0, "127.0.0.1:1", "127.0.0.1:7000", nil, time.Now())
		c.Authenticated = true
		return &durLoopClient{sh: sh, c: c, sink: &durSink{ch: make(chan *keyspace.Batch, 16)}}
	}

	// Preload enough keys for the snapshot to take many steps.
	admin := client(1)
	for lo := 0; lo < 40000; lo += 1000 {
		var cmds [][]string
		for i := lo; i < lo+1000; i++ {
			cmds = append(cmds, []string{"SET", "k" + strconv.Itoa(i), "v" + strconv.Itoa(i)})
		}
		admin.do(t, cmds...)
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := 0; w < 4; w++ {
		lc := client(int64(10 + w))
		rng := rand.New(rand.NewPCG(uint64(w), 77))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				var cmds [][]string
				for i := 0; i < 1+rng.IntN(8); i++ {
					cmds = append(cmds, durConcurrentMutation(rng))
				}
				if lc.do(t, cmds...) == nil {
					return
				}
				writes.Add(int64(len(cmds)))
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	before := writes.Load()
	if b := admin.do(t, []string{"BGSAVE"}); string(b.Out.Buf) != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", b.Out.Buf)
	}
	// Wait for the snapshot to complete, writers still going.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b := admin.do(t, []string{"INFO", "persistence"})
		if strings.Contains(string(b.Out.Buf), "snapshot_in_progress:0\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("snapshot did not finish")
		}
		time.Sleep(time.Millisecond)
	}
	during := writes.Load() - before
	time.Sleep(10 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	closed = true
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	loaded, seq := durLoadSnapshot(t, mem)
	replayed := newTestShard(t)
	var last uint64
	_, err := persistence.Recover(mem, durDir, 0, 0, false, nil, func(r persistence.Record) error {
		last = r.Seq
		if r.Seq > seq {
			return nil
		}
		return replayed.ApplyRecord(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if last <= seq {
		t.Fatalf("no write after the snapshot's sequence %d (last %d)", seq, last)
	}
	durDiff(t, "snapshot vs WAL prefix", durState(loaded), durState(replayed))
	t.Logf("snapshot at sequence %d of %d; %d writes while it ran", seq, last, during)
}

// durConcurrentMutation is a write over the preloaded keys that never
// completes a snapshot early.
func durConcurrentMutation(rng *rand.Rand) []string {
	key := "k" + strconv.Itoa(rng.IntN(45000))
	n := strconv.Itoa(rng.IntN(1000))
	switch rng.IntN(7) {
	case 0:
		return []string{"SET", key, "w" + n}
	case 1:
		return []string{"DEL", key}
	case 2:
		return []string{"PEXPIRE", key, strconv.Itoa(100000 + rng.IntN(1000))}
	case 3:
		return []string{"APPEND", key, n}
	case 4:
		return []string{"RENAME", key, "k" + strconv.Itoa(rng.IntN(45000))}
	case 5:
		return []string{"SETRANGE", key, strconv.Itoa(rng.IntN(8)), n}
	default:
		return []string{"INCR", "ctr" + strconv.Itoa(rng.IntN(20))}
	}
}

// TestSnapshotAcrossResizes: the tables grow sixteenfold and shrink back
// while a snapshot walks them slowly; the snapshot still holds exactly the
// keys and values at its start, and an eviction during the run is written
// before it happens.
func TestSnapshotAcrossResizes(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	for i := 0; i < 300; i++ {
		run(t, sh, "SET", "orig:"+strconv.Itoa(i), strconv.Itoa(i))
	}
	atStart := durState(sh)
	slotsAtStart := len(sh.DBs[0].T.Slots)
	run(t, sh, "BGSAVE")
	grown := 0
	for i := 0; sh.Snap != nil; i++ {
		switch {
		case i < 5000:
			run(t, sh, "SET", "new:"+strconv.Itoa(i), "v")
		case i < 10000:
			run(t, sh, "DEL", "new:"+strconv.Itoa(i-5000))
		default:
			run(t, sh, "SET", "orig:"+strconv.Itoa(i%300), "changed")
		}
		if i == 300 {
			sh.Evict(sh.DBs[0], sh.DBs[0].FindString("orig:7"))
		}
		grown = max(grown, len(sh.DBs[0].T.Slots))
		if i%40 == 0 {
			sh.SnapshotStep(1)
		}
	}
	sh.FinishSnapshotNow()
	if grown < 16*slotsAtStart || len(sh.DBs[0].T.Slots) >= grown {
		t.Fatalf("table went from %d slots to %d and back to %d: no resize to test", slotsAtStart, grown, len(sh.DBs[0].T.Slots))
	}
	loaded, _ := durLoadSnapshot(t, mem)
	durDiff(t, "snapshot", durState(loaded), atStart)
	durCheckIndex(t, loaded)
}
