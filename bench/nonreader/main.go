// Command nonreader measures what a client that pipelines writes and never
// reads its replies costs a server:
//
//	nonreader -addr 127.0.0.1:6379 -pid PID -seconds 8 -value 1024
//
// It sends SET k <value> as fast as the socket takes it for -seconds,
// reading nothing, and prints the bytes it managed to send and, with -pid,
// the server's largest resident set size during the run (VmRSS from /proc,
// sampled every 10 ms). A server that reads ahead of what it can run
// buffers what the client sends; one that applies back-pressure makes the
// client wait.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	pid := flag.Int("pid", 0, "server pid, to report its peak RSS")
	seconds := flag.Float64("seconds", 8, "how long to send")
	value := flag.Int("value", 1024, "value size in bytes")
	flag.Parse()

	conn, err := net.Dial("tcp", *addr)
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	cmd := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + strconv.Itoa(*value) + "\r\n" + strings.Repeat("v", *value) + "\r\n"
	chunk := []byte(strings.Repeat(cmd, max(1, 64<<10/len(cmd))))

	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if *pid > 0 {
				if rss, err := vmRSS(*pid); err == nil && rss > peak.Load() {
					peak.Store(rss)
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()

	end := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	var sent int64
	for time.Now().Before(end) {
		_ = conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		n, err := conn.Write(chunk)
		sent += int64(n)
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			fail(err)
		}
	}
	close(stop)
	<-sampled
	fmt.Printf("sent %d MB in %.0f s", sent>>20, *seconds)
	if *pid > 0 {
		fmt.Printf(", server peak RSS %d MB", peak.Load()>>20)
	}
	fmt.Println()
}

// vmRSS reads the resident set size of process pid.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "nonreader:", err)
	os.Exit(1)
}
