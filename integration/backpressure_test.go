package integration_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// rssBytes reads the resident set size of process pid from the OS.
func rssBytes(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// pipelineGets sends n GETs of key on a fresh connection without reading
// any reply, and returns the connection and its client id.
func pipelineGets(t *testing.T, addr, key string, n int) (net.Conn, string) {
	t.Helper()
	r := dialRaw(t, addr)
	id := strings.TrimSuffix(strings.TrimPrefix(r.do("CLIENT", "ID"), ":"), "\r\n")
	req := []byte(strings.Repeat(multibulk("GET", key), 1000))
	_ = r.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	for i := 0; i < n; i += 1000 {
		if _, err := r.conn.Write(req); err != nil {
			t.Fatalf("pipelining: %v", err)
		}
	}
	return r.conn, id
}

var omemRE = regexp.MustCompile(`\bomem=(\d+)\b`)

// clientLine returns the CLIENT LIST line of client id, "" when none.
func clientLine(t *testing.T, c cmdr, id string) string {
	t.Helper()
	for _, line := range strings.Split(value(t, c, "CLIENT", "LIST").(string), "\n") {
		if strings.HasPrefix(line, "id="+id+" ") {
			return line
		}
	}
	return ""
}

// A client that pipelines far more GETs of a 10 KB value than its socket
// holds and never reads is paused (back-pressure): the server's memory,
// read from the OS, stays bounded, CLIENT LIST shows its unsent replies,
// and once it reads it gets every reply.
func TestPipelineWithoutReadingIsThrottled(t *testing.T) {
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "no"})
	c := p.Client(t, 0)
	expect(t, c, "OK", "CONFIG", "SET", "ruvio-client-output-buffer-limit", "0")
	val := strings.Repeat("v", 10*1024)
	expect(t, c, "OK", "SET", "k", val)
	base := rssBytes(t, p.Pid())

	// 100,000 replies are 1 GB: without back-pressure all of it is buffered.
	const n = 100_000
	conn, id := pipelineGets(t, p.Addrs[0], "k", n)
	var omem int64
	peak := base
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		peak = max(peak, rssBytes(t, p.Pid()))
		if m := omemRE.FindStringSubmatch(clientLine(t, c, id)); m != nil {
			omem, _ = strconv.ParseInt(m[1], 10, 64)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if omem <= 0 {
		t.Errorf("CLIENT LIST omem=%d for a client that does not read", omem)
	}
	info := value(t, c, "INFO", "clients").(string)
	if !strings.Contains(info, "client_recent_max_output_buffer:") || strings.Contains(info, "client_recent_max_output_buffer:0\r\n") {
		t.Errorf("INFO clients: %q", info)
	}
	if grew := peak - base; grew > 256<<20 {
		t.Fatalf("the server grew by %d MB while a client did not read", grew>>20)
	}
	t.Logf("RSS %d MB -> peak %d MB, omem %d", base>>20, peak>>20, omem)

	// The client now reads: every reply arrives, in order, complete.
	want := int64(n) * int64(len(bulk(val)))
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	got, err := io.CopyN(io.Discard, bufio.NewReaderSize(conn, 1<<20), want)
	if err != nil || got != want {
		t.Fatalf("read %d of %d reply bytes: %v", got, want, err)
	}
	expect(t, c, "PONG", "PING")
}

// Over its hard limit a client is disconnected and the commands it still
// had queued are not run.
func TestPipelineWithoutReadingHitsHardLimit(t *testing.T) {
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "no"})
	c := p.Client(t, 0)
	expect(t, c, "OK", "CONFIG", "SET", "ruvio-client-output-buffer-limit", "8mb")
	expect(t, c, "OK", "SET", "k", strings.Repeat("v", 10*1024))
	base := rssBytes(t, p.Pid())

	const n = 100_000
	conn, _ := pipelineGets(t, p.Addrs[0], "k", n)
	// An INCR after the GETs must never run: the client is cut off first.
	if _, err := io.WriteString(conn, multibulk("INCR", "after")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(value(t, c, "INFO", "stats").(string), "\r\nclient_output_buffer_limit_disconnections:1\r\n") {
		if time.Now().After(deadline) {
			t.Fatal("no output-buffer disconnection reported")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if grew := rssBytes(t, p.Pid()) - base; grew > 256<<20 {
		t.Fatalf("the server grew by %d MB", grew>>20)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	total, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %d bytes", total)
	}
	expect(t, c, int64(0), "EXISTS", "after")
}

// A MONITOR client that never reads is disconnected at the limit while
// another client keeps the server busy.
func TestMonitorWithoutReadingIsCutOff(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Limits.ClientOutputBuffer.Normal.Hard = config.MiB }))
	mon := dialRaw(t, s.Addr())
	mon.expect("+OK\r\n", "MONITOR")
	c := s.Client(t)
	val := strings.Repeat("x", 10*1024)
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		pipe := c.Pipeline()
		for j := 0; j < 100; j++ {
			pipe.Set(ctxT(t), "k"+strconv.Itoa(j), val, 0)
		}
		if _, err := pipe.Exec(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(value(t, c, "INFO", "stats").(string), "\r\nclient_output_buffer_limit_disconnections:1\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the monitor was not cut off after %d rounds of 1 MB", i+1)
		}
	}
	mon.expectClosed(10 * time.Second)
	if n := strings.Count(value(t, c, "CLIENT", "LIST").(string), "flags=O"); n != 0 {
		t.Fatalf("%d monitors left", n)
	}
}

