//go:build unix

package app

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// A locked directory refuses a second holder (flock locks belong to the
// open file, so this works within one process too) with the directory and
// the holder's pid; releasing frees it.
func TestDataDirLock(t *testing.T) {
	dir := t.TempDir()
	l, err := lockDataDir(dir, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockDataDir(dir, zap.NewNop())
	if !errors.Is(err, ErrDirLocked) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), fmt.Sprintf("(pid %d)", os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	l.release()
	l.release() // idempotent
	l2, err := lockDataDir(dir, zap.NewNop())
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.release()
}
