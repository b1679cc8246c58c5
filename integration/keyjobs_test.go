package integration_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// The key jobs (LEASE/RELEASE, SEMAPHORE, SETV, LIMIT, ONCE, TAKE,
// INCRBY … MAX, GETEX, IDEM, CHANGES) through go-redis, on one shard and on
// four shards behind a ClusterClient seeded with one address.

// kjTopologies runs fn against a one-shard server (plain client) and a
// four-shard server (cluster client).
func kjTopologies(t *testing.T, fn func(t *testing.T, c cmdr)) {
	t.Run("1shard", func(t *testing.T) {
		t.Parallel()
		fn(t, testserver.Start(t).Client(t))
	})
	t.Run("4shards", func(t *testing.T) {
		t.Parallel()
		fn(t, testserver.Start(t, testserver.Shards(4)).ClusterClient(t))
	})
}

func TestKeyJobsLeaseAndSemaphore(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		expect(t, c, int64(1), "LEASE", "lease:a", 60000)
		expect(t, c, nil, "LEASE", "lease:a", 60000)
		expect(t, c, "lease", "TYPE", "lease:a")
		expectErr(t, c, errWrongType, "GET", "lease:a")
		expect(t, c, int64(0), "RELEASE", "lease:a", 2)
		expect(t, c, int64(0), "RELEASE", "lease:none", 1)
		expect(t, c, int64(1), "RELEASE", "lease:a", 1)
		expect(t, c, int64(0), "RELEASE", "lease:a", 1)
		expect(t, c, int64(2), "LEASE", "lease:a", 50)
		expect(t, c, nil, "LEASE", "lease:a", 50)
		time.Sleep(80 * time.Millisecond) // past the hold
		expect(t, c, int64(0), "RELEASE", "lease:a", 2)
		expect(t, c, int64(3), "LEASE", "lease:a", 60000)
		expect(t, c, int64(1), "DEL", "lease:a")
		expect(t, c, int64(1), "LEASE", "lease:a", 60000)
		expect(t, c, "OK", "SET", "lease:str", "x")
		expectErr(t, c, errWrongType, "LEASE", "lease:str", 100)
		expectErr(t, c, errWrongType, "RELEASE", "lease:str", 1)
		expectErr(t, c, "ERR invalid expire time in 'lease' command", "LEASE", "lease:b", 0)
		expectErr(t, c, "ERR value is not an integer or out of range", "LEASE", "lease:b", "soon")
		expectErr(t, c, "ERR value is not an integer or out of range", "RELEASE", "lease:a", "x")
		expectErr(t, c, errArity("lease"), "LEASE", "lease:b")
		expectErr(t, c, errArity("release"), "RELEASE", "lease:b")

		t1 := intValue(t, c, "SEMAPHORE", "sem:a", 2, 60000)
		if t1 < time.Now().Add(-time.Hour).UnixNano() {
			t.Errorf("semaphore token %d does not start from the clock", t1)
		}
		expect(t, c, t1+1, "SEMAPHORE", "sem:a", 2, 50)
		expect(t, c, nil, "SEMAPHORE", "sem:a", 2, 60000)
		expect(t, c, "semaphore", "TYPE", "sem:a")
		expectErr(t, c, errWrongType, "GET", "sem:a")
		time.Sleep(80 * time.Millisecond) // the second holder expires
		expect(t, c, t1+2, "SEMAPHORE", "sem:a", 2, 60000)
		expect(t, c, nil, "SEMAPHORE", "sem:a", 2, 60000)
		expect(t, c, int64(0), "RELEASE", "sem:a", t1+1)
		expect(t, c, int64(1), "RELEASE", "sem:a", t1)
		expect(t, c, int64(1), "RELEASE", "sem:a", t1+2)
		expect(t, c, int64(0), "EXISTS", "sem:a") // gone with its last holder
		// A new incarnation never reuses a token.
		if t2 := intValue(t, c, "SEMAPHORE", "sem:a", 1, 50); t2 <= t1+2 {
			t.Errorf("token %d after %d", t2, t1+2)
		}
		ttlIn(t, c, "sem:a", 1, 50)
		time.Sleep(80 * time.Millisecond)
		expect(t, c, int64(0), "EXISTS", "sem:a") // and after the last deadline
		expectErr(t, c, "ERR max must be a positive integer", "SEMAPHORE", "sem:b", 0, 100)
		expectErr(t, c, "ERR invalid expire time in 'semaphore' command", "SEMAPHORE", "sem:b", 1, -1)
		expectErr(t, c, errWrongType, "SEMAPHORE", "lease:str", 1, 100)
		expectErr(t, c, errArity("semaphore"), "SEMAPHORE", "sem:b", 1)
	})
}