// A value uploaded slowly across more than the idle timeout is activity.
func TestSlowUploadIsNotIdle(t *testing.T) {
	t.Parallel()
	// The upload lasts twice the timeout, with a piece every 100 ms: a
	// server that took only complete commands as activity would close it,
	// while a reactor held up for a second by the machine's load does not.
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.Timeout = 2 }))
	r := dialRaw(t, s.Addr())
	const pieces, size = 40, 1024
	r.write("*3\r\n$3\r\nSET\r\n$6\r\nupload\r\n$" + strconv.Itoa(pieces*size) + "\r\n")
	c := s.Client(t)
	idleRE := regexp.MustCompile(`\bidle=(\d+)\b`)
	for i := 0; i < pieces; i++ {
		time.Sleep(100 * time.Millisecond)
		r.write(strings.Repeat("u", size))
		if i == pieces-5 {
			// CLIENT LIST does not see the uploader as idle either.
			var line string
			for _, l := range strings.Split(value(t, c, "CLIENT", "LIST").(string), "\n") {
				if strings.Contains(l, "addr="+r.conn.LocalAddr().String()+" ") {
					line = l
				}
			}
			if m := idleRE.FindStringSubmatch(line); m == nil || m[1] != "0" {
				t.Errorf("during the upload: %q", line)
			}
		}
	}
	r.write("\r\n")
	if got := r.read(); got != "+OK\r\n" {
		t.Fatalf("SET after a slow upload: %q", got)
	}
	r.expect(":"+strconv.Itoa(pieces*size)+"\r\n", "STRLEN", "upload")
}

// A big value and a many-argument MSET delivered in small pieces arrive
// whole (the parser keeps its position between reads; the work is checked
// in codec's tests).
func TestRequestsInSmallPieces(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	r := dialRaw(t, s.Addr())
	send := func(req []byte, piece int) {
		for len(req) > 0 {
			k := min(piece, len(req))
			r.write(string(req[:k]))
			req = req[k:]
		}
	}
	val := bytes.Repeat([]byte("0123456789abcdef"), 256<<10) // 4 MB
	send([]byte(multibulk("SET", "big", string(val))), 4096)
	r.expect("+OK\r\n")
	r.expect(bulk(string(val[:16])), "GETRANGE", "big", "0", "15")
	r.expect(":"+strconv.Itoa(len(val))+"\r\n", "STRLEN", "big")

	const n = 50_000
	args := []string{"MSET"}
	for i := 0; i < n; i++ {
		args = append(args, "m"+strconv.Itoa(i), strconv.Itoa(i))
	}
	send([]byte(multibulk(args...)), 1000)
	r.expect("+OK\r\n")
	r.expect(bulk(strconv.Itoa(n-1)), "GET", "m"+strconv.Itoa(n-1))
	r.expect(":"+strconv.Itoa(n+1)+"\r\n", "DBSIZE")
}

// Before AUTH, a request of more than 10 arguments or with a bulk over
// 16 KB closes the connection, as in Redis 7; after AUTH, even in the same
// pipeline, they are fine.
func TestUnauthenticatedRequestLimits(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.RequirePass = "secret" }))

	a := dialRaw(t, s.Addr())
	a.write("*11\r\n")
	if got := a.read(); got != "-ERR Protocol error: unauthenticated multibulk length\r\n" {
		t.Fatalf("11 arguments: %q", got)
	}
	a.expectClosed(5 * time.Second)

	b := dialRaw(t, s.Addr())
	b.write("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$16385\r\n")
	if got := b.read(); got != "-ERR Protocol error: unauthenticated bulk length\r\n" {
		t.Fatalf("16385-byte bulk: %q", got)
	}
	b.expectClosed(5 * time.Second)

	// At the limits: a NOAUTH error, the connection stays.
	c := dialRaw(t, s.Addr())
	c.expect("-NOAUTH Authentication required.\r\n", "SET", "k", strings.Repeat("v", 16384))

	// AUTH pipelined with a bigger request in one write.
	d := dialRaw(t, s.Addr())
	mset := []string{"MSET"}
	for i := 0; i < 6; i++ {
		mset = append(mset, "k"+strconv.Itoa(i), strings.Repeat("v", 20000))
	}
	d.expectReplies(multibulk("AUTH", "secret")+multibulk(mset...), "+OK\r\n", "+OK\r\n")
	d.expect(":20000\r\n", "STRLEN", "k5")
}

