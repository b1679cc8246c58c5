package persistence

import "io"

// File is an open file of an FS. Write appends at the current position
// (files are opened positioned at their end); ReadAt does not move it.
// A File is not safe for concurrent use except that Sync and Size may run
// concurrently with Write.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Closer
	// Sync makes the file's data durable.
	Sync() error
	// Truncate changes the size of the file; the write position moves to
	// the new end.
	Truncate(size int64) error
	// Size returns the current size of the file.
	Size() (int64, error)
	// Name returns the path the file was opened with.
	Name() string
}

// BackgroundSyncer is a File that can also make its data durable without
// holding up the goroutines that run beside the sync (a file of NewOSFS,
// on Linux). Such a sync takes longer than Sync, so it is for syncs
// nothing waits on at once: fsync everysec or no, a segment synced after
// its successor took over, a finished snapshot.
type BackgroundSyncer interface {
	SyncInBackground() error
}

// syncInBackground syncs f the BackgroundSyncer way where f offers it.
func syncInBackground(f File) error {
	if b, ok := f.(BackgroundSyncer); ok {
		return b.SyncInBackground()
	}
	return f.Sync()
}

// FS is the file system used by the package; every file access goes
// through it. Implementations: OSFS, MemFS, ErrorFS. Paths are slash- or
// OS-separated paths as accepted by path/filepath. Implementations must be
// safe for concurrent use.
type FS interface {
	// Create creates or truncates name for reading and writing.
	Create(name string) (File, error)
	// Open opens an existing file read-only.
	Open(name string) (File, error)
	// OpenReadWrite opens an existing file for reading and writing,
	// positioned at its end.
	OpenReadWrite(name string) (File, error)
	// Rename atomically replaces newname with oldname (durable after
	// SyncDir of the directory).
	Rename(oldname, newname string) error
	// Remove deletes a file.
	Remove(name string) error
	// MkdirAll creates dir and its parents.
	MkdirAll(dir string) error
	// List returns the base names of the files in dir, sorted.
	List(dir string) ([]string, error)
	// SyncDir makes the directory's entries (creations, renames,
	// removals) durable.
	SyncDir(dir string) error
	// Stat returns the size of name.
	Stat(name string) (size int64, err error)
}

// Preallocator is implemented by files that can reserve their space ahead
// of writes (OSFS on Linux). The WAL preallocates each segment and trims
// it to its written size when the segment is closed; a crash leaves a zero
// tail, which recovery treats as the torn tail it is.
type Preallocator interface {
	Preallocate(size int64) error
}
