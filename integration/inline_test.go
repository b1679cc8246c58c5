package integration_test

import (
	"fmt"
	"runtime"
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
// lone commands itself (reads, fast commands, writes where they may);
// administrative ones (DEBUG SLEEP can hold the shard for minutes, CONFIG
// SET changes how the server runs), containers, scripts, WAIT and WAITAOF,
// blocking commands and MIGRATE (which parks its client) go to the
// shard's loop. GET and PING do run inline.
func TestInlineExecutionLeavesSlowAndAdminCommands(t *testing.T) {
	s := testserver.Start(t)
	c := dialRaw(t, s.Addrs[0])
	stats := s.Client(t)
	inlined := func() int64 { return infoInt(t, stats, "stats", "ruvio_shard_inline_batches") }
	c.do("SET", "k", "v")
	for _, cmd := range [][]string{
		{"DEBUG", "SLEEP", "0"},
		{"CONFIG", "SET", "maxmemory-samples", "5"},
		{"CLIENT", "GETNAME"},
		{"EVAL_RO", "return 1", "0"},
		{"WAIT", "0", "0"},
		{"WAITAOF", "0", "0", "0"},
		{"XREAD", "BLOCK", "1", "STREAMS", "nostream", "$"},
		// Port 1 refuses the connection: an IOERR, after the client parked.
		{"MIGRATE", "127.0.0.1", "1", "k", "0", "1000"},
	} {
		before := inlined()
		c.do(cmd...)
		// INFO runs on the loop too, and its batch counts nothing inline.
		if after := inlined(); after != before {
			t.Errorf("%v ran inline (%d batches before, %d after)", cmd, before, after)
		}
	}
	for _, cmd := range [][]string{{"GET", "k"}, {"PING"}} {
		if !runsInline(t, c, inlined, cmd) {
			t.Errorf("%v never ran inline in 20 tries", cmd)
		}
	}
}

// runsInline sends cmd on c until it runs inline (inlined counts one more
// batch) or 20 tries have failed, and reports whether it did. A lone
// command runs inline only while its shard is idle: on a busy machine the
// loop may still hold the shard (a cron pass, its spin before it parks)
// when the command comes, and it then goes through the ring. So each try
// comes after a short pause.
func runsInline(t *testing.T, c *rawConn, inlined func() int64, cmd []string) bool {
	t.Helper()
	for try := 0; try < 20; try++ {
		time.Sleep(10 * time.Millisecond)
		before := inlined()
		c.do(cmd...)
		after := inlined()
		if after > before+1 {
			t.Fatalf("%v: %d batches inline before, %d after; want at most one more", cmd, before, after)
		}
		if after == before+1 {
			return true
		}
	}
	return false
}

// TestInlineWrites: a lone write runs on the reactor of an idle shard
// when the shard keeps no log, or keeps one that is not synced before
// each reply while the process has more than one P; under fsync always,
// with server.inline_writes off, or with one P it goes to the loop. The
// writes without Redis's fast flag (SET, DEL) are among those that run
// inline, and what they did is read back.
func TestInlineWrites(t *testing.T) {
	t.Parallel()
	multi := runtime.GOMAXPROCS(0) > 1
	for _, tc := range []struct {
		name   string
		opts   []testserver.Option
		inline bool
	}{
		{"everysec", []testserver.Option{testserver.Fsync("everysec")}, multi},
		{"no", []testserver.Option{testserver.Fsync("no")}, multi},
		{"always", []testserver.Option{testserver.Fsync("always")}, false},
		{"switched-off", []testserver.Option{testserver.Fsync("everysec"), testserver.Config(func(c *config.Config) { c.Server.InlineWrites = false })}, false},
		{"memory", nil, true}, // testserver's default: no log
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, tc.opts...)
			c := dialRaw(t, s.Addrs[0])
			stats := s.Client(t)
			inlined := func() int64 { return infoInt(t, stats, "stats", "ruvio_shard_inline_batches") }
			for i, cmd := range [][]string{
				{"SET", "k", "v"},
				{"INCR", "n"},
				{"RPUSH", "l", "a", "b"},
				{"DEL", "l"},
			} {
				if tc.inline {
					if !runsInline(t, c, inlined, cmd) {
						t.Errorf("%v never ran inline in 20 tries", cmd)
					}
					continue
				}
				for try := 0; try < 3; try++ {
					time.Sleep(10 * time.Millisecond)
					before := inlined()
					c.do(cmd...)
					if after := inlined(); after != before {
						t.Fatalf("command %d %v ran inline (%d batches before, %d after)", i, cmd, before, after)
					}
				}
			}
			expect(t, stats, "v", "GET", "k")
			expect(t, stats, int64(0), "EXISTS", "l")
			if n, err := stats.Get(ctxT(t), "n").Int(); err != nil || n < 1 {
				t.Fatalf("GET n: %d, %v", n, err)
			}
		})
	}
}

// TestInlineWritesSurviveKill: under fsync everysec a write run inline
// has reached the log (one write(2) on the reactor) before its reply
// leaves, so every acknowledged one survives SIGKILL of the process.
func TestInlineWritesSurviveKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "everysec"})
	c := p.Client(t, 0)
	const writes = 400
	for i := 0; i < writes; i++ {
		if err := c.Set(ctxT(t), fmt.Sprintf("k:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// The child has as many Ps as CPUs it may run on; with one, writes
	// go through the loop, which this test then covers instead.
	t.Logf("%d of %d writes ran inline", infoInt(t, c, "stats", "ruvio_shard_inline_batches"), writes)
	p.Kill(t)
	p = testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "everysec"})
	c = p.Client(t, 0)
	if n := c.DBSize(ctxT(t)).Val(); n != writes {
		t.Fatalf("%d keys after SIGKILL and restart, want %d", n, writes)
	}
	for _, i := range []int{0, writes / 2, writes - 1} {
		expect(t, c, strconv.Itoa(i), "GET", fmt.Sprintf("k:%d", i))
	}
}
