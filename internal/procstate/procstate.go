// Package procstate reads a Linux process's scheduling state from /proc.
//
// Tests and the fault harness stop a server with SIGSTOP to stand for a
// process that hangs. kill(2) only queues the signal: one thread takes it
// and then stops the others, so on a busy machine a thread of the process
// can go on serving requests for milliseconds after kill returns. A fault
// that must not overlap a request waits with [WaitStopped] first.
package procstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// ErrGone is returned when the process no longer exists.
var ErrGone = errors.New("procstate: process gone")

// pollInterval is how often WaitStopped reads the threads' states again.
const pollInterval = time.Millisecond

// WaitStopped waits until every thread of process pid is stopped (state T
// or t) or timeout has passed.
func WaitStopped(pid int, timeout time.Duration) error {
	return waitStopped("/proc", pid, timeout)
}

func waitStopped(proc string, pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		stopped, err := allStopped(proc, pid)
		if err != nil {
			return err
		}
		if stopped {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("procstate: process %d not stopped after %v", pid, timeout)
		}
		time.Sleep(pollInterval)
	}
}

// allStopped reports whether every thread listed under proc/pid/task is
// stopped.
func allStopped(proc string, pid int) (bool, error) {
	dir := filepath.Join(proc, strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("%w: %d", ErrGone, pid)
	}
	if err != nil {
		return false, fmt.Errorf("procstate: %w", err)
	}
	if len(tasks) == 0 {
		return false, fmt.Errorf("%w: %d has no threads", ErrGone, pid)
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if errors.Is(err, os.ErrNotExist) {
			continue // the thread exited meanwhile
		}
		if err != nil {
			return false, fmt.Errorf("procstate: %w", err)
		}
		state, err := State(stat)
		if err != nil {
			return false, fmt.Errorf("procstate: task %s of %d: %w", task.Name(), pid, err)
		}
		if state != 'T' && state != 't' {
			return false, nil
		}
	}
	return true, nil
}

// State returns the state letter of a /proc/<pid>/stat line ("R", "S",
// "T"...). The command name before it is in parentheses and may hold any
// byte, spaces and parentheses included, so the state is read after the
// last closing parenthesis.
func State(stat []byte) (byte, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) || stat[i+1] != ' ' {
		return 0, fmt.Errorf("malformed stat line %q", stat[:min(len(stat), 64)])
	}
	return stat[i+2], nil
}
