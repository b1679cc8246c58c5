// Command clusterfault is Ruvio's multi-host fault test. It builds a
// private network of namespaces (a hub with a bridge, three hosts), runs
// Ruvio processes on the hosts, drives a concurrent workload from the hub
// and from inside each host while it kills, stops and partitions
// primaries, then checks the recorded history (internal/history):
// linearizability, durability of acknowledged writes, leases, IDEM and
// streams. It prints a report and exits non-zero when a check fails.
//
// It needs root (namespaces, nft) and is not part of `go test`; see
// scripts/cluster-faults.sh.
//
// Modes:
//
//	clusterfault -bin ruvio                 cluster mode: 6 members, 3 groups (needs cluster mode)
//	clusterfault -bin ruvio -async          the same with sync_replicas = 0: lost writes are reported, not failed on
//	clusterfault -bin ruvio -standalone     one standalone server, no faults unless -faults says so
//	clusterfault -bin ruvio -selftest       the harness's own mechanics, against a standalone primary and replica
//
// Everything it makes (namespaces, processes, the work directory) is
// removed on exit, on error and on SIGINT/SIGTERM; on a failure the
// history and the server logs are kept in -out.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/internal/history"
)

// options are the command line's settings.
type options struct {
	bin         string
	duration    time.Duration
	standalone  bool
	selftest    bool
	async       bool
	keep        bool
	replicas    int
	faults      string
	clients     int
	opTimeout   time.Duration
	nodeTimeout time.Duration
	downFor     time.Duration
	warmup      time.Duration
	seed        uint64
	out         string
	linTimeout  time.Duration
	shards      int
	migrations  bool
}

// env is one run: its network, processes and history.
type env struct {
	opts       options
	standalone bool
	bin        string
	work       string
	net        *network
	procs      []*proc
	rec        *history.Recorder
	// plain: clients talk to one server without cluster routing (standalone
	// with one shard); otherwise they use go-redis's cluster client.
	plain bool
	logf  func(format string, args ...any)
	// migrations are the slot migrations of the run; stray the keys found
	// outside their group afterwards (-1: could not be counted).
	migrations []migrationRecord
	stray      int
	strayNote  string
}

// errChecksFailed is returned when the run completed and a check failed.
var errChecksFailed = errors.New("clusterfault: checks failed")

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "", "Ruvio binary (required)")
	flag.DurationVar(&o.duration, "duration", 90*time.Second, "how long the workload runs (faults included)")
	flag.BoolVar(&o.standalone, "standalone", false, "run against one standalone server (no cluster mode)")
	flag.BoolVar(&o.selftest, "selftest", false, "test the harness's mechanics (namespaces, partition, SIGSTOP/SIGKILL) and exit")
	flag.BoolVar(&o.async, "async", false, "cluster with sync_replicas = 0: report lost writes instead of failing")
	flag.StringVar(&o.faults, "faults", "auto", `comma-separated faults among kill, stop, partition; "auto": all in cluster mode, none standalone; "none"`)
	flag.IntVar(&o.clients, "clients", 4, "workload clients in the hub (one more runs inside each host)")
	flag.DurationVar(&o.opTimeout, "op-timeout", 1500*time.Millisecond, "deadline of each request")
	flag.DurationVar(&o.nodeTimeout, "node-timeout", 2*time.Second, "cluster.node_timeout_ms")
	flag.DurationVar(&o.downFor, "down-for", 10*time.Second, "how long a killed process stays down and a partition lasts")
	flag.DurationVar(&o.warmup, "warmup", 5*time.Second, "workload time before the first fault")
	flag.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()), "workload random seed")
	flag.IntVar(&o.replicas, "replicas", -1, "cluster.replicas: replicas per group (default 2 with sync_replicas = 1, 1 with -async)")
	flag.BoolVar(&o.keep, "keep", false, "keep the history and logs in -out even when every check passes")
	flag.StringVar(&o.out, "out", "", "where the history and logs go on failure (default /tmp/clusterfault-<tag>)")
	flag.IntVar(&o.shards, "shards", 1, "with -standalone: server.shards; more than 1 answers as a static cluster, so the cluster client and CLUSTER SHARDS are exercised")
	flag.DurationVar(&o.linTimeout, "lin-timeout", 60*time.Second, "most time the linearizability checker may take")
	flag.BoolVar(&o.migrations, "migrations", true, "in cluster mode, move random slot ranges between groups during the run")
	flag.Parse()
	if o.bin == "" {
		fmt.Fprintln(os.Stderr, "clusterfault: -bin is required")
		os.Exit(2)
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "clusterfault: needs root (network namespaces, nft)")
		os.Exit(2)
	}
	for _, tool := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(os.Stderr, "clusterfault: needs %s: %v\n", tool, err)
			os.Exit(2)
		}
	}
	redis.SetLogger(quietLogger{})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, o, os.Stdout)
	// Whatever happened, nothing of this run may be left behind.
	if left, lerr := leftovers(fmt.Sprintf("cf%d", os.Getpid())); lerr != nil || len(left) > 0 {
		fmt.Fprintf(os.Stderr, "clusterfault: namespaces left after cleanup: %v %v\n", left, lerr)
		if err == nil {
			err = errors.New("cleanup incomplete")
		}
	} else if o.selftest {
		fmt.Println("selftest ok   cleanup: no namespace of this run is left")
	}
	switch {
	case err == nil:
	case errors.Is(err, errChecksFailed):
		os.Exit(1)
	case ctx.Err() != nil:
		fmt.Fprintln(os.Stderr, "clusterfault: interrupted; cleaned up")
		os.Exit(130)
	default:
		fmt.Fprintf(os.Stderr, "clusterfault: %v\n", err)
		os.Exit(1)
	}
}

