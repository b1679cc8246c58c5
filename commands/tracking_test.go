package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strings"
	"testing"
)

// wireConn records, in order, every byte a connection would receive: its
// batches' replies (through wireSink) and its frames (WriteAsync).
type wireConn struct{ wire []string }

func (w *wireConn) Close() error        { return nil }
func (w *wireConn) WriteAsync(b []byte) { w.wire = append(w.wire, string(b)) }

type wireSink struct{ conn *wireConn }

func (s wireSink) Deliver(b *keyspace.Batch) { s.conn.wire = append(s.conn.wire, string(b.Out.Buf)) }

// A tracking client's GET and another client's SET of the same key in one
// drain: the GET's reply must reach the client before the invalidation,
// or the client would cache the value the SET replaced.
func TestTrackingInvalidationFollowsReplyInOneDrain(t *testing.T) {
	sh := newTestShard(t)
	tw, ow := &wireConn{}, &wireConn{}
	tc, _ := sh.Srv.Connected(0, "127.0.0.1:50011", "127.0.0.1:7000", tw)
	oc, _ := sh.Srv.Connected(0, "127.0.0.1:50012", "127.0.0.1:7000", ow)
	sh.Acquire()
	defer sh.Release()
	setup := durNewBatch(tc, wireSink{tw}, []string{"HELLO", "3"}, []string{"CLIENT", "TRACKING", "ON"}, []string{"GET", "k"})
	sh.Run(setup)
	tw.wire = nil
	// A second read of k by the tracking client and a write by another
	// client, run in the same drain.
	if !sh.Submit(durNewBatch(tc, wireSink{tw}, []string{"GET", "k"})) ||
		!sh.Submit(durNewBatch(oc, wireSink{ow}, []string{"SET", "k", "v"})) {
		t.Fatal("ring full")
	}
	if n := sh.Drain(); n != 2 {
		t.Fatalf("drained %d batches", n)
	}
	got := strings.Join(tw.wire, "")
	want := "_\r\n>2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"
	if got != want {
		t.Fatalf("tracking client received %q, want %q", got, want)
	}
}
