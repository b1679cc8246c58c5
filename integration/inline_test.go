package integration_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// inline turns on reactor-side execution of lone commands on idle shards.
func inline(c *config.Config) { c.Server.InlineExecution = true }

// inlineNoWAL runs inline without a log: write commands then run inline
// too.
func inlineNoWAL(c *config.Config) {
	inline(c)
	c.Persistence.WAL = false
}

// TestInlineExecution runs concurrent clients against servers whose
// reactors execute lone commands on idle shards and hand the rest
// through the ring: every reply matches its own request,
// pipelines stay in order, counters count every increment, a write
// acknowledged on one connection is read on another, and durable writes
// still wait for the log.
func TestInlineExecution(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []testserver.Option
		// inline is the least share of the lone reads that must have run
		// inline, in quarters. Under fsync always a read that arrives
		// while the log syncs, which the write before it starts, is left
		// to the loop.
		inline int
	}{
		{"everysec-1shard", []testserver.Option{testserver.Config(inline)}, 2},
		{"always-1shard", []testserver.Option{testserver.Config(inline), testserver.Fsync("always")}, 1},
		{"memory-1shard", []testserver.Option{testserver.Config(inlineNoWAL)}, 2},
		{"everysec-2shards", []testserver.Option{testserver.Config(inline), testserver.Shards(2)}, 2},
		{"ring-only", []testserver.Option{testserver.Config(func(c *config.Config) { c.Server.InlineExecution = false })}, 0},
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
			lone := loneCommands(t, s)
			var ran int64
			for _, addr := range s.Addrs {
				n := redis.NewClient(&redis.Options{Addr: addr})
				ran += infoInt(t, n, "stats", "ruvio_shard_inline_batches")
				_ = n.Close()
			}
			if tc.inline > 0 && ran < int64(lone*tc.inline/4) || tc.inline == 0 && ran != 0 {
				t.Errorf("%d batches ran inline after %d lone commands", ran, lone)
			}
		})
	}
}

// loneCommands has writers and readers on separate connections of
// shard 0 exchange values one command at a time: each reader sees every
// value a writer acknowledged before the reader asked. It returns how
// many lone commands it sent.
func loneCommands(t *testing.T, s *testserver.Server) int {
	t.Helper()
	const pairs, rounds = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, pairs)
	for p := 0; p < pairs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			w := redis.NewClient(&redis.Options{Addr: s.Addrs[0], PoolSize: 1})
			r := redis.NewClient(&redis.Options{Addr: s.Addrs[0], PoolSize: 1})
			defer w.Close()
			defer r.Close()
			// A key of shard 0 (with several shards, others get MOVED).
			key := ""
			for j := 0; key == ""; j++ {
				k := fmt.Sprintf("lone:%d:%d", p, j)
				err := w.Set(ctxT(t), k, -1, 0).Err()
				switch {
				case err == nil:
					key = k
				case !strings.HasPrefix(err.Error(), "MOVED") || j > 100:
					errs <- err
					return
				}
			}
			for i := 0; i < rounds; i++ {
				if err := w.Set(ctxT(t), key, i, 0).Err(); err != nil {
					errs <- err
					return
				}
				got, err := r.Get(ctxT(t), key).Result()
				if err != nil || got != strconv.Itoa(i) {
					errs <- fmt.Errorf("pair %d round %d: read %q, %v after writing %d", p, i, got, err, i)
					return
				}
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return pairs * rounds
}

// TestInlineExecutionLeavesSlowAndAdminCommands: a reactor runs only quick
// lone commands itself (reads, fast commands); administrative ones (DEBUG
// SLEEP can hold the shard for minutes, CONFIG SET changes how the server
// runs), containers, writes, scripts, WAIT and WAITAOF and blocking
// commands go to the shard's loop. GET and PING do run inline.
func TestInlineExecutionLeavesSlowAndAdminCommands(t *testing.T) {
	s := testserver.Start(t)
	c := dialRaw(t, s.Addrs[0])
	stats := s.Client(t)
	inlined := func() int64 { return infoInt(t, stats, "stats", "ruvio_shard_inline_batches") }
	for _, cmd := range [][]string{
		{"DEBUG", "SLEEP", "0"},
		{"CONFIG", "SET", "maxmemory-samples", "5"},
		{"CLIENT", "GETNAME"},
		{"SET", "k", "v"},
		{"EVAL_RO", "return 1", "0"},
		{"WAIT", "0", "0"},
		{"WAITAOF", "0", "0", "0"},
		{"XREAD", "BLOCK", "1", "STREAMS", "nostream", "$"},
	} {
		before := inlined()
		c.do(cmd...)
		// INFO runs on the loop too, and its batch counts nothing inline.
		if after := inlined(); after != before {
			t.Errorf("%v ran inline (%d batches before, %d after)", cmd, before, after)
		}
	}
	// A quick read runs inline only while its shard is idle: on a busy
	// machine the loop may still hold the shard (a cron pass, its spin
	// before it parks) when the read comes, and the read then goes through
	// the ring. So each gets a few tries, a short pause before each.
	for _, cmd := range [][]string{{"GET", "k"}, {"PING"}} {
		ran := false
		for try := 0; try < 20 && !ran; try++ {
			time.Sleep(10 * time.Millisecond)
			before := inlined()
			c.do(cmd...)
			after := inlined()
			if after > before+1 {
				t.Fatalf("%v: %d batches inline before, %d after; want at most one more", cmd, before, after)
			}
			ran = after == before+1
		}
		if !ran {
			t.Errorf("%v never ran inline in 20 tries", cmd)
		}
	}
}
