//go:build linux

package eventloop

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// readGate turns a connection's read interest off and on in its reactor's
// epoll instance. gnet v2 has no call for that: its event loop reads all a
// socket holds into the connection's inbound buffer whether the handler
// consumes it or not, so a client that sends faster than its commands run
// would grow that buffer up to the query buffer limit. With reads off the
// kernel's receive window closes and TCP holds the client back, as it does
// for a Redis client whose query buffer is not read.
//
// It relies on two things gnet does by default on Linux, both checked when
// the epoll instance is found: an epoll event carries the connection's fd,
// and gnet registers it level-triggered (its own edge-triggered mode reads
// past the gate). gnet turns reading back on itself when its outbound
// buffer changes state (ModRead, ModReadWrite); the caller pauses again
// after the one read that lets through. The same registration is how
// Server.armEdge makes reads edge-triggered (edge).
type readGate struct {
	mu sync.Mutex
	// epoll maps a reactor to its epoll instance, found on first use.
	epoll map[gnet.EventLoop]int
	// broken is why no epoll instance could be found: the gate is off
	// for good rather than scanning /proc at every pause.
	broken error
}

// errNoGate reports that a connection's epoll instance could not be found
// in the form the gate relies on.
var errNoGate = errors.New("read gate: no epoll instance of gnet's form watches the connection")

// pause stops epoll from reporting the connection readable. Write interest
// stays while gnet has output to flush.
func (g *readGate) pause(c gnet.Conn) error {
	var ev uint32
	if c.OutboundBuffered() > 0 {
		ev = unix.EPOLLOUT
	}
	return g.set(c, ev)
}

// resume turns reading back on: edge-triggered (edge) when gnet has no
// output to flush, else gnet's own level-triggered interest in reading
// and writing, which gnet changes itself once that output is flushed.
// edge reports which.
func (g *readGate) resume(c gnet.Conn) (edge bool, err error) {
	if c.OutboundBuffered() > 0 {
		return false, g.set(c, unix.EPOLLIN|unix.EPOLLPRI|unix.EPOLLOUT)
	}
	return true, g.edge(c)
}

// edge makes epoll report the connection readable edge-triggered: once
// each time new bytes arrive, instead of at every epoll_wait while unread
// bytes remain. A socket the reactor has read then does not stay on
// epoll's ready list, ahead of sockets that become readable after it, so
// the reactor reads connections in the order their bytes arrived
// (Server.armEdge). Called again, it re-arms: epoll reports the connection
// at once if bytes wait unread.
//
// EPOLLRDHUP is what gnet's own edge-triggered mode registers too: a peer's
// close that arrives with its last bytes makes one report, after whose read
// no new bytes would report the end again; with EPOLLRDHUP in that report
// gnet reads on to the end and closes the connection.
func (g *readGate) edge(c gnet.Conn) error {
	return g.set(c, unix.EPOLLIN|unix.EPOLLPRI|unix.EPOLLRDHUP|unix.EPOLLET)
}

func (g *readGate) set(c gnet.Conn, events uint32) error {
	fd := c.Fd()
	epfd, err := g.epollOf(c.EventLoop(), fd)
	if err != nil {
		return err
	}
	ev := unix.EpollEvent{Events: events, Fd: int32(fd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_MOD, fd, &ev); err != nil {
		return fmt.Errorf("read gate: epoll_ctl mod fd %d: %w", fd, err)
	}
	return nil
}

// epollOf returns the epoll instance of reactor el, which watches fd.
func (g *readGate) epollOf(el gnet.EventLoop, fd int) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if epfd, ok := g.epoll[el]; ok {
		return epfd, nil
	}
	if g.broken != nil {
		return -1, g.broken
	}
	epfd, err := findEpoll(fd)
	if err != nil {
		g.broken = err
		return -1, err
	}
	if g.epoll == nil {
		g.epoll = make(map[gnet.EventLoop]int)
	}
	g.epoll[el] = epfd
	return epfd, nil
}

// findEpoll finds, among the process's epoll instances, the one that
// watches fd, from the kernel's account of each (/proc/self/fdinfo): the
// registration must carry fd as its data and not be edge-triggered, as
// gnet's default poller registers connections.
func findEpoll(fd int) (int, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1, fmt.Errorf("read gate: %w", err)
	}
	for _, e := range ents {
		epfd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || link != "anon_inode:[eventpoll]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		if ok, err := watches(string(info), fd); ok {
			return epfd, nil
		} else if err != nil {
			return -1, err
		}
	}
	return -1, errNoGate
}

// watches reports whether an epoll instance's fdinfo lists fd in the form
// the gate relies on, and an error when it lists fd in another form.
// A registration reads "tfd: <fd, decimal> events: <hex> data: <hex> ...".
func watches(info string, fd int) (bool, error) {
	for _, line := range strings.Split(info, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != "tfd:" || f[2] != "events:" || f[4] != "data:" {
			continue
		}
		if n, err := strconv.Atoi(f[1]); err != nil || n != fd {
			continue
		}
		events, err1 := strconv.ParseUint(f[3], 16, 32)
		data, err2 := strconv.ParseUint(f[5], 16, 64)
		if err1 != nil || err2 != nil || data != uint64(fd) || events&unix.EPOLLET != 0 {
			return false, fmt.Errorf("%w (fd %d: %s)", errNoGate, fd, strings.TrimSpace(line))
		}
		return true, nil
	}
	return false, nil
}
