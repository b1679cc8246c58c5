package persistence

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// MemFS is an in-memory FS for tests. It models durability: file data
// becomes durable on File.Sync and directory entries (creations, renames,
// removals) on SyncDir of their directory. CrashClone returns the state a
// machine would find after power loss. Directories themselves are always
// durable. MemFS is safe for concurrent use.
type MemFS struct {
	mu      sync.Mutex
	files   map[string]*memNode // mu guards: current namespace
	durable map[string]*memNode // mu guards: namespace as of the last SyncDir
	dirs    map[string]bool     // mu guards

	syncDelay atomic.Int64 // nanoseconds each File.Sync sleeps
	syncs     atomic.Int64 // File.Sync calls

	// capacity bounds the bytes of all files together (0: unbounded);
	// mu guards. With it set, files also preallocate (Preallocator).
	capacity int64
}

type memNode struct {
	data      []byte
	syncedLen int    // data[:syncedLen] is durable unless snap != nil
	snap      []byte // durable content when data diverged below syncedLen
}

func (n *memNode) durableBytes() []byte {
	if n.snap != nil {
		return n.snap
	}
	return n.data[:n.syncedLen]
}

// diverge preserves the durable content before data below off changes.
func (n *memNode) diverge(off int) {
	if n.snap == nil && off < n.syncedLen {
		n.snap = append([]byte(nil), n.data[:n.syncedLen]...)
	}
}

var _ FS = (*MemFS)(nil)

// NewMemFS returns an empty MemFS.
func NewMemFS() *MemFS {
	return &MemFS{files: map[string]*memNode{}, durable: map[string]*memNode{}, dirs: map[string]bool{}}
}

// SetSyncDelay makes every later File.Sync sleep for d (simulating a slow
// disk). Safe to call concurrently.
func (m *MemFS) SetSyncDelay(d time.Duration) { m.syncDelay.Store(int64(d)) }

// SetCapacity makes the file system hold at most n bytes in all its
// files, as a small volume does (0: unbounded, the default). Once set,
// a write that does not fit fails with syscall.ENOSPC and writes nothing,
// and files preallocate the way Linux ext4 does: what fits is allocated
// (the file grows with zeros, its write position stays), and the call
// fails with ENOSPC when not all of it did.
func (m *MemFS) SetCapacity(n int64) {
	m.mu.Lock()
	m.capacity = n
	m.mu.Unlock()
}

// freeLocked is the space left under the capacity; m.mu held.
func (m *MemFS) freeLocked() int64 {
	used := int64(0)
	for _, n := range m.files {
		used += int64(len(n.data))
	}
	return m.capacity - used
}

// SyncCount returns the number of File.Sync calls started so far.
func (m *MemFS) SyncCount() int64 { return m.syncs.Load() }

// CrashClone returns a new MemFS holding only what was durable: files
// whose directory entry was synced, with the data they had at their last
// Sync.
func (m *MemFS) CrashClone() *MemFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := NewMemFS()
	c.capacity = m.capacity
	for d := range m.dirs {
		c.dirs[d] = true
	}
	for name, n := range m.durable {
		b := append([]byte(nil), n.durableBytes()...)
		nn := &memNode{data: b, syncedLen: len(b)}
		c.files[name] = nn
		c.durable[name] = nn
	}
	return c
}

// ReadFile returns a copy of the current content of name (test helper).
func (m *MemFS) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.files[filepath.Clean(name)]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", name, ErrNotExist)
	}
	return append([]byte(nil), n.data...), nil
}

// WriteFile replaces the content of name with data, durably (test helper
// for building damaged files).
func (m *MemFS) WriteFile(name string, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	n := &memNode{data: append([]byte(nil), data...)}
	n.syncedLen = len(n.data)
	m.files[name] = n
	m.durable[name] = n
	m.dirs[filepath.Dir(name)] = true
}

func (m *MemFS) open(name string, create, trunc, readOnly bool) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	n, ok := m.files[name]
	if !ok {
		if !create {
			return nil, fmt.Errorf("open %s: %w", name, ErrNotExist)
		}
		if !m.dirs[filepath.Dir(name)] {
			return nil, fmt.Errorf("create %s: directory: %w", name, ErrNotExist)
		}
		n = &memNode{}
		m.files[name] = n
	} else if trunc {
		n.diverge(0)
		n.data = n.data[:0]
	}
	f := &memFile{fs: m, node: n, name: name, readOnly: readOnly}
	if !readOnly {
		f.pos = int64(len(n.data))
	}
	return f, nil
}

// Create implements FS.
func (m *MemFS) Create(name string) (File, error) { return m.open(name, true, true, false) }

