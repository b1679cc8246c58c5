//go:build !unix

package app

import (
	"errors"

	"go.uber.org/zap"
)

// LockFileName is the lock file of a data directory (unused here: this
// platform has no flock, so the directory is not locked).
const LockFileName = "ruvio.lock"

// ErrDirLocked is returned by Start when another process holds the data
// directory.
var ErrDirLocked = errors.New("data directory in use")

type dirLock struct{}

func lockDataDir(string, *zap.Logger) (*dirLock, error) { return &dirLock{}, nil }

func (*dirLock) release() {}
