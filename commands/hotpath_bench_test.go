package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strings"
	"testing"

	"github.com/ruvio/ruvio/codec"
)

// benchShard is a one-shard server driven synchronously, without loops.
func benchShard(b *testing.B) *keyspace.Shard {
	sh := newTestServer(b, 1)
	sh.Ctx.W.Buf = make([]byte, 0, 4096)
	return sh
}

// resp encodes a command as a multibulk request.
func resp(args ...string) []byte {
	var w codec.Writer
	w.ArrayHeader(len(args))
	for _, a := range args {
		w.BulkString(a)
	}
	return w.Buf
}

// benchmarkHotPath measures parse, dispatch and reply encoding of one
// request against an existing key: the path that must not allocate.
func benchmarkHotPath(b *testing.B, setup [][]string, args ...string) {
	sh := benchShard(b)
	for _, s := range setup {
		sh.Exec(&sh.Ctx, toArgv(s...))
	}
	timeRequests(b, sh, [][]byte{resp(args...)})
}

// timeRequests times parsing and running reqs (encoded requests, taken in
// turn) on sh, with allocations reported, and fails if the last reply is
// an error.
func timeRequests(b *testing.B, sh *keyspace.Shard, reqs [][]byte) {
	buf := make([]byte, 0, 256)
	argv := make([][]byte, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// A copy: the parsed arguments point into buf, which commands may
		// keep reading while they run.
		buf = append(buf[:0], reqs[i%len(reqs)]...)
		var n int
		var err error
		argv, n, err = codec.ParseCommand(buf, argv[:0], codec.Limits{})
		if err != nil || n != len(buf) {
			b.Fatalf("parse: n=%d err=%v", n, err)
		}
		sh.Ctx.W.Reset()
		sh.Exec(&sh.Ctx, argv)
	}
	b.StopTimer()
	if strings.HasPrefix(string(sh.Ctx.W.Buf), "-") {
		b.Fatalf("%q replied %q", reqs[len(reqs)-1], sh.Ctx.W.Buf)
	}
}

var hotSetup = [][]string{{"SET", "key:1", "value-1"}, {"SET", "n", "10"}, {"SET", "key:2", "value-2"}}

func BenchmarkHotGET(b *testing.B)  { benchmarkHotPath(b, hotSetup, "GET", "key:1") }
func BenchmarkHotSET(b *testing.B)  { benchmarkHotPath(b, hotSetup, "SET", "key:1", "value-x") }
func BenchmarkHotINCR(b *testing.B) { benchmarkHotPath(b, hotSetup, "INCR", "n") }
func BenchmarkHotMGET(b *testing.B) { benchmarkHotPath(b, hotSetup, "MGET", "key:1", "key:2", "nokey") }
func BenchmarkHotMSET(b *testing.B) {
	benchmarkHotPath(b, hotSetup, "MSET", "key:1", "value-a", "key:2", "value-b")
}
func BenchmarkHotDELMissing(b *testing.B) { benchmarkHotPath(b, hotSetup, "DEL", "nokey") }
func BenchmarkHotEXISTS(b *testing.B)     { benchmarkHotPath(b, hotSetup, "EXISTS", "key:1", "key:2") }
func BenchmarkHotEXPIRE(b *testing.B)     { benchmarkHotPath(b, hotSetup, "EXPIRE", "key:1", "100") }
func BenchmarkHotTTL(b *testing.B)        { benchmarkHotPath(b, hotSetup, "TTL", "key:1") }
func BenchmarkHotPING(b *testing.B)       { benchmarkHotPath(b, nil, "PING") }

// hllSetup is a dense HyperLogLog with its estimate cached.
var hllSetup = [][]string{{"PFADD", "hll", "a", "b", "c"}, {"PFDEBUG", "TODENSE", "hll"}, {"PFCOUNT", "hll"}}

func BenchmarkHotPFADD(b *testing.B)   { benchmarkHotPath(b, hllSetup, "PFADD", "hll", "a") }
func BenchmarkHotPFCOUNT(b *testing.B) { benchmarkHotPath(b, hllSetup, "PFCOUNT", "hll") }
