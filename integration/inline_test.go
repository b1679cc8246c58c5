package integration_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// inline turns on reactor-side execution on idle shards.
func inline(c *config.Config) { c.Server.InlineExecution = true }

// TestInlineExecution runs concurrent clients against servers that let
// reactors execute batches on idle shards: every reply matches its own
// request, pipelines stay in order, counters count every increment, and
// durable writes still wait for the log.
func TestInlineExecution(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []testserver.Option
	}{
		{"memory-1shard", []testserver.Option{testserver.Config(inline)}},
		{"always-1shard", []testserver.Option{testserver.Config(inline), testserver.Fsync("always")}},
		{"memory-2shards", []testserver.Option{testserver.Config(inline), testserver.Shards(2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testserver.Start(t, tc.opts...)
			var c redis.UniversalClient = s.Client(t)
			if len(s.Addrs) > 1 {
				c = s.ClusterClient(t)
			}
			const workers, rounds = 16, 60
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; i < rounds; i++ {
						key := fmt.Sprintf("{w%d}:k%d", w, i)
						pipe := c.Pipeline()
						set := pipe.Set(ctxT(t), key, i, 0)
						get := pipe.Get(ctxT(t), key)
						incr := pipe.Incr(ctxT(t), fmt.Sprintf("{w%d}:n", w))
						if _, err := pipe.Exec(ctxT(t)); err != nil {
							errs <- err
							return
						}
						if set.Val() != "OK" || get.Val() != strconv.Itoa(i) || incr.Val() != int64(i+1) {
							errs <- fmt.Errorf("worker %d round %d: %q %q %d", w, i, set.Val(), get.Val(), incr.Val())
							return
						}
					}
				}(w)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			for w := 0; w < workers; w++ {
				expect(t, c, strconv.Itoa(rounds), "GET", fmt.Sprintf("{w%d}:n", w))
			}
		})
	}
}