// run performs one run and removes everything it made before returning.
func run(ctx context.Context, o options, stdout io.Writer) (err error) {
	tag := fmt.Sprintf("cf%d", os.Getpid())
	logf := func(format string, args ...any) {
		fmt.Fprintf(stdout, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
	}
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return fmt.Errorf("bin: %w", err)
	}
	work, err := os.MkdirTemp("", "clusterfault-"+tag+"-")
	if err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	if o.out == "" {
		o.out = filepath.Join(os.TempDir(), "clusterfault-"+tag)
	}
	e := &env{opts: o, standalone: o.standalone || o.selftest, bin: bin, work: work, rec: history.NewRecorder(), logf: logf}
	if o.selftest {
		e.opts.shards = 1
	}
	e.plain = e.standalone && e.opts.shards <= 1
	defer func() {
		if err != nil || o.keep {
			if kerr := e.keep(); kerr != nil {
				logf("could not keep the evidence: %v", kerr)
			}
		}
		e.cleanup()
	}()

	logf("run %s: work dir %s", tag, work)
	if e.net, err = newNetwork(ctx, tag, 3, logf); err != nil {
		return err
	}
	e.procs = layoutProcs(e.net, work, e.standalone, o.selftest)
	// Under synchronous replication a group keeps taking writes after a
	// failover only while a replica is left to acknowledge them: two
	// replicas per group (one member of every group on each host), so
	// losing one member or one host leaves one. Asynchronous runs keep
	// one replica per group, three groups.
	replicas := o.replicas
	if replicas < 0 {
		replicas = 2
		if o.async {
			replicas = 1
		}
	}
	cs := clusterSpec{standalone: e.standalone, shards: max(1, e.opts.shards), members: e.procs, replicas: replicas, nodeTimeout: o.nodeTimeout,
		syncReplicas: 1, syncTimeout: 5 * time.Second}
	if o.async {
		cs.syncReplicas = 0
	}
	for _, p := range e.procs {
		if err := writeConfig(p, cs); err != nil {
			return err
		}
		if err := p.start(bin); err != nil {
			return err
		}
	}
	if err := waitPing(ctx, e.net, e.procs, 30*time.Second); err != nil {
		return err
	}
	logf("%d process(es) answer on %s", len(e.procs), e.net.subnet+".0/24")
	if o.selftest {
		return e.selftest(ctx)
	}
	return e.workloadRun(ctx, stdout)
}

// cleanup stops every process and deletes the namespaces and the work
// directory.
func (e *env) cleanup() {
	for _, p := range e.procs {
		if err := p.kill(); err != nil {
			e.logf("cleanup: %v", err)
		}
	}
	if e.net != nil {
		e.net.close()
	}
	if err := os.RemoveAll(e.work); err != nil {
		e.logf("cleanup: %v", err)
	}
}

