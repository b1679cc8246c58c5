// Command syncbench measures how fast this machine's disk makes small
// appends durable, to choose how the WAL syncs (bench/README.md, "Sync
// methods"). Each method appends -size-byte writes to a fresh file in -dir
// and makes each one durable before the next, as one group commit does:
//
//	fsync       write, then fsync(2)                 (os.File.Sync)
//	fdatasync   write, then fdatasync(2)
//	odsync      write to a file opened with O_DSYNC
//	rwfdsync    pwritev2(2) with RWF_DSYNC
//
// each on a preallocated file (fallocate of -segment bytes, as the WAL does)
// and on a growing one. It prints the median and p99 latency per durable
// append and the appends per second. Methods run interleaved in -rounds
// rounds so a change in background load hits all of them alike.
//
//	go run ./bench/syncbench -dir /tmp -n 2000 -size 3000
//
// -idle prints only the median microseconds of what the WAL does (write +
// fsync on a preallocated file): bench/run.sh uses it for the ceiling of
// durable mode (clients ÷ idle fsync latency).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

type method struct {
	name string
	run  func(fd int, b []byte, off int64) error
	flag int
}

func main() {
	dir := flag.String("dir", os.TempDir(), "directory on the disk to measure")
	n := flag.Int("n", 2000, "durable appends per method and round")
	size := flag.Int("size", 3000, "bytes per append (50 SETs of small values are about 3000)")
	segment := flag.Int64("segment", 64<<20, "preallocated file size")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	idle := flag.Bool("idle", false, "print only the median µs of write + fsync on a preallocated file")
	flag.Parse()

	methods := []method{
		{name: "fsync", run: func(fd int, b []byte, off int64) error {
			if _, err := unix.Pwrite(fd, b, off); err != nil {
				return err
			}
			return unix.Fsync(fd)
		}},
		{name: "fdatasync", run: func(fd int, b []byte, off int64) error {
			if _, err := unix.Pwrite(fd, b, off); err != nil {
				return err
			}
			return unix.Fdatasync(fd)
		}},
		{name: "odsync", flag: unix.O_DSYNC, run: func(fd int, b []byte, off int64) error {
			_, err := unix.Pwrite(fd, b, off)
			return err
		}},
		{name: "rwfdsync", run: func(fd int, b []byte, off int64) error {
			_, err := unix.Pwritev2(fd, [][]byte{b}, off, unix.RWF_DSYNC)
			return err
		}},
	}
	buf := make([]byte, *size)
	for i := range buf {
		buf[i] = byte('a' + i%26)
	}
	if *idle {
		var all []time.Duration
		for r := 0; r < *rounds; r++ {
			d, err := runOne(*dir, methods[0], true, *segment, buf, *n)
			if err != nil {
				fmt.Fprintf(os.Stderr, "syncbench: %v\n", err)
				os.Exit(1)
			}
			all = append(all, d...)
		}
		sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
		fmt.Printf("%d\n", all[len(all)/2].Microseconds())
		return
	}
	type key struct {
		m        string
		prealloc bool
	}
	lat := map[key][]time.Duration{}
	var order []key
	for r := 0; r < *rounds; r++ {
		for _, m := range methods {
			for _, pre := range []bool{true, false} {
				k := key{m.name, pre}
				if r == 0 {
					order = append(order, k)
				}
				d, err := runOne(*dir, m, pre, *segment, buf, *n)
				if err != nil {
					fmt.Fprintf(os.Stderr, "syncbench: %s prealloc=%v: %v\n", m.name, pre, err)
					os.Exit(1)
				}
				lat[k] = append(lat[k], d...)
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("# %d rounds x %d appends of %d bytes in %s; load %s", *rounds, *n, *size, *dir, load)
	fmt.Printf("| method | preallocated | median us | p99 us | appends/s |\n|---|---|--:|--:|--:|\n")
	for _, k := range order {
		d := lat[k]
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		fmt.Printf("| %s | %v | %d | %d | %.0f |\n", k.m, k.prealloc,
			d[len(d)/2].Microseconds(), d[len(d)*99/100].Microseconds(),
			float64(len(d))/sum.Seconds())
	}
}

func runOne(dir string, m method, prealloc bool, segment int64, buf []byte, n int) ([]time.Duration, error) {
	path := filepath.Join(dir, fmt.Sprintf("syncbench-%d-%s", os.Getpid(), m.name))
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC|m.flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer os.Remove(path)
	defer unix.Close(fd)
	if prealloc {
		if err := unix.Fallocate(fd, 0, 0, segment); err != nil {
			return nil, fmt.Errorf("fallocate: %w", err)
		}
		if err := unix.Fsync(fd); err != nil {
			return nil, err
		}
	}
	out := make([]time.Duration, 0, n)
	var off int64
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := m.run(fd, buf, off); err != nil {
			return nil, fmt.Errorf("append %d: %w", i, err)
		}
		out = append(out, time.Since(t0))
		off += int64(len(buf))
	}
	return out, nil
}
