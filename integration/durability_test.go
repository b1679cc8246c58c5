package integration_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Crash tests through the real binary with fsync = always: clients write
// as fast as they can, the process gets SIGKILL at a random moment, and
// after a restart on the same directory every acknowledged write must be
// there with its acknowledged value, and nothing that was never sent.

const crashWorkers = 8

// crashWorker is one client's record of what it sent and what was
// acknowledged. Only its goroutine touches it during a cycle.
type crashWorker struct {
	id int
	// Unique keys: value sent, and whether the SET was acknowledged.
	sent  map[string]string
	acked map[string]bool
	// ctr:<id> is INCRed: base is its value verified at the start of the
	// cycle, incrs the INCRs sent since, ackedMax the largest value an
	// acknowledged INCR returned (at least base).
	base, incrs, ackedMax int64
	// ow:<id> is overwritten with an increasing number: owSent the last
	// number sent, owAcked the last acknowledged (or verified).
	owSent, owAcked int64
	// early is the first error before the kill (there should be none).
	early error
}

func (w *crashWorker) ctrKey() string { return "ctr:" + strconv.Itoa(w.id) }
func (w *crashWorker) owKey() string  { return "ow:" + strconv.Itoa(w.id) }

// run writes until killed is set; an error after that ends it.
func (w *crashWorker) run(c redis.UniversalClient, cycle int, killed *atomic.Bool, rng *rand.Rand) {
	for i := 0; ; i++ {
		if killed.Load() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var err error
		switch i % 4 {
		case 0, 1:
			key := fmt.Sprintf("k:%d:%d:%d", cycle, w.id, i)
			val := fmt.Sprintf("v%d-%d-%d-%s", cycle, w.id, i, strings.Repeat("x", rng.IntN(64)))
			w.sent[key] = val
			if err = c.Set(ctx, key, val, 0).Err(); err == nil {
				w.acked[key] = true
			}
		case 2:
			w.incrs++
			var n int64
			if n, err = c.Incr(ctx, w.ctrKey()).Result(); err == nil {
				if n <= w.ackedMax {
					w.early = fmt.Errorf("INCR %s returned %d after %d", w.ctrKey(), n, w.ackedMax)
				}
				w.ackedMax = n
			}
		case 3:
			w.owSent++
			if err = c.Set(ctx, w.owKey(), w.owSent, 0).Err(); err == nil {
				w.owAcked = w.owSent
			}
		}
		cancel()
		if err != nil {
			if !killed.Load() && w.early == nil {
				w.early = err
			}
			return
		}
	}
}

// masters calls fn with a client of every shard.
func crashForEachShard(ctx context.Context, c redis.UniversalClient, fn func(*redis.Client) error) error {
	if cc, ok := c.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return fn(m) })
	}
	return fn(c.(*redis.Client))
}

func TestDurabilityCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	testserver.Binary(t) // build before the clock of the first cycle starts
	for _, shards := range []int{1, 2} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			crashCycles(t, shards, 3)
		})
	}
}

func crashCycles(t *testing.T, shards, cycles int) {
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, uint64(shards)))
	workers := make([]*crashWorker, crashWorkers)
	for i := range workers {
		workers[i] = &crashWorker{id: i, sent: map[string]string{}, acked: map[string]bool{}}
	}
	newClient := func(p *testserver.Process) redis.UniversalClient {
		if shards == 1 {
			return p.Client(t, 0)
		}
		return p.ClusterClient(t)
	}

	for cycle := 0; cycle < cycles; cycle++ {
		cycleStart := time.Now()
		p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: shards, Fsync: "always"})
		c := newClient(p)
		// After a restart, check everything written in earlier cycles.
		if cycle > 0 {
			crashVerify(t, c, workers, p)
		}

		var killed atomic.Bool
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Add(1)
			wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(w.id)))
			go func() {
				defer wg.Done()
				w.run(c, cycle, &killed, wrng)
			}()
		}
		// Snapshots now and then, so recovery also starts from a snapshot
		// taken while the writers run.
		saves := make(chan struct{})
		srng := rand.New(rand.NewPCG(rng.Uint64(), 99))
		go func() {
			defer close(saves)
			for !killed.Load() {
				time.Sleep(time.Duration(30+srng.IntN(120)) * time.Millisecond)
				// One budget for one BGSAVE per shard, sent in parallel.
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // lint:allow-shared-deadline
				_ = crashForEachShard(ctx, c, func(m *redis.Client) error { return m.BgSave(ctx).Err() })
				cancel()
			}
		}()

		time.Sleep(time.Duration(200+rng.IntN(601)) * time.Millisecond)
		killed.Store(true)
		p.Kill(t)
		waited := make(chan struct{})
		go func() { wg.Wait(); <-saves; close(waited) }()
		select {
		case <-waited:
		case <-time.After(15 * time.Second):
			t.Fatal("writers did not stop after the kill")
		}
		_ = c.Close()

		sets, acks, incrs := 0, 0, int64(0)
		for _, w := range workers {
			if w.early != nil {
				t.Errorf("worker %d: error before the kill: %v", w.id, w.early)
			}
			sets += len(w.sent)
			acks += len(w.acked)
			incrs += w.incrs
		}
		t.Logf("cycle %d: pid %d killed; %d SETs sent so far, %d acknowledged, %d INCRs this cycle (%v)",
			cycle, p.Pid(), sets, acks, incrs, time.Since(cycleStart).Round(time.Millisecond))
		if t.Failed() {
			t.Logf("output of the killed process:\n%s", p.Output())
			return
		}
	}

	// The last restart, then a clean stop and one more start: the
	// shutdown snapshot holds the same data.
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: shards, Fsync: "always"})
	c := newClient(p)
	crashVerify(t, c, workers, p)
	_ = c.Close()
	p.Stop(t, 15*time.Second)
	p = testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: shards, Fsync: "always"})
	c = newClient(p)
	crashVerify(t, c, workers, p)
	_ = c.Close()
	p.Kill(t)
}

