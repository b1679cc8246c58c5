package integration_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

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
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			atomicCrashCycles(t, shards, "scripts", func(ctx context.Context, c redis.UniversalClient, id string, n int64) error {
				ns := strconv.FormatInt(n, 10)
				keys := []string{"t:" + id + ":" + ns + ":a", "count:" + id, "last:" + id, "log:" + id, "t:" + id + ":" + ns + ":b"}
				return crashScript.Run(ctx, c, keys, n).Err()
			})
		})
	}
}
