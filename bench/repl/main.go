// Command repl is the load generator of bench/repl.sh: SET followed by
// WAIT 1 0 at a number of clients, or a sustained pipelined SET load while
// it samples how far the replica is behind (in log positions and in
// milliseconds for a marker write to appear on it).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	primary := flag.String("primary", "127.0.0.1:6379", "primary address")
	replica := flag.String("replica", "127.0.0.1:6380", "replica address")
	kind := flag.String("kind", "ruvio", "ruvio or redis (how to read positions)")
	mode := flag.String("mode", "wait", "wait: SET + WAIT 1 0 per client; lag: pipelined SETs and lag samples")
	clients := flag.Int("clients", 50, "clients")
	pipeline := flag.Int("pipeline", 16, "SETs per round trip in lag mode")
	duration := flag.Duration("duration", 5*time.Second, "how long to load")
	flag.Parse()
	if err := run(*primary, *replica, *kind, *mode, *clients, *pipeline, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "repl:", err)
		os.Exit(1)
	}
}

func run(primary, replica, kind, mode string, clients, pipeline int, d time.Duration) error {
	ctx := context.Background()
	p := redis.NewClient(&redis.Options{Addr: primary, PoolSize: clients + 4, DisableIdentity: true})
	r := redis.NewClient(&redis.Options{Addr: replica, PoolSize: 4, DisableIdentity: true})
	defer p.Close()
	defer r.Close()
	var ops atomic.Int64
	var stop atomic.Bool
	var firstErr atomic.Pointer[error]
	var wg sync.WaitGroup
	val := strings.Repeat("v", 16)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				key := "k:" + strconv.Itoa(c) + ":" + strconv.Itoa(i%10000)
				var err error
				if mode == "wait" {
					if err = p.Set(ctx, key, val, 0).Err(); err == nil {
						var n int64
						if n, err = p.Do(ctx, "WAIT", "1", "0").Int64(); err == nil && n != 1 {
							err = fmt.Errorf("WAIT 1 0 returned %d", n)
						}
					}
					if err == nil {
						ops.Add(1)
					}
				} else {
					_, err = p.Pipelined(ctx, func(pl redis.Pipeliner) error {
						for j := 0; j < pipeline; j++ {
							pl.Set(ctx, key+":"+strconv.Itoa(j), val, 0)
						}
						return nil
					})
					if err == nil {
						ops.Add(int64(pipeline))
					}
				}
				if err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	var seqLag, msLag []float64
	start := time.Now()
	if mode == "lag" {
		for n := 0; time.Since(start) < d; n++ {
			pl, rl, err := positions(ctx, p, r, kind)
			if err == nil && pl >= rl {
				seqLag = append(seqLag, float64(pl-rl))
			}
			marker := "lag:" + strconv.Itoa(n)
			t0 := time.Now()
			if err := p.Set(ctx, marker, "1", 0).Err(); err != nil {
				return err
			}
			for r.Exists(ctx, marker).Val() == 0 {
				if time.Since(t0) > 10*time.Second {
					return fmt.Errorf("marker %s not on the replica after 10s", marker)
				}
				time.Sleep(200 * time.Microsecond)
			}
			msLag = append(msLag, float64(time.Since(t0).Microseconds())/1000)
			time.Sleep(50 * time.Millisecond)
		}
	} else {
		time.Sleep(d)
	}
	stop.Store(true)
	wg.Wait()
	el := time.Since(start).Seconds()
	if e := firstErr.Load(); e != nil {
		return *e
	}
	fmt.Printf("%s\t%s\t%.0f ops/s", kind, mode, float64(ops.Load())/el)
	if mode == "lag" {
		unit := "records"
		if kind == "redis" {
			unit = "bytes"
		}
		fmt.Printf("\tlag %s p50 %.0f p99 %.0f max %.0f\tlag ms p50 %.2f p99 %.2f max %.2f",
			unit, pct(seqLag, 50), pct(seqLag, 99), pct(seqLag, 100), pct(msLag, 50), pct(msLag, 99), pct(msLag, 100))
	}
	fmt.Println()
	return nil
}

// positions reads the primary's and the replica's log positions: WAL
// sequences for Ruvio, replication offsets for Redis.
func positions(ctx context.Context, p, r *redis.Client, kind string) (uint64, uint64, error) {
	field := func(c *redis.Client, section, name string) (uint64, error) {
		s, err := c.Info(ctx, section).Result()
		if err != nil {
			return 0, err
		}
		for _, line := range strings.Split(s, "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				return strconv.ParseUint(v, 10, 64)
			}
		}
		return 0, fmt.Errorf("no %s in INFO %s", name, section)
	}
	pf := "master_repl_offset"
	if kind == "ruvio" {
		pf = "wal_last_sequence"
	}
	section := "replication"
	if kind == "ruvio" {
		section = "persistence"
	}
	pl, err := field(p, section, pf)
	if err != nil {
		return 0, 0, err
	}
	rl, err := field(r, "replication", "slave_repl_offset")
	return pl, rl, err
}

func pct(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(float64(len(s)-1) * q / 100)
	return s[i]
}
