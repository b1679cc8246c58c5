//go:build linux

package main

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// econn is a connection of the epoll mode.
type econn struct {
	in  input
	out []byte
}

// serveEpoll is the loop of redis-server's shape: level-triggered epoll,
// then for each readable socket one read(2), the commands, one write(2).
func serveEpoll(st *store, lfd int) error {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %w", err)
	}
	if err := unix.SetNonblock(lfd, true); err != nil {
		return fmt.Errorf("listener non-blocking: %w", err)
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, lfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(lfd)}); err != nil {
		return fmt.Errorf("epoll_ctl listener: %w", err)
	}
	conns := map[int]*econn{}
	drop := func(fd int) {
		_ = unix.Close(fd) // also leaves the epoll set
		delete(conns, fd)
	}
	events := make([]unix.EpollEvent, 256)
	for {
		n, err := unix.EpollWait(ep, events, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			if fd == lfd {
				acceptAll(lfd, func(nfd int) {
					conns[nfd] = &econn{in: input{buf: make([]byte, 16<<10)}}
					if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, nfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(nfd)}); err != nil {
						drop(nfd)
					}
				})
				continue
			}
			c := conns[fd]
			room, ok := c.in.room()
			if !ok {
				drop(fd)
				continue
			}
			r, err := unix.Read(fd, room)
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				continue
			}
			if r <= 0 {
				drop(fd)
				continue
			}
			c.in.n += r
			c.out, err = c.in.consume(st, c.out[:0])
			if err != nil {
				drop(fd)
				continue
			}
			// The replies are small and the client reads them: a socket
			// that does not take them all is dropped rather than watched
			// for writability, which the measured path never needs.
			if w, err := writeAll(fd, c.out); err != nil || w < len(c.out) {
				drop(fd)
			}
		}
	}
}

func acceptAll(lfd int, opened func(fd int)) {
	for {
		nfd, _, err := unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			return
		}
		_ = unix.SetsockoptInt(nfd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		opened(nfd)
	}
}

func writeAll(fd int, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		w, err := unix.Write(fd, b[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return n, err
		}
		n += w
	}
	return n, nil
}
