package testserver

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/procstate"
)

// The real binary, for crash tests: Binary builds it once per test
// process; StartBinary runs it on free loopback ports and Kill sends it
// SIGKILL.

var built struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of the ruvio binary built from the module the
// test runs in. The first call builds it (go build, bounded to five
// minutes); later calls of the same process reuse it.
func Binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() { built.path, built.err = buildBinary() })
	if built.err != nil {
		t.Fatalf("testserver: building the ruvio binary: %v", built.err)
	}
	return built.path
}

// moduleRoot finds the directory of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func buildBinary() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	// go test puts the go tool's directory first on PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("testserver: no go tool to build the server: %w", err)
	}
	// One file per module checkout, replaced atomically on every build, so
	// nothing accumulates and concurrent test processes of different
	// checkouts never run each other's binary.
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(cache, "ruvio-testbin", hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	final := filepath.Join(dir, "ruvio")
	tmp := final + "." + strconv.Itoa(os.Getpid()) + ".tmp"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", tmp, "github.com/ruvio/ruvio")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return final, nil
}

// BinaryConfig says how to run the binary.
type BinaryConfig struct {
	// Dir is the data directory (required).
	Dir string
	// Shards is the shard count (default 1).
	Shards int
	// Fsync is the WAL fsync policy (default "always").
	Fsync string
	// Args are extra command-line arguments.
	Args []string
	// Host is the loopback address to bind (default 127.0.0.1); tests of a
	// cluster across hosts give each member its own (127.0.0.x).
	Host string
	// Port, when set, is shard 0's port: StartBinary uses it instead of
	// finding free ports.
	Port int
}

// Process is a running ruvio binary, a child of the test process.
type Process struct {
	Config BinaryConfig
	// Port is shard 0's port; shard i listens on Port+i.
	Port int
	// Addrs are the shards' addresses, shard 0 first.
	Addrs []string

	cmd    *exec.Cmd
	out    *tailBuffer
	exited chan struct{}
	err    error // of Wait, once exited is closed
}

// StartBinary starts the binary with --config "" on free loopback ports
// and returns once every shard answers PING. It retries on other ports if
// the process exits during start-up (a port taken meanwhile). The process
// is killed when the test ends if it still runs.
func StartBinary(t testing.TB, cfg BinaryConfig) *Process {
	t.Helper()
	bin := Binary(t)
	if cfg.Shards == 0 {
		cfg.Shards = 1
	}
	if cfg.Fsync == "" {
		cfg.Fsync = "always"
	}
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := cfg.Port, error(nil)
		if port == 0 {
			port, err = FreePorts(cfg.Shards)
		}
		if err != nil {
			last = err
			continue
		}
		p, err := startProcess(bin, cfg, port)
		if err != nil {
			last = err
			continue
		}
		t.Cleanup(func() { p.kill() })
		if err := p.waitReady(20 * time.Second); err != nil {
			p.kill()
			last = fmt.Errorf("%w\n--- output ---\n%s", err, p.Output())
			continue
		}
		return p
	}
	t.Fatalf("testserver: could not start the binary: %v", last)
	return nil
}

func startProcess(bin string, cfg BinaryConfig, port int) (*Process, error) {
	host := cfg.Host
	if host == "" {
		host = "127.0.0.1"
	}
	args := []string{
		"--config", "",
		"--bind", host,
		"--port", strconv.Itoa(port),
		"--shards", strconv.Itoa(cfg.Shards),
		"--dir", cfg.Dir,
		"--fsync", cfg.Fsync,
	}
	args = append(args, cfg.Args...)
	p := &Process{Config: cfg, Port: port, out: &tailBuffer{max: 64 << 10}, exited: make(chan struct{})}
	for i := 0; i < cfg.Shards; i++ {
		p.Addrs = append(p.Addrs, net.JoinHostPort(host, strconv.Itoa(port+i)))
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// waitReady polls every shard with PING until each answers PONG.
func (p *Process) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, addr := range p.Addrs {
		for {
			select {
			case <-p.exited:
				return fmt.Errorf("ruvio exited during start-up: %v", p.err)
			default:
			}
			if ping(addr) == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("shard at %s not ready after %v", addr, timeout)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

// ping sends a raw RESP PING and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING: %q", line)
	}
	return nil
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Output returns the last 64 KiB the process wrote to stdout and stderr.
func (p *Process) Output() string { return p.out.String() }

// Kill sends SIGKILL (to this process only: it is the test's own child)
// and waits for it to exit.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if err := p.kill(); err != nil {
		t.Fatal(err)
	}
}

func (p *Process) kill() error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.exited:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("testserver: pid %d did not exit after SIGKILL", p.Pid())
	}
}

// Stop sends SIGTERM and waits up to timeout for a clean exit (the
// shutdown snapshot included); then it kills the process and fails.
func (p *Process) Stop(t testing.TB, timeout time.Duration) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("testserver: ruvio had already exited: %v\n%s", p.err, p.Output())
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.err != nil {
			t.Fatalf("testserver: ruvio exited with %v\n%s", p.err, p.Output())
		}
	case <-time.After(timeout):
		_ = p.kill()
		t.Fatalf("testserver: ruvio did not stop within %v\n%s", timeout, p.Output())
	}
}

// Client returns a go-redis client of shard i that never retries (a
// retried write could run twice), closed when the test ends.
func (p *Process) Client(t testing.TB, i int) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: p.Addrs[i], MaxRetries: -1, DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// ClusterClient returns a go-redis cluster client seeded with shard 0 that
// neither retries nor follows redirections, closed when the test ends.
func (p *Process) ClusterClient(t testing.TB) *redis.ClusterClient {
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{p.Addrs[0]}, MaxRetries: -1, MaxRedirects: -1, DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b = append(b.b, p...)
	if over := len(b.b) - b.max; over > 0 {
		b.b = append(b.b[:0], b.b[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(b.b)
	if i := strings.IndexByte(s, '\n'); i >= 0 && len(b.b) == b.max {
		s = s[i+1:] // drop a partial first line
	}
	return s
}

// Restart starts the binary again with p's configuration on p's ports
// once p has exited (a replica follows its primary's address, so the
// primary must come back where it was). It retries while the ports are
// still held by the old process's sockets.
func (p *Process) Restart(t testing.TB) *Process {
	t.Helper()
	select {
	case <-p.exited:
	default:
		t.Fatalf("testserver: Restart of a process that still runs")
	}
	bin := Binary(t)
	var last error
	for attempt := 0; attempt < 50; attempt++ {
		q, err := startProcess(bin, p.Config, p.Port)
		if err == nil {
			t.Cleanup(func() { _ = q.kill() })
			if err = q.waitReady(20 * time.Second); err == nil {
				return q
			}
			_ = q.kill()
			err = fmt.Errorf("%w\n--- output ---\n%s", err, q.Output())
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("testserver: could not restart the binary on port %d: %v", p.Port, last)
	return nil
}

// Signal sends sig to the process (SIGSTOP and SIGCONT in replication
// tests). For SIGSTOP it returns once every thread of the process has
// stopped: kill only queues the signal, and until then a thread may still
// answer requests.
func (p *Process) Signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if sig == syscall.SIGSTOP {
		if err := procstate.WaitStopped(p.Pid(), 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
}
