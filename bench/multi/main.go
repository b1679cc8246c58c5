// Command multi is the MULTI/SET/INCR/EXEC load generator of
// bench/multi.sh: clients goroutines, each on its own connection, send
// transactions of SET key value and INCR counter on random keys for a fixed
// time and the program prints the transactions per second. It measures a
// server; it is not a test.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	clients := flag.Int("clients", 50, "concurrent connections")
	dur := flag.Duration("duration", 5*time.Second, "how long to run")
	keys := flag.Int("keys", 100000, "random key space")
	flag.Parse()
	if err := run(*addr, *clients, *dur, *keys); err != nil {
		fmt.Fprintln(os.Stderr, "multi:", err)
		os.Exit(1)
	}
}

func run(addr string, clients int, dur time.Duration, keys int) error {
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: clients, MinIdleConns: clients, Protocol: 2, DisableIdentity: true})
	defer c.Close()
	ctx := context.Background()
	if err := c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ping %s: %w", addr, err)
	}
	var done atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	start := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for !stop.Load() {
				k := strconv.Itoa(rng.IntN(keys))
				_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, "key:"+k, "value", 0)
					p.Incr(ctx, "ctr:"+k)
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
				done.Add(1)
			}
		}()
	}
	time.Sleep(dur)
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		return err
	}
	fmt.Printf("%.0f\n", float64(done.Load())/elapsed.Seconds())
	return nil
}
