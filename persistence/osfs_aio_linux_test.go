package persistence

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Files of NewOSFS opened for writing sync through AIO where the kernel
// offers it, one context lent per sync and reused across files.
func TestAIODataSync(t *testing.T) {
	fs := NewOSFS()
	path := filepath.Join(t.TempDir(), "f")
	f, err := fs.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if _, err := f.Write([]byte("record\n")); err != nil {
			t.Fatal(err)
		}
		if err := f.(BackgroundSyncer).SyncInBackground(); err != nil {
			t.Fatalf("sync %d: %v", i, err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if fs.syncs.off.Load() {
		t.Skip("AIO fdatasync is not available here; fdatasync is used")
	}
	if n := len(fs.syncs.free); n != 1 {
		t.Fatalf("%d AIO contexts for one file syncing at a time", n)
	}
	// The wait parks in the poller only while the eventfd stays
	// non-blocking (Fd of a File that NewFile got non-blocking keeps it so).
	flags, err := unix.FcntlInt(fs.syncs.free[0].done.Fd(), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_NONBLOCK == 0 {
		t.Fatalf("completion eventfd flags %#x (%v): not non-blocking", flags, err)
	}
	g, err := fs.OpenReadWrite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Write([]byte("more\n")); err != nil {
		t.Fatal(err)
	}
	if err := g.(BackgroundSyncer).SyncInBackground(); err != nil {
		t.Fatal(err)
	}
	if n := len(fs.syncs.free); n != 1 {
		t.Fatalf("%d AIO contexts after a second file", n)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) != 100*len("record\n")+len("more\n") {
		t.Fatalf("read back %d bytes: %v", len(b), err)
	}
}

// A sync of a descriptor that is not open fails with the kernel's error,
// through AIO or not, and the context stays usable.
func TestAIODataSyncBadFd(t *testing.T) {
	p := &syncPool{}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fd := int(w.Fd())
	_ = r.Close()
	_ = w.Close()
	if err := p.fdatasync(fd); !errors.Is(err, unix.EBADF) {
		t.Fatalf("sync of a closed fd: %v", err)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "g"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.fdatasync(int(f.Fd())); err != nil {
		t.Fatalf("sync after a failed one: %v", err)
	}
}
