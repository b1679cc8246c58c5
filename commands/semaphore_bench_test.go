package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"testing"
)

// semBenchHolders is the size of the semaphores of the benchmarks.
const semBenchHolders = 60000

// semBenchShard returns a shard whose key "s" is a semaphore with
// semBenchHolders live holders of distinct deadlines, and their tokens.
func semBenchShard(b *testing.B) (*keyspace.Shard, []int64) {
	sh := newTestServer(b, 1)
	sh.Journal = &countJournal{}
	tokens := make([]int64, 0, semBenchHolders)
	for i := 0; i < semBenchHolders; i++ {
		reply := string(execArgv(sh, toArgv("SEMAPHORE", "s", "1000000000", strconv.Itoa(3600000+i%1000))))
		n, err := strconv.ParseInt(reply[1:len(reply)-2], 10, 64)
		if err != nil {
			b.Fatalf("setup: %q", reply)
		}
		tokens = append(tokens, n)
	}
	return sh, tokens
}

// BenchmarkSemaphoreAcquire60k: one SEMAPHORE grant on a semaphore that
// already has 60,000 holders (each call adds one more).
func BenchmarkSemaphoreAcquire60k(b *testing.B) {
	sh, _ := semBenchShard(b)
	argv := toArgv("SEMAPHORE", "s", "1000000000", "3600000")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := execArgv(sh, argv); r[0] != ':' {
			b.Fatalf("reply %q", r)
		}
	}
}

// BenchmarkSemaphoreAcquireRelease60k: a grant and the release of an
// older holder, so the semaphore stays at 60,000 holders.
func BenchmarkSemaphoreAcquireRelease60k(b *testing.B) {
	sh, tokens := semBenchShard(b)
	acquire := toArgv("SEMAPHORE", "s", "1000000000", "3600000")
	release := toArgv("RELEASE", "s", "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := execArgv(sh, acquire)
		tok, _ := strconv.ParseInt(string(r[1:len(r)-2]), 10, 64)
		tokens = append(tokens, tok)
		release[2] = strconv.AppendInt(release[2][:0], tokens[i], 10)
		if r := execArgv(sh, release); string(r) != ":1\r\n" {
			b.Fatalf("release %d: %q", tokens[i], r)
		}
	}
}
