//go:build linux

package eventloop

import (
	"bytes"
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWriteFull writes more than a non-blocking socket holds: writeFull
// returns what the socket took and EAGAIN, and the bytes the peer reads are
// exactly that prefix; once the peer has read, the rest goes through.
func TestWriteFull(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, fd := range fds {
			if fd >= 0 {
				_ = unix.Close(fd)
			}
		}
	}()
	_ = unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUF, 4096)

	msg := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	n, err := writeFull(fds[0], msg)
	if !errors.Is(err, unix.EAGAIN) || n <= 0 || n >= len(msg) {
		t.Fatalf("writeFull into a small socket: %d, %v; want part of %d and EAGAIN", n, err, len(msg))
	}
	got := make([]byte, 0, len(msg))
	buf := make([]byte, 64<<10)
	drain := func() {
		for {
			m, err := unix.Read(fds[1], buf)
			if m > 0 {
				got = append(got, buf[:m]...)
			}
			if err != nil || m <= 0 {
				return
			}
		}
	}
	drain()
	if !bytes.Equal(got, msg[:n]) {
		t.Fatalf("peer read %d bytes, not the %d written", len(got), n)
	}
	for sent := n; sent < len(msg); {
		m, err := writeFull(fds[0], msg[sent:])
		sent += m
		if err != nil && !errors.Is(err, unix.EAGAIN) {
			t.Fatalf("writeFull: %v", err)
		}
		drain()
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("peer read %d bytes, want the %d sent, in order", len(got), len(msg))
	}

	// A socket whose peer is gone: an error, nothing written.
	_ = unix.Close(fds[1])
	fds[1] = -1
	if n, err := writeFull(fds[0], msg[:10]); err == nil || n != 0 {
		t.Fatalf("writeFull to a closed peer: %d, %v", n, err)
	}
}
