package integration_test

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// slowReadRate is how fast the slow readers below read: 10 MB/s.
const slowReadRate = 10 << 20

// readSlowly reads conn at about rate bytes a second until the connection
// ends or deadline passes, and returns the bytes read and when it ended.
func readSlowly(conn net.Conn, rate int64, deadline time.Time) (total int64, ended time.Time, timedOut bool) {
	buf := make([]byte, 64<<10)
	start := time.Now()
	_ = conn.SetReadDeadline(deadline)
	for {
		n, err := conn.Read(buf)
		total += int64(n)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return total, time.Now(), true
			}
			return total, time.Now(), false
		}
		// Sleep until the bytes read so far are on schedule.
		if ahead := time.Duration(total*int64(time.Second)/rate) - time.Since(start); ahead > 0 {
			time.Sleep(ahead)
		}
	}
}

// sampleRSS records the peak VmRSS of pid every 50 ms until stop closes.
func sampleRSS(t *testing.T, pid int, stop <-chan struct{}) <-chan int64 {
	peak := make(chan int64, 1)
	go func() {
		var m int64
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			m = max(m, rssBytes(t, pid))
			select {
			case <-stop:
				peak <- m
				return
			case <-tick.C:
			}
		}
	}()
	return peak
}

// waitOutput waits (bounded) until the server's log holds s.
func waitOutput(t *testing.T, p *testserver.Process, s string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := p.Output()
		if strings.Contains(out, s) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q:\n%s", s, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A client that pipelines 500,000 GETs of 1 KB values and reads its
// replies at 10 MB/s is held by back-pressure at a few MB of unsent
// replies: over the normal class's 1 MB soft limit, under its hard limit.
// It is disconnected once it has stayed over the soft limit for more than
// the soft seconds (1 s), with one log line; the server's resident memory
// stays bounded meanwhile.
func TestSlowReaderSoftLimitGETFlood(t *testing.T) {
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "no"})
	c := p.Client(t, 0)
	expect(t, c, "OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 128mb 1mb 1")
	expect(t, c, map[interface{}]interface{}{"client-output-buffer-limit": "normal 134217728 1048576 1 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		"CONFIG", "GET", "client-output-buffer-limit")
	expect(t, c, map[interface{}]interface{}{"ruvio-client-output-buffer-limit": "134217728"}, "CONFIG", "GET", "ruvio-client-output-buffer-limit")
	val := strings.Repeat("v", 1<<10)
	expect(t, c, "OK", "SET", "k", val)
	base := rssBytes(t, p.Pid())

	conn, err := net.DialTimeout("tcp", p.Addrs[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stop := make(chan struct{})
	peak := sampleRSS(t, p.Pid(), stop)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		// 500,000 GETs, 500 MB of replies: 50 s of reading at 10 MB/s.
		// (The requests are 11 MB: the server holds unparsed input up to
		// client-query-buffer-limit, which is not what this test is about.)
		defer wg.Done()
		req := []byte(strings.Repeat(multibulk("GET", "k"), 1000))
		_ = conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
		for i := 0; i < 500; i++ {
			if _, err := conn.Write(req); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	total, ended, timedOut := readSlowly(conn, slowReadRate, start.Add(20*time.Second))
	close(stop)
	_ = conn.Close()
	wg.Wait()
	grew := <-peak - base
	if timedOut {
		t.Fatalf("still connected after %v and %d MB read", ended.Sub(start), total>>20)
	}
	took := ended.Sub(start)
	t.Logf("cut off after %v, %d MB read; RSS %d MB, grew by at most %d MB", took.Round(time.Millisecond), total>>20, base>>20, grew>>20)
	if took <= time.Second {
		t.Errorf("cut off after %v: before the 1 s the soft limit allows", took)
	}
	out := waitOutput(t, p, "output buffer limit reached")
	if n := strings.Count(out, "output buffer limit reached"); n != 1 {
		t.Errorf("%d log lines for one client:\n%s", n, out)
	}
	for _, f := range []string{`"class": "normal"`, `"limit": "soft"`, `"limit_bytes": 1048576`, `"soft_seconds": 1`, `"remote": "` + conn.LocalAddr().String() + `"`} {
		if !strings.Contains(out, f) {
			t.Errorf("log line lacks %s:\n%s", f, out)
		}
	}
	expect(t, c, "PONG", "PING") // still serving
	if !strings.Contains(value(t, c, "INFO", "stats").(string), "\r\nclient_output_buffer_limit_disconnections:1\r\n") {
		t.Error("INFO stats does not count the disconnection")
	}
	// Unsent replies stay near 4 MB plus a batch's replies (1 MB for 1024
	// GETs); the rest is the unparsed requests (11 MB), the batches'
	// garbage before the GC runs and the runtime. Without back-pressure
	// and the limits the server would buffer 500 MB.
	if grew > 128<<20 {
		t.Errorf("the server grew by %d MB while a client read slowly", grew>>20)
	}
}

// A MONITOR client reading at 10 MB/s under a write load of about 30 MB/s
// of SETs (MONITOR feeds are not held back by back-pressure) goes over the
// normal class's soft limit and is disconnected after the soft seconds,
// long before its hard limit; the server's memory stays bounded.
func TestSlowReaderSoftLimitMonitor(t *testing.T) {
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "no"})
	c := p.Client(t, 0)
	expect(t, c, "OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 256mb 1mb 1")
	base := rssBytes(t, p.Pid())

	mon := dialRaw(t, p.Addrs[0])
	mon.expect("+OK\r\n", "MONITOR")
	stop := make(chan struct{})
	peak := sampleRSS(t, p.Pid(), stop)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		// About 30 MB/s of SETs of 10 KB values: 30 every 10 ms.
		defer wg.Done()
		w := dialRaw(t, p.Addrs[0])
		val := strings.Repeat("x", 10<<10)
		var batch strings.Builder
		for i := 0; i < 30; i++ {
			batch.WriteString(multibulk("SET", "k"+strconv.Itoa(i), val))
		}
		req := batch.String()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			_ = w.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := w.conn.Write([]byte(req)); err != nil {
				return
			}
			// Read the 30 +OK replies so the writer is never held back.
			_ = w.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			for i := 0; i < 30; i++ {
				if _, err := w.r.ReadString('\n'); err != nil {
					return
				}
			}
		}
	}()
	start := time.Now()
	total, ended, timedOut := readSlowly(mon.conn, slowReadRate, start.Add(20*time.Second))
	close(stop)
	wg.Wait()
	grew := <-peak - base
	if timedOut {
		t.Fatalf("the monitor is still connected after %v and %d MB read", ended.Sub(start), total>>20)
	}
	took := ended.Sub(start)
	t.Logf("cut off after %v, %d MB read; RSS %d MB, grew by at most %d MB", took.Round(time.Millisecond), total>>20, base>>20, grew>>20)
	if took <= time.Second {
		t.Errorf("cut off after %v: before the 1 s the soft limit allows", took)
	}
	out := waitOutput(t, p, "output buffer limit reached")
	for _, f := range []string{`"class": "normal"`, `"limit": "soft"`} {
		if !strings.Contains(out, f) {
			t.Errorf("log line lacks %s:\n%s", f, out)
		}
	}
	if grew > 128<<20 {
		t.Errorf("the server grew by %d MB while a monitor read slowly", grew>>20)
	}
}
