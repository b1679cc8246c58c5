//go:build linux

package main

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI (include/uapi/linux/io_uring.h), as much as this uses.

type sqRingOffsets struct {
	Head, Tail, RingMask, RingEntries, Flags, Dropped, Array, Resv1 uint32
	UserAddr                                                        uint64
}

type cqRingOffsets struct {
	Head, Tail, RingMask, RingEntries, Overflow, Cqes, Flags, Resv1 uint32
	UserAddr                                                        uint64
}

type uringParams struct {
	SqEntries, CqEntries, Flags, SqThreadCPU, SqThreadIdle, Features, WqFd uint32
	Resv                                                                   [3]uint32
	SqOff                                                                  sqRingOffsets
	CqOff                                                                  cqRingOffsets
}

type sqe struct {
	Opcode      uint8
	Flags       uint8
	Ioprio      uint16
	Fd          int32
	Off         uint64
	Addr        uint64
	Len         uint32
	OpFlags     uint32
	UserData    uint64
	BufGroup    uint16
	Personality uint16
	SpliceFdIn  int32
	Addr3       uint64
	Pad         uint64
}

type cqe struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

const (
	opAccept = 13
	opSend   = 26
	opRecv   = 27

	setupSingleIssuer = 1 << 12
	setupDeferTaskrun = 1 << 13
	enterGetEvents    = 1 << 0
	offSQEs           = 0x10000000

	acceptMultishot = 1 << 0
	cqeFMore        = 1 << 1
)

// uring is one ring, used by one thread.
type uring struct {
	fd                     int
	sqTail, sqMask         *uint32
	sqes                   []sqe
	cqHead, cqTail, cqMask *uint32
	cqes                   []cqe
	tail                   uint32 // the next SQE's index, published on enter
	queued                 uint32 // SQEs not yet submitted
}

func newURing(entries uint32) (*uring, error) {
	// Single issuer with deferred task work: completions are posted only
	// when this thread enters the kernel to wait for them, never by
	// interrupting it.
	p := uringParams{Flags: setupSingleIssuer | setupDeferTaskrun}
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	r := &uring{fd: int(fd)}
	size := max(p.SqOff.Array+p.SqEntries*4, p.CqOff.Cqes+p.CqEntries*uint32(unsafe.Sizeof(cqe{})))
	rings, err := unix.Mmap(r.fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap rings: %w", err)
	}
	sqes, err := unix.Mmap(r.fd, offSQEs, int(p.SqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap SQEs: %w", err)
	}
	base := unsafe.Pointer(&rings[0])
	r.sqTail = (*uint32)(unsafe.Add(base, p.SqOff.Tail))
	r.sqMask = (*uint32)(unsafe.Add(base, p.SqOff.RingMask))
	// The SQ index array maps ring slot i to SQE i once and for all.
	array := unsafe.Slice((*uint32)(unsafe.Add(base, p.SqOff.Array)), p.SqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqes[0])), p.SqEntries)
	r.cqHead = (*uint32)(unsafe.Add(base, p.CqOff.Head))
	r.cqTail = (*uint32)(unsafe.Add(base, p.CqOff.Tail))
	r.cqMask = (*uint32)(unsafe.Add(base, p.CqOff.RingMask))
	r.cqes = unsafe.Slice((*cqe)(unsafe.Add(base, p.CqOff.Cqes)), p.CqEntries)
	r.tail = atomic.LoadUint32(r.sqTail)
	return r, nil
}

// next returns a zeroed SQE to fill; it is submitted by the next enter.
// The ring is sized so that it cannot fill: at most two SQEs per
// connection are queued between two enters.
func (r *uring) next() *sqe {
	e := &r.sqes[r.tail&*r.sqMask]
	*e = sqe{}
	r.tail++
	r.queued++
	return e
}

// enter submits what is queued and waits for at least wait completions.
func (r *uring) enter(wait uint32) error {
	atomic.StoreUint32(r.sqTail, r.tail)
	for {
		_, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.queued), uintptr(wait), enterGetEvents, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		r.queued = 0
		if errno != 0 {
			return fmt.Errorf("io_uring_enter: %w", errno)
		}
		return nil
	}
}