// crashVerify checks the recovered data against what the workers recorded
// and resets their per-cycle counters to the verified values.
func crashVerify(t *testing.T, c redis.UniversalClient, workers []*crashWorker, p *testserver.Process) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
	}
	defer func() {
		if t.Failed() {
			t.Logf("output of pid %d:\n%s", p.Pid(), p.Output())
		}
	}()

	// Every key in the store must be one that was sent.
	known := map[string]bool{}
	for _, w := range workers {
		known[w.ctrKey()] = true
		known[w.owKey()] = true
	}
	var mu sync.Mutex
	var present []string
	err := crashForEachShard(ctxT(t), c, func(m *redis.Client) error {
		keys, err := m.Keys(ctxT(t), "*").Result()
		mu.Lock()
		present = append(present, keys...)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatalf("KEYS: %v", err)
	}
	sentBy := map[string]*crashWorker{}
	for _, w := range workers {
		for k := range w.sent {
			sentBy[k] = w
		}
	}
	isPresent := map[string]bool{}
	for _, k := range present {
		isPresent[k] = true
		if !known[k] && sentBy[k] == nil {
			fail("key %q exists but was never sent", k)
		}
	}

	// Values of every key sent: acknowledged ones must be there, others
	// may be; a present value is exactly the one sent.
	var keys []string
	for k := range sentBy {
		keys = append(keys, k)
	}
	const chunk = 2000
	missing := 0
	for lo := 0; lo < len(keys); lo += chunk {
		part := keys[lo:min(lo+chunk, len(keys))]
		pipe := c.Pipeline()
		cmds := make([]*redis.StringCmd, len(part))
		for i, k := range part {
			cmds[i] = pipe.Get(ctxT(t), k)
		}
		_, _ = pipe.Exec(ctxT(t))
		for i, k := range part {
			w := sentBy[k]
			v, err := cmds[i].Result()
			switch {
			case errors.Is(err, redis.Nil):
				if w.acked[k] {
					missing++
					if missing <= 10 {
						fail("acknowledged SET %s is missing after recovery", k)
					}
				}
				if isPresent[k] {
					fail("KEYS lists %s but GET finds nothing", k)
				}
			case err != nil:
				t.Fatalf("GET %s: %v", k, err)
			case v != w.sent[k]:
				fail("%s = %q after recovery, sent %q (acknowledged %v)", k, v, w.sent[k], w.acked[k])
			}
		}
	}
	if missing > 0 {
		fail("%d acknowledged SETs missing", missing)
	}

	for _, w := range workers {
		n, err := c.Get(ctxT(t), w.ctrKey()).Int64()
		if errors.Is(err, redis.Nil) {
			n, err = 0, nil
		}
		if err != nil {
			t.Fatalf("GET %s: %v", w.ctrKey(), err)
		}
		if n < w.ackedMax || n > w.base+w.incrs {
			fail("%s = %d after recovery: acknowledged up to %d, at most %d sent", w.ctrKey(), n, w.ackedMax, w.base+w.incrs)
		}
		w.base, w.incrs, w.ackedMax = n, 0, n

		o, err := c.Get(ctxT(t), w.owKey()).Int64()
		if errors.Is(err, redis.Nil) {
			o, err = 0, nil
		}
		if err != nil {
			t.Fatalf("GET %s: %v", w.owKey(), err)
		}
		if o < w.owAcked || o > w.owSent {
			fail("%s = %d after recovery: acknowledged %d, last sent %d", w.owKey(), o, w.owAcked, w.owSent)
		}
		// The next cycle continues from the recovered value.
		w.owAcked, w.owSent = o, o

		// Unacknowledged keys that were lost are forgotten: the next
		// cycle must not find them either way, and ones that survived are
		// now as good as acknowledged.
		for k := range w.sent {
			if !w.acked[k] {
				if isPresent[k] {
					w.acked[k] = true
				} else {
					delete(w.sent, k)
				}
			}
		}
	}
}

