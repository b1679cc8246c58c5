package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ruvio/ruvio/internal/history"
)

// Workload key spaces. Register keys are shared by every client (the
// linearizability check); durable keys are written once each with a
// unique value (the durability check, exact by construction).
const (
	regKeys     = 5
	counterKeys = 2
	leaseKeys   = 2
	streamKeys  = 2
	idemKeys    = 10 // per window; the window moves every idemWindow
	idemWindow  = 5 * time.Second
	leaseTTL    = 1000 * time.Millisecond
	idemTTL     = 10 * time.Minute // longer than any run: an acquire never expires
)

// worker is one workload client.
type worker struct {
	*runner
	rng *rand.Rand
	seq int
}

func (w *worker) unique() string {
	w.seq++
	return fmt.Sprintf("c%d-%d", w.id, w.seq)
}

// step runs one randomly chosen operation (or a short LEASE/RELEASE or
// IDEM BEGIN/COMPLETE sequence) and returns the last one's outcome.
func (w *worker) step(ctx context.Context, start time.Time) history.Outcome {
	var out history.Outcome
	switch r := w.rng.IntN(100); {
	case r < 35:
		k := "r:" + strconv.Itoa(w.rng.IntN(regKeys))
		if w.rng.IntN(2) == 0 {
			v := w.unique()
			_, out = w.do(ctx, history.Op{Kind: history.KindSet, Key: k, Value: v}, "SET", k, v)
		} else {
			_, out = w.do(ctx, history.Op{Kind: history.KindGet, Key: k}, "GET", k)
		}
	case r < 45:
		k := "c:" + strconv.Itoa(w.rng.IntN(counterKeys))
		if w.rng.IntN(10) < 7 {
			_, out = w.do(ctx, history.Op{Kind: history.KindIncr, Key: k}, "INCR", k)
		} else {
			_, out = w.do(ctx, history.Op{Kind: history.KindGet, Key: k}, "GET", k)
		}
	case r < 60:
		v := w.unique()
		k := "d:" + v
		_, out = w.do(ctx, history.Op{Kind: history.KindSet, Key: k, Value: v}, "SET", k, v)
	case r < 70:
		k := "l:" + strconv.Itoa(w.rng.IntN(leaseKeys))
		var reply any
		reply, out = w.do(ctx, history.Op{Kind: history.KindLease, Key: k, TTL: leaseTTL},
			"LEASE", k, leaseTTL.Milliseconds())
		tok, granted := reply.(int64)
		if out != history.OK || !granted {
			return out
		}
		sleepCtx(ctx, time.Duration(20+w.rng.IntN(60))*time.Millisecond)
		t := strconv.FormatInt(tok, 10)
		_, out = w.do(ctx, history.Op{Kind: history.KindRelease, Key: k, Value: t}, "RELEASE", k, t)
	case r < 85:
		window := int(time.Since(start) / idemWindow)
		k := fmt.Sprintf("i:%d:%d", window, w.rng.IntN(idemKeys))
		owner := w.unique()
		var reply any
		reply, out = w.do(ctx, history.Op{Kind: history.KindIdemBegin, Key: k, Value: "fp", Owner: owner, TTL: idemTTL},
			"IDEM", k, "BEGIN", "fp", owner, idemTTL.Milliseconds())
		if state, _ := replyText(reply); out != history.OK || state != "acquired" {
			return out
		}
		res := "r-" + owner
		_, out = w.do(ctx, history.Op{Kind: history.KindIdemComplete, Key: k, Value: "fp", Owner: owner, Result: res},
			"IDEM", k, "COMPLETE", "fp", owner, res)
	default:
		k := "s:" + strconv.Itoa(w.rng.IntN(streamKeys))
		v := w.unique()
		_, out = w.do(ctx, history.Op{Kind: history.KindXAdd, Key: k, Value: v}, "XADD", k, "*", "v", v)
	}
	return out
}

// sleepCtx sleeps d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// clientHomes lists the namespace each workload client dials from: most
// from the hub, one from inside each host, so a partitioned host keeps a
// client on its side.
func (e *env) clientHomes() []string {
	var homes []string
	for range e.opts.clients {
		homes = append(homes, e.net.hub)
	}
	for _, h := range e.net.hosts {
		homes = append(homes, h.ns)
	}
	return homes
}

