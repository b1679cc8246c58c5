// Command streamload is bench/stream.sh's load generator for the consumer
// side of a stream: each client reads one entry with XREADGROUP … COUNT 1
// STREAMS key > and acknowledges it with XACK, -pipeline pairs at a time
// (the reads of a round are sent together, then the acks of what they
// returned). It prints "pairs_per_sec N" after -n pairs in total (or
// fewer, when the stream runs dry).
//
//	streamload -addr 127.0.0.1:6379 -clients 50 -pipeline 16 -n 1000000 -key s -group g
//
// Each client is its own consumer (c0, c1, …) on one raw connection; RESP
// is written and parsed here so the generator costs little next to the
// server.
package main

import (
	"bufio"
	"errors"
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
	clients := flag.Int("clients", 50, "connections")
	pipeline := flag.Int("pipeline", 1, "read+ack pairs per round trip")
	n := flag.Int64("n", 100000, "pairs in total")
	key := flag.String("key", "s", "stream key")
	group := flag.String("group", "g", "consumer group")
	flag.Parse()
	var left atomic.Int64
	left.Store(*n)
	var done atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, *clients)
	start := time.Now()
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func(consumer string) {
			defer wg.Done()
			if err := run(*addr, *key, *group, consumer, *pipeline, &left, &done); err != nil {
				errc <- err
			}
		}("c" + strconv.Itoa(i))
	}
	wg.Wait()
	elapsed := time.Since(start)
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "streamload:", err)
		os.Exit(1)
	default:
	}
	fmt.Printf("pairs %d seconds %.3f pairs_per_sec %.0f\n", done.Load(), elapsed.Seconds(), float64(done.Load())/elapsed.Seconds())
}

func cmd(w *bufio.Writer, args ...string) {
	w.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		w.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
}

func run(addr, key, group, consumer string, pipeline int, left, done *atomic.Int64) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 64<<10)
	w := bufio.NewWriterSize(conn, 64<<10)
	ids := make([]string, 0, pipeline)
	for {
		k := int64(pipeline)
		if left.Add(-k)+k <= 0 {
			return nil
		}
		for range pipeline {
			cmd(w, "XREADGROUP", "GROUP", group, consumer, "COUNT", "1", "STREAMS", key, ">")
		}
		if err := w.Flush(); err != nil {
			return err
		}
		ids = ids[:0]
		for range pipeline {
			id, err := readEntryID(r)
			if err != nil {
				return err
			}
			if id != "" {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return nil // the stream ran dry
		}
		for _, id := range ids {
			cmd(w, "XACK", key, group, id)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		for range ids {
			line, err := r.ReadString('\n')
			if err != nil {
				return err
			}
			if line != ":1\r\n" {
				return fmt.Errorf("XACK replied %q", line)
			}
		}
		done.Add(int64(len(ids)))
	}
}

// readEntryID reads one XREADGROUP reply and returns the id of its entry
// ("" for a null reply).
func readEntryID(r *bufio.Reader) (string, error) {
	var id string
	var walk func(depth int) error
	walk = func(depth int) error {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if len(line) < 3 {
			return errors.New("short line")
		}
		switch line[0] {
		case '*':
			n, _ := strconv.Atoi(line[1 : len(line)-2])
			for i := 0; i < n; i++ {
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
		case '$':
			n, _ := strconv.Atoi(line[1 : len(line)-2])
			if n < 0 {
				return nil
			}
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				return err
			}
			// [[key, [[id, fields]]]]: the id is the first bulk at depth 4.
			if depth == 4 && id == "" {
				id = string(buf[:n])
			}
		case '-':
			return errors.New(line[:len(line)-2])
		}
		return nil
	}
	return id, walk(0)
}