// CLIENT LIST reports the unsent replies of a client that does not read.
func TestClientListOmemForNonReadingClient(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Limits.ClientOutputBuffer.Normal.Hard = 0 }))
	c := s.Client(t)
	expect(t, c, "OK", "SET", "k", strings.Repeat("v", 10*1024))
	// 20 MB of replies, several times what the sockets hold. More only
	// makes the first replies later: a connection's batches in flight run
	// as one drain, whose replies leave together.
	_, id := pipelineGets(t, s.Addr(), "k", 2000)
	deadline := time.Now().Add(10 * time.Second)
	for {
		line := clientLine(t, c, id)
		m := omemRE.FindStringSubmatch(line)
		if m != nil && m[1] != "0" {
			omem, _ := strconv.ParseInt(m[1], 10, 64)
			var tot int64
			if tm := regexp.MustCompile(`\btot-mem=(\d+)\b`).FindStringSubmatch(line); tm != nil {
				tot, _ = strconv.ParseInt(tm[1], 10, 64)
			}
			if tot < omem {
				t.Fatalf("tot-mem below omem: %q", line)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("omem still 0: %q", line)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// RESET makes a client unauthenticated again, and its limits return.
func TestUnauthenticatedLimitsAfterReset(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.RequirePass = "secret" }))
	r := dialRaw(t, s.Addr())
	r.expect("+OK\r\n", "AUTH", "secret")
	r.expect("+OK\r\n", "SET", "k", strings.Repeat("v", 20000))
	r.expect("+RESET\r\n", "RESET")
	r.write("*11\r\n")
	if got := r.read(); got != "-ERR Protocol error: unauthenticated multibulk length\r\n" {
		t.Fatalf("after RESET: %q", got)
	}
	r.expectClosed(5 * time.Second)
}

// A client whose commands cannot run yet (the first one blocks) and that
// keeps sending is not read ahead of them: once a few batches wait, the
// server stops reading its socket and TCP holds the client back. Once the
// block ends every command runs, in order, and the client's writes go on.
func TestHeldClientIsNotReadAhead(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	r := dialRaw(t, s.Addr())
	r.write(multibulk("BLPOP", "held:q", "0"))

	// 64 MiB of SETs: without the read pause the server takes all of it.
	const total, perChunk = 64 << 20, 1 << 20
	val := strings.Repeat("v", 1000)
	var chunk strings.Builder
	cmds := 0
	for chunk.Len() < perChunk {
		chunk.WriteString(multibulk("SET", "held:k"+strconv.Itoa(cmds%1000), val))
		cmds++
	}
	chunks := total / chunk.Len()
	var written atomic.Int64
	writeErr := make(chan error, 1)
	go func() {
		_ = r.conn.SetWriteDeadline(time.Now().Add(2 * time.Minute))
		for i := 0; i < chunks; i++ {
			if _, err := io.WriteString(r.conn, chunk.String()); err != nil {
				writeErr <- err
				return
			}
			written.Add(int64(chunk.Len()))
		}
		writeErr <- nil
	}()
	// The client reads its replies all along: it is its first command,
	// not its output, that holds it.
	want := int64(len(arr(bulk("held:q"), bulk("x")))) + int64(chunks*cmds)*int64(len("+OK\r\n"))
	readDone := make(chan error, 1)
	go func() {
		_ = r.conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
		head := make([]byte, len(arr(bulk("held:q"), bulk("x"))))
		if _, err := io.ReadFull(r.r, head); err != nil {
			readDone <- err
			return
		}
		if string(head) != arr(bulk("held:q"), bulk("x")) {
			readDone <- errors.New("first reply " + strconv.Quote(string(head)))
			return
		}
		got, err := io.CopyN(io.Discard, r.r, want-int64(len(head)))
		if err == nil && got != want-int64(len(head)) {
			err = io.ErrUnexpectedEOF
		}
		readDone <- err
	}()

	// Wait until the writer stops making progress.
	last, still := int64(-1), 0
	for deadline := time.Now().Add(10 * time.Second); still < 5 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		if w := written.Load(); w == last {
			still++
		} else {
			last, still = w, 0
		}
	}
	if w := written.Load(); w >= total/2 {
		t.Fatalf("the server read %d MiB of a held client's input", w>>20)
	}
	if n := infoInt(t, c, "stats", "ruvio_client_read_pauses"); n < 1 {
		t.Fatalf("ruvio_client_read_pauses = %d", n)
	}
	expect(t, c, "PONG", "PING")
	t.Logf("held after %d MiB of %d", written.Load()>>20, total>>20)

	expect(t, c, int64(1), "LPUSH", "held:q", "x")
	if err := <-writeErr; err != nil {
		t.Fatalf("writing: %v", err)
	}
	if err := <-readDone; err != nil {
		t.Fatalf("reading the replies: %v", err)
	}
	expect(t, c, val, "GET", "held:k999")
}
