package commands

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// BenchmarkDeleteHugeCollection measures what deleting a collection of
// 1M elements costs the shard: the DEL itself (the collection's Go
// objects are dropped, not walked) and the longest stop-the-world pause
// of the garbage collection that then reclaims them.
//
//	go test ./commands -run '^$' -bench DeleteHugeCollection -benchtime 1x
func BenchmarkDeleteHugeCollection(b *testing.B) {
	const n = 1_000_000
	for _, typ := range []string{"zset", "hash", "set", "list"} {
		b.Run(typ, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				sh := newTestServer(b, 1)
				for j := 0; j < n; j += 100 {
					var args []string
					switch typ {
					case "zset":
						args = []string{"ZADD", "big"}
						for k := j; k < j+100; k++ {
							args = append(args, fmt.Sprint(k), fmt.Sprint("member:", k))
						}
					case "hash":
						args = []string{"HSET", "big"}
						for k := j; k < j+100; k++ {
							args = append(args, fmt.Sprint("field:", k), fmt.Sprint("value:", k))
						}
					case "set":
						args = []string{"SADD", "big"}
						for k := j; k < j+100; k++ {
							args = append(args, fmt.Sprint("member:", k))
						}
					case "list":
						args = []string{"RPUSH", "big"}
						for k := j; k < j+100; k++ {
							args = append(args, fmt.Sprint("element:", k))
						}
					}
					execArgv(sh, toArgv(args...))
				}
				runtime.GC()
				b.StartTimer()
				t0 := time.Now()
				if got := string(execArgv(sh, toArgv("DEL", "big"))); got != ":1\r\n" {
					b.Fatalf("DEL: %q", got)
				}
				del := time.Since(t0)
				b.StopTimer()
				before := gcPauses()
				runtime.GC()
				b.ReportMetric(float64(del.Microseconds()), "del-µs")
				b.ReportMetric(float64(maxPauseSince(before, gcPauses()).Microseconds()), "max-gc-pause-µs")
			}
		})
	}
}

// gcPauses reads the histogram of stop-the-world pauses.
func gcPauses() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/pauses/total/gc:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return &metrics.Float64Histogram{}
	}
	return s[0].Value.Float64Histogram()
}

// maxPauseSince is the upper bound of the longest pause counted in after
// and not in before.
func maxPauseSince(before, after *metrics.Float64Histogram) time.Duration {
	for i := len(after.Counts) - 1; i >= 0; i-- {
		var was uint64
		if i < len(before.Counts) {
			was = before.Counts[i]
		}
		if after.Counts[i] > was {
			return time.Duration(after.Buckets[i+1] * float64(time.Second))
		}
	}
	return 0
}
