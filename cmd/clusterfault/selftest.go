package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// selftest checks the harness's own mechanics against a standalone primary
// (n1 on the first host) and its replica (n2 on the second): reachability
// from the hub and from inside the hosts, replication across the bridge,
// that a partition makes PING time out from outside but not from inside,
// that SIGSTOP makes it time out and SIGCONT restores it, and that SIGKILL
// refuses connections and a restart brings the data back. Cleanup is
// checked by run's caller (the namespaces are gone afterwards).
func (e *env) selftest(ctx context.Context) error {
	prim, repl := e.procs[0], e.procs[1]
	hub, h1, h3 := e.net.hub, e.net.hosts[0].ns, e.net.hosts[2].ns
	failures := 0
	step := func(name string, err error) {
		if err != nil {
			failures++
			e.logf("selftest FAIL %s: %v", name, err)
			return
		}
		e.logf("selftest ok   %s", name)
	}
	expectTimeout := func(ns, addr string) error {
		err := pingFrom(ctx, ns, addr, time.Second)
		switch {
		case err == nil:
			return errors.New("PING answered")
		case !isTimeout(err):
			return fmt.Errorf("want a timeout, got %w", err)
		}
		return nil
	}

	step("ping primary from hub", pingFrom(ctx, hub, prim.addr(), time.Second))
	step("ping primary from host 3", pingFrom(ctx, h3, prim.addr(), time.Second))
	step("ping primary from inside host 1", pingFrom(ctx, h1, prim.addr(), time.Second))
	step("ping replica from hub", pingFrom(ctx, hub, repl.addr(), time.Second))

	c := newClient(clientOpts{standalone: true, ns: hub, addrs: []string{prim.addr()}, timeout: 2 * time.Second})
	defer c.Close()
	rc := newClient(clientOpts{standalone: true, ns: hub, addrs: []string{repl.addr()}, timeout: 2 * time.Second})
	defer rc.Close()
	set := func(v string) error {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return c.Set(rctx, "selftest", v, 0).Err()
	}
	get := func(cl redis.UniversalClient) (string, error) {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return cl.Get(rctx, "selftest").Result()
	}
	step("SET on primary", set("v1"))
	step("replica receives the write", eventually(ctx, 10*time.Second, func() error {
		v, err := get(rc)
		if err == nil && v != "v1" {
			err = fmt.Errorf("replica has %q", v)
		}
		return err
	}))

	step("partition host 1", e.net.isolate(ctx, 0))
	step("partitioned: PING from hub times out", expectTimeout(hub, prim.addr()))
	step("partitioned: PING from host 3 times out", expectTimeout(h3, prim.addr()))
	step("partitioned: PING from inside host 1 answers", pingFrom(ctx, h1, prim.addr(), time.Second))
	step("partitioned: replica on host 2 still answers", pingFrom(ctx, hub, repl.addr(), time.Second))
	step("heal host 1", e.net.heal(ctx, 0))
	step("healed: PING from hub answers", pingFrom(ctx, hub, prim.addr(), time.Second))
	step("heal is idempotent", e.net.heal(ctx, 0))

	step("SIGSTOP primary", prim.signal(syscall.SIGSTOP))
	step("stopped: PING times out", expectTimeout(hub, prim.addr()))
	step("SIGCONT primary", prim.signal(syscall.SIGCONT))
	step("continued: PING answers", eventually(ctx, 5*time.Second, func() error {
		return pingFrom(ctx, hub, prim.addr(), time.Second)
	}))

	step("SET before kill", set("v2"))
	step("SIGKILL primary", prim.kill())
	step("killed: connection refused", func() error {
		err := pingFrom(ctx, hub, prim.addr(), time.Second)
		if err == nil || isTimeout(err) || !strings.Contains(err.Error(), "refused") {
			return fmt.Errorf("want connection refused, got %v", err)
		}
		return nil
	}())
	step("restart primary", prim.start(e.bin))
	step("restarted: the acknowledged write survived", eventually(ctx, 15*time.Second, func() error {
		v, err := get(c)
		if err == nil && v != "v2" {
			err = fmt.Errorf("got %q", v)
		}
		return err
	}))

	// healAll must resume a stopped process and restart a dead one.
	step("SIGSTOP replica", repl.signal(syscall.SIGSTOP))
	step("SIGKILL primary again", prim.kill())
	step("healAll", e.healAll(ctx))
	step("after healAll: both answer", waitPing(ctx, e.net, e.procs, 15*time.Second))

	if failures > 0 {
		return fmt.Errorf("%w: %d selftest step(s) failed", errChecksFailed, failures)
	}
	e.logf("selftest: all steps passed")
	return nil
}

// eventually retries f, pausing between tries, until it succeeds or total
// has passed; each try makes its own deadlines.
func eventually(ctx context.Context, total time.Duration, f func() error) error {
	end := time.Now().Add(total)
	for {
		err := f()
		if err == nil || time.Now().After(end) || ctx.Err() != nil {
			return err
		}
		sleepCtx(ctx, 200*time.Millisecond)
	}
}

// leftovers lists namespaces whose names start with tag (after cleanup:
// none should).
func leftovers(tag string) ([]string, error) {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return nil, fmt.Errorf("ip netns list: %w", err)
	}
	var left []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], tag+"-") {
			left = append(left, f[0])
		}
	}
	return left, nil
}
