// Package client is Ruvio's Go SDK: typed helpers for the native key-job
// commands (LEASE/RELEASE, SEMAPHORE, SETV, LIMIT, CL.THROTTLE, ONCE, TAKE,
// INCRBY … MAX, GETEX, IDEM, CHANGES) on top of go-redis v9.
//
// A Client wraps any go-redis UniversalClient. With a *redis.ClusterClient
// seeded with one address, every keyed helper goes straight to the shard
// that owns its key, since the key is always the command's first argument.
// CHANGES is per shard and names no key, so its helpers take the client of
// one shard.
//
// Helpers return go-redis errors unchanged (server errors are
// redis.Error values); a "no" answer from the server (a null or 0 reply)
// is reported through the ok result, not as an error. Nothing is retried
// automatically: a lost reply to a write is ambiguous, and the caller
// decides.
package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Client sends the native commands through a go-redis client.
type Client struct {
	rdb redis.UniversalClient
}

// New wraps rdb, a *redis.Client, *redis.ClusterClient or *redis.Ring.
func New(rdb redis.UniversalClient) *Client { return &Client{rdb: rdb} }

// NewCluster connects to a Ruvio server through one seed address and routes
// every key to its owner shard. The server must answer as a cluster (more
// than one shard, or cluster.enabled = true); a one-shard server is
// standalone by default: wrap a redis.Client, or the client
// redis.NewUniversalClient returns for its address, with New.
func NewCluster(seed string) *Client {
	return New(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{seed}}))
}

// Redis returns the underlying go-redis client.
func (c *Client) Redis() redis.UniversalClient { return c.rdb }

// Close closes the underlying client.
func (c *Client) Close() error { return c.rdb.Close() }

// ms converts a duration to whole milliseconds for the wire.
func ms(d time.Duration) int64 { return d.Milliseconds() }

// optInt runs a command whose reply is an integer or a null bulk.
func (c *Client) optInt(ctx context.Context, args ...any) (int64, bool, error) {
	n, err := c.rdb.Do(ctx, args...).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return n, true, nil
}