func TestKeyJobsCounters(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		// SETV
		expect(t, c, int64(1), "SETV", "v:a", "one")
		expect(t, c, "one", "GET", "v:a")
		expect(t, c, "string", "TYPE", "v:a")
		expect(t, c, int64(2), "SETV", "v:a", "two", 1)
		expect(t, c, "two", "GET", "v:a")
		expectErr(t, c, "ERR SETV version mismatch", "SETV", "v:a", "three", 1)
		expectErr(t, c, "ERR SETV key already exists; pass its current version", "SETV", "v:a", "three")
		expectErr(t, c, "ERR SETV no such key; omit the version to create it", "SETV", "v:none", "x", 1)
		expectErr(t, c, "ERR SETV version must be a positive integer", "SETV", "v:a", "x", 0)
		expectErr(t, c, "ERR syntax error", "SETV", "v:a", "x", 2, "y")
		expectErr(t, c, errWrongType, "INCR", "v:a")
		expectErr(t, c, errWrongType, "INCRBY", "v:a", 1)
		expect(t, c, "two", "GET", "v:a")
		expect(t, c, "OK", "SET", "v:a", "7")
		expect(t, c, int64(8), "INCR", "v:a")
		expectErr(t, c, "ERR SETV version mismatch", "SETV", "v:a", "x", 2)

		// LIMIT
		expect(t, c, int64(2), "LIMIT", "lim:a", 3, 100)
		expect(t, c, int64(1), "LIMIT", "lim:a", 3, 100)
		expect(t, c, int64(0), "LIMIT", "lim:a", 3, 100)
		expect(t, c, nil, "LIMIT", "lim:a", 3, 100)
		expect(t, c, "limit", "TYPE", "lim:a")
		expectErr(t, c, errWrongType, "GET", "lim:a")
		ttlIn(t, c, "lim:a", 1, 100)
		time.Sleep(130 * time.Millisecond) // the window ends
		expect(t, c, int64(0), "EXISTS", "lim:a")
		expect(t, c, int64(2), "LIMIT", "lim:a", 3, 100)
		expectErr(t, c, "ERR max must be a positive integer", "LIMIT", "lim:b", -1, 100)
		expectErr(t, c, "ERR invalid expire time in 'limit' command", "LIMIT", "lim:b", 1, 0)

		// ONCE
		expect(t, c, int64(1), "ONCE", "once:a", 100)
		expect(t, c, int64(0), "ONCE", "once:a", 60000)
		ttlIn(t, c, "once:a", 1, 100)
		expect(t, c, "once", "TYPE", "once:a")
		expectErr(t, c, errWrongType, "GET", "once:a")
		time.Sleep(130 * time.Millisecond)
		expect(t, c, int64(1), "ONCE", "once:a", 100)
		expectErr(t, c, "ERR invalid expire time in 'once' command", "ONCE", "once:b", 0)

		// TAKE
		expect(t, c, "OK", "SET", "take:a", 10)
		expect(t, c, int64(6), "TAKE", "take:a", 4)
		expect(t, c, nil, "TAKE", "take:a", 7)
		expect(t, c, nil, "TAKE", "take:none", 1)
		expect(t, c, int64(0), "EXISTS", "take:none")
		expect(t, c, int64(0), "TAKE", "take:a", 6)
		expectErr(t, c, "ERR count must be a positive integer", "TAKE", "take:a", 0)
		expectErr(t, c, "ERR value is not an integer or out of range", "TAKE", "take:a", "x")
		expect(t, c, "OK", "SET", "take:s", "abc")
		expectErr(t, c, errWrongType, "TAKE", "take:s", 1)

		// INCRBY … MAX
		expect(t, c, int64(4), "INCRBY", "cnt:a", 4, "MAX", 5)
		expect(t, c, nil, "INCRBY", "cnt:a", 2, "MAX", 5)
		expect(t, c, int64(5), "INCRBY", "cnt:a", 1, "max", 5)
		expect(t, c, int64(7), "INCRBY", "cnt:a", 2)
		expectErr(t, c, "ERR syntax error", "INCRBY", "cnt:a", 1, "MAX")
		expectErr(t, c, "ERR syntax error", "INCRBY", "cnt:a", 1, "CAP", 5)
		expectErr(t, c, "ERR value is not an integer or out of range", "INCRBY", "cnt:a", 1, "MAX", "x")

		// GETEX key ms
		expect(t, c, "OK", "SET", "gx:a", "v", "PX", 100)
		expect(t, c, "v", "GETEX", "gx:a", 60000)
		ttlIn(t, c, "gx:a", 59000, 60000)
		expect(t, c, nil, "GETEX", "gx:none", 60000)
		expect(t, c, int64(0), "EXISTS", "gx:none")
		expect(t, c, "OK", "SET", "gx:b", "v", "PX", 60)
		expect(t, c, "v", "GET", "gx:b") // GET does not move the deadline
		time.Sleep(90 * time.Millisecond)
		expect(t, c, nil, "GET", "gx:b")
	})
}

