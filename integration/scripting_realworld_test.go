package integration_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Scripts of the kind lock, rate-limit and queue libraries ship (written
// here; the data types they use are strings only, as lists, sets and
// sorted sets do not exist yet).
var (
	// Redlock-style release and extend: only the owner's token acts.
	lockRelease = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`)
	lockExtend  = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`)
	// Fixed-window rate limiter: {allowed, remaining or retry-after ms}.
	rateLimit = redis.NewScript(`
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if c > tonumber(ARGV[1]) then return {0, redis.call('PTTL', KEYS[1])} end
return {1, tonumber(ARGV[1]) - c}`)
	// Token bucket whose state is a JSON document (cjson), refilled from
	// the caller's clock as such libraries do.
	tokenBucket = redis.NewScript(`
local cap, rate, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local raw = redis.call('GET', KEYS[1])
local st = raw and cjson.decode(raw) or {tokens = cap, ts = now}
st.tokens = math.min(cap, st.tokens + (now - st.ts) * rate)
st.ts = now
local ok = 0
if st.tokens >= 1 then st.tokens = st.tokens - 1; ok = 1 end
redis.call('SET', KEYS[1], cjson.encode(st), 'PX', 60000)
return ok`)
	// Job id allocation and idempotent enqueue marker, as queue libraries
	// do before pushing a job.
	addJob = redis.NewScript(`
if ARGV[1] ~= "" and redis.call('EXISTS', KEYS[2] .. ARGV[1]) == 1 then return redis.error_reply('ERR duplicate job ' .. ARGV[1]) end
local id = ARGV[1] ~= "" and ARGV[1] or tostring(redis.call('INCR', KEYS[1]))
redis.call('SET', KEYS[2] .. id, ARGV[2])
return id`)
)

// TestRealWorldScripts exercises lock, rate-limit, token-bucket and
// job-id scripts the way client libraries load them (EVALSHA with EVAL on
// NOSCRIPT, go-redis's Script.Run) under concurrency.
func TestRealWorldScripts(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)

	// Locks.
	if ok := c.SetNX(ctxT(t), "lock:a", "tok1", 0).Val(); !ok {
		t.Fatal("SETNX lock")
	}
	if n := lockRelease.Run(ctxT(t), c, []string{"lock:a"}, "other").Val(); n != int64(0) {
		t.Fatalf("release by a non-owner: %v", n)
	}
	if n := lockExtend.Run(ctxT(t), c, []string{"lock:a"}, "tok1", 5000).Val(); n != int64(1) {
		t.Fatalf("extend by the owner: %v", n)
	}
	if ttl := c.PTTL(ctxT(t), "lock:a").Val(); ttl <= 0 {
		t.Fatalf("extended lock has no TTL: %v", ttl)
	}
	if n := lockRelease.Run(ctxT(t), c, []string{"lock:a"}, "tok1").Val(); n != int64(1) {
		t.Fatalf("release by the owner: %v", n)
	}

	// Rate limiter: exactly 100 of 400 concurrent requests pass.
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				r, err := rateLimit.Run(ctxT(t), c, []string{"rl:user1"}, 100, 60000).Slice()
				if err != nil {
					t.Error(err)
					return
				}
				if r[0].(int64) == 1 {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != 100 {
		t.Fatalf("rate limiter let %d requests through, want 100", allowed.Load())
	}

	// Token bucket: capacity 5, no refill at a fixed clock.
	got := 0
	for i := 0; i < 8; i++ {
		n, err := tokenBucket.Run(ctxT(t), c, []string{"tb:x"}, 5, 1, 1000).Int()
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	if got != 5 {
		t.Fatalf("token bucket granted %d, want 5", got)
	}
	if n, _ := tokenBucket.Run(ctxT(t), c, []string{"tb:x"}, 5, 1, 1003).Int(); n != 1 {
		t.Fatal("token bucket did not refill")
	}

	// Job ids: concurrent adds get distinct ids; a duplicate custom id is refused.
	ids := sync.Map{}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				id, err := addJob.Run(ctxT(t), c, []string{"q:id", "q:job:"}, "", fmt.Sprint(w, i)).Text()
				if err != nil {
					t.Error(err)
					return
				}
				if _, dup := ids.LoadOrStore(id, true); dup {
					t.Errorf("job id %s given twice", id)
				}
			}
		}()
	}
	wg.Wait()
	if _, err := addJob.Run(ctxT(t), c, []string{"q:id", "q:job:"}, "custom", "x").Result(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "duplicate job", addJob.Run(ctxT(t), c, []string{"q:id", "q:job:"}, "custom", "x").Err(), "ERR duplicate job custom")
}
