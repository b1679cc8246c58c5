package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ruvio/ruvio/internal/procstate"
)

// proc is one Ruvio process on one host.
type proc struct {
	name    string // member name, "n1".."n6"; also its directory and log
	hostIdx int
	ns      string
	ip      string
	port    int
	ctlPort int
	dir     string // data directory
	cfgPath string
	logPath string
	// replicaOf is "ip:port" for a standalone replica, "" otherwise.
	replicaOf string

	mu      sync.Mutex // mu guards cmd, done and stopped
	cmd     *exec.Cmd
	done    chan struct{} // closed when cmd has exited
	stopped bool          // SIGSTOPped and not yet continued
}

func (p *proc) addr() string { return fmt.Sprintf("%s:%d", p.ip, p.port) }

// clusterSpec is what every member's configuration shares.
type clusterSpec struct {
	standalone   bool
	shards       int     // server.shards (standalone only; cluster members run 1)
	members      []*proc // all of them, in order; the first 3 vote
	replicas     int
	nodeTimeout  time.Duration
	syncReplicas int
	syncTimeout  time.Duration
}

// renderConfig is the one place a member's configuration file is written:
// adjust it here when cluster mode's interface changes. Standalone runs
// leave the [cluster] keys out, since today's server refuses unknown keys.
func renderConfig(p *proc, cs clusterSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[server]\nbind = %q\nport = %d\nshards = %d\n", p.ip, p.port, max(1, cs.shards))
	// Clients come from other namespaces' addresses, never loopback.
	b.WriteString("protected_mode = false\nreactors = 1\n")
	fmt.Fprintf(&b, "\n[persistence]\ndir = %q\nfsync = \"always\"\n", p.dir)
	b.WriteString("\n[log]\nlevel = \"info\"\n")
	if cs.standalone {
		if p.replicaOf != "" {
			fmt.Fprintf(&b, "\n[replication]\nprimary = %q\n", p.replicaOf)
		}
		return b.String()
	}
	var members []string
	for _, m := range voterOrder(cs.members) {
		members = append(members, fmt.Sprintf("%q", fmt.Sprintf("%s=%s:%d", m.name, m.ip, m.ctlPort)))
	}
	fmt.Fprintf(&b, "\n[cluster]\nenabled = true\nname = %q\nannounce = %q\nmembers = [%s]\n",
		p.name, p.ip, strings.Join(members, ", "))
	fmt.Fprintf(&b, "control_port = %d\nreplicas = %d\nnode_timeout_ms = %d\n",
		p.ctlPort, cs.replicas, cs.nodeTimeout.Milliseconds())
	if cs.syncReplicas > 0 {
		fmt.Fprintf(&b, "\n[replication]\nsync_replicas = %d\nsync_timeout_ms = %d\n",
			cs.syncReplicas, cs.syncTimeout.Milliseconds())
	}
	return b.String()
}

// voterOrder lists the members with each host's first process before any
// host's second, so the first 3 (the voters) are on 3 different hosts and
// losing one host never loses the control plane's majority.
func voterOrder(members []*proc) []*proc {
	out := slices.Clone(members)
	rank := map[*proc]int{}
	seen := map[int]int{}
	for _, m := range members {
		rank[m] = seen[m.hostIdx]
		seen[m.hostIdx]++
	}
	slices.SortStableFunc(out, func(a, b *proc) int {
		if rank[a] != rank[b] {
			return rank[a] - rank[b]
		}
		return a.hostIdx - b.hostIdx
	})
	return out
}

// writeConfig writes p's configuration file and makes its data directory.
func writeConfig(p *proc, cs clusterSpec) error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return fmt.Errorf("config of %s: %w", p.name, err)
	}
	if err := os.WriteFile(p.cfgPath, []byte(renderConfig(p, cs)), 0o644); err != nil {
		return fmt.Errorf("config of %s: %w", p.name, err)
	}
	return nil
}

