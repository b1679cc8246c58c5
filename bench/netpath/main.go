//go:build linux

package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

func main() {
	mode := flag.String("mode", "epoll", "how sockets are driven: epoll or uring")
	port := flag.Int("port", 7000, "TCP port on 127.0.0.1")
	flag.String("dir", "", "ignored (bench/lib.sh passes a data directory)")
	flag.Parse()
	// One OS thread does all the socket work: io_uring's single-issuer mode
	// requires it, and it keeps the modes alike.
	runtime.LockOSThread()
	lfd, err := listen(*port)
	if err != nil {
		fmt.Fprintln(os.Stderr, "netpath:", err)
		os.Exit(1)
	}
	st := &store{m: make(map[string][]byte)}
	switch *mode {
	case "epoll":
		err = serveEpoll(st, lfd)
	case "uring":
		err = serveUring(st, lfd)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	fmt.Fprintln(os.Stderr, "netpath:", err)
	os.Exit(1)
}

func listen(port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return -1, fmt.Errorf("SO_REUSEADDR: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return -1, fmt.Errorf("bind 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(fd, 1024); err != nil {
		return -1, fmt.Errorf("listen: %w", err)
	}
	return fd, nil
}

// input is a connection's unparsed bytes.
type input struct {
	buf []byte
	n   int
}

// room returns where the next read goes, growing the buffer when it is
// full; false when a command would exceed maxInput.
func (in *input) room() ([]byte, bool) {
	if in.n == len(in.buf) {
		if len(in.buf) >= maxInput {
			return nil, false
		}
		in.buf = append(in.buf, make([]byte, len(in.buf))...)
	}
	return in.buf[in.n:], true
}

// consume runs every whole command of the input, appending replies to out,
// and keeps the rest for the next read.
func (in *input) consume(st *store, out []byte) ([]byte, error) {
	used, out, err := st.serve(in.buf[:in.n], out)
	in.n = copy(in.buf, in.buf[used:in.n])
	return out, err
}
