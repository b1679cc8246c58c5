package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/cluster"
)

// Slot migrations under the faults: while the workload and the faults run,
// the harness moves random slot ranges between groups with `ruvio cluster
// migrate`, from the hub. A migration may commit or abort (a fault in its
// way aborts it); either is fine. What must hold afterwards is checked by
// the history checks (no acknowledged write lost, linearizable) and by
// strayKeys: no member holds a key of a slot its group does not own, and
// the groups cover every slot (waitGroups).

// migrationRecord is one migration the harness asked for.
type migrationRecord struct {
	at      time.Duration // since the workload began
	slots   [2]int
	from    string // group ids as discoverGroups names them
	to      string
	outcome string // "committed", "aborted" or "error: …"
	took    time.Duration
}

// runMigrations moves ranges until ctx ends, never one holding a slot of
// keep (the probes' keys: recovery is measured per group).
func (e *env) runMigrations(ctx context.Context, began time.Time, keep []int) []migrationRecord {
	rng := rand.New(rand.NewPCG(e.opts.seed, 27))
	var recs []migrationRecord
	sleepCtx(ctx, e.opts.warmup/2)
	for ctx.Err() == nil {
		groups, err := discoverGroups(ctx, e)
		if err != nil || len(groups) < 2 {
			sleepCtx(ctx, time.Second)
			continue
		}
		sort.Slice(groups, func(i, j int) bool { return groups[i].slots[0][0] < groups[j].slots[0][0] })
		src := groups[rng.IntN(len(groups))]
		dst := groups[rng.IntN(len(groups))]
		if src.id == dst.id || dst.primary == "" {
			continue
		}
		total := 0
		for _, r := range src.slots {
			total += r[1] - r[0] + 1
		}
		r := src.slots[rng.IntN(len(src.slots))]
		n := min(r[1]-r[0]+1, 16+rng.IntN(240), total-1)
		if n < 1 {
			continue
		}
		lo := r[0] + rng.IntN(r[1]-r[0]+2-n)
		if slices.ContainsFunc(keep, func(s int) bool { return lo <= s && s <= lo+n-1 }) {
			continue
		}
		to := e.procAt(dst.primary)
		if to == nil {
			continue
		}
		rec := migrationRecord{at: time.Since(began), slots: [2]int{lo, lo + n - 1}, from: src.id, to: dst.id}
		start := time.Now()
		rec.outcome = e.migrate(ctx, lo, lo+n-1, to.name)
		rec.took = time.Since(start)
		if ctx.Err() != nil && strings.HasPrefix(rec.outcome, "error") {
			break
		}
		recs = append(recs, rec)
		e.logf("migration of slots %d-%d to %s: %s in %v", lo, lo+n-1, to.name, rec.outcome, rec.took.Round(time.Millisecond))
		sleepCtx(ctx, time.Second+time.Duration(rng.IntN(1000))*time.Millisecond)
	}
	return recs
}

// migrate runs `ruvio cluster migrate` in the hub against the first
// running member's control port and reports the outcome.
func (e *env) migrate(ctx context.Context, lo, hi int, toMember string) string {
	var ctl string
	for _, p := range e.procs {
		if p.pid() != 0 {
			ctl = fmt.Sprintf("%s:%d", p.ip, p.ctlPort)
			break
		}
	}
	if ctl == "" {
		return "error: no member is running"
	}
	// Bounded on its own: the CLI waits up to --wait for the outcome.
	cctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, "ip", "netns", "exec", e.net.hub, e.bin, "cluster", "migrate",
		"--control", ctl, "--timeout", "3s", "--wait", "40s",
		"--slots", strconv.Itoa(lo)+"-"+strconv.Itoa(hi), "--to-member", toMember)
	out, err := cmd.CombinedOutput()
	text := strings.TrimSpace(string(out))
	switch {
	case err == nil:
		return "committed"
	case strings.Contains(text, "was aborted"):
		return "aborted"
	}
	if i := strings.LastIndex(text, "\n"); i >= 0 {
		text = text[i+1:]
	}
	return "error: " + text
}

// strayKeys counts, on every member, the keys of slots its group does not
// own, waiting up to within for the members' deletions to finish: a key in
// two groups, or left behind by a migration, is a failure.
func (e *env) strayKeys(ctx context.Context, within time.Duration) (int, string) {
	end := time.Now().Add(within)
	for {
		n, example, err := e.countStray(ctx)
		if err == nil && n == 0 {
			return 0, ""
		}
		if time.Now().After(end) || ctx.Err() != nil {
			if err != nil {
				return -1, err.Error()
			}
			return n, example
		}
		sleepCtx(ctx, time.Second)
	}
}

func (e *env) countStray(ctx context.Context) (int, string, error) {
	groups, err := discoverGroups(ctx, e)
	if err != nil {
		return 0, "", err
	}
	n, example := 0, ""
	for _, p := range e.procs {
		var mine *group
		for i := range groups {
			for _, m := range groups[i].members {
				if m == p.addr() {
					mine = &groups[i]
				}
			}
		}
		c := redis.NewClient(&redis.Options{Addr: p.addr(), Dialer: nsDialer(e.net.hub), MaxRetries: -1, Protocol: 2,
			DialTimeout: time.Second, ReadTimeout: 2 * time.Second, ContextTimeoutEnabled: true})
		var cursor uint64
		for {
			rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			keys, next, err := c.Scan(rctx, cursor, "", 1000).Result()
			cancel()
			if err != nil {
				_ = c.Close()
				return 0, "", fmt.Errorf("SCAN on %s: %w", p.name, err)
			}
			for _, k := range keys {
				if mine == nil || !mine.owns(int(cluster.KeySlot([]byte(k)))) {
					n++
					if example == "" {
						example = fmt.Sprintf("%s holds %q (slot %d)", p.name, k, cluster.KeySlot([]byte(k)))
					}
				}
			}
			if next == 0 {
				break
			}
			cursor = next
		}
		_ = c.Close()
	}
	return n, example, nil
}

// reportMigrations prints the migrations and returns whether one was
// committed.
func reportMigrations(w io.Writer, recs []migrationRecord) {
	counts := map[string]int{}
	for _, r := range recs {
		kind := r.outcome
		if strings.HasPrefix(kind, "error") {
			kind = "error"
		}
		counts[kind]++
	}
	fmt.Fprintf(w, "\n== slot migrations: %d (committed %d, aborted %d, not begun %d)\n", len(recs), counts["committed"], counts["aborted"], counts["error"])
	for i, r := range recs {
		fmt.Fprintf(w, "  %d. at %v slots %d-%d %s -> %s: %s in %v\n", i+1, r.at.Round(time.Millisecond), r.slots[0], r.slots[1], r.from, r.to, r.outcome, r.took.Round(time.Millisecond))
	}
}
