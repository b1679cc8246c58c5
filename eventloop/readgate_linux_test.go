//go:build linux

package eventloop

import (
	"errors"
	"testing"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// fakeConn is the part of a gnet.Conn the read gate uses.
type fakeConn struct {
	gnet.Conn
	fd       int
	loop     gnet.EventLoop
	outbound int
}

func (c *fakeConn) Fd() int                   { return c.fd }
func (c *fakeConn) EventLoop() gnet.EventLoop { return c.loop }
func (c *fakeConn) OutboundBuffered() int     { return c.outbound }

// fakeLoop stands for a reactor: the gate keys epoll instances by it.
type fakeLoop struct{ gnet.EventLoop }

// readyEvents returns the events epfd reports for fd now.
func readyEvents(t *testing.T, epfd, fd int) uint32 {
	t.Helper()
	evs := make([]unix.EpollEvent, 8)
	n, err := unix.EpollWait(epfd, evs, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs[:n] {
		if int(ev.Fd) == fd {
			return ev.Events
		}
	}
	return 0
}

// The gate finds the epoll instance that watches a connection registered
// as gnet registers it, and turns its read interest off and on.
func TestReadGatePausesAndResumes(t *testing.T) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(epfd)
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[0])
	defer unix.Close(pair[1])
	fd := pair[0]
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLPRI, Fd: int32(fd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(pair[1], []byte("input")); err != nil {
		t.Fatal(err)
	}
	if got := readyEvents(t, epfd, fd); got&unix.EPOLLIN == 0 {
		t.Fatalf("before the pause: events %#x", got)
	}

	var g readGate
	c := &fakeConn{fd: fd, loop: &fakeLoop{}}
	if err := g.pause(c); err != nil {
		t.Fatal(err)
	}
	if got := readyEvents(t, epfd, fd); got != 0 {
		t.Fatalf("paused: events %#x", got)
	}
	// Output to flush keeps write interest while reads are off.
	c.outbound = 10
	if err := g.pause(c); err != nil {
		t.Fatal(err)
	}
	if got := readyEvents(t, epfd, fd); got != unix.EPOLLOUT {
		t.Fatalf("paused with output: events %#x", got)
	}
	// With output to flush, reads resume level-triggered, as gnet watches
	// a socket it has output for.
	if edge, err := g.resume(c); err != nil || edge {
		t.Fatalf("resumed with output: edge %v, %v", edge, err)
	}
	for range 2 {
		if got := readyEvents(t, epfd, fd); got != unix.EPOLLIN|unix.EPOLLOUT {
			t.Fatalf("resumed with output: events %#x", got)
		}
	}
	c.outbound = 0
	if edge, err := g.resume(c); err != nil || !edge {
		t.Fatalf("resumed: edge %v, %v", edge, err)
	}
	// Edge-triggered: the unread input is reported once, not at every
	// wait; new input is reported again, and so is unread input when the
	// edge is re-armed.
	if got := readyEvents(t, epfd, fd); got != unix.EPOLLIN {
		t.Fatalf("resumed: events %#x", got)
	}
	if got := readyEvents(t, epfd, fd); got != 0 {
		t.Fatalf("resumed, reported before: events %#x", got)
	}
	if _, err := unix.Write(pair[1], []byte("more")); err != nil {
		t.Fatal(err)
	}
	if got := readyEvents(t, epfd, fd); got != unix.EPOLLIN {
		t.Fatalf("new input: events %#x", got)
	}
	if got := readyEvents(t, epfd, fd); got != 0 {
		t.Fatalf("new input, reported before: events %#x", got)
	}
	if err := g.edge(c); err != nil {
		t.Fatal(err)
	}
	if got := readyEvents(t, epfd, fd); got != unix.EPOLLIN {
		t.Fatalf("re-armed: events %#x", got)
	}
	if len(g.epoll) != 1 || g.epoll[c.loop] != epfd {
		t.Fatalf("epoll instances %v, want %d", g.epoll, epfd)
	}
}

// A connection no epoll instance watches, or one registered in another
// form than gnet's default (edge-triggered here), turns the gate off.
func TestReadGateRefusesOtherForms(t *testing.T) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[0])
	defer unix.Close(pair[1])
	var g readGate
	if err := g.pause(&fakeConn{fd: pair[0], loop: &fakeLoop{}}); !errors.Is(err, errNoGate) {
		t.Fatalf("unwatched fd: %v", err)
	}

	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(epfd)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(pair[1])}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, pair[1], &ev); err != nil {
		t.Fatal(err)
	}
	var g2 readGate
	if err := g2.pause(&fakeConn{fd: pair[1], loop: &fakeLoop{}}); !errors.Is(err, errNoGate) {
		t.Fatalf("edge-triggered fd: %v", err)
	}
}

func TestWatchesParsesFdinfo(t *testing.T) {
	info := "pos:\t0\nflags:\t02000002\nmnt_id:\t17\nino:\t1038\n" +
		"tfd:        6 events:       1b data:                6  pos:0 ino:2b76 sdev:f\n" +
		"tfd:       12 events:       19 data:                c  pos:0 ino:2b77 sdev:f\n" +
		"tfd:       13 events: 80000019 data:                d  pos:0 ino:2b78 sdev:f\n" +
		"tfd:       14 events:       19 data:      7f0000001234  pos:0 ino:2b79 sdev:f\n"
	for _, tc := range []struct {
		fd      int
		ok, bad bool
	}{
		{fd: 6, ok: true},
		{fd: 12, ok: true},
		{fd: 13, bad: true}, // EPOLLET
		{fd: 14, bad: true}, // data is not the fd
		{fd: 7},             // not watched here
	} {
		ok, err := watches(info, tc.fd)
		if ok != tc.ok || (err != nil) != tc.bad {
			t.Errorf("fd %d: ok %v, err %v", tc.fd, ok, err)
		}
	}
}