// kjFP and kjOwner have the sizes the HTTP middleware uses.
var (
	kjFP    = strings.Repeat("a", 64)
	kjOwner = strings.Repeat("b", 32)
)

func TestKeyJobsIdem(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		acquired, pending, conflict := []interface{}{"acquired"}, []interface{}{"pending"}, []interface{}{"conflict"}
		expect(t, c, acquired, "IDEM", "idem:a", "BEGIN", kjFP, kjOwner, 60000)
		expect(t, c, "string", "TYPE", "idem:a")
		expect(t, c, int64(107), "STRLEN", "idem:a")
		expect(t, c, pending, "IDEM", "idem:a", "begin", kjFP, "other", 60000)
		expect(t, c, pending, "IDEM", "idem:a", "BEGIN", kjFP, kjOwner, 60000)
		expect(t, c, conflict, "IDEM", "idem:a", "BEGIN", "other-fp", kjOwner, 60000)
		expect(t, c, int64(0), "IDEM", "idem:a", "COMPLETE", kjFP, "other", "r")
		expect(t, c, int64(0), "IDEM", "idem:none", "COMPLETE", kjFP, kjOwner, "r")
		expect(t, c, int64(1), "IDEM", "idem:a", "COMPLETE", kjFP, kjOwner, "saved\x00result")
		expect(t, c, int64(107+12), "STRLEN", "idem:a")
		expect(t, c, []interface{}{"completed", "saved\x00result"}, "IDEM", "idem:a", "BEGIN", kjFP, "x", 60000)
		expect(t, c, conflict, "IDEM", "idem:a", "BEGIN", "other-fp", kjOwner, 60000)
		expect(t, c, int64(1), "IDEM", "idem:a", "COMPLETE", kjFP, kjOwner, "saved\x00result")
		expect(t, c, int64(0), "IDEM", "idem:a", "COMPLETE", kjFP, kjOwner, "other result")
		ttlIn(t, c, "idem:a", 59000, 60000)
		// Expiry boundary: a short retention admits the operation again.
		expect(t, c, acquired, "IDEM", "idem:b", "BEGIN", "fp", "o1", 60)
		expect(t, c, pending, "IDEM", "idem:b", "BEGIN", "fp", "o2", 60000)
		ttlIn(t, c, "idem:b", 1, 60)
		time.Sleep(90 * time.Millisecond)
		expect(t, c, int64(0), "IDEM", "idem:b", "COMPLETE", "fp", "o1", "late")
		expect(t, c, acquired, "IDEM", "idem:b", "BEGIN", "fp", "o2", 60000)
		expect(t, c, int64(1), "IDEM", "idem:b", "COMPLETE", "fp", "o2", "")
		expect(t, c, []interface{}{"completed", ""}, "IDEM", "idem:b", "BEGIN", "fp", "o3", 60000)

		expectErr(t, c, "ERR IDEM action must be BEGIN or COMPLETE", "IDEM", "idem:c", "ABORT", "fp", "o", 1)
		expectErr(t, c, "ERR IDEM fingerprint must be 1-128 bytes", "IDEM", "idem:c", "BEGIN", "", "o", 1)
		expectErr(t, c, "ERR IDEM fingerprint must be 1-128 bytes", "IDEM", "idem:c", "BEGIN", strings.Repeat("f", 129), "o", 1)
		expectErr(t, c, "ERR IDEM owner must be 1-128 bytes", "IDEM", "idem:c", "BEGIN", "fp", strings.Repeat("o", 129), 1)
		expectErr(t, c, "ERR IDEM ttl_ms must be an integer from 1 to 604800000", "IDEM", "idem:c", "BEGIN", "fp", "o", 0)
		expectErr(t, c, "ERR IDEM ttl_ms must be an integer from 1 to 604800000", "IDEM", "idem:c", "BEGIN", "fp", "o", 604800001)
		expectErr(t, c, errArity("idem"), "IDEM", "idem:c", "BEGIN", "fp", "o")
		expect(t, c, "OK", "SET", "idem:plain", "not a record", "PX", 60000)
		expectErr(t, c, "ERR IDEM key holds a value that is not a well-formed IDEM record", "IDEM", "idem:plain", "BEGIN", "fp", "o", 1000)
		expect(t, c, "not a record", "GET", "idem:plain")
		expect(t, c, int64(1), "LEASE", "idem:lease", 60000)
		expectErr(t, c, errWrongType, "IDEM", "idem:lease", "BEGIN", "fp", "o", 1000)
		expect(t, c, acquired, "IDEM", "idem:p", "BEGIN", "fp", "o", 60000)
		expect(t, c, int64(1), "PERSIST", "idem:p")
		expectErr(t, c, "ERR IDEM record has no TTL; refusing to use it", "IDEM", "idem:p", "BEGIN", "fp", "o", 1000)
		expectErr(t, c, "ERR IDEM record has no TTL; refusing to use it", "IDEM", "idem:p", "COMPLETE", "fp", "o", "r")
		expect(t, c, int64(0), "EXISTS", "idem:c")
	})
}

