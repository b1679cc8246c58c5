package persistence

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// FSOp names a kind of FS operation for error injection.
type FSOp uint8

// Operation kinds matched by Injection.
const (
	FSCreate      FSOp = iota + 1 // FS.Create
	FSOpen                        // FS.Open and FS.OpenReadWrite
	FSWrite                       // File.Write
	FSSync                        // File.Sync
	FSTruncate                    // File.Truncate
	FSRename                      // FS.Rename (path is the old name)
	FSRemove                      // FS.Remove
	FSSyncDir                     // FS.SyncDir
	FSPreallocate                 // Preallocator.Preallocate of a File
)

var fsOpNames = [...]string{"", "create", "open", "write", "sync", "truncate", "rename", "remove", "syncdir", "preallocate"}

// String returns the operation's lower-case name.
func (op FSOp) String() string {
	if int(op) < len(fsOpNames) && op != 0 {
		return fsOpNames[op]
	}
	return fmt.Sprintf("FSOp(%d)", uint8(op))
}

// Injection describes failures for ErrorFS: the Nth (1-based) call of kind
// Op whose path contains PathContains fails with Err (ErrInjected if nil).
// Nth == 0 fails every matching call.
type Injection struct {
	Op           FSOp
	PathContains string
	Nth          int
	Err          error
}

// ErrorFS wraps an FS and fails selected operations, for tests. It is safe
// for concurrent use.
type ErrorFS struct {
	fs    FS
	mu    sync.Mutex
	rules []*injRule // mu guards
}

type injRule struct {
	Injection
	seen int
}

var _ FS = (*ErrorFS)(nil)

// NewErrorFS returns an ErrorFS over fs with no injections.
func NewErrorFS(fs FS) *ErrorFS { return &ErrorFS{fs: fs} }

// Inject adds a failure rule.
func (e *ErrorFS) Inject(in Injection) {
	if in.Err == nil {
		in.Err = ErrInjected
	}
	e.mu.Lock()
	e.rules = append(e.rules, &injRule{Injection: in})
	e.mu.Unlock()
}

// Clear removes every rule.
func (e *ErrorFS) Clear() {
	e.mu.Lock()
	e.rules = nil
	e.mu.Unlock()
}

func (e *ErrorFS) check(op FSOp, path string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.rules {
		if r.Op != op || !strings.Contains(path, r.PathContains) {
			continue
		}
		r.seen++
		if r.Nth == 0 || r.seen == r.Nth {
			return fmt.Errorf("%s %s: %w", op, path, r.Err)
		}
	}
	return nil
}

func (e *ErrorFS) wrap(f File, err error) (File, error) {
	if err != nil {
		return nil, err
	}
	return &errFile{File: f, e: e}, nil
}

// Create implements FS.
func (e *ErrorFS) Create(name string) (File, error) {
	if err := e.check(FSCreate, name); err != nil {
		return nil, err
	}
	return e.wrap(e.fs.Create(name))
}

// Open implements FS.
func (e *ErrorFS) Open(name string) (File, error) {
	if err := e.check(FSOpen, name); err != nil {
		return nil, err
	}
	return e.wrap(e.fs.Open(name))
}

// OpenReadWrite implements FS.
func (e *ErrorFS) OpenReadWrite(name string) (File, error) {
	if err := e.check(FSOpen, name); err != nil {
		return nil, err
	}
	return e.wrap(e.fs.OpenReadWrite(name))
}

// Rename implements FS.
func (e *ErrorFS) Rename(oldname, newname string) error {
	if err := e.check(FSRename, oldname); err != nil {
		return err
	}
	return e.fs.Rename(oldname, newname)
}

// Remove implements FS.
func (e *ErrorFS) Remove(name string) error {
	if err := e.check(FSRemove, name); err != nil {
		return err
	}
	return e.fs.Remove(name)
}

// MkdirAll implements FS.
func (e *ErrorFS) MkdirAll(dir string) error { return e.fs.MkdirAll(dir) }

// List implements FS.
func (e *ErrorFS) List(dir string) ([]string, error) { return e.fs.List(dir) }

// SyncDir implements FS.
func (e *ErrorFS) SyncDir(dir string) error {
	if err := e.check(FSSyncDir, dir); err != nil {
		return err
	}
	return e.fs.SyncDir(dir)
}

// Stat implements FS.
func (e *ErrorFS) Stat(name string) (int64, error) { return e.fs.Stat(name) }

type errFile struct {
	File
	e *ErrorFS
}

func (f *errFile) Write(p []byte) (int, error) {
	if err := f.e.check(FSWrite, f.Name()); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

func (f *errFile) Sync() error {
	if err := f.e.check(FSSync, f.Name()); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *errFile) Truncate(size int64) error {
	if err := f.e.check(FSTruncate, f.Name()); err != nil {
		return err
	}
	return f.File.Truncate(size)
}

// Preallocate implements Preallocator: the wrapped file's, or
// errors.ErrUnsupported when it has none.
func (f *errFile) Preallocate(size int64) error {
	if err := f.e.check(FSPreallocate, f.Name()); err != nil {
		return err
	}
	if p, ok := f.File.(Preallocator); ok {
		return p.Preallocate(size)
	}
	return errors.ErrUnsupported
}
