package procstate

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestState(t *testing.T) {
	for _, tc := range []struct {
		line string
		want byte
		ok   bool
	}{
		{"1234 (ruvio) S 1 1234 1234 0 -1", 'S', true},
		{"1234 (a b) c) T 1 2", 'T', true},
		{"1234 ()) t 1", 't', true},
		{"1234 (ruvio)", 0, false},
		{"1234 (ruvio)S", 0, false},
		{"garbage", 0, false},
		{"", 0, false},
	} {
		got, err := State([]byte(tc.line))
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("State(%q) = %q, %v; want %q, ok %v", tc.line, got, err, tc.want, tc.ok)
		}
	}
}

// writeTask writes a fake proc/pid/task/tid/stat.
func writeTask(t *testing.T, proc string, pid, tid int, state string) {
	t.Helper()
	dir := filepath.Join(proc, strconv.Itoa(pid), "task", strconv.Itoa(tid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := strconv.Itoa(tid) + " (ruvio) " + state + " 1 1 1 0 -1\n"
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWaitStoppedNeedsEveryThread(t *testing.T) {
	proc := t.TempDir()
	writeTask(t, proc, 7, 7, "T")
	writeTask(t, proc, 7, 8, "R")
	if err := waitStopped(proc, 7, 5*time.Millisecond); err == nil {
		t.Fatal("one thread still running, yet reported stopped")
	}
	writeTask(t, proc, 7, 8, "t")
	if err := waitStopped(proc, 7, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := waitStopped(proc, 9, time.Second); !errors.Is(err, ErrGone) {
		t.Fatalf("a missing process: %v, want ErrGone", err)
	}
	writeTask(t, proc, 10, 10, "S")
	if err := os.WriteFile(filepath.Join(proc, "10", "task", "10", "stat"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := waitStopped(proc, 10, time.Second); err == nil || errors.Is(err, ErrGone) {
		t.Fatalf("a malformed stat: %v, want a parse error", err)
	}
}

// TestWaitStoppedOnARealProcess stops a child and waits for it.
func TestWaitStoppedOnARealProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep binary:", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Wait()
	})
	pid := cmd.Process.Pid
	if err := waitStopped("/proc", pid, 20*time.Millisecond); err == nil {
		t.Fatal("a sleeping process reported stopped")
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := WaitStopped(pid, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

func FuzzState(f *testing.F) {
	f.Add([]byte("1 (ruvio) S 0"))
	f.Add([]byte("1 ()) T"))
	f.Add([]byte(")"))
	// Accepted, the state is the byte after the space that follows the
	// last ')'; refused, there is no such byte.
	f.Fuzz(func(t *testing.T, line []byte) {
		s, err := State(line)
		i := bytes.LastIndexByte(line, ')')
		has := i >= 0 && i+2 < len(line) && line[i+1] == ' '
		if (err == nil) != has || err == nil && s != line[i+2] {
			t.Fatalf("State(%q) = %q, %v", line, s, err)
		}
	})
}