// start runs the binary in p's namespace, appending its output to its log.
// `ip netns exec` execs the binary, so the child's pid is the server's.
func (p *proc) start(bin string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("start %s: already running", p.name)
	}
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	fmt.Fprintf(logf, "=== clusterfault: start %s at %s\n", p.name, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command("ip", "netns", "exec", p.ns, bin, "--config", p.cfgPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: a terminal's ^C reaches only the harness,
	// which stops the servers itself after writing what it needs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // its exit status is in the log's story, not ours
		logf.Close()
		close(done)
	}()
	p.cmd, p.done, p.stopped = cmd, done, false
	return nil
}

// signal sends sig to the running process.
func (p *proc) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return fmt.Errorf("signal %s: not running", p.name)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal %v to %s: %w", sig, p.name, err)
	}
	switch sig {
	case syscall.SIGSTOP:
		p.stopped = true
		// kill only queues the signal: a thread may answer requests until
		// the last one has stopped.
		if err := procstate.WaitStopped(p.cmd.Process.Pid, 10*time.Second); err != nil {
			return fmt.Errorf("signal %v to %s: %w", sig, p.name, err)
		}
	case syscall.SIGCONT:
		p.stopped = false
	}
	return nil
}

// kill sends SIGKILL (after SIGCONT, so a stopped process dies at once)
// and waits for the exit.
func (p *proc) kill() error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Process.Signal(syscall.SIGCONT)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("kill %s (pid %d): still running after 10s", p.name, cmd.Process.Pid)
	}
	p.mu.Lock()
	p.cmd, p.done, p.stopped = nil, nil, false
	p.mu.Unlock()
	return nil
}

// exited reports whether the process was started and has exited on its
// own (not by kill, which forgets it).
func (p *proc) exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// lastLine returns the last non-empty line of the file at path.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// pid returns the running process's id, or 0.
func (p *proc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// resume undoes whatever a fault left: continues a stopped process and
// restarts one that is not running.
func (p *proc) resume(bin string) error {
	p.mu.Lock()
	running, stopped := p.cmd != nil, p.stopped
	if running {
		select {
		case <-p.done:
			p.cmd, p.done, running = nil, nil, false
		default:
		}
	}
	p.mu.Unlock()
	switch {
	case running && stopped:
		return p.signal(syscall.SIGCONT)
	case !running:
		return p.start(bin)
	}
	return nil
}

// layoutProcs places the processes: in cluster mode two per host (ports
// 7000 and 7001, control ports +10000), named n1..n6 host by host; in
// standalone mode one primary on the first host and, with replica, a
// replica of it on the second.
func layoutProcs(n *network, work string, standalone, replica bool) []*proc {
	var procs []*proc
	add := func(hi, port int) *proc {
		name := fmt.Sprintf("n%d", len(procs)+1)
		p := &proc{
			name: name, hostIdx: hi, ns: n.hosts[hi].ns, ip: n.hosts[hi].ip,
			port: port, ctlPort: port + 10000,
			dir:     filepath.Join(work, name, "data"),
			cfgPath: filepath.Join(work, name, "ruvio.toml"),
			logPath: filepath.Join(work, name, "ruvio.log"),
		}
		procs = append(procs, p)
		return p
	}
	if standalone {
		prim := add(0, 7000)
		if replica && len(n.hosts) > 1 {
			add(1, 7000).replicaOf = prim.addr()
		}
		return procs
	}
	for hi := range n.hosts {
		add(hi, 7000)
		add(hi, 7001)
	}
	return procs
}

// errNotRunning is returned when a fault targets a process that is down.
var errNotRunning = errors.New("clusterfault: target process is not running")

// waitPing waits until every process answers PING from the hub, each try
// with its own deadline, up to total.
func waitPing(ctx context.Context, n *network, procs []*proc, total time.Duration) error {
	end := time.Now().Add(total)
	for _, p := range procs {
		for {
			err := pingFrom(ctx, n.hub, p.addr(), time.Second)
			if err == nil {
				break
			}
			if p.exited() {
				return fmt.Errorf("%s exited: %s", p.name, lastLine(p.logPath))
			}
			if time.Now().After(end) || ctx.Err() != nil {
				return fmt.Errorf("%s at %s never answered: %w", p.name, p.addr(), err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}
