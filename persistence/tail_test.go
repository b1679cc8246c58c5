package persistence

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// preallocatedLog is a last segment as a crash leaves it on a file system
// that preallocates: n records, then zeros up to a fixed size.
func preallocatedLog(t testing.TB, n, zeros int) (*MemFS, []recCopy, string, []int) {
	t.Helper()
	fs, want, seg := buildLog(t, n)
	data, _ := fs.ReadFile(seg)
	var offs []int
	off := 0
	for _, r := range want {
		offs = append(offs, off)
		off += len(encodeCopy(r))
	}
	fs.WriteFile(seg, append(data, make([]byte, zeros)...))
	return fs, want, seg, offs
}

// Damage to a record in the middle of the newest segment is not a torn
// tail, whatever field it hits: start-up refuses with file and offset, the
// file is untouched, and --repair cuts there keeping the rest in .broken.
func TestNewestSegmentDamageIsNotATornTail(t *testing.T) {
	const n, zeros = 200, 64 << 10
	base, want, seg, offs := preallocatedLog(t, n, zeros)
	orig, _ := base.ReadFile(seg)
	type damage struct {
		name string
		at   int // byte offset within the record
		xor  byte
	}
	var damages []damage
	for b := 0; b < 4; b++ { // every byte of the length, low and high bits
		damages = append(damages, damage{fmt.Sprintf("length byte %d bit 0", b), b, 0x01}, damage{fmt.Sprintf("length byte %d bit 7", b), b, 0x80})
	}
	damages = append(damages,
		damage{"length to 5 MB", 2, 0x50},
		damage{"crc", 5, 0x10},
		damage{"seq", 9, 0x01},
		damage{"db", 16, 0x02},
		damage{"opcode", 18, 0x40},
		damage{"payload", RecordHeaderSize, 0x20},
	)
	cases := 0
	for _, k := range []int{0, 1, n / 2, n - 3, n - 2} {
		for _, d := range damages {
			if RecordHeaderSize+len(want[k].Payload) <= d.at {
				continue
			}
			fs := base.CrashClone()
			data := append([]byte(nil), orig...)
			data[offs[k]+d.at] ^= d.xor
			fs.WriteFile(seg, data)
			_, _, err := recoverAll(t, fs, 0, false)
			var ce *CorruptionError
			if !errors.As(err, &ce) || ce.File != seg || ce.Offset != int64(offs[k]) {
				t.Fatalf("record %d, %s: got %v, want damage at offset %d", k, d.name, err, offs[k])
			}
			if !strings.Contains(err.Error(), seg) || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", offs[k])) {
				t.Fatalf("error does not name file and offset: %v", err)
			}
			if got, _ := fs.ReadFile(seg); !bytes.Equal(got, data) {
				t.Fatalf("record %d, %s: file changed without repair", k, d.name)
			}
			log, logs := observedLogger()
			var got []recCopy
			st, err := Recover(fs, testDir, 0, 0, true, log, func(r Record) error {
				got = append(got, recCopy{r.Seq, r.DB, r.Op, string(r.Payload)})
				return nil
			})
			if err != nil {
				t.Fatalf("record %d, %s: repair: %v", k, d.name, err)
			}
			// The loss is counted: every record after the damaged one.
			wantMsg := fmt.Sprintf("among them %d intact records with sequences %d to %d", n-k-1, k+2, n)
			if m := logs.FilterMessageSnippet("persistence: repaired WAL: cut " + seg); m.Len() != 1 || !strings.Contains(m.All()[0].Message, wantMsg) {
				t.Fatalf("record %d, %s: repair log %v, want %q", k, d.name, logs.All(), wantMsg)
			}
			equalRecs(t, got, want[:k])
			if !st.Repaired || st.LastSeq != uint64(k) {
				t.Fatalf("record %d, %s: stats %+v", k, d.name, st)
			}
			broken, err := fs.CrashClone().ReadFile(seg + ".broken")
			if err != nil || !bytes.Equal(broken, data[offs[k]:]) {
				t.Fatalf("record %d, %s: .broken copy: %v", k, d.name, err)
			}
			if size, _ := fs.CrashClone().Stat(seg); size != int64(offs[k]) {
				t.Fatalf("record %d, %s: truncated to %d", k, d.name, size)
			}
			cases++
		}
	}
	if cases < 60 {
		t.Fatalf("ran %d cases", cases)
	}
}

