package integration_test

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/ruvio/ruvio/internal/testserver"
)

// functionDumpLib is the library whose FUNCTION DUMP by redis-server
// 7.0.15 is testdata/function-dump-redis-7.0.15.bin (its code is
// LZF-compressed in the payload).
const functionDumpLib = `#!lua name=mylib
local function hello(keys, args) return 'hello ' .. (args[1] or 'world') end
local function hello2(keys, args) return 'hello again ' .. (args[1] or 'world') end
redis.register_function('hello', hello)
redis.register_function('hello2', hello2)`

// TestFunctionRestoreRedisPayload restores a compressed FUNCTION DUMP of
// redis-server and checks that FUNCTION DUMP gives the same bytes back.
func TestFunctionRestoreRedisPayload(t *testing.T) {
	t.Parallel()
	p, err := os.ReadFile("testdata/function-dump-redis-7.0.15.bin")
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "FUNCTION", "RESTORE", string(p))
	expect(t, c, "hello you", "FCALL", "hello", 0, "you")
	expect(t, c, "hello again world", "FCALL", "hello2", 0)
	expect(t, c, string(p), "FUNCTION", "DUMP")
	expectErr(t, c, "ERR Library mylib already exists", "FUNCTION", "RESTORE", string(p))
	bad := bytes.Clone(p)
	bad[3] ^= 0x40 // inside the compressed code: the checksum catches it
	expectErr(t, c, "ERR DUMP payload version or checksum are wrong", "FUNCTION", "RESTORE", string(bad), "REPLACE")

	// Both ways with the installed redis-server.
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref := startRedisServer(t, bin)
	expect(t, ref, "mylib", "FUNCTION", "LOAD", functionDumpLib)
	expect(t, ref, string(p), "FUNCTION", "DUMP")
	expect(t, ref, "OK", "FUNCTION", "FLUSH")
	mine := c.Do(ctxT(t), "FUNCTION", "DUMP").Val()
	expect(t, ref, "OK", "FUNCTION", "RESTORE", mine)
	expect(t, ref, "hello x", "FCALL", "hello", 0, "x")
}
