//go:build unix

package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// LockFileName is the file in the data directory that a running process
// holds an exclusive flock(2) on, so that two processes never write the
// same logs. It holds the pid of the holder, for the error message of the
// process that is refused.
const LockFileName = "ruvio.lock"

// ErrDirLocked is returned by Start when another process holds the data
// directory.
var ErrDirLocked = errors.New("data directory in use")

// dirLock is the held lock on a data directory. The kernel drops it when
// the process exits, however it exits, so a stale file is harmless.
type dirLock struct {
	f *os.File
}

// lockDataDir takes the directory's lock without waiting and writes this
// process's pid into the lock file. A directory already locked by another
// process (or by another App of this process) is refused with an error
// naming the directory and, when known, the holder's pid. On a file system
// without flock support the server starts unlocked, with a warning.
func lockDataDir(dir string, log *zap.Logger) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder := ""
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
				holder = fmt.Sprintf(" (pid %d)", pid)
			}
		}
		_ = f.Close()
		if errors.Is(err, unix.ENOLCK) || errors.Is(err, unix.EOPNOTSUPP) {
			log.Warn("data directory not locked: its file system does not support flock; make sure no other process uses it",
				zap.String("dir", dir), zap.Error(err))
			return &dirLock{}, nil
		}
		if errors.Is(err, unix.EWOULDBLOCK) {
			abs, aerr := filepath.Abs(dir)
			if aerr != nil {
				abs = dir
			}
			return nil, fmt.Errorf("%w: %s is locked by another ruvio process%s; two processes must not share one data directory (stop the other process or choose another --dir)", ErrDirLocked, abs, holder)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The pid is informational: failing to write it does not matter.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

// release drops the lock. The file stays: removing it would let a process
// that opened it meanwhile lock an unlinked file while a third one creates
// a new one.
func (l *dirLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	_ = l.f.Close()
	l.f = nil
}
