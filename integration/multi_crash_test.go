package integration_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestMultiCrashAtomic: clients run MULTI/EXEC transactions with fsync =
// always while the process gets SIGKILL. After the restart each EXEC's
// writes are there whole or not at all, and every acknowledged EXEC is.
func TestMultiCrashAtomic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	testserver.Binary(t)
	for _, shards := range []int{1, 2} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			atomicCrashCycles(t, shards, "transactions", multiCrashTx)
		})
	}
}

// multiCrashTx makes worker id's transaction n: five writes in one EXEC.
func multiCrashTx(ctx context.Context, c redis.UniversalClient, id string, n int64) error {
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "t:"+id+":"+strconv.FormatInt(n, 10)+":a", n, 0)
		p.Incr(ctx, "count:"+id)
		p.Set(ctx, "last:"+id, n, 0)
		p.Append(ctx, "log:"+id, "x")
		p.Set(ctx, "t:"+id+":"+strconv.FormatInt(n, 10)+":b", n, 0)
		return nil
	})
	return err
}

// atomicCrashCycles runs workers that each apply numbered units of five
// writes (write makes unit n of worker id atomically) with fsync = always,
// SIGKILLs the process three times under that load and checks after every
// restart that each unit is there whole or not at all, and every
// acknowledged one is (multiCrashVerify).
func atomicCrashCycles(t *testing.T, shards int, what string, write func(ctx context.Context, c redis.UniversalClient, id string, n int64) error) {
	dir := t.TempDir()
	newClient := func(p *testserver.Process) redis.UniversalClient {
		if shards == 1 {
			return p.Client(t, 0)
		}
		return p.ClusterClient(t)
	}
	const workers = 8
	// acked[w] is the last unit number of worker w that was acknowledged;
	// sent[w] the last one sent.
	var acked, sent [workers]int64
	for i := range acked {
		acked[i], sent[i] = -1, -1
	}
	next := [workers]int64{}
	for cycle := 0; cycle < 3; cycle++ {
		p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: shards, Fsync: "always"})
		c := newClient(p)
		if cycle > 0 {
			multiCrashVerify(t, c, acked[:], sent[:], next[:])
		}
		var killed atomic.Bool
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := multiCrashID(w)
				for !killed.Load() {
					n := next[w]
					sent[w] = n
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					err := write(ctx, c, id, n)
					cancel()
					if err != nil {
						return
					}
					acked[w] = n
					next[w] = n + 1
				}
			}()
		}
		time.Sleep(time.Duration(200+100*cycle) * time.Millisecond)
		killed.Store(true)
		p.Kill(t)
		wg.Wait()
		_ = c.Close()
		total := int64(0)
		for _, a := range acked {
			total += a + 1
		}
		t.Logf("cycle %d: %d %s acknowledged so far", cycle, total, what)
	}
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: shards, Fsync: "always"})
	c := newClient(p)
	multiCrashVerify(t, c, acked[:], sent[:], next[:])
	_ = c.Close()
	p.Kill(t)
}

// multiCrashVerify checks the invariants every whole transaction keeps:
// count = last+1 = len(log), both keys of each transaction up to last, none
// after; last is at least the acknowledged number and at most the sent one.
func multiCrashVerify(t *testing.T, c redis.UniversalClient, acked, sent, next []int64) {
	t.Helper()
	for w := range acked {
		id := multiCrashID(w)
		last, err := c.Get(ctxT(t), "last:"+id).Int64()
		if err == redis.Nil {
			last = -1
		} else if err != nil {
			t.Fatal(err)
		}
		count, _ := c.Get(ctxT(t), "count:"+id).Int64()
		logLen, _ := c.StrLen(ctxT(t), "log:"+id).Result()
		if count != last+1 || logLen != last+1 {
			t.Fatalf("worker %d: last=%d count=%d log=%d: a transaction was applied in part", w, last, count, logLen)
		}
		if last < acked[w] || last > sent[w] {
			t.Fatalf("worker %d: recovered last=%d, acknowledged %d, sent %d", w, last, acked[w], sent[w])
		}
		for _, n := range []int64{last, last + 1} {
			if n < 0 {
				continue
			}
			a := c.Exists(ctxT(t), "t:"+id+":"+strconv.FormatInt(n, 10)+":a").Val()
			b := c.Exists(ctxT(t), "t:"+id+":"+strconv.FormatInt(n, 10)+":b").Val()
			want := int64(0)
			if n <= last {
				want = 1
			}
			if a != want || b != want {
				t.Fatalf("worker %d transaction %d: a=%d b=%d, want %d", w, n, a, b, want)
			}
		}
		acked[w] = last
		next[w] = last + 1
	}
}

// multiCrashID names worker w's keys: a hash tag keeps one worker's
// transaction in one slot when there are several shards.
func multiCrashID(w int) string { return "{w" + strconv.Itoa(w) + "}" }