// keep copies the history and the server logs to the output directory.
func (e *env) keep() error {
	if err := os.MkdirAll(e.opts.out, 0o755); err != nil {
		return fmt.Errorf("keep: %w", err)
	}
	f, err := os.Create(filepath.Join(e.opts.out, "history.jsonl"))
	if err != nil {
		return fmt.Errorf("keep: %w", err)
	}
	if err := history.WriteJSON(f, e.rec.Ops()); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("keep: %w", err)
	}
	for _, p := range e.procs {
		for _, src := range []string{p.logPath, p.cfgPath} {
			b, err := os.ReadFile(src)
			if err != nil {
				continue // a process that never started has no log
			}
			dst := filepath.Join(e.opts.out, p.name+"-"+filepath.Base(src))
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return fmt.Errorf("keep: %w", err)
			}
		}
	}
	e.logf("history and server logs kept in %s", e.opts.out)
	return nil
}

// faultKinds resolves -faults.
func (e *env) faultKinds() ([]string, error) {
	switch e.opts.faults {
	case "auto":
		if e.standalone {
			return nil, nil
		}
		return []string{faultKill, faultStop, faultPartition}, nil
	case "none", "":
		return nil, nil
	}
	var kinds []string
	for _, k := range strings.Split(e.opts.faults, ",") {
		switch k {
		case faultKill, faultStop, faultPartition:
			kinds = append(kinds, k)
		default:
			return nil, fmt.Errorf("-faults: unknown fault %q", k)
		}
	}
	return kinds, nil
}

// workloadRun runs the workload under the fault schedule, reads the final
// state back and checks the history.
func (e *env) workloadRun(ctx context.Context, stdout io.Writer) error {
	kinds, err := e.faultKinds()
	if err != nil {
		return err
	}
	groups, err := e.waitGroups(ctx, 60*time.Second)
	if err != nil {
		return err
	}
	e.logf("%d group(s); workload for %v, faults %v, seed %d", len(groups), e.opts.duration, kinds, e.opts.seed)

	end := time.Now().Add(e.opts.duration)
	wctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	probes, probesDone := e.runProbes(wctx, groups)
	faultsDone := make(chan []faultRecord, 1)
	go func() { faultsDone <- e.runFaults(wctx, kinds, end) }()
	migrationsDone := make(chan []migrationRecord, 1)
	go func() {
		if e.plain || e.standalone || !e.opts.migrations {
			migrationsDone <- nil
			return
		}
		var keep []int
		for _, pr := range probes {
			keep = append(keep, int(cluster.KeySlot([]byte(pr.key))))
		}
		migrationsDone <- e.runMigrations(wctx, time.Now(), keep)
	}()
	e.runWorkload(wctx)
	faults := <-faultsDone
	e.migrations = <-migrationsDone
	probesDone.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}

	if err := e.healAll(ctx); err != nil {
		return err
	}
	if err := waitPing(ctx, e.net, e.procs, 30*time.Second); err != nil {
		return err
	}
	if _, err := e.waitGroups(ctx, 60*time.Second); err != nil {
		return err
	}
	measureRecovery(faults, probes)
	for i := range faults {
		if faults[i].target == "" {
			continue
		}
		if gs, err := discoverGroups(ctx, e); err == nil {
			for _, g := range gs {
				if g.id == faults[i].group {
					faults[i].newPrim = g.primary
				}
			}
		}
	}
	e.logf("reading the final state")
	final := e.finalRead(ctx)
	if err := ctx.Err(); err != nil {
		return err
	}
	if !e.plain && !e.standalone {
		e.stray, e.strayNote = e.strayKeys(ctx, 30*time.Second)
	}
	return e.report(stdout, faults, final)
}

// waitGroups waits until the cluster reports groups that cover every slot,
// each with a primary.
func (e *env) waitGroups(ctx context.Context, total time.Duration) ([]group, error) {
	end := time.Now().Add(total)
	for {
		groups, err := discoverGroups(ctx, e)
		if err == nil {
			covered := 0
			for _, g := range groups {
				if g.primary == "" {
					err = fmt.Errorf("group %s has no primary", g.id)
				}
				for _, r := range g.slots {
					covered += r[1] - r[0] + 1
				}
			}
			if err == nil && covered != 16384 {
				err = fmt.Errorf("the groups cover %d slots", covered)
			}
			if err == nil {
				return groups, nil
			}
		}
		if time.Now().After(end) || ctx.Err() != nil {
			return nil, fmt.Errorf("cluster not ready after %v: %w", total, err)
		}
		sleepCtx(ctx, 500*time.Millisecond)
	}
}