func TestKeyJobsChanges(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	expectErr(t, c, "ERR CHANGES is not started on this shard (the feed is empty after a restart); resync and call CHANGES START", "CHANGES", "0")
	cur := intValue(t, c, "CHANGES", "START")
	expect(t, c, []interface{}{}, "CHANGES", cur)
	expect(t, c, "OK", "SET", "ch:a", "1")
	expect(t, c, int64(1), "SETV", "ch:v", "x")
	expect(t, c, int64(1), "LEASE", "ch:l", 1000)
	expect(t, c, int64(1), "RELEASE", "ch:l", 1)
	expect(t, c, int64(1), "INCR", "ch:n")
	expect(t, c, []interface{}{
		[]interface{}{cur + 1, "SET", "ch:a", nil},
		[]interface{}{cur + 2, "SETV", "ch:v", int64(1)},
		[]interface{}{cur + 3, "LEASE", "ch:l", int64(1)},
		[]interface{}{cur + 4, "RELEASE", "ch:l", int64(1)},
	}, "CHANGES", cur)
	expect(t, c, cur+4, "CHANGES", "START")
	expectErr(t, c, "ERR CHANGES cursor "+strconv.FormatInt(cur+9, 10)+" is ahead of this shard's feed (last "+strconv.FormatInt(cur+4, 10)+"); resync and call CHANGES START", "CHANGES", cur+9)

	// Per shard: each shard's feed holds the notes of its own keys.
	s4 := testserver.Start(t, testserver.Shards(4))
	cc := s4.ClusterClient(t)
	starts := make([]int64, 4)
	for i := range starts {
		starts[i] = intValue(t, s4.ClientOf(t, i), "CHANGES", "START")
	}
	for i := 0; i < 40; i++ {
		expect(t, cc, "OK", "SET", "ch4:"+strconv.Itoa(i), "v")
	}
	total := 0
	for i := range starts {
		notes := value(t, s4.ClientOf(t, i), "CHANGES", starts[i]).([]interface{})
		for _, n := range notes {
			key := n.([]interface{})[2].(string)
			expect(t, s4.ClientOf(t, i), "v", "GET", key) // owned by this shard
		}
		total += len(notes)
	}
	if total != 40 {
		t.Errorf("the shards' feeds hold %d notes, want 40", total)
	}
}

