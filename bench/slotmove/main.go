// Command slotmove is bench/migrate.sh's client: it loads a slot with many
// small strings or one large sorted set, and measures the latency clients
// see while a slot moves, on keys of the moving slot and of other slots,
// against any Redis Cluster (Ruvio's cluster across hosts or redis-server
// in cluster mode).
//
//	slotmove -addr host:port -tag TAG load-strings N
//	slotmove -addr host:port -tag TAG load-zset N
//	slotmove -addr host:port -tag TAG -until FILE probe
//	slotmove tag SLOT      a hash tag whose slot is SLOT
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/cluster"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7000", "a node of the cluster")
	tag := flag.String("tag", "", "hash tag of the moving slot")
	until := flag.String("until", "", "probe: stop once this file exists")
	clients := flag.Int("clients", 4, "probe: clients per class (moving slot, other slots)")
	limit := flag.Duration("limit", 10*time.Minute, "probe: stop after this long in any case")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fail(errors.New("usage: slotmove [flags] load-strings N | load-zset N | probe | tag SLOT"))
	}
	if args[0] == "tag" && len(args) == 2 {
		slot, err := strconv.Atoi(args[1])
		if err != nil {
			fail(err)
		}
		for i := 0; ; i++ {
			t := "m" + strconv.Itoa(i)
			if int(cluster.KeySlot([]byte("{"+t+"}"))) == slot {
				fmt.Println(t)
				return
			}
		}
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{*addr}, MaxRedirects: 16, ReadTimeout: 5 * time.Second,
		DisableIdentity: true, ClusterStateReloadInterval: 200 * time.Millisecond})
	defer c.Close()
	switch args[0] {
	case "load-strings", "load-zset":
		n, err := strconv.Atoi(args[1])
		if err != nil {
			fail(err)
		}
		start := time.Now()
		if args[0] == "load-strings" {
			err = loadStrings(c, *tag, n)
		} else {
			err = loadZset(c, *tag, n)
		}
		if err != nil {
			fail(err)
		}
		fmt.Printf("loaded %d in %v\n", n, time.Since(start).Round(time.Millisecond))
	case "probe":
		probe(c, *tag, *until, *clients, *limit)
	default:
		fail(fmt.Errorf("unknown mode %q", args[0]))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "slotmove:", err)
	os.Exit(1)
}

// loadStrings writes n keys "{tag}:i" with 16-byte values, pipelined.
func loadStrings(c *redis.ClusterClient, tag string, n int) error {
	ctx := context.Background()
	for i := 0; i < n; i += 1000 {
		p := c.Pipeline()
		for j := i; j < min(i+1000, n); j++ {
			p.Set(ctx, "{"+tag+"}:"+strconv.Itoa(j), fmt.Sprintf("value-%010d", j), 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// loadZset adds n members to the sorted set "{tag}:zset".
func loadZset(c *redis.ClusterClient, tag string, n int) error {
	ctx := context.Background()
	key := "{" + tag + "}:zset"
	for i := 0; i < n; i += 1000 {
		var zs []redis.Z
		for j := i; j < min(i+1000, n); j++ {
			zs = append(zs, redis.Z{Score: float64(j), Member: "member-" + strconv.Itoa(j)})
		}
		if err := c.ZAdd(ctx, key, zs...).Err(); err != nil {
			return err
		}
	}
	return nil
}

// probe runs clients that SET and GET keys of the moving slot and of other
// slots until the until file exists, then prints each class's latency
// percentiles and errors.
func probe(c *redis.ClusterClient, tag, until string, clients int, limit time.Duration) {
	type class struct {
		name string
		mu   sync.Mutex
		lat  []time.Duration
		errs atomic.Int64
		last atomic.Value
	}
	moving, other := &class{name: "moving slot"}, &class{name: "other slots"}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, cl := range []*class{moving, other} {
		for w := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					key := fmt.Sprintf("probe:%d:%d", w, i%1000)
					if cl == moving {
						key = "{" + tag + "}:" + key
					}
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					t0 := time.Now()
					var err error
					if i%2 == 0 {
						err = c.Set(ctx, key, i, 0).Err()
					} else {
						err = c.Get(ctx, key).Err()
						if errors.Is(err, redis.Nil) {
							err = nil
						}
					}
					d := time.Since(t0)
					cancel()
					if err != nil {
						cl.errs.Add(1)
						cl.last.Store(err.Error())
						continue
					}
					cl.mu.Lock()
					cl.lat = append(cl.lat, d)
					cl.mu.Unlock()
				}
			}()
		}
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(until); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for _, cl := range []*class{moving, other} {
		slices.Sort(cl.lat)
		pct := func(p float64) time.Duration {
			if len(cl.lat) == 0 {
				return 0
			}
			return cl.lat[min(len(cl.lat)-1, int(p*float64(len(cl.lat))))]
		}
		last, _ := cl.last.Load().(string)
		fmt.Printf("%-12s requests %8d  p50 %8v  p99 %8v  p99.9 %8v  max %8v  errors %d %s\n", cl.name, len(cl.lat),
			pct(0.5).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(0.999).Round(time.Microsecond),
			pct(1).Round(time.Microsecond), cl.errs.Load(), last)
	}
}
