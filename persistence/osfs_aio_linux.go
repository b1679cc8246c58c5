package persistence

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Asynchronous fdatasync through Linux AIO.
//
// A goroutine in a blocking system call keeps its P until the runtime's
// monitor takes it back, which can take up to 10 ms when the monitor has
// been idle. A server pinned to one CPU (GOMAXPROCS=1) has one P, so an
// fdatasync on the WAL's sync goroutine would stop the reactors and the
// shards for as long as the disk takes or the monitor sleeps: the longest
// latencies of a loaded server. Linux (4.18 and later) runs an
// IOCB_CMD_FDSYNC request on a kernel worker, io_submit returns at once,
// and the completion is signalled on an eventfd that Go's network poller
// watches: the goroutine waiting for the sync is parked like one waiting
// for a socket, and holds no P meanwhile.
//
// Where AIO is missing (ENOSYS, a seccomp filter) or the filesystem does
// not take the request (EINVAL), fdatasync is called directly from then on.

// aio ABI (include/uapi/linux/aio_abi.h).
const (
	iocbCmdFdsync = 3
	iocbFlagResfd = 1 << 0
)

// iocb is struct iocb on a little-endian machine (aio_key before
// aio_rw_flags).
type iocb struct {
	_      uint64 // aio_data
	_      uint32 // aio_key
	_      int32  // aio_rw_flags
	opcode uint16
	_      int16 // aio_reqprio
	fildes uint32
	_      uint64 // aio_buf
	_      uint64 // aio_nbytes
	_      int64  // aio_offset
	_      uint64 // aio_reserved2
	flags  uint32
	resfd  uint32
}

// ioEvent is struct io_event.
type ioEvent struct {
	_   uint64 // data
	_   uint64 // obj
	res int64
	_   int64 // res2
}

// aioSyncer is one AIO context with its completion eventfd; it carries one
// sync at a time.
type aioSyncer struct {
	ctx  uintptr
	done *os.File // the eventfd, non-blocking: reads park in the poller
	cb   iocb
	ev   ioEvent
	cnt  [8]byte
}

// syncPool lends AIO contexts to the files of one OSFS, one per sync in
// flight. Contexts are kept for the life of the pool: io_destroy waits for
// an RCU grace period (tens of milliseconds), which a context per file
// would pay at every WAL segment switch.
type syncPool struct {
	mu   sync.Mutex
	free []*aioSyncer
	// off is set once AIO fsync proved unavailable: fdatasync from then on.
	off atomic.Bool
}

// errAIOUnavailable reports that a data sync cannot go through AIO.
var errAIOUnavailable = errors.New("persistence: AIO fdatasync unavailable")

// fdatasync makes fd's data durable.
func (p *syncPool) fdatasync(fd int) error {
	if !p.off.Load() {
		err := p.aioSync(fd)
		if !errors.Is(err, errAIOUnavailable) {
			return err
		}
		p.off.Store(true)
	}
	for {
		err := unix.Fdatasync(fd)
		if err != unix.EINTR {
			return err
		}
	}
}

func (p *syncPool) aioSync(fd int) error {
	p.mu.Lock()
	var s *aioSyncer
	if n := len(p.free); n > 0 {
		s = p.free[n-1]
		p.free = p.free[:n-1]
	}
	p.mu.Unlock()
	if s == nil {
		var err error
		if s, err = newAIOSyncer(); err != nil {
			return err
		}
	}
	err := s.fdatasync(fd)
	if errors.Is(err, errAIOUnavailable) {
		s.close()
		return err
	}
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
	return err
}

func newAIOSyncer() (*aioSyncer, error) {
	s := &aioSyncer{}
	if _, _, errno := unix.Syscall(unix.SYS_IO_SETUP, 1, uintptr(unsafe.Pointer(&s.ctx)), 0); errno != 0 {
		return nil, fmt.Errorf("%w: io_setup: %v", errAIOUnavailable, errno)
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		_, _, _ = unix.Syscall(unix.SYS_IO_DESTROY, s.ctx, 0, 0)
		return nil, fmt.Errorf("%w: eventfd: %v", errAIOUnavailable, err)
	}
	s.done = os.NewFile(uintptr(efd), "aio-fdatasync")
	return s, nil
}

func (s *aioSyncer) close() {
	_, _, _ = unix.Syscall(unix.SYS_IO_DESTROY, s.ctx, 0, 0)
	_ = s.done.Close()
}

// fdatasync submits one IOCB_CMD_FDSYNC for fd and waits for it.
func (s *aioSyncer) fdatasync(fd int) error {
	s.cb = iocb{opcode: iocbCmdFdsync, fildes: uint32(fd), flags: iocbFlagResfd, resfd: uint32(s.done.Fd())}
	cbs := [1]*iocb{&s.cb}
	for {
		n, _, errno := unix.Syscall(unix.SYS_IO_SUBMIT, s.ctx, 1, uintptr(unsafe.Pointer(&cbs[0])))
		if errno == unix.EINTR || errno == unix.EAGAIN {
			continue
		}
		if errno == unix.EINVAL || errno == unix.ENOSYS || errno == unix.EPERM {
			return fmt.Errorf("%w: io_submit: %v", errAIOUnavailable, errno)
		}
		if errno != 0 {
			return fmt.Errorf("persistence: io_submit: %w", errno)
		}
		if n == 1 {
			break
		}
	}
	// The eventfd counts completions; its read parks this goroutine in the
	// network poller until the kernel worker is done.
	if _, err := s.done.Read(s.cnt[:]); err != nil {
		return fmt.Errorf("persistence: wait for fdatasync: %w", err)
	}
	for {
		n, _, errno := unix.Syscall6(unix.SYS_IO_GETEVENTS, s.ctx, 1, 1, uintptr(unsafe.Pointer(&s.ev)), 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return fmt.Errorf("persistence: io_getevents: %w", errno)
		}
		if n != 1 {
			return fmt.Errorf("persistence: io_getevents returned %d events", n)
		}
		break
	}
	if s.ev.res < 0 {
		return unix.Errno(-s.ev.res)
	}
	return nil
}

// The kernel reads struct iocb as 64 bytes and writes struct io_event as 32.
var _ = [1]struct{}{}[unsafe.Sizeof(iocb{})-64]
var _ = [1]struct{}{}[unsafe.Sizeof(ioEvent{})-32]