// TestGroupCommitDelay: with fsync always and the commit delay on,
// concurrent writers are acknowledged, INFO persistence reports the delay,
// CONFIG SET changes it at run time, and every acknowledged write survives
// a SIGKILL.
func TestGroupCommitDelay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	dir := t.TempDir()
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
	c := p.Client(t, 0)
	if got, err := c.ConfigGet(ctxT(t), "ruvio-commit-delay-max-us").Result(); err != nil || got["ruvio-commit-delay-max-us"] != "100" {
		t.Fatalf("CONFIG GET ruvio-commit-delay-max-us: %v %v", got, err)
	}
	if err := c.ConfigSet(ctxT(t), "ruvio-commit-delay-max-us", "300").Err(); err != nil {
		t.Fatal(err)
	}
	const writers, perWriter = 16, 100
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				if err := c.Set(ctxT(t), fmt.Sprintf("gc:%d:%d", w, i), i, 0).Err(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	info := c.Info(ctxT(t), "persistence").Val()
	for _, f := range []string{"wal_commit_delay_max_us:300\r\n", "wal_commit_delays:", "wal_commit_delays_early:",
		"wal_commit_delay_total_us:", "wal_commit_delay_avg_us:", "wal_avg_fsync_latency_us:", "wal_commands_per_fsync:"} {
		if !strings.Contains(info, f) {
			t.Errorf("INFO persistence lacks %q", f)
		}
	}
	p.Kill(t)
	p = testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
	c = p.Client(t, 0)
	if n := c.DBSize(ctxT(t)).Val(); n != writers*perWriter {
		t.Fatalf("%d keys after SIGKILL and restart, want %d", n, writers*perWriter)
	}
}

// TestLoneClientSyncsInline: a single client's writes under fsync always
// are made durable on the committing goroutine (wal_inline_syncs), every
// acknowledged one survives SIGKILL, and a second client takes the shard
// back to the sync goroutine without losing anything either.
func TestLoneClientSyncsInline(t *testing.T) {
	dir := t.TempDir()
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
	c := p.Client(t, 0)
	const lone = 200
	for i := 0; i < lone; i++ {
		if err := c.Set(ctxT(t), fmt.Sprintf("lone:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Not every one: a write that arrives while the sync goroutine is
	// still finishing the group that released the previous reply queues.
	if n := infoInt(t, c, "persistence", "wal_inline_syncs"); n < lone/2 {
		t.Fatalf("wal_inline_syncs = %d after %d writes of one client", n, lone)
	}
	// Two connections writing in turn: neither is alone (the run of the
	// first client ends with the second's first write).
	c2 := p.Client(t, 0)
	if err := c2.Set(ctxT(t), "b:start", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	before := infoInt(t, c, "persistence", "wal_inline_syncs")
	for i := 0; i < 50; i++ {
		if err := c.Set(ctxT(t), fmt.Sprintf("a:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c2.Set(ctxT(t), fmt.Sprintf("b:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n := infoInt(t, c, "persistence", "wal_inline_syncs"); n != before {
		t.Fatalf("wal_inline_syncs went from %d to %d while two clients alternated", before, n)
	}
	p.Kill(t)
	p = testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
	c = p.Client(t, 0)
	if n := c.DBSize(ctxT(t)).Val(); n != lone+101 {
		t.Fatalf("%d keys after SIGKILL and restart, want %d", n, lone+101)
	}
	if v := c.Get(ctxT(t), fmt.Sprintf("lone:%d", lone-1)).Val(); v != fmt.Sprint(lone-1) {
		t.Fatalf("last lone write after restart: %q", v)
	}
}