// report prints the run's results and returns errChecksFailed when a
// check failed (in -async mode lost writes, and what follows from them,
// are reported only).
func (e *env) report(w io.Writer, faults []faultRecord, final history.Final) error {
	ops := e.rec.Ops()
	fmt.Fprintf(w, "\n== operations\n%s", countsText(history.Count(ops)))
	fmt.Fprintf(w, "\n== faults injected: %d\n", len(faults))
	for i, f := range faults {
		line := fmt.Sprintf("  %d. %-9s %-3s on %s (group %s) at %v", i+1, f.kind, f.target, f.host, f.group,
			f.injected.Round(time.Millisecond))
		if f.recovery >= 0 {
			line += fmt.Sprintf(", first ack after %v", f.recovery.Round(time.Millisecond))
		} else {
			line += ", no acknowledged write afterwards"
		}
		if f.newPrim != "" && f.newPrim != f.oldAddr {
			line += fmt.Sprintf(", primary %s -> %s", f.oldAddr, f.newPrim)
		}
		if f.err != nil {
			line += fmt.Sprintf(" (error: %v)", f.err)
		}
		fmt.Fprintln(w, line)
	}
	if med, worst, missing := recoveryStats(faults); len(faults) > 0 {
		if med >= 0 {
			fmt.Fprintf(w, "  failover/recovery (fault to first acknowledged write on the group): median %v, worst %v",
				med.Round(time.Millisecond), worst.Round(time.Millisecond))
		}
		if missing > 0 {
			fmt.Fprintf(w, "; %d never recovered", missing)
		}
		fmt.Fprintln(w)
	}

	if e.migrations != nil {
		reportMigrations(w, e.migrations)
	}

	results := []history.Result{
		history.CheckDurability(ops, final),
		history.CheckLinearizable(ops, e.opts.linTimeout),
		history.CheckLeases(ops, 25*time.Millisecond),
		history.CheckIdem(ops),
		history.CheckStreams(ops, final),
	}
	lost := 0
	failed := false
	fmt.Fprintf(w, "\n== checks\n")
	for _, r := range results {
		fmt.Fprintf(w, "  %s\n", r)
		for i, v := range r.Violations {
			if i == 10 {
				fmt.Fprintf(w, "      … %d more\n", len(r.Violations)-i)
				break
			}
			fmt.Fprintf(w, "      %s\n", v)
		}
		lost += r.Lost
		failed = failed || !r.OK()
	}
	fmt.Fprintf(w, "  acknowledged writes lost: %d\n", lost)
	if final.Unread > 0 {
		// Every fault has healed by now: the cluster must serve every key.
		fmt.Fprintf(w, "  final read: %d keys or streams could not be read (a group unavailable after the faults healed)\n", final.Unread)
		failed = true
	}
	switch {
	case e.stray > 0:
		fmt.Fprintf(w, "  keys held outside their group: %d (%s)\n", e.stray, e.strayNote)
		failed = true
	case e.stray < 0:
		fmt.Fprintf(w, "  keys held outside their group: not counted (%s)\n", e.strayNote)
		failed = true
	case !e.plain && !e.standalone:
		fmt.Fprintln(w, "  keys held outside their group: 0")
	}
	var faultErrs int
	for _, f := range faults {
		if f.err != nil {
			faultErrs++
		}
	}
	switch {
	case failed && e.opts.async:
		fmt.Fprintln(w, "\nRESULT: async replication: violations above are reported, not failed on")
		return nil
	case failed:
		fmt.Fprintln(w, "\nRESULT: FAIL")
		return errChecksFailed
	case faultErrs > 0:
		fmt.Fprintf(w, "\nRESULT: FAIL: %d fault(s) could not be injected\n", faultErrs)
		return errChecksFailed
	}
	fmt.Fprintln(w, "\nRESULT: PASS")
	return nil
}