// seeds are the addresses a client is given: every member (cluster), or
// the primary (standalone).
func (e *env) seeds() []string {
	if e.standalone {
		return []string{e.procs[0].addr()}
	}
	var a []string
	for _, p := range e.procs {
		a = append(a, p.addr())
	}
	return a
}

// runWorkload runs the clients until ctx is done.
func (e *env) runWorkload(ctx context.Context) {
	start := time.Now()
	var wg sync.WaitGroup
	for i, home := range e.clientHomes() {
		rdb := newClient(clientOpts{standalone: e.plain, ns: home, addrs: e.seeds(), timeout: e.opts.opTimeout})
		w := &worker{
			runner: &runner{id: i, rec: e.rec, rdb: rdb, timeout: e.opts.opTimeout},
			rng:    rand.New(rand.NewPCG(e.opts.seed, uint64(i))),
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer rdb.Close()
			for ctx.Err() == nil {
				pause := 5 * time.Millisecond // pace: the history stays small enough to check
				if w.step(ctx, start) == history.Unknown {
					// Back off while the server is unreachable: every
					// unknown write stays open to the end of the history
					// and makes the linearizability search harder.
					pause = 200 * time.Millisecond
				}
				sleepCtx(ctx, pause)
			}
		}()
	}
	wg.Wait()
}

// finalRead reads back every key the workload wrote, from the hub, after
// the faults are healed. Each key is tried a few times, each try with its
// own deadline; a key never read is skipped by the checkers. The reads are
// recorded too, so the linearizability check sees them.
func (e *env) finalRead(ctx context.Context) history.Final {
	final := history.Final{Values: map[string]history.Read{}, Streams: map[string][]history.Entry{}}
	rdb := newClient(clientOpts{standalone: e.plain, ns: e.net.hub, addrs: e.seeds(), timeout: 2 * time.Second})
	defer rdb.Close()
	r := &runner{id: len(e.clientHomes()), rec: e.rec, rdb: rdb, timeout: 2 * time.Second}
	keys, streams := map[string]bool{}, map[string]bool{}
	for _, op := range e.rec.Ops() {
		switch op.Kind {
		case history.KindSet, history.KindIncr:
			keys[op.Key] = true
		case history.KindXAdd:
			streams[op.Key] = true
		}
	}
	// Bounded as a whole: a group that stays unavailable would otherwise
	// cost every one of its keys five timeouts.
	end := time.Now().Add(90 * time.Second)
	for _, k := range sortedKeys(keys) {
		for try := 0; try < 5 && ctx.Err() == nil && time.Now().Before(end); try++ {
			reply, out := r.do(ctx, history.Op{Kind: history.KindGet, Key: k}, "GET", k)
			if out == history.OK {
				s, _ := reply.(string)
				final.Values[k] = history.Read{Value: s, Nil: reply == nil}
				break
			}
			sleepCtx(ctx, 200*time.Millisecond)
		}
	}
	for _, k := range sortedKeys(streams) {
		for try := 0; try < 5 && ctx.Err() == nil && time.Now().Before(end); try++ {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			msgs, err := rdb.XRange(rctx, k, "-", "+").Result()
			cancel()
			if err == nil {
				entries := []history.Entry{}
				for _, m := range msgs {
					v, _ := m.Values["v"].(string)
					entries = append(entries, history.Entry{ID: m.ID, Value: v})
				}
				final.Streams[k] = entries
				break
			}
			sleepCtx(ctx, 200*time.Millisecond)
		}
	}
	final.Unread = len(keys) + len(streams) - len(final.Values) - len(final.Streams)
	return final
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countsText renders the per-kind outcome counts.
func countsText(c history.Counts) string {
	kinds := make([]string, 0, len(c))
	for k := range c {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	var b strings.Builder
	total := [3]int{}
	for _, k := range kinds {
		n := c[history.Kind(k)]
		fmt.Fprintf(&b, "  %-14s ok %6d  failed %5d  unknown %5d\n", k, n[0], n[1], n[2])
		for i := range total {
			total[i] += n[i]
		}
	}
	fmt.Fprintf(&b, "  %-14s ok %6d  failed %5d  unknown %5d\n", "total", total[0], total[1], total[2])
	return b.String()
}
