package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// The faults the schedule knows.
const (
	faultKill      = "kill"      // SIGKILL a primary, restart it after downFor
	faultStop      = "stop"      // SIGSTOP a primary past node_timeout, then SIGCONT
	faultPartition = "partition" // isolate the host of a primary, heal after downFor
)

// faultRecord is one injected fault and what came of it.
type faultRecord struct {
	kind     string
	target   string // member name
	host     string
	group    string // the group's id (first slot range)
	oldAddr  string
	injected time.Duration // on the recorder's clock
	healed   time.Duration
	newPrim  string
	// recovery: from injection to the first acknowledged probe write on
	// the group invoked after it; -1 when none came.
	recovery time.Duration
	err      error
}

// faultPlan is how long each fault lasts and how long the cluster gets
// to settle after it.
func (e *env) faultPlan(kind string) (hold, settle time.Duration) {
	switch kind {
	case faultStop:
		if e.standalone {
			return 3 * time.Second, 3 * time.Second
		}
		return e.opts.nodeTimeout + 3*time.Second, 5 * time.Second
	default:
		return e.opts.downFor, 5 * time.Second
	}
}

// pickTarget chooses the n-th fault's victim: the current primary of
// group n mod groups, as the cluster reports it. Adjust here to aim
// faults differently (replicas, the raft leader, two groups at once).
func (e *env) pickTarget(ctx context.Context, n int) (*proc, group, error) {
	groups, err := discoverGroups(ctx, e)
	if err != nil {
		return nil, group{}, err
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].slots[0][0] < groups[j].slots[0][0] })
	g := groups[n%len(groups)]
	p := e.procAt(g.primary)
	if p == nil {
		return nil, g, fmt.Errorf("group %s: primary %q is no process of this run", g.id, g.primary)
	}
	if p.pid() == 0 {
		return nil, g, fmt.Errorf("group %s: %w", g.id, errNotRunning)
	}
	return p, g, nil
}

// runFaults injects faults from kinds, in turn, from warmup on, while a
// whole fault (hold and settle) still fits before ctx ends. Every fault is
// undone before the next starts, and before runFaults returns.
func (e *env) runFaults(ctx context.Context, kinds []string, end time.Time) []faultRecord {
	var recs []faultRecord
	sleepCtx(ctx, e.opts.warmup)
	for n := 0; ctx.Err() == nil && len(kinds) > 0; n++ {
		kind := kinds[n%len(kinds)]
		hold, settle := e.faultPlan(kind)
		if time.Until(end) < hold+settle {
			break
		}
		p, g, err := e.pickTarget(ctx, n)
		rec := faultRecord{kind: kind, group: g.id, oldAddr: g.primary, recovery: -1}
		if err != nil {
			rec.err = err
			recs = append(recs, rec)
			e.logf("fault %d (%s): no target: %v", n+1, kind, err)
			sleepCtx(ctx, settle)
			continue
		}
		rec.target, rec.host = p.name, p.ns
		e.logf("fault %d: %s %s (primary of %s on %s)", n+1, kind, p.name, g.id, p.ns)
		switch kind {
		case faultKill:
			rec.err = p.kill()
		case faultStop:
			rec.err = p.signal(syscall.SIGSTOP)
		case faultPartition:
			rec.err = e.net.isolate(ctx, p.hostIdx)
		}
		// Stamped once the fault is in effect (the process has exited, the
		// rules are loaded): a probe write acknowledged before then is no
		// recovery.
		rec.injected = e.rec.Now()
		sleepCtx(ctx, hold)
		// Undo with a fresh context: a cancelled run must not leave it.
		if err := e.undo(context.Background(), kind, p); err != nil && rec.err == nil {
			rec.err = err
		}
		rec.healed = e.rec.Now()
		e.logf("fault %d: healed after %v", n+1, (rec.healed - rec.injected).Round(time.Millisecond))
		recs = append(recs, rec)
		sleepCtx(ctx, settle)
	}
	return recs
}

// undo reverses one fault.
func (e *env) undo(ctx context.Context, kind string, p *proc) error {
	switch kind {
	case faultKill:
		return p.start(e.bin)
	case faultStop:
		return p.signal(syscall.SIGCONT)
	case faultPartition:
		return e.net.heal(ctx, p.hostIdx)
	}
	return nil
}

// healAll undoes anything a fault may have left (after an error or a
// cancelled run): heals every host and resumes every process.
func (e *env) healAll(ctx context.Context) error {
	var errs []error
	for i := range e.net.hosts {
		if err := e.net.heal(ctx, i); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range e.procs {
		if err := p.resume(e.bin); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("heal: %v", errs)
	}
	return nil
}

// probe writes to one key of a group every probeEvery, each write with
// its own short deadline, and keeps the times of the acknowledged ones.
type probe struct {
	g   group
	key string

	mu   sync.Mutex // mu guards acks
	acks []time.Duration
}

const probeEvery = 20 * time.Millisecond

// runProbes starts a probe per group; they stop when ctx is done.
func (e *env) runProbes(ctx context.Context, groups []group) ([]*probe, *sync.WaitGroup) {
	var wg sync.WaitGroup
	var probes []*probe
	for _, g := range groups {
		pr := &probe{g: g, key: keyIn(g, "probe")}
		probes = append(probes, pr)
		rdb := newClient(clientOpts{standalone: e.plain, ns: e.net.hub, addrs: e.seeds(), timeout: 300 * time.Millisecond})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer rdb.Close()
			for i := 0; ctx.Err() == nil; i++ {
				call := e.rec.Now()
				rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
				cmd := noRetryCmd{redis.NewCmd(rctx, "SET", pr.key, i)}
				err := rdb.Process(rctx, cmd)
				cancel()
				if err == nil {
					pr.mu.Lock()
					pr.acks = append(pr.acks, call)
					pr.mu.Unlock()
				} else if c, ok := rdb.(*redis.ClusterClient); ok {
					c.ReloadState(ctx)
				}
				sleepCtx(ctx, probeEvery)
			}
		}()
	}
	return probes, &wg
}

// measureRecovery fills in each fault's recovery time from the probes:
// the first acknowledged write to its group invoked after the injection.
func measureRecovery(recs []faultRecord, probes []*probe) {
	for i := range recs {
		for _, pr := range probes {
			if pr.g.id != recs[i].group {
				continue
			}
			pr.mu.Lock()
			j, _ := slices.BinarySearch(pr.acks, recs[i].injected)
			if j < len(pr.acks) {
				recs[i].recovery = pr.acks[j] - recs[i].injected
			}
			pr.mu.Unlock()
		}
	}
}

// recoveryStats returns the median and worst recovery of the faults that
// recovered, and how many did not.
func recoveryStats(recs []faultRecord) (median, worst time.Duration, missing int) {
	var ds []time.Duration
	for _, r := range recs {
		if r.err != nil && r.target == "" {
			continue
		}
		if r.recovery < 0 {
			missing++
			continue
		}
		ds = append(ds, r.recovery)
	}
	if len(ds) == 0 {
		return -1, -1, missing
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)-1], missing
}
