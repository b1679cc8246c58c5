package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/history"
)

// noRetryCmd is a command go-redis must not resend on its own after a
// connection error or timeout: a resent SET or INCR may apply twice, and
// the history would not show it. Redirections (MOVED, ASK) and
// -READONLY, which say the command did not run, are still followed.
type noRetryCmd struct{ *redis.Cmd }

// NoRetry tells go-redis not to retry the command.
func (noRetryCmd) NoRetry() bool { return true }

// attemptsKey is the context key of an *atomic.Bool that a node client's
// hook sets when one attempt of the request ended in doubt.
type attemptsKey struct{}

// doubtHook marks the request's context when an attempt ends without a
// server reply: a later definite error then cannot prove the request had
// no effect.
type doubtHook struct{}

func (doubtHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (doubtHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err != nil && !definite(err) {
			if b, ok := ctx.Value(attemptsKey{}).(*atomic.Bool); ok {
				b.Store(true)
			}
		}
		return err
	}
}

func (doubtHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// definite reports whether err says for certain what happened: a server's
// error reply (or a null reply), or a failed dial, after which nothing was
// sent.
func definite(err error) bool {
	var re redis.Error
	var oe *net.OpError
	return err == nil || errors.Is(err, redis.Nil) || errors.As(err, &re) || (errors.As(err, &oe) && oe.Op == "dial")
}

// quietLogger drops go-redis's own log lines (a dial refused while a
// process is down is expected; the history records it).
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// clientOpts are the settings of every client of the harness.
type clientOpts struct {
	standalone bool
	ns         string   // namespace the client dials from ("" = the harness's own)
	addrs      []string // seeds (cluster) or the one address (standalone)
	timeout    time.Duration
}

// newClient makes a go-redis client that dials from o.ns. Every request
// gets its own deadline from the caller's context.
func newClient(o clientOpts) redis.UniversalClient {
	if o.standalone {
		return redis.NewClient(&redis.Options{
			Addr: o.addrs[0], Dialer: nsDialer(o.ns), Protocol: 2,
			MaxRetries: -1, DialTimeout: o.timeout, ReadTimeout: o.timeout, WriteTimeout: o.timeout,
			ContextTimeoutEnabled: true, PoolSize: 4,
		})
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: o.addrs, Dialer: nsDialer(o.ns), Protocol: 2,
		MaxRedirects: 3, MaxRetries: -1, DialTimeout: o.timeout, ReadTimeout: o.timeout, WriteTimeout: o.timeout,
		ContextTimeoutEnabled: true, PoolSize: 4,
		// go-redis reloads the slot map on MOVED, else only every minute by
		// default: a dead primary's slots would wait that long.
		ClusterStateReloadInterval: 500 * time.Millisecond,
	})
	c.OnNewNode(func(n *redis.Client) { n.AddHook(doubtHook{}) })
	return c
}

// runner issues one client's operations and records them.
type runner struct {
	id      int
	rec     *history.Recorder
	rdb     redis.UniversalClient
	timeout time.Duration
}

// do runs args as op (whose Kind, Key and inputs the caller set), with its
// own deadline, and records it. It returns the reply and the outcome.
// Once ctx is done it sends nothing and returns Failed.
func (r *runner) do(ctx context.Context, op history.Op, args ...any) (any, history.Outcome) {
	if ctx.Err() != nil {
		// The run is over: issue nothing, record nothing.
		return nil, history.Failed
	}
	op.Client = r.id
	h := r.rec.Invoke(op)
	doubt := new(atomic.Bool)
	rctx, cancel := context.WithTimeout(context.WithValue(ctx, attemptsKey{}, doubt), r.timeout)
	defer cancel()
	cmd := noRetryCmd{redis.NewCmd(rctx, args...)}
	err := r.rdb.Process(rctx, cmd)
	val, err2 := cmd.Result()
	if err == nil {
		err = err2
	}
	outcome := history.OK
	null := errors.Is(err, redis.Nil)
	switch {
	case err == nil || null:
		err = nil
	case definite(err) && !doubt.Load():
		outcome = history.Failed
	default:
		outcome = history.Unknown
		if c, ok := r.rdb.(*redis.ClusterClient); ok {
			// The slot may have a new primary: do not wait for go-redis's
			// periodic reload to find it.
			c.ReloadState(ctx)
		}
	}
	out, result := "", ""
	if outcome == history.OK && !null {
		out, result = replyText(val)
	}
	r.rec.Complete(h, outcome, out, null, result, err)
	return val, outcome
}

// replyText flattens a reply for the history: a string or integer as is;
// an array (IDEM BEGIN) as its first element, with the second as result.
func replyText(v any) (string, string) {
	switch v := v.(type) {
	case string:
		return v, ""
	case int64:
		return strconv.FormatInt(v, 10), ""
	case []any:
		var first, second string
		if len(v) > 0 {
			first, _ = replyText(v[0])
		}
		if len(v) > 1 {
			second, _ = replyText(v[1])
		}
		return first, second
	}
	return fmt.Sprint(v), ""
}

// pingFrom sends one PING to addr from namespace ns on a fresh connection
// and waits at most timeout for PONG.
func pingFrom(ctx context.Context, ns, addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := nsDialer(ns)(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("ping %s from %s: %w", addr, nsLabel(ns), err)
	}
	defer c.Close()
	deadline, _ := ctx.Deadline()
	_ = c.SetDeadline(deadline)
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return fmt.Errorf("ping %s from %s: %w", addr, nsLabel(ns), err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("ping %s from %s: %w", addr, nsLabel(ns), err)
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("ping %s from %s: got %q", addr, nsLabel(ns), line)
	}
	return nil
}

func nsLabel(ns string) string {
	if ns == "" {
		return "the root namespace"
	}
	return ns
}

// isTimeout reports whether err is a timeout (as a partition or a stopped
// process causes) rather than a refusal.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
