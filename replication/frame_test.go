package replication

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/persistence"
)

func TestFrameRoundTrip(t *testing.T) {
	var stream []byte
	payloads := [][]byte{nil, []byte("x"), bytes.Repeat([]byte("abc"), 10000)}
	for i, p := range payloads {
		stream = AppendFrame(stream, "CRDPF"[i%5], p)
	}
	fr := NewFrameReader(bufio.NewReader(bytes.NewReader(stream)))
	for i, want := range payloads {
		typ, got, err := fr.Next(0)
		if err != nil || typ != "CRDPF"[i%5] || !bytes.Equal(got, want) {
			t.Fatalf("frame %d: %c %d bytes %v", i, typ, len(got), err)
		}
	}
	if _, _, err := fr.Next(0); err != io.EOF {
		t.Fatalf("after the last frame: %v", err)
	}
}

// TestFrameCorruption: every single flipped byte of a frame is refused
// with ErrCorruptStream naming the sequence reached (or ends the stream
// early), and the payload is never returned.
func TestFrameCorruption(t *testing.T) {
	rec, err := persistence.AppendRecord(nil, persistence.Record{Seq: 42, Op: persistence.OpSet, Payload: []byte("\x01k\x01v\x00\x00\x00\x00\x00\x00\x00\x00")})
	if err != nil {
		t.Fatal(err)
	}
	frame := AppendFrame(nil, FrameRecords, rec)
	refused := 0
	for i := range frame {
		bad := bytes.Clone(frame)
		bad[i] ^= 0x40
		fr := NewFrameReader(bufio.NewReader(bytes.NewReader(bad)))
		_, _, err := fr.Next(41)
		switch {
		case err == nil:
			t.Fatalf("byte %d flipped: frame accepted", i)
		case errors.Is(err, ErrCorruptStream):
			if !strings.Contains(err.Error(), "after sequence 41") {
				t.Errorf("byte %d: error does not name the sequence: %v", i, err)
			}
			refused++
		case errors.Is(err, io.ErrUnexpectedEOF):
			// A length flipped upwards: the reader waits for bytes that
			// never come, and the stream ends.
		default:
			t.Errorf("byte %d: %v", i, err)
		}
	}
	if refused < len(frame)-4 {
		t.Errorf("only %d of %d flips refused as corruption", refused, len(frame))
	}
}

func FuzzFrameReader(f *testing.F) {
	f.Add(AppendFrame(nil, FrameRecords, []byte("records")))
	f.Add(AppendFrame(AppendFrame(nil, FramePing, make([]byte, 8)), FrameContinue, make([]byte, 8)))
	f.Add([]byte{'R', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr := NewFrameReader(bufio.NewReader(bytes.NewReader(b)))
		for i := 0; i < 100; i++ {
			typ, p, err := fr.Next(7)
			if err != nil {
				return
			}
			// Whatever decodes re-encodes to the same bytes.
			again := AppendFrame(nil, typ, p)
			if len(again) > len(b) {
				t.Fatalf("decoded frame longer than the input")
			}
		}
	})
}

// fakeTarget records what a follower applies.
type fakeTarget struct {
	mu      sync.Mutex
	last    uint64
	applied []uint64
}

func (f *fakeTarget) ReplicationShards() int { return 1 }
func (f *fakeTarget) LastSequence(int) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}
func (f *fakeTarget) DurableSequence(s int) uint64 { return f.LastSequence(s) }
func (f *fakeTarget) SyncedSequence(s int) uint64  { return f.LastSequence(s) }
func (f *fakeTarget) SyncForAck(int) error         { return nil }
func (f *fakeTarget) ReplID(int) string            { return strings.Repeat("0", 40) }
func (f *fakeTarget) ApplyReplicated(_ int, _ uint64, recs []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(recs) > 0 {
		r, n, err := persistence.DecodeRecord(recs)
		if err != nil {
			return err
		}
		f.applied = append(f.applied, r.Seq)
		f.last = r.Seq
		recs = recs[n:]
	}
	return nil
}
func (f *fakeTarget) InstallReplicaSnapshot(int, uint64, string, uint64, string) error {
	return errors.New("not expected")
}

// TestFollowerRefusesCorruptStream: a follower given a good records frame
// and then a damaged one applies the first only and drops the link with
// an error naming the sequence it had reached.
func TestFollowerRefusesCorruptStream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	rec := func(seq uint64) []byte {
		b, err := persistence.AppendRecord(nil, persistence.Record{Seq: seq, Op: persistence.OpDel, Payload: []byte("\x01k")})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	served := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		// REPLSYNC: *6 and five bulk strings.
		var req []string
		for len(req) < 11 {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			req = append(req, strings.TrimSpace(line))
		}
		served <- strings.Join(req, " ")
		out := AppendFrame(nil, FrameContinue, u64s(0))
		out = AppendFrame(out, FrameRecords, append(rec(1), rec(2)...))
		bad := AppendFrame(nil, FrameRecords, rec(3))
		bad[len(bad)-1] ^= 1
		out = append(out, bad...)
		_, _ = c.Write(out)
		time.Sleep(time.Second)
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	tg := &fakeTarget{}
	f := NewFollower(FollowerOptions{Host: "127.0.0.1", Port: port}, tg)
	err = f.links[0].session("127.0.0.1:" + strconv.Itoa(port))
	if !errors.Is(err, ErrCorruptStream) || !strings.Contains(err.Error(), "after sequence 2") {
		t.Fatalf("session ended with %v, want a corrupted stream after sequence 2", err)
	}
	if got := <-served; !strings.Contains(got, "REPLSYNC") || !strings.Contains(got, "$1 1 $1 0 $1 0") {
		t.Errorf("request %q", got)
	}
	if len(tg.applied) != 2 || tg.applied[1] != 2 {
		t.Errorf("applied %v, want [1 2]", tg.applied)
	}
}