// TestKeyJobsContention races 50 goroutines for one lease, semaphore,
// limit window and IDEM key and checks the outcomes the contract allows.
func TestKeyJobsContention(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		const n = 50
		race := func(fn func(i int) interface{}) []interface{} {
			out := make([]interface{}, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					out[i] = fn(i)
				}()
			}
			close(start)
			wg.Wait()
			return out
		}
		do := func(args ...interface{}) interface{} {
			v, err := c.Do(context.Background(), args...).Result()
			if errors.Is(err, redis.Nil) {
				return nil
			}
			if err != nil {
				return err
			}
			return v
		}
		count := func(res []interface{}, pred func(v interface{}) bool) int {
			k := 0
			for _, v := range res {
				if pred(v) {
					k++
				}
			}
			return k
		}
		isInt := func(v interface{}) bool { _, ok := v.(int64); return ok }

		res := race(func(int) interface{} { return do("LEASE", "race:lease", 60000) })
		if count(res, isInt) != 1 || count(res, func(v interface{}) bool { return v == nil }) != n-1 {
			t.Errorf("LEASE: %v", res)
		}

		res = race(func(int) interface{} { return do("SEMAPHORE", "race:sem", 5, 60000) })
		tokens := map[int64]bool{}
		for _, v := range res {
			if tok, ok := v.(int64); ok {
				tokens[tok] = true
			}
		}
		if len(tokens) != 5 || count(res, isInt) != 5 || count(res, func(v interface{}) bool { return v == nil }) != n-5 {
			t.Errorf("SEMAPHORE: %v", res)
		}

		res = race(func(int) interface{} { return do("LIMIT", "race:limit", 10, 60000) })
		left := map[int64]bool{}
		for _, v := range res {
			if r, ok := v.(int64); ok {
				left[r] = true
			}
		}
		if len(left) != 10 || !left[0] || !left[9] || count(res, func(v interface{}) bool { return v == nil }) != n-10 {
			t.Errorf("LIMIT: %v", res)
		}

		res = race(func(i int) interface{} {
			v := do("IDEM", "race:idem", "BEGIN", kjFP, "owner-"+strconv.Itoa(i), 60000)
			if reflect.DeepEqual(v, []interface{}{"acquired"}) {
				if got := do("IDEM", "race:idem", "COMPLETE", kjFP, "owner-"+strconv.Itoa(i), "done"); got != int64(1) {
					return got
				}
			}
			return v
		})
		acq := count(res, func(v interface{}) bool { return reflect.DeepEqual(v, []interface{}{"acquired"}) })
		other := count(res, func(v interface{}) bool {
			return reflect.DeepEqual(v, []interface{}{"pending"}) || reflect.DeepEqual(v, []interface{}{"completed", "done"})
		})
		if acq != 1 || other != n-1 {
			t.Errorf("IDEM: %d acquired, %d pending/completed: %v", acq, other, res)
		}
		expect(t, c, []interface{}{"completed", "done"}, "IDEM", "race:idem", "BEGIN", kjFP, "late", 60000)
	})
}