// uconn is a connection of the io_uring modes. Its descriptor is closed
// only when no operation on it is in flight, so its number cannot reach a
// new connection while a completion for the old one may still come.
type uconn struct {
	fd        int
	in        input
	out, next []byte // out is being sent; next gathers replies meanwhile
	sending   bool
	receiving bool
	closing   bool
}

const (
	tagAccept = iota
	tagRecv
	tagSend
)

// serveUring is the same loop over io_uring: one io_uring_enter per turn
// submits the turn's sends and receives and waits for the next completions.
func serveUring(st *store, lfd int) error {
	r, err := newURing(4096)
	if err != nil {
		return err
	}
	conns := map[int]*uconn{}
	sends := uint32(0) // sends queued this turn
	accept := func() {
		e := r.next()
		e.Opcode, e.Fd, e.Ioprio, e.UserData = opAccept, int32(lfd), acceptMultishot, tagAccept
	}
	receive := func(c *uconn) {
		e := r.next()
		e.Opcode, e.Fd, e.UserData = opRecv, int32(c.fd), uint64(c.fd)<<8|tagRecv
		room, ok := c.in.room()
		if !ok {
			c.closing = true
			return
		}
		e.Addr, e.Len = uint64(uintptr(unsafe.Pointer(&room[0]))), uint32(len(room))
		c.receiving = true
	}
	send := func(c *uconn) {
		e := r.next()
		e.Opcode, e.Fd, e.UserData = opSend, int32(c.fd), uint64(c.fd)<<8|tagSend
		e.Addr, e.Len = uint64(uintptr(unsafe.Pointer(&c.out[0]))), uint32(len(c.out))
		c.sending = true
		sends++
	}
	// settle closes a closing connection once nothing of it is in flight.
	settle := func(c *uconn) {
		if !c.closing {
			return
		}
		if c.receiving {
			// Ends the armed receive, whose completion settles again.
			_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
			return
		}
		if !c.sending {
			_ = unix.Close(c.fd)
			delete(conns, c.fd)
		}
	}
	flush := func(c *uconn) {
		if !c.sending && len(c.next) > 0 && !c.closing {
			c.out, c.next = c.next, c.out[:0]
			send(c)
		}
	}
	accept()
	for {
		// A send to a client that reads completes during the submit. Waiting
		// for one completion more than the sends queued lets the turn end
		// on a receive (or an accept) rather than return at once with the
		// sends' own completions: one enter per turn instead of two.
		if err := r.enter(sends + 1); err != nil {
			return err
		}
		sends = 0
		head, tail := atomic.LoadUint32(r.cqHead), atomic.LoadUint32(r.cqTail)
		for ; head != tail; head++ {
			ev := r.cqes[head&*r.cqMask]
			if ev.UserData == tagAccept {
				if ev.Res >= 0 {
					fd := int(ev.Res)
					_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
					c := &uconn{fd: fd, in: input{buf: make([]byte, 16<<10)}}
					conns[fd] = c
					receive(c)
				}
				if ev.Flags&cqeFMore == 0 {
					accept()
				}
				continue
			}
			c := conns[int(ev.UserData>>8)]
			if c == nil {
				continue
			}
			switch ev.UserData & 0xff {
			case tagRecv:
				c.receiving = false
				if ev.Res <= 0 {
					c.closing = true
					settle(c)
					continue
				}
				c.in.n += int(ev.Res)
				var perr error
				if c.next, perr = c.in.consume(st, c.next); perr != nil {
					c.closing = true
				}
				flush(c)
				if !c.closing {
					receive(c)
				}
				settle(c)
			case tagSend:
				c.sending = false
				switch {
				case ev.Res < 0:
					c.closing = true
				case int(ev.Res) < len(c.out):
					c.out = c.out[ev.Res:]
					send(c)
				default:
					c.out = c.out[:0]
					flush(c)
				}
				settle(c)
			}
		}
		atomic.StoreUint32(r.cqHead, head)
	}
}
