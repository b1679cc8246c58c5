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

// crashScript makes the five writes of one multiCrash transaction from
// Lua: KEYS are a, count, last, log, b of the worker; ARGV[1] its number.
var crashScript = redis.NewScript(`
redis.call('SET', KEYS[1], ARGV[1])
redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('APPEND', KEYS[4], 'x')
redis.call('SET', KEYS[5], ARGV[1])
return 1`)

// TestScriptCrashAtomic: clients run scripts of five writes with fsync =
// always while the process gets SIGKILL. After the restart each script's
// writes are there whole or not at all, and every acknowledged one is.
func TestScriptCrashAtomic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	testserver.Binary(t)
	for _, shards := range []int{1, 2} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) { scriptCrashCycles(t, shards) })
	}
}

func scriptCrashCycles(t *testing.T, shards int) {
	dir := t.TempDir()
	newClient := func(p *testserver.Process) redis.UniversalClient {
		if shards == 1 {
			return p.Client(t, 0)
		}
		return p.ClusterClient(t)
	}
	const workers = 8
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
					ns := strconv.FormatInt(n, 10)
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					err := crashScript.Run(ctx, c, []string{"t:" + id + ":" + ns + ":a", "count:" + id, "last:" + id, "log:" + id, "t:" + id + ":" + ns + ":b"}, n).Err()
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
		t.Logf("cycle %d: %d scripts acknowledged so far", cycle, total)
	}
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: shards, Fsync: "always"})
	c := newClient(p)
	multiCrashVerify(t, c, acked[:], sent[:], next[:])
	_ = c.Close()
	p.Kill(t)
}