// kjCopyDir copies a data directory file by file while the server keeps
// running: the copy is what a SIGKILL at this moment would leave behind,
// since with fsync = always every acknowledged write is already on disk.
func kjCopyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		_ = in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestKeyJobsRestart checks that tokens, holders, counters, versions, IDEM
// records and deadlines survive a crash (WAL replay), a clean stop, and a
// restart from a snapshot.
func TestKeyJobsRestart(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := []testserver.Option{testserver.Shards(shards), testserver.Fsync("always")}
			s := testserver.Start(t, append(opts, testserver.Dir(dir))...)
			c := s.UniversalClient(t)
			expect(t, c, int64(1), "LEASE", "r:lease", 60000)
			expect(t, c, int64(1), "RELEASE", "r:lease", 1)
			expect(t, c, int64(2), "LEASE", "r:lease", 600000)
			expect(t, c, int64(1), "LEASE", "r:free", 600000)
			expect(t, c, int64(1), "RELEASE", "r:free", 1)
			t1 := intValue(t, c, "SEMAPHORE", "r:sem", 3, 600000)
			expect(t, c, t1+1, "SEMAPHORE", "r:sem", 3, 600000)
			expect(t, c, t1+2, "SEMAPHORE", "r:sem", 3, 600000)
			expect(t, c, int64(1), "RELEASE", "r:sem", t1+1)
			expect(t, c, int64(1), "SETV", "r:v", "one")
			expect(t, c, int64(2), "SETV", "r:v", "two", 1)
			expect(t, c, int64(2), "LIMIT", "r:lim", 3, 600000)
			expect(t, c, int64(1), "LIMIT", "r:lim", 3, 600000)
			expect(t, c, int64(1), "ONCE", "r:once", 600000)
			expect(t, c, "OK", "SET", "r:take", 10)
			expect(t, c, int64(7), "TAKE", "r:take", 3)
			expect(t, c, int64(9), "INCRBY", "r:cnt", 9, "MAX", 10)
			expect(t, c, []interface{}{"acquired"}, "IDEM", "r:pending", "BEGIN", kjFP, kjOwner, 600000)
			expect(t, c, []interface{}{"acquired"}, "IDEM", "r:done", "BEGIN", kjFP, kjOwner, 600000)
			expect(t, c, int64(1), "IDEM", "r:done", "COMPLETE", kjFP, kjOwner, "result")
			expect(t, c, "OK", "SET", "r:gx", "v")
			expect(t, c, "v", "GETEX", "r:gx", 600000)
			if shards == 1 {
				intValue(t, c, "CHANGES", "START")
			}

			// check verifies the recovered state; held is the token of the
			// lease hold, which it releases and renews (held+1).
			check := func(t *testing.T, c cmdr, held int64) {
				t.Helper()
				expect(t, c, nil, "LEASE", "r:lease", 1000) // still held
				expect(t, c, int64(0), "RELEASE", "r:lease", held-1)
				expect(t, c, int64(1), "RELEASE", "r:lease", held)
				expect(t, c, held+1, "LEASE", "r:lease", 600000) // the token continues
				expect(t, c, "lease", "TYPE", "r:free")          // released, the key stays
				expect(t, c, int64(0), "RELEASE", "r:free", 1)
				expect(t, c, nil, "SEMAPHORE", "r:sem", 2, 600000) // two live holders
				expect(t, c, int64(0), "RELEASE", "r:sem", t1+1)
				expect(t, c, "semaphore", "TYPE", "r:sem")
				expect(t, c, "two", "GET", "r:v")
				expectErr(t, c, "ERR SETV version mismatch", "SETV", "r:v", "x", 1)
				expect(t, c, nil, "LIMIT", "r:lim", 2, 600000)
				expect(t, c, int64(0), "LIMIT", "r:lim", held+1, 600000)
				expect(t, c, int64(0), "ONCE", "r:once", 600000)
				expect(t, c, "7", "GET", "r:take")
				expect(t, c, nil, "INCRBY", "r:cnt", 2, "MAX", 10)
				expect(t, c, []interface{}{"pending"}, "IDEM", "r:pending", "BEGIN", kjFP, "x", 600000)
				expect(t, c, []interface{}{"completed", "result"}, "IDEM", "r:done", "BEGIN", kjFP, "x", 600000)
				for _, k := range []string{"r:sem", "r:lim", "r:once", "r:pending", "r:done", "r:gx"} {
					ttlIn(t, c, k, 500000, 600000)
				}
				expect(t, c, int64(-1), "PTTL", "r:lease")
				if shards == 1 {
					expectErr(t, c, "ERR CHANGES is not started on this shard (the feed is empty after a restart); resync and call CHANGES START", "CHANGES", "1")
				}
			}
			// The state a SIGKILL would leave: only the WAL.
			crashDir := kjCopyDir(t, dir)
			s.Stop()
			crashed := testserver.Start(t, append(opts, testserver.Dir(crashDir))...)
			check(t, crashed.UniversalClient(t), 2)
			crashed.Stop()

			// A clean stop that writes a snapshot, then a start from it.
			again := testserver.Start(t, append(opts, testserver.Dir(dir), testserver.Config(func(c *config.Config) {
				c.Persistence.SnapshotOnShutdown = true
			}))...)
			check(t, again.UniversalClient(t), 2)
			again.Stop()
			if snaps, _ := filepath.Glob(filepath.Join(dir, "*.snap")); len(snaps) == 0 {
				t.Fatal("no snapshot was written at shutdown")
			}
			last := testserver.Start(t, append(opts, testserver.Dir(dir))...)
			check(t, last.UniversalClient(t), 3)
		})
	}
}

