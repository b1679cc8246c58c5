// Command gen is the bench/ helper for bench/keyjobs.sh and bench/recovery.sh.
//
//	gen resp [-n N] [-start S] [-digits D] ARG...   write N commands in RESP to stdout, for redis-cli --pipe
//	gen waitpong -addr HOST:PORT [-timeout D]
//	gen pingprobe -addr HOST:PORT [-for D]
//
// resp: each ARG is a template in which every "{i}" becomes the command's
// index (start .. start+N-1) as 12 zero-padded digits (-digits changes the
// width), the same form redis-benchmark gives __rand_int__, so keys written
// here are the keys a redis-benchmark run with -r N hits. Example:
//
//	gen resp -n 10000000 SET 'key:{i}' 'val:{i}' | redis-cli -p 6379 --pipe
//
// waitpong: sends PING every millisecond (reconnecting while the port is
// closed, retrying while the server answers -LOADING) until a +PONG
// arrives, then prints the wall clock of that moment as Unix nanoseconds
// and exits 0; exits 1 after the timeout. The caller subtracts its own
// "date +%s%N" taken just before it started the server.
//
// pingprobe: sends PING after PING on one connection for the given time
// and prints how many it sent and the round trips' maximum, 99.9th and
// 99th percentiles in microseconds, and how many took over 1 ms and over
// 10 ms: a stall of the shard shows as one long round trip.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "resp":
		resp(os.Args[2:])
	case "waitpong":
		waitpong(os.Args[2:])
	case "pingprobe":
		pingprobe(os.Args[2:])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gen resp [-n N] [-start S] [-digits D] ARG... | gen waitpong -addr HOST:PORT [-timeout D] | gen pingprobe -addr HOST:PORT [-for D]")
	os.Exit(2)
}

func resp(args []string) {
	fs := flag.NewFlagSet("resp", flag.ExitOnError)
	n := fs.Int64("n", 1, "number of commands")
	start := fs.Int64("start", 0, "first index")
	width := fs.Int("digits", 12, "zero-padded width of {i}, 1..20")
	_ = fs.Parse(args)
	tmpl := fs.Args()
	if len(tmpl) == 0 {
		usage()
	}
	// Split every template at its "{i}" markers once.
	parts := make([][]string, len(tmpl))
	for k, t := range tmpl {
		parts[k] = strings.Split(t, "{i}")
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var buf, arg []byte
	if *width < 1 || *width > 20 {
		usage()
	}
	digits := make([]byte, *width)
	for i := *start; i < *start+*n; i++ {
		v := i
		for d := len(digits) - 1; d >= 0; d-- {
			digits[d] = byte('0' + v%10)
			v /= 10
		}
		buf = append(buf[:0], '*')
		buf = strconv.AppendInt(buf, int64(len(tmpl)), 10)
		buf = append(buf, '\r', '\n')
		for _, ps := range parts {
			arg = append(arg[:0], ps[0]...)
			for _, p := range ps[1:] {
				arg = append(arg, digits[:]...)
				arg = append(arg, p...)
			}
			buf = append(buf, '$')
			buf = strconv.AppendInt(buf, int64(len(arg)), 10)
			buf = append(buf, '\r', '\n')
			buf = append(buf, arg...)
			buf = append(buf, '\r', '\n')
		}
		if _, err := w.Write(buf); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func waitpong(args []string) {
	fs := flag.NewFlagSet("waitpong", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:6379", "server address")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	_ = fs.Parse(args)
	deadline := time.Now().Add(*timeout)
	var conn net.Conn
	var rd *bufio.Reader
	for time.Now().Before(deadline) {
		if conn == nil {
			c, err := net.DialTimeout("tcp", *addr, time.Second)
			if err != nil {
				time.Sleep(time.Millisecond)
				continue
			}
			conn, rd = c, bufio.NewReader(c)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		line := ""
		_, err := conn.Write([]byte("*1\r\n$4\r\nPING\r\n"))
		if err == nil {
			line, err = rd.ReadString('\n')
		}
		if err != nil {
			_ = conn.Close()
			conn = nil
			time.Sleep(time.Millisecond)
			continue
		}
		if strings.HasPrefix(line, "+PONG") {
			fmt.Println(time.Now().UnixNano())
			_ = conn.Close()
			return
		}
		time.Sleep(time.Millisecond) // -LOADING or similar: ask again
	}
	fmt.Fprintln(os.Stderr, "gen waitpong: no PONG from", *addr, "within", *timeout)
	os.Exit(1)
}

func pingprobe(args []string) {
	fs := flag.NewFlagSet("pingprobe", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:6379", "server address")
	dur := fs.Duration("for", 3*time.Second, "how long to probe")
	_ = fs.Parse(args)
	conn, err := net.DialTimeout("tcp", *addr, time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen pingprobe:", err)
		os.Exit(1)
	}
	defer conn.Close()
	rd := bufio.NewReader(conn)
	var rtts []time.Duration
	end := time.Now().Add(*dur)
	for time.Now().Before(end) {
		t0 := time.Now()
		if _, err := conn.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
			fmt.Fprintln(os.Stderr, "gen pingprobe:", err)
			os.Exit(1)
		}
		if line, err := rd.ReadString('\n'); err != nil || !strings.HasPrefix(line, "+PONG") {
			fmt.Fprintln(os.Stderr, "gen pingprobe: reply", line, err)
			os.Exit(1)
		}
		rtts = append(rtts, time.Since(t0))
	}
	slices.Sort(rtts)
	over := func(d time.Duration) int {
		i, _ := slices.BinarySearch(rtts, d)
		return len(rtts) - i
	}
	at := func(q float64) int64 { return rtts[int(q*float64(len(rtts)-1))].Microseconds() }
	fmt.Printf("pings=%d max_us=%d p999_us=%d p99_us=%d over_1ms=%d over_10ms=%d\n",
		len(rtts), rtts[len(rtts)-1].Microseconds(), at(0.999), at(0.99), over(time.Millisecond), over(10*time.Millisecond))
}