// boolInt runs a command whose reply is 1 or 0.
func (c *Client) boolInt(ctx context.Context, args ...any) (bool, error) {
	n, err := c.rdb.Do(ctx, args...).Int64()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// Lease tries to take the lease at key for ttl. ok is false while someone
// else holds it. The token counts up for as long as the key exists, so it
// can fence writes made under the lease.
func (c *Client) Lease(ctx context.Context, key string, ttl time.Duration) (token int64, ok bool, err error) {
	return c.optInt(ctx, "LEASE", key, ms(ttl))
}

// Release drops the lease or semaphore holder at key when token matches;
// false when it does not (or the hold already expired).
func (c *Client) Release(ctx context.Context, key string, token int64) (bool, error) {
	return c.boolInt(ctx, "RELEASE", key, token)
}

// Semaphore takes one of max slots at key for ttl. ok is false when max
// holders are live.
func (c *Client) Semaphore(ctx context.Context, key string, max int64, ttl time.Duration) (token int64, ok bool, err error) {
	return c.optInt(ctx, "SEMAPHORE", key, max, ms(ttl))
}

// SetV writes a versioned string. version 0 creates the key (version 1)
// and fails if it exists; otherwise version must be the current one. It
// returns the new version; a mismatch is a server error.
func (c *Client) SetV(ctx context.Context, key string, value []byte, version int64) (int64, error) {
	if version == 0 {
		return c.rdb.Do(ctx, "SETV", key, value).Int64()
	}
	return c.rdb.Do(ctx, "SETV", key, value, version).Int64()
}

// Limit counts one call in the fixed window at key (max calls per window).
// It returns the remaining allowance; ok is false when the window is full.
func (c *Client) Limit(ctx context.Context, key string, max int64, window time.Duration) (remaining int64, ok bool, err error) {
	return c.optInt(ctx, "LIMIT", key, max, ms(window))
}

// ThrottleResult is CL.THROTTLE's reply.
type ThrottleResult struct {
	Limited   bool  // the call was refused
	Limit     int64 // max_burst + 1 (X-RateLimit-Limit)
	Remaining int64 // calls left now (X-RateLimit-Remaining)
	// RetryAfter is when to retry (Retry-After), in whole seconds rounded
	// up; -1 s when the call was admitted, or can never be.
	RetryAfter time.Duration
	// ResetAfter is when the limiter is full again (X-RateLimit-Reset), in
	// whole seconds rounded up.
	ResetAfter time.Duration
}

// Throttle counts quantity calls against the GCRA limiter at key: count
// calls per period seconds after a burst of up to maxBurst+1 (redis-cell's
// CL.THROTTLE). Quantity 0 looks without counting.
func (c *Client) Throttle(ctx context.Context, key string, maxBurst, count, periodSeconds, quantity int64) (ThrottleResult, error) {
	v, err := c.rdb.Do(ctx, "CL.THROTTLE", key, maxBurst, count, periodSeconds, quantity).Int64Slice()
	if err != nil {
		return ThrottleResult{}, err
	}
	if len(v) != 5 {
		return ThrottleResult{}, fmt.Errorf("client: CL.THROTTLE replied %d integers, want 5", len(v))
	}
	return ThrottleResult{Limited: v[0] == 1, Limit: v[1], Remaining: v[2],
		RetryAfter: time.Duration(v[3]) * time.Second, ResetAfter: time.Duration(v[4]) * time.Second}, nil
}

// Once reports whether this is the first call at key within ttl.
func (c *Client) Once(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	return c.boolInt(ctx, "ONCE", key, ms(ttl))
}

// Take subtracts count from the integer at key when it holds at least that
// much. ok is false for a missing key or a shortfall.
func (c *Client) Take(ctx context.Context, key string, count int64) (remaining int64, ok bool, err error) {
	return c.optInt(ctx, "TAKE", key, count)
}

// IncrByMax adds n to the integer at key only when the result stays at or
// below limit. ok is false when it would not.
func (c *Client) IncrByMax(ctx context.Context, key string, n, limit int64) (value int64, ok bool, err error) {
	return c.optInt(ctx, "INCRBY", key, n, "MAX", limit)
}

// GetEx returns the string at key and moves its deadline to now plus ttl.
// ok is false for a missing key.
func (c *Client) GetEx(ctx context.Context, key string, ttl time.Duration) ([]byte, bool, error) {
	b, err := c.rdb.Do(ctx, "GETEX", key, ms(ttl)).Text()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return []byte(b), true, nil
}

// IdemState is the outcome of IDEM BEGIN.
type IdemState string

// IDEM BEGIN outcomes.
const (
	// IdemAcquired: this attempt owns a new pending record; run the
	// operation once, then call IdemComplete.
	IdemAcquired IdemState = "acquired"
	// IdemPending: the same operation is in progress (or its owner died
	// before completing). Do not run it again.
	IdemPending IdemState = "pending"
	// IdemConflict: the key is used by a different request fingerprint.
	IdemConflict IdemState = "conflict"
	// IdemCompleted: the operation completed; replay the result.
	IdemCompleted IdemState = "completed"
)

// IdemBegin starts or probes the idempotency record at key. fingerprint
// and owner are 1-128 opaque bytes; ttl is the retention (1 ms to 7 days),
// which nothing extends. result is set for IdemCompleted.
func (c *Client) IdemBegin(ctx context.Context, key string, fingerprint, owner []byte, ttl time.Duration) (state IdemState, result []byte, err error) {
	v, err := c.rdb.Do(ctx, "IDEM", key, "BEGIN", fingerprint, owner, ms(ttl)).Slice()
	if err != nil {
		return "", nil, err
	}
	if len(v) == 0 {
		return "", nil, errors.New("client: IDEM BEGIN returned an empty array")
	}
	s, _ := v[0].(string)
	switch st := IdemState(s); st {
	case IdemAcquired, IdemPending, IdemConflict:
		return st, nil, nil
	case IdemCompleted:
		if len(v) != 2 {
			return "", nil, fmt.Errorf("client: IDEM BEGIN completed reply has %d elements", len(v))
		}
		r, _ := v[1].(string)
		return st, []byte(r), nil
	}
	return "", nil, fmt.Errorf("client: IDEM BEGIN returned unknown state %q", s)
}

// IdemComplete publishes result for the pending record at key owned by
// owner. It returns true when the result is saved (or an identical result
// already was), false for a missing or expired record, a different owner
// or fingerprint, or a different result already saved.
func (c *Client) IdemComplete(ctx context.Context, key string, fingerprint, owner, result []byte) (bool, error) {
	return c.boolInt(ctx, "IDEM", key, "COMPLETE", fingerprint, owner, result)
}

// Change is one note of a shard's CHANGES feed.
type Change struct {
	Cursor  int64
	Command string // SET, SETV, LEASE or RELEASE
	Key     string
	// Detail is the version (SETV) or token (LEASE, RELEASE); HasDetail
	// is false for SET.
	Detail    int64
	HasDetail bool
}

// ChangesStart arms the CHANGES feed of the shard node is connected to and
// returns its current cursor.
func ChangesStart(ctx context.Context, node *redis.Client) (int64, error) {
	return node.Do(ctx, "CHANGES", "START").Int64()
}

// Changes returns up to 1024 notes after cursor from the shard node is
// connected to. An error saying the cursor fell out of the buffer (or the
// feed is not started, as after a restart) means the consumer must resync
// and call ChangesStart again.
func Changes(ctx context.Context, node *redis.Client, cursor int64) ([]Change, error) {
	v, err := node.Do(ctx, "CHANGES", cursor).Slice()
	if err != nil {
		return nil, err
	}
	out := make([]Change, 0, len(v))
	for _, n := range v {
		f, ok := n.([]any)
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("client: malformed CHANGES note %#v", n)
		}
		ch := Change{}
		ch.Cursor, _ = f[0].(int64)
		ch.Command, _ = f[1].(string)
		ch.Key, _ = f[2].(string)
		ch.Detail, ch.HasDetail = f[3].(int64)
		out = append(out, ch)
	}
	return out, nil
}
