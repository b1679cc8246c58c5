package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestDurabilityCrashCollections: with fsync = always, writers push onto
// lists, set hash fields and pop list heads as fast as they can; the
// process gets SIGKILL at a random moment; after a restart every
// acknowledged push, pop and field is there, and nothing never sent.
func TestDurabilityCrashCollections(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	testserver.Binary(t)
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	const workers = 4
	// Per worker: pushes sent/acked onto lst:<id> (elements 1, 2, …),
	// pops sent/acked from its head, fields sent/acked in hs:<id>.
	type state struct{ pushSent, pushAcked, popSent, popAcked, hSent, hAcked int }
	st := make([]state, workers)
	for cycle := 0; cycle < 4; cycle++ {
		p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
		c := p.Client(t, 0)
		if cycle > 0 {
			for id := range st {
				s := &st[id]
				got, err := c.LRange(ctxT(t), "lst:"+strconv.Itoa(id), 0, -1).Result()
				if err != nil {
					t.Fatal(err)
				}
				// The list holds first..last: pops removed the head.
				first, last := 1, 0
				if len(got) > 0 {
					first, _ = strconv.Atoi(got[0])
					last, _ = strconv.Atoi(got[len(got)-1])
				}
				for i, v := range got {
					if v != strconv.Itoa(first+i) {
						t.Fatalf("worker %d: list %v is not contiguous", id, got)
					}
				}
				if len(got) == 0 && s.pushSent > 0 && s.pushAcked > 0 {
					t.Fatalf("worker %d: list lost, %d pushes acked", id, s.pushAcked)
				}
				if last < s.pushAcked || last > s.pushSent || (len(got) > 0 && (first-1 < s.popAcked || first-1 > s.popSent)) {
					t.Fatalf("worker %d: list %d..%d, pushes acked %d sent %d, pops acked %d sent %d", id, first, last, s.pushAcked, s.pushSent, s.popAcked, s.popSent)
				}
				n, err := c.HLen(ctxT(t), "hs:"+strconv.Itoa(id)).Result()
				if err != nil || int(n) < s.hAcked || int(n) > s.hSent {
					t.Fatalf("worker %d: hash of %d fields, acked %d sent %d (%v)", id, n, s.hAcked, s.hSent, err)
				}
				if n > 0 {
					v, err := c.HGet(ctxT(t), "hs:"+strconv.Itoa(id), "f"+strconv.Itoa(int(n))).Result()
					if err != nil || v != strconv.Itoa(int(n)) {
						t.Fatalf("worker %d: field f%d = %q (%v)", id, n, v, err)
					}
				}
				// Resynchronise with what survived.
				s.pushSent, s.pushAcked = last, last
				s.popSent, s.popAcked = first-1, first-1
				if len(got) == 0 {
					s.popSent, s.popAcked = last, last
				}
				s.hSent, s.hAcked = int(n), int(n)
			}
		}
		if cycle == 3 {
			// The last start only verifies the third crash.
			_ = c.Close()
			p.Kill(t)
			break
		}
		var killed atomic.Bool
		var wg sync.WaitGroup
		for id := range st {
			wg.Add(1)
			go func(s *state, key string) {
				defer wg.Done()
				for i := 0; !killed.Load(); i++ {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					var err error
					switch {
					case i%3 == 2 && s.popSent < s.pushAcked-1: // the list never empties
						s.popSent++
						var v string
						if v, err = c.LPop(ctx, "lst:"+key).Result(); err == nil {
							if v != strconv.Itoa(s.popSent) {
								err = fmt.Errorf("popped %s, want %d", v, s.popSent)
								killed.Store(true)
								t.Error(err)
							}
							s.popAcked = s.popSent
						}
					case i%2 == 0:
						s.pushSent++
						if err = c.RPush(ctx, "lst:"+key, s.pushSent).Err(); err == nil {
							s.pushAcked = s.pushSent
						}
					default:
						s.hSent++
						if err = c.HSet(ctx, "hs:"+key, "f"+strconv.Itoa(s.hSent), s.hSent).Err(); err == nil {
							s.hAcked = s.hSent
						}
					}
					cancel()
					if err != nil {
						if !killed.Load() {
							t.Errorf("before the kill: %v", err)
						}
						return
					}
				}
			}(&st[id], strconv.Itoa(id))
		}
		time.Sleep(time.Duration(200+rng.IntN(400)) * time.Millisecond)
		if cycle == 1 {
			_ = c.BgSave(context.Background()).Err()
			time.Sleep(50 * time.Millisecond)
		}
		killed.Store(true)
		p.Kill(t)
		wg.Wait()
		_ = c.Close()
		if t.Failed() {
			t.Logf("output:\n%s", p.Output())
			return
		}
		t.Logf("cycle %d: %+v", cycle, st)
	}
}