// A record cut short followed by the preallocated zeros is a torn tail at
// every cut point, and a record whose bytes stop short of the end of the
// file too; zeros after the last complete record are the clean end.
func TestTornTailThenZerosIsTruncated(t *testing.T) {
	const n, zeros = 20, 8 << 10
	fs, want, seg, offs := preallocatedLog(t, n, zeros)
	data, _ := fs.ReadFile(seg)
	last := offs[n-1]
	end := last + len(encodeCopy(want[n-1]))
	for cut := last; cut <= end; cut++ {
		c := fs.CrashClone()
		d := append([]byte(nil), data...)
		clear(d[cut:])
		c.WriteFile(seg, d)
		got, st, err := recoverAll(t, c, 0, false)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		wantN := n - 1
		if bytes.Equal(d[last:end], data[last:end]) { // only zeros were cleared
			wantN = n
		}
		equalRecs(t, got, want[:wantN])
		if st.Repaired {
			t.Fatalf("cut %d: repaired", cut)
		}
		size, _ := c.CrashClone().Stat(seg)
		if wantN == n && size != int64(end) || wantN < n && size != int64(last) {
			t.Fatalf("cut %d: size %d", cut, size)
		}
		if _, err := c.Stat(seg + ".broken"); err == nil {
			t.Fatalf("cut %d: a torn tail left a .broken copy", cut)
		}
	}
}

// The tail classification never drops a record that an intact later
// record proves was written, and never refuses a log that a crash can
// leave (records, part of the next one, zeros).
func FuzzTailClassification(f *testing.F) {
	f.Add(uint8(10), uint8(0), uint16(5), uint8(0x80), uint16(100))
	f.Add(uint8(10), uint8(1), uint16(40), uint8(0x01), uint16(0))
	f.Add(uint8(30), uint8(2), uint16(300), uint8(0xff), uint16(4096))
	f.Add(uint8(3), uint8(0), uint16(2), uint8(0x40), uint16(7))
	f.Fuzz(func(t *testing.T, nrec uint8, mode uint8, pos uint16, xor uint8, zeros uint16) {
		n := int(nrec%40) + 1
		var log []byte
		var ends []int
		for i := 0; i < n; i++ {
			log, _ = AppendRecord(log, Record{Seq: uint64(i + 1), DB: uint16(i % 3), Op: OpSet, Payload: payloadFor(i*7 + 3)})
			ends = append(ends, len(log))
		}
		p := int(pos) % len(log)
		// recIdx is the record holding byte p.
		recIdx := 0
		for ends[recIdx] <= p {
			recIdx++
		}
		data := append([]byte(nil), log...)
		switch mode % 3 {
		case 0, 1: // one flipped byte
			if xor == 0 {
				xor = 1
			}
			data[p] ^= xor
		case 2: // a crash: the log written up to p, then nothing
			clear(data[p:])
		}
		data = append(data, make([]byte, zeros)...)
		fs := NewMemFS()
		seg := testDir + "/" + SegmentName(0, 1)
		fs.WriteFile(seg, data)
		got, _, err := recoverAll(t, fs, 0, false)
		for i, r := range got {
			if r.Seq != uint64(i+1) {
				t.Fatalf("record %d has seq %d", i, r.Seq)
			}
		}
		start := 0
		if recIdx > 0 {
			start = ends[recIdx-1]
		}
		switch {
		case mode%3 == 2:
			if err != nil {
				t.Fatalf("a crash-shaped log was refused: %v", err)
			}
			if len(got) < recIdx || len(got) > recIdx+1 {
				t.Fatalf("cut in record %d: recovered %d records", recIdx, len(got))
			}
		case recIdx < n-1:
			// An intact record follows the damaged one.
			var ce *CorruptionError
			if !errors.As(err, &ce) || ce.Offset != int64(start) {
				t.Fatalf("flip in record %d of %d: got %v (recovered %d)", recIdx, n, err, len(got))
			}
		default:
			// The final record: refused, or dropped as a torn tail.
			if err == nil && len(got) != n-1 {
				t.Fatalf("flip in the final record: recovered %d of %d", len(got), n)
			}
		}
	})
}
