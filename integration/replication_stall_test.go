package integration_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestFullSyncToASlowReaderCompletes streams a large snapshot to a replica
// connection that does not read for a while: the sender's flow control
// must notice when the event loop's outbound buffer drains (it once kept
// the count it saw at its last write, over its limit, and waited for ever
// on a connection that sends nothing).
func TestFullSyncToASlowReaderCompletes(t *testing.T) {
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "no"})
	c := p.Client(t, 0)
	big := strings.Repeat("x", 1<<20)
	for i := range 48 {
		if err := c.Set(ctxT(t), fmt.Sprintf("big:%d", i), big, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save(ctxT(t)).Err(); err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", p.Addrs[0], 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A small receive buffer: most of the snapshot waits in the server.
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(64 << 10)
	}
	if _, err := conn.Write([]byte("*5\r\n$8\r\nREPLSYNC\r\n$1\r\n1\r\n$1\r\n0\r\n$1\r\n0\r\n$4\r\nnone\r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // not reading
	br := bufio.NewReaderSize(conn, 1<<20)
	var hdr [9]byte
	next := func() (byte, []byte) {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			t.Fatalf("reading a frame header: %v", err)
		}
		b := make([]byte, binary.LittleEndian.Uint32(hdr[1:5]))
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatalf("reading a frame of %d bytes: %v", len(b), err)
		}
		return hdr[0], b
	}
	typ, payload := next()
	if typ != 'F' || len(payload) < 16 {
		t.Fatalf("first frame %q", typ)
	}
	size := int64(binary.LittleEndian.Uint64(payload[8:]))
	if size < 40<<20 {
		t.Fatalf("snapshot of %d bytes, want the 48 MiB written", size)
	}
	var got int64
	for got < size {
		typ, b := next()
		if typ != 'D' {
			t.Fatalf("frame %q inside the snapshot at byte %d", typ, got)
		}
		got += int64(len(b))
	}
}
