package integration_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestDurabilityCrashSortStoreAndGeo: with fsync = always, a writer
// pushes i onto a list and stores it sorted (SORT ... DESC STORE, one
// ListStore record), adds member i to a geo set (GEOADD) and copies that
// set (GEOSEARCHSTORE, one ZStore record), as fast as it can; the process
// gets SIGKILL at a random moment. After a restart the stored list is
// n..1 and the copies hold n members for an n between what was
// acknowledged and what was sent.
func TestDurabilityCrashSortStoreAndGeo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	testserver.Binary(t)
	dir := t.TempDir()
	sent, acked := 0, 0 // rounds of the four commands
	for cycle := 0; cycle < 3; cycle++ {
		p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
		c := p.Client(t, 0)
		if cycle > 0 {
			got, err := c.LRange(ctxT(t), "sorted", 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			n := len(got)
			for i, v := range got {
				if v != strconv.Itoa(n-i) {
					t.Fatalf("stored list %v is not %d..1", got, n)
				}
			}
			if n < acked || n > sent {
				t.Fatalf("stored list of %d, %d rounds acknowledged, %d sent", n, acked, sent)
			}
			// Round n stored the list before its GEOADD: the geo set and
			// its copy hold at least round n-1.
			geo, err := c.ZCard(ctxT(t), "geo").Result()
			if err != nil || int(geo) < n-1 || int(geo) > sent {
				t.Fatalf("geo set of %d members (%v), list of %d, %d sent", geo, err, n, sent)
			}
			cp, err := c.ZCard(ctxT(t), "geocopy").Result()
			if err != nil || int(cp) < n-1 || int(cp) > int(geo) {
				t.Fatalf("geo copy of %d members (%v), list of %d, geo %d", cp, err, n, geo)
			}
			sent, acked = n, n
			// Bring the sources back in step with the stored list.
			if err := c.Del(ctxT(t), "src").Err(); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= n; i++ {
				if err := c.RPush(ctxT(t), "src", i).Err(); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Del(ctxT(t), "geo").Err(); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				args := []interface{}{"GEOADD", "geo"}
				for i := 1; i <= n; i++ {
					args = append(args, geoCrashLon(i), "10", "m"+strconv.Itoa(i))
				}
				if err := c.Do(ctxT(t), args...).Err(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if cycle == 2 {
			_ = c.Close()
			p.Kill(t)
			break
		}
		var killed atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			for !killed.Load() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				i := sent + 1
				sent = i
				err := c.RPush(ctx, "src", i).Err()
				if err == nil {
					err = c.Do(ctx, "SORT", "src", "DESC", "STORE", "sorted").Err()
				}
				if err == nil {
					err = c.Do(ctx, "GEOADD", "geo", geoCrashLon(i), "10", "m"+strconv.Itoa(i)).Err()
				}
				if err == nil {
					err = c.Do(ctx, "GEOSEARCHSTORE", "geocopy", "geo", "FROMLONLAT", "-170", "10", "BYRADIUS", "3000", "km").Err()
				}
				cancel()
				if err != nil {
					if !killed.Load() {
						t.Errorf("before the kill: %v", err)
					}
					return
				}
				acked = i
			}
		}()
		time.Sleep(time.Duration(300+100*cycle) * time.Millisecond)
		killed.Store(true)
		p.Kill(t)
		<-done
		_ = c.Close()
		if t.Failed() {
			t.Logf("output:\n%s", p.Output())
			return
		}
		t.Logf("cycle %d: sent %d, acknowledged %d", cycle, sent, acked)
	}
}

// geoCrashLon is the longitude of member i: all within a few hundred km
// of (-170, 10).
func geoCrashLon(i int) string { return strconv.FormatFloat(-170+float64(i)*0.0001, 'f', 6, 64) }
