// Command bigreq measures how a server copes with large requests that
// arrive in pieces, the cases a parser that rescans its input from the
// start of a request handles in quadratic time:
//
//	bigreq -addr 127.0.0.1:6379 -pid PID value -size 500000000 -piece 65536
//	bigreq -addr 127.0.0.1:6379 -pid PID mset -args 1000001 -piece 65536
//
// value: one SET whose value has -size bytes, written -piece bytes at a
// time. mset: one MSET with -args arguments in all (the command name and
// (args-1)/2 key/value pairs), written -piece bytes at a time. Each prints
// the seconds from the first byte sent to the reply and, with -pid, the
// server's peak resident set size (VmHWM from /proc) afterwards.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	pid := flag.Int("pid", 0, "server pid, to report its peak RSS")
	size := flag.Int("size", 500_000_000, "value: value size in bytes")
	args := flag.Int("args", 1_000_001, "mset: arguments in all")
	piece := flag.Int("piece", 64<<10, "bytes per write")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: bigreq [flags] value|mset")
		os.Exit(2)
	}
	conn, err := net.Dial("tcp", *addr)
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	w := &pieceWriter{conn: conn, piece: *piece, buf: make([]byte, 0, *piece)}
	start := time.Now()
	switch flag.Arg(0) {
	case "value":
		w.str("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + strconv.Itoa(*size) + "\r\n")
		chunk := strings.Repeat("x", 64<<10)
		for left := *size; left > 0; left -= len(chunk) {
			w.str(chunk[:min(left, len(chunk))])
		}
		w.str("\r\n")
	case "mset":
		pairs := (*args - 1) / 2
		w.str("*" + strconv.Itoa(1+2*pairs) + "\r\n$4\r\nMSET\r\n")
		for i := 0; i < pairs; i++ {
			k := "key:" + strconv.Itoa(i)
			w.str("$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n$1\r\nv\r\n")
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: bigreq [flags] value|mset")
		os.Exit(2)
	}
	w.flush()
	reply, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s: %.2f s, reply %q", flag.Arg(0), time.Since(start).Seconds(), strings.TrimSpace(reply))
	if *pid > 0 {
		fmt.Printf(", server peak RSS %s", peakRSS(*pid))
	}
	fmt.Println()
}

// pieceWriter sends its input in writes of exactly piece bytes.
type pieceWriter struct {
	conn  net.Conn
	piece int
	buf   []byte
}

func (w *pieceWriter) str(s string) {
	for len(s) > 0 {
		n := min(w.piece-len(w.buf), len(s))
		w.buf = append(w.buf, s[:n]...)
		s = s[n:]
		if len(w.buf) == w.piece {
			w.flush()
		}
	}
}

func (w *pieceWriter) flush() {
	if len(w.buf) == 0 {
		return
	}
	if _, err := w.conn.Write(w.buf); err != nil {
		fail(err)
	}
	w.buf = w.buf[:0]
}

// peakRSS returns the VmHWM line of a process.
func peakRSS(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "?"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bigreq:", err)
	os.Exit(1)
}