// TestKeyJobsRawReplies checks the exact bytes of every reply type of the
// key jobs over TCP, in RESP2 and after HELLO 3: null bulk ($-1, or _ in
// RESP3) for the "no" answers of LEASE, SEMAPHORE, LIMIT, TAKE,
// INCRBY … MAX and GETEX; integers for tokens, counts, versions and 1/0;
// arrays of bulk strings for IDEM BEGIN; CHANGES notes as
// [integer, bulk, bulk, integer or null].
func TestKeyJobsRawReplies(t *testing.T) {
	s := testserver.Start(t)
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			r := dialRaw(t, s.Addr())
			null := "$-1\r\n"
			if proto == "3" {
				null = "_\r\n"
				if got := r.do("HELLO", "3"); !strings.HasPrefix(got, "%") {
					t.Fatalf("HELLO 3: %q", got)
				}
			}
			p := "raw" + proto + ":"
			integer := func(n int64) string { return ":" + strconv.FormatInt(n, 10) + "\r\n" }
			bulk := func(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
			cur, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(r.do("CHANGES", "START"), ":"), "\r\n"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			r.expect(integer(1), "LEASE", p+"l", "60000")
			r.expect(null, "LEASE", p+"l", "60000")
			r.expect(integer(0), "RELEASE", p+"l", "2")
			r.expect(integer(1), "RELEASE", p+"l", "1")
			tok := r.do("SEMAPHORE", p+"s", "1", "60000")
			if !strings.HasPrefix(tok, ":") {
				t.Fatalf("SEMAPHORE: %q", tok)
			}
			r.expect(null, "SEMAPHORE", p+"s", "1", "60000")
			r.expect(integer(1), "LIMIT", p+"m", "2", "60000")
			r.expect(integer(0), "LIMIT", p+"m", "2", "60000")
			r.expect(null, "LIMIT", p+"m", "2", "60000")
			r.expect(integer(1), "ONCE", p+"o", "60000")
			r.expect(integer(0), "ONCE", p+"o", "60000")
			r.expect("+OK\r\n", "SET", p+"n", "5")
			r.expect(integer(2), "TAKE", p+"n", "3")
			r.expect(null, "TAKE", p+"n", "3")
			r.expect(null, "TAKE", p+"missing", "1")
			r.expect(integer(5), "INCRBY", p+"n", "3", "MAX", "5")
			r.expect(null, "INCRBY", p+"n", "1", "MAX", "5")
			r.expect(integer(1), "SETV", p+"v", "x")
			r.expect(integer(2), "SETV", p+"v", "y", "1")
			r.expect(bulk("y"), "GETEX", p+"v", "60000")
			r.expect(null, "GETEX", p+"missing", "60000")
			r.expect("*1\r\n$8\r\nacquired\r\n", "IDEM", p+"i", "BEGIN", "fp", "own", "60000")
			r.expect("*1\r\n$7\r\npending\r\n", "IDEM", p+"i", "BEGIN", "fp", "own", "60000")
			r.expect("*1\r\n$8\r\nconflict\r\n", "IDEM", p+"i", "BEGIN", "fp2", "own", "60000")
			r.expect(integer(0), "IDEM", p+"i", "COMPLETE", "fp", "other", "res")
			r.expect(integer(1), "IDEM", p+"i", "COMPLETE", "fp", "own", "res")
			r.expect(integer(1), "IDEM", p+"i", "COMPLETE", "fp", "own", "res")
			r.expect("*2\r\n$9\r\ncompleted\r\n$3\r\nres\r\n", "IDEM", p+"i", "BEGIN", "fp", "x", "60000")
			r.expect("+string\r\n", "TYPE", p+"i")
			r.expect("-ERR IDEM ttl_ms must be an integer from 1 to 604800000\r\n", "IDEM", p+"missing", "BEGIN", "fp", "own", "0")
			r.expect("-"+errWrongType+"\r\n", "GET", p+"l")
			r.expect(integer(1), "RELEASE", p+"s", strings.TrimSuffix(tok[1:], "\r\n"))
			note := func(c int64, cmd, key, detail string) string {
				return "*4\r\n" + integer(c) + bulk(cmd) + bulk(key) + detail
			}
			r.expect("*6\r\n"+
				note(cur+1, "LEASE", p+"l", integer(1))+
				note(cur+2, "RELEASE", p+"l", integer(1))+
				note(cur+3, "SET", p+"n", null)+
				note(cur+4, "SETV", p+"v", integer(1))+
				note(cur+5, "SETV", p+"v", integer(2))+
				note(cur+6, "RELEASE", p+"s", tok),
				"CHANGES", strconv.FormatInt(cur, 10))
		})
	}
}

