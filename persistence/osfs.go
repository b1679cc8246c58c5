package persistence

import (
	"os"
	"sort"
)

// OSFS is the FS backed by the operating system. It is the only code in
// the package that calls the os package. Files sync with fdatasync(2);
// the files of NewOSFS also sync in the background through Linux AIO
// where it works (BackgroundSyncer, osfs_aio_linux.go).
type OSFS struct {
	syncs *syncPool
}

// NewOSFS returns an OSFS whose files wait for their background data syncs
// (BackgroundSyncer) without holding a P.
func NewOSFS() OSFS { return OSFS{syncs: &syncPool{}} }

var _ FS = OSFS{}

type osFile struct {
	*os.File
	// syncs makes the data of a file opened for writing durable; nil
	// for a file opened read-only or by the zero OSFS.
	syncs *syncPool
}

func (f osFile) Size() (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (f osFile) Truncate(size int64) error {
	if err := f.File.Truncate(size); err != nil {
		return err
	}
	_, err := f.Seek(size, 0)
	return err
}

// Create implements FS.
func (fs OSFS) Create(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{File: f, syncs: fs.syncs}, nil
}

// Open implements FS.
func (OSFS) Open(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return osFile{File: f}, nil
}

// OpenReadWrite implements FS.
func (fs OSFS) OpenReadWrite(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, 2); err != nil {
		_ = f.Close()
		return nil, err
	}
	return osFile{File: f, syncs: fs.syncs}, nil
}

// Rename implements FS.
func (OSFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }

// Remove implements FS.
func (OSFS) Remove(name string) error { return os.Remove(name) }

// MkdirAll implements FS.
func (OSFS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// List implements FS.
func (OSFS) List(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// SyncDir implements FS.
func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Stat implements FS.
func (OSFS) Stat(name string) (int64, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
