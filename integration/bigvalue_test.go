package integration_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// TestFarBitWritesLogLittle: SETBIT, SETRANGE and BITFIELD far past the
// end of a string log what the client sent, not the zeros the string grows
// by, and a restart on the same directory reads the same strings back. A
// SETBIT k 4294967295 1 wrote 512 MB to the WAL, so a few of them and DELs
// could fill the disk.
func TestFarBitWritesLogLittle(t *testing.T) {
	dir := t.TempDir()
	start := func() *testserver.Server {
		return testserver.Start(t, testserver.Dir(dir), testserver.Fsync("always"),
			testserver.Config(func(c *config.Config) { c.Persistence.WAL = true }))
	}
	s := start()
	c := s.Client(t)
	before := infoInt(t, c, "persistence", "wal_bytes")
	expect(t, c, int64(0), "SETBIT", "k", "4294967295", "1")
	expect(t, c, int64(33554432), "SETRANGE", "r", "33554430", "xy")
	expect(t, c, []interface{}{int64(0), int64(0)}, "BITFIELD", "b", "SET", "u8", "0", "7", "SET", "u8", "268435448", "255")
	if grew := infoInt(t, c, "persistence", "wal_bytes") - before; grew > 1024 {
		t.Errorf("three far writes grew the WAL by %d bytes, want under 1 KB", grew)
	}
	s.Stop()

	s = start()
	c = s.Client(t)
	expect(t, c, int64(536870912), "STRLEN", "k")
	expect(t, c, int64(1), "GETBIT", "k", "4294967295")
	expect(t, c, int64(0), "GETBIT", "k", "4294967294")
	expect(t, c, int64(1), "BITCOUNT", "k", "-8", "-1")
	expect(t, c, int64(33554432), "STRLEN", "r")
	expect(t, c, "\x00\x00xy", "GETRANGE", "r", "-4", "-1")
	expect(t, c, int64(33554432), "STRLEN", "b")
	expect(t, c, "\x07\x00", "GETRANGE", "b", "0", "1")
	expect(t, c, "\x00\xff", "GETRANGE", "b", "-2", "-1")
	expect(t, c, "raw", "OBJECT", "ENCODING", "k")
}

// TestBigSetHeldOnce: a 64 MB SET through a connection, logged to the
// WAL, allocates the value about twice in all (the parsed bulk, kept as
// the value, and the WAL's write buffer), and after DEL nothing of it
// stays live. It was four times, and a copy stayed reachable after DEL.
// The server runs in this process, so its heap is the test's.
func TestBigSetHeldOnce(t *testing.T) {
	const size = 64 << 20
	s := testserver.Start(t, testserver.Fsync("everysec"),
		testserver.Config(func(c *config.Config) { c.Persistence.WAL = true }))
	c := s.Client(t)
	expect(t, c, "PONG", "PING")
	val := strings.Repeat("v", size)
	base := liveHeap()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocBefore := ms.TotalAlloc
	expect(t, c, "OK", "SET", "k", val)
	runtime.ReadMemStats(&ms)
	got := ms.TotalAlloc - allocBefore
	t.Logf("SET of %d MB allocated %d MB", size>>20, got>>20)
	if got > 3*size {
		t.Errorf("SET of %d MB allocated %d MB (%.1f times the value), want under 3 times", size>>20, got>>20, float64(got)/size)
	}
	if live := liveHeap() - base; live > size+size/2 {
		t.Errorf("after SET of %d MB, %d MB are live, want the value alone", size>>20, live>>20)
	}
	expect(t, c, int64(size), "STRLEN", "k")
	expect(t, c, int64(1), "DEL", "k")
	if live := liveHeap() - base; live > size/2 {
		t.Errorf("after DEL of a %d MB value, %d MB stay live", size>>20, live>>20)
	}
	runtime.KeepAlive(val)
}

// liveHeap collects twice (pooled buffers survive one collection) and
// returns the live heap bytes, signed for differences.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
