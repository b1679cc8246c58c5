package persistence

import (
	"errors"
	"fmt"
)

// ErrReadOnly is returned by the FS of ReadOnly for any change.
var ErrReadOnly = errors.New("persistence: read-only file system")

// ReadOnly returns an FS that reads fs and changes nothing in it, for
// tools that read a data directory they must leave as it is (reshard).
// Recovery still runs on it: the trim of a torn or preallocated tail that
// Recover makes through OpenReadWrite and Truncate is skipped (the reader
// does not need it), and every other change fails with ErrReadOnly, so a
// directory that needs repair is refused rather than repaired.
func ReadOnly(fs FS) FS { return readOnlyFS{fs} }

type readOnlyFS struct{ fs FS }

func (r readOnlyFS) Create(name string) (File, error) {
	return nil, fmt.Errorf("create %s: %w", name, ErrReadOnly)
}

func (r readOnlyFS) Open(name string) (File, error) { return r.fs.Open(name) }

func (r readOnlyFS) OpenReadWrite(name string) (File, error) {
	f, err := r.fs.Open(name)
	if err != nil {
		return nil, err
	}
	return readOnlyFile{f}, nil
}

func (r readOnlyFS) Rename(oldname, _ string) error {
	return fmt.Errorf("rename %s: %w", oldname, ErrReadOnly)
}

func (r readOnlyFS) Remove(name string) error {
	return fmt.Errorf("remove %s: %w", name, ErrReadOnly)
}

// MkdirAll only checks that dir exists.
func (r readOnlyFS) MkdirAll(dir string) error {
	_, err := r.fs.List(dir)
	return err
}

func (r readOnlyFS) List(dir string) ([]string, error) { return r.fs.List(dir) }

// SyncDir has nothing to make durable.
func (r readOnlyFS) SyncDir(string) error { return nil }

func (r readOnlyFS) Stat(name string) (int64, error) { return r.fs.Stat(name) }

// readOnlyFile is a file "opened for writing" on a ReadOnly FS: it
// writes nothing.
type readOnlyFile struct{ File }

func (f readOnlyFile) Write([]byte) (int, error) {
	return 0, fmt.Errorf("write %s: %w", f.Name(), ErrReadOnly)
}

// Truncate is skipped: see ReadOnly.
func (f readOnlyFile) Truncate(int64) error { return nil }

// Sync has nothing to make durable.
func (f readOnlyFile) Sync() error { return nil }