// TestKeyJobsSemaphoreExpiresUntouched checks that a semaphore key goes
// away after its last holder's deadline although no command names it
// again: DBSIZE (which counts keys not yet collected) drops to zero.
func TestKeyJobsSemaphoreExpiresUntouched(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, testserver.Shards(shards))
			c := s.UniversalClient(t)
			dbsize := func() int64 {
				n := int64(0)
				for i := 0; i < shards; i++ {
					n += intValue(t, s.ClientOf(t, i), "DBSIZE")
				}
				return n
			}
			tok := intValue(t, c, "SEMAPHORE", "untouched:sem", 3, 60000)
			expect(t, c, tok+1, "SEMAPHORE", "untouched:sem", 3, 150)
			expect(t, c, tok+2, "SEMAPHORE", "untouched:sem", 3, 100)
			// The long holder leaves; the key now lives as long as the
			// 150 ms holder.
			expect(t, c, int64(1), "RELEASE", "untouched:sem", tok)
			ttlIn(t, c, "untouched:sem", 1, 150)
			if n := dbsize(); n != 1 {
				t.Fatalf("DBSIZE %d", n)
			}
			deadline := time.Now().Add(5 * time.Second)
			for dbsize() != 0 {
				if time.Now().After(deadline) {
					t.Fatal("the semaphore key outlived its last holder by seconds")
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// TestKeyJobsContractEdges covers the edges of the contract through
// go-redis on one and four shards: rejections that do not count, binary
// IDEM tokens, INCRBY … MAX past int64, and errors that change nothing.
func TestKeyJobsContractEdges(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		// LIMIT: a rejected call is not counted.
		expect(t, c, int64(0), "LIMIT", "edge:lim", 1, 60000)
		expect(t, c, nil, "LIMIT", "edge:lim", 1, 60000)
		expect(t, c, nil, "LIMIT", "edge:lim", 1, 60000)
		expect(t, c, int64(1), "LIMIT", "edge:lim", 3, 60000)
		// ONCE: a later call does not refresh the TTL.
		expect(t, c, int64(1), "ONCE", "edge:once", 200)
		time.Sleep(50 * time.Millisecond)
		expect(t, c, int64(0), "ONCE", "edge:once", 60000)
		ttlIn(t, c, "edge:once", 1, 150)
		// INCRBY … MAX: a sum above int64 is above the limit.
		expect(t, c, "OK", "SET", "edge:big", "9223372036854775807")
		expect(t, c, nil, "INCRBY", "edge:big", 1, "MAX", "9223372036854775807")
		expect(t, c, "9223372036854775807", "GET", "edge:big")
		// TAKE: a count must be positive; a negative stored value is a
		// shortfall.
		expectErr(t, c, "ERR count must be a positive integer", "TAKE", "edge:big", -1)
		expect(t, c, "OK", "SET", "edge:neg", "-3")
		expect(t, c, nil, "TAKE", "edge:neg", 1)
		expect(t, c, "-3", "GET", "edge:neg")
		// SETV: a mismatch changes neither the value nor the version.
		expect(t, c, int64(1), "SETV", "edge:v", "one")
		expectErr(t, c, "ERR SETV version mismatch", "SETV", "edge:v", "two", 2)
		expect(t, c, "one", "GET", "edge:v")
		expect(t, c, int64(2), "SETV", "edge:v", "two", 1)
		// IDEM: binary tokens and results, compared byte for byte.
		fp, owner, result := "\x00\xff\r\n", "\x00", "\x00\x01\xfe\xff"
		expect(t, c, []interface{}{"acquired"}, "IDEM", "edge:idem", "BEGIN", fp, owner, 60000)
		expect(t, c, []interface{}{"conflict"}, "IDEM", "edge:idem", "BEGIN", "\x00\xff\r", owner, 60000)
		expect(t, c, int64(0), "IDEM", "edge:idem", "COMPLETE", fp, "\x00\x00", result)
		expect(t, c, int64(1), "IDEM", "edge:idem", "COMPLETE", fp, owner, result)
		expect(t, c, []interface{}{"completed", result}, "IDEM", "edge:idem", "BEGIN", fp, "other", 60000)
		expect(t, c, int64(11+len(fp)+len(owner)+len(result)), "STRLEN", "edge:idem")
		// A COMPLETE on a missing key creates nothing.
		expect(t, c, int64(0), "IDEM", "edge:none", "COMPLETE", fp, owner, result)
		expect(t, c, int64(0), "EXISTS", "edge:none")
		// Largest accepted values, and one beyond.
		tok128 := strings.Repeat("t", 128)
		expect(t, c, []interface{}{"acquired"}, "IDEM", "edge:max", "BEGIN", tok128, tok128, 604800000)
		expectErr(t, c, "ERR IDEM result exceeds 4194304 bytes", "IDEM", "edge:max", "COMPLETE", tok128, tok128, strings.Repeat("r", 4194305))
		expect(t, c, []interface{}{"pending"}, "IDEM", "edge:max", "BEGIN", tok128, tok128, 1)
		expect(t, c, int64(1), "IDEM", "edge:max", "COMPLETE", tok128, tok128, strings.Repeat("r", 4194304))
		expect(t, c, int64(11+256+4194304), "STRLEN", "edge:max")
		ttlIn(t, c, "edge:max", 604700000, 604800000)
	})
}
