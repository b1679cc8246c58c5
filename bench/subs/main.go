// Command subs holds N subscriber connections to a Redis-protocol server for the Pub/Sub
// benchmark (bench/pubsub.sh): each sends SUBSCRIBE (or SSUBSCRIBE) once and then reads and
// discards everything, so that the subscribers cost the machine as little as possible. It
// prints "ready" once every subscription is confirmed and runs until -for elapses or it is
// killed, then prints the bytes received.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	n := flag.Int("n", 1, "subscribers")
	channel := flag.String("channel", "bench", "channel")
	cmd := flag.String("cmd", "SUBSCRIBE", "SUBSCRIBE or SSUBSCRIBE")
	dur := flag.Duration("for", 10*time.Minute, "how long to run at most")
	flag.Parse()
	if err := run(*addr, *n, *cmd, *channel, *dur); err != nil {
		fmt.Fprintln(os.Stderr, "subs:", err)
		os.Exit(1)
	}
}

func run(addr string, n int, cmd, channel string, dur time.Duration) error {
	req := fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(cmd), cmd, len(channel), channel)
	var total atomic.Int64
	var wg sync.WaitGroup
	conns := make([]net.Conn, 0, n)
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return fmt.Errorf("dial %s: %w", addr, err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, req); err != nil {
			return fmt.Errorf("subscribe: %w", err)
		}
		r := bufio.NewReaderSize(c, 64<<10)
		// The confirmation is an array of 3: header, two bulks (two lines each), an integer.
		for line := 0; line < 6; line++ {
			if _, err := r.ReadSlice('\n'); err != nil {
				return fmt.Errorf("confirmation %d: %w", i, err)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for {
				k, err := r.Read(buf)
				total.Add(int64(k))
				if err != nil {
					return
				}
			}
		}()
	}
	fmt.Println("ready")
	time.Sleep(dur)
	for _, c := range conns {
		_ = c.Close()
	}
	wg.Wait()
	fmt.Println("bytes " + strconv.FormatInt(total.Load(), 10))
	return nil
}
