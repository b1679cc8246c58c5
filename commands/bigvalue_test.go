package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/persistence"
)

// walBytes is the byte count the shard's WAL has written to its segments.
func walBytes(sh *keyspace.Shard) uint64 { return sh.Journal.(*keyspace.WALJournal).WAL.Stats().Bytes }

// TestBitWritesLogWhatWasSent: a SETBIT, SETRANGE or BITFIELD far past the
// end of a string grows it with zeros, but the log records the write, not
// the zeros, and a restart rebuilds the same string from it. Logging the
// whole value let one command write 512 MB to the WAL.
func TestBitWritesLogWhatWasSent(t *testing.T) {
	cases := []struct {
		name   string
		setup  []string // run first, logged freely
		cmd    []string
		reply  string
		strlen int64
		checks [][2]string // a command after the restart and its reply
	}{
		{
			name:   "setbit at the last offset",
			cmd:    []string{"SETBIT", "k", "4294967295", "1"},
			reply:  rInt(0),
			strlen: 536870912,
			checks: [][2]string{{"GETBIT k 4294967295", rInt(1)}, {"GETBIT k 4294967294", rInt(0)}, {"GETBIT k 0", rInt(0)}},
		},
		{
			name:   "setbit grows an existing string",
			setup:  []string{"SET", "k", "ab"},
			cmd:    []string{"SETBIT", "k", "268435455", "1"},
			reply:  rInt(0),
			strlen: 33554432,
			checks: [][2]string{{"GETRANGE k 0 3", rBulk("ab\x00\x00")}, {"GETBIT k 268435455", rInt(1)}},
		},
		{
			name:   "setrange far out",
			cmd:    []string{"SETRANGE", "k", "33554430", "xy"},
			reply:  rInt(33554432),
			strlen: 33554432,
			checks: [][2]string{{"GETRANGE k 33554428 -1", rBulk("\x00\x00xy")}, {"GETRANGE k 0 1", rBulk("\x00\x00")}},
		},
		{
			name:   "bitfield far out",
			cmd:    []string{"BITFIELD", "k", "SET", "u8", "0", "7", "SET", "u8", "268435448", "255"},
			reply:  "*2\r\n" + rInt(0) + rInt(0),
			strlen: 33554432,
			checks: [][2]string{{"GETRANGE k 0 1", rBulk("\x07\x00")}, {"GETRANGE k -2 -1", rBulk("\x00\xff")}},
		},
		{
			name:   "bitfield grows an existing string",
			setup:  []string{"SET", "k", "ab"},
			cmd:    []string{"BITFIELD", "k", "INCRBY", "u8", "268435448", "0"},
			reply:  "*1\r\n" + rInt(0),
			strlen: 33554432,
			checks: [][2]string{{"GETRANGE k 0 2", rBulk("ab\x00")}, {"GETRANGE k -1 -1", rBulk("\x00")}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := persistence.NewMemFS()
			clock := newDurClock()
			d := durOpen(t, mem, clock, 1, nil)
			sh := d.shard(0)
			if tc.setup != nil {
				d.do(sh, tc.setup...)
			}
			before := walBytes(sh)
			if got := d.do(sh, tc.cmd...); got != tc.reply {
				t.Fatalf("%q: %q, want %q", tc.cmd, got, tc.reply)
			}
			if grew := walBytes(sh) - before; grew > 1024 {
				t.Errorf("%q wrote %d bytes to the WAL, want under 1 KB", tc.cmd, grew)
			}
			if err := d.close(); err != nil {
				t.Fatal(err)
			}
			d = durOpen(t, mem, clock, 1, nil)
			sh = d.shard(0)
			expect(t, sh, rInt(tc.strlen), "STRLEN", "k")
			for _, c := range tc.checks {
				expect(t, sh, c[1], strings.Fields(c[0])...)
			}
			// Built at its length, as the command built it, or grown with
			// little slack.
			slack := int64(0)
			if tc.setup != nil {
				slack = keyspace.MaxGrowSlack + 8
			}
			db := sh.DBs[0]
			if e := db.Find([]byte("k")); e == nil || int64(cap(db.Val(e))) > tc.strlen+slack {
				t.Errorf("replayed string holds %d bytes for %d", cap(db.Val(e)), tc.strlen)
			}
			if err := d.close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// heapAlloc collects twice (pooled buffers survive one collection) and
// returns the live heap.
func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// totalAlloc is the count of bytes allocated so far.
func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// TestBigSetHoldsOneCopy: a SET of a large value, logged to a WAL on disk,
// costs the value once plus the log's write buffer, and once the command
// is done and its batch recycled only the stored value stays; after DEL
// nothing does. The value was held four times (the parsed bulk, a copy as
// the value, the shard's scratch payload, the WAL buffer), and the scratch
// payload and the recycled batch kept it alive after DEL.
func TestBigSetHoldsOneCopy(t *testing.T) {
	for _, policy := range []persistence.FsyncPolicy{persistence.FsyncEverySec, persistence.FsyncAlways} {
		t.Run(policy.String(), func(t *testing.T) { testBigSetHoldsOneCopy(t, policy) })
	}
}

func testBigSetHoldsOneCopy(t *testing.T, policy persistence.FsyncPolicy) {
	const size = 64 << 20
	clock := newDurClock()
	dir := t.TempDir()
	d := durOpen(t, persistence.NewOSFS(), clock, 1, func(o *keyspace.DiskOptions) {
		o.Dir = dir
		o.Policy = policy
	})
	sh := d.shard(0)

	base := heapAlloc()
	// The bulk as the connection's parser hands it over: a buffer of its
	// own, exactly its length.
	val := make([]byte, size)
	val[0], val[size-1] = 'a', 'z'
	b := &keyspace.Batch{Client: sh.Ctx.C, Sink: d.sink, Argv: [][]byte{[]byte("SET"), []byte("k"), val}, Ends: []int{3}}
	b.Out.Proto = 2
	val = nil
	allocBefore := totalAlloc()
	sh.NowMs = clock.now().UnixMilli()
	sh.Run(b)
	sh.Queue(b)
	sh.Commit()
	d.wait(1)
	allocated := totalAlloc() - allocBefore
	if string(b.Out.Buf) != "+OK\r\n" {
		t.Fatalf("SET: %q", b.Out.Buf)
	}
	// The bulk itself, plus what the command allocated.
	if peak := size + allocated; peak > 3*size {
		t.Errorf("SET of %d MB allocated %d MB more: %.1f times the value, want under 3", size>>20, allocated>>20, float64(peak)/size)
	}
	b.Reset() // as the connection recycles it
	if live := heapAlloc() - base; live > size+size/2 {
		t.Errorf("after SET of %d MB, %d MB stay live, want the value alone", size>>20, live>>20)
	}
	expect(t, sh, rBulk("a"), "GETRANGE", "k", "0", "0")
	expect(t, sh, rBulk("z"), "GETRANGE", "k", "-1", "-1")
	d.do(sh, "DEL", "k")
	if live := int64(heapAlloc()) - int64(base); live > size/2 {
		t.Errorf("after DEL of a %d MB value, %d MB stay live", size>>20, live>>20)
	}
	runtime.KeepAlive(b)
}

// TestBigSetPurgesItsBuffersSoon: once a large value's record is written,
// shard 0's next look at the heap returns the log buffer it used to the
// OS, without waiting for the heap to stay idle: RSS otherwise held the
// value twice until the runtime's next collection.
func TestBigSetPurgesItsBuffersSoon(t *testing.T) {
	const size = 64 << 20
	clock := newDurClock()
	dir := t.TempDir()
	d := durOpen(t, persistence.NewOSFS(), clock, 1, func(o *keyspace.DiskOptions) {
		o.Dir = dir
		o.Policy = persistence.FsyncEverySec
	})
	sh := d.shard(0)
	tu := &sh.Srv.MemTuner
	now := int64(1_000_000)
	tu.PurgeIdleHeap(now) // the first look records the collection count
	val := make([]byte, size)
	b := &keyspace.Batch{Client: sh.Ctx.C, Sink: d.sink, Argv: [][]byte{[]byte("SET"), []byte("k"), val}, Ends: []int{3}}
	b.Out.Proto = 2
	sh.NowMs = clock.now().UnixMilli()
	sh.Run(b)
	sh.Queue(b)
	sh.Commit()
	d.wait(1)
	if string(b.Out.Buf) != "+OK\r\n" {
		t.Fatalf("SET: %q", b.Out.Buf)
	}
	tu.PurgeIdleHeap(now + 1000) // well within the idle period
	if !tu.Purging.Load() && tu.HeapAfter.Load() == 0 {
		t.Fatal("no purge after a 64 MB value's log buffer was dropped")
	}
	deadline := time.Now().Add(30 * time.Second)
	for tu.Purging.Load() {
		if time.Now().After(deadline) {
			t.Fatal("purge did not finish")
		}
		time.Sleep(time.Millisecond)
	}
	// Small writes do not purge.
	d.do(sh, "SET", "small", "v")
	tu.PurgeIdleHeap(now + 2000)
	if tu.Purging.Load() {
		t.Fatal("purged again after a small write")
	}
}