// Open implements FS.
func (m *MemFS) Open(name string) (File, error) { return m.open(name, false, false, true) }

// OpenReadWrite implements FS.
func (m *MemFS) OpenReadWrite(name string) (File, error) { return m.open(name, false, false, false) }

// Rename implements FS.
func (m *MemFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	oldname, newname = filepath.Clean(oldname), filepath.Clean(newname)
	n, ok := m.files[oldname]
	if !ok {
		return fmt.Errorf("rename %s: %w", oldname, ErrNotExist)
	}
	delete(m.files, oldname)
	m.files[newname] = n
	return nil
}

// Remove implements FS.
func (m *MemFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	if _, ok := m.files[name]; !ok {
		return fmt.Errorf("remove %s: %w", name, ErrNotExist)
	}
	delete(m.files, name)
	return nil
}

// MkdirAll implements FS.
func (m *MemFS) MkdirAll(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		m.dirs[d] = true
		if p := filepath.Dir(d); p == d {
			break
		}
	}
	return nil
}

// List implements FS.
func (m *MemFS) List(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir = filepath.Clean(dir)
	if !m.dirs[dir] {
		return nil, fmt.Errorf("list %s: %w", dir, ErrNotExist)
	}
	var names []string
	for name := range m.files {
		if filepath.Dir(name) == dir {
			names = append(names, filepath.Base(name))
		}
	}
	sort.Strings(names)
	return names, nil
}

// SyncDir implements FS.
func (m *MemFS) SyncDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir = filepath.Clean(dir)
	for name := range m.durable {
		if filepath.Dir(name) == dir {
			delete(m.durable, name)
		}
	}
	for name, n := range m.files {
		if filepath.Dir(name) == dir {
			m.durable[name] = n
		}
	}
	return nil
}

// Stat implements FS.
func (m *MemFS) Stat(name string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.files[filepath.Clean(name)]
	if !ok {
		return 0, fmt.Errorf("stat %s: %w", name, ErrNotExist)
	}
	return int64(len(n.data)), nil
}

type memFile struct {
	fs       *MemFS
	node     *memNode
	name     string
	pos      int64 // guarded by fs.mu
	readOnly bool
	closed   bool // guarded by fs.mu
}

func (f *memFile) Name() string { return f.name }

func (f *memFile) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, ErrClosed
	}
	if f.pos >= int64(len(f.node.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.node.data[f.pos:])
	f.pos += int64(n)
	return n, nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, ErrClosed
	}
	if off >= int64(len(f.node.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.node.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, ErrClosed
	}
	if f.readOnly {
		return 0, fmt.Errorf("write %s: read-only file", f.name)
	}
	n := f.node
	end := int(f.pos) + len(p)
	if grow := int64(end - len(n.data)); f.fs.capacity > 0 && grow > 0 && grow > f.fs.freeLocked() {
		return 0, fmt.Errorf("write %s: %w", f.name, syscall.ENOSPC)
	}
	n.diverge(int(f.pos))
	if end > len(n.data) {
		if end > cap(n.data) {
			nd := make([]byte, len(n.data), max(end, 2*cap(n.data)))
			copy(nd, n.data)
			n.data = nd
		}
		n.data = n.data[:end]
	}
	copy(n.data[f.pos:], p)
	f.pos = int64(end)
	return len(p), nil
}

func (f *memFile) Sync() error {
	f.fs.syncs.Add(1)
	if d := f.fs.syncDelay.Load(); d > 0 {
		time.Sleep(time.Duration(d))
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.node.snap = nil
	f.node.syncedLen = len(f.node.data)
	return nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	n := f.node
	if int(size) < len(n.data) {
		n.diverge(int(size))
		n.data = n.data[:size]
	} else {
		n.data = append(n.data, make([]byte, int(size)-len(n.data))...)
	}
	f.pos = size
	return nil
}

// Preallocate implements Preallocator once the file system has a capacity
// (SetCapacity); without one it reports errors.ErrUnsupported, so that
// the many tests on an unbounded MemFS see no zero tails.
func (f *memFile) Preallocate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.fs.capacity == 0 {
		return errors.ErrUnsupported
	}
	if f.closed {
		return ErrClosed
	}
	n := f.node
	grow := size - int64(len(n.data))
	if grow <= 0 {
		return nil
	}
	free := max(f.fs.freeLocked(), 0)
	n.data = append(n.data, make([]byte, min(grow, free))...)
	if grow > free {
		return fmt.Errorf("fallocate %s: %w", f.name, syscall.ENOSPC)
	}
	return nil
}

func (f *memFile) Size() (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return int64(len(f.node.data)), nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.closed = true
	return nil
}
