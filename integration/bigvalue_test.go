package integration_test

import (
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
