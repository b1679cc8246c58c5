package persistence

import "golang.org/x/sys/unix"

// Preallocate reserves size bytes for the file (zero-filled, file size
// included) so appends that follow do not change its size: an fsync then
// has no size metadata to write, which makes every sync cheaper.
func (f osFile) Preallocate(size int64) error {
	return unix.Fallocate(int(f.Fd()), 0, 0, size)
}

// Sync makes the file's data durable with fdatasync(2): the data and the
// metadata needed to read it back (size, extent allocation) but not the
// timestamps, which fsync(2) would also journal. It was the fastest way to
// make a WAL append durable on the development disk, ahead of fsync and as
// fast as O_DSYNC or RWF_DSYNC writes (bench/README.md, "Sync methods").
func (f osFile) Sync() error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}

// SyncInBackground is Sync through Linux AIO for a file of NewOSFS opened
// for writing, so that the waiting goroutine holds no P (osfs_aio_linux.go).
// The descriptor is used under the file's reference (Control), so a Close
// meanwhile waits instead of letting the number go to another file.
func (f osFile) SyncInBackground() error {
	if f.syncs == nil {
		return f.Sync()
	}
	rc, err := f.File.SyscallConn()
	if err != nil {
		return err
	}
	var syncErr error
	if err := rc.Control(func(fd uintptr) { syncErr = f.syncs.fdatasync(int(fd)) }); err != nil {
		return err
	}
	return syncErr
}
