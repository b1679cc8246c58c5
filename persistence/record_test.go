package persistence

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"testing"
)

// Regenerate with: go test ./persistence -run TestGolden -update. A released golden file must never be
// regenerated with different bytes: add a new golden-vN file instead.
var updateGolden = flag.Bool("update", false, "rewrite golden files under testdata/")

const goldenWAL = "testdata/golden-v1.wal"

// goldenRecord is one record of the golden log plus a decoder that checks
// the payload against the layout documented in doc.go.
type goldenRecord struct {
	db    uint16
	op    Opcode
	p     []byte
	check func(r *PayloadReader) (string, error)
}

func fields(r *PayloadReader, kinds string) (string, error) {
	var out []string
	for _, k := range kinds {
		var s string
		var err error
		switch k {
		case 'b':
			var b []byte
			b, err = r.Bytes()
			s = fmt.Sprintf("%q", b)
		case 'q':
			var v int64
			v, err = r.I64()
			s = fmt.Sprint(v)
		case 'Q':
			var v uint64
			v, err = r.U64()
			s = fmt.Sprint(v)
		case 'h':
			var v uint16
			v, err = r.U16()
			s = fmt.Sprint(v)
		case 'c':
			var v uint8
			v, err = r.U8()
			s = fmt.Sprint(v)
		}
		if err != nil {
			return "", err
		}
		out = append(out, s)
	}
	return fmt.Sprint(out), r.Done()
}

func goldenRecords() []goldenRecord {
	b := func(s string) []byte { return []byte(s) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	lay := func(kinds string) func(r *PayloadReader) (string, error) {
		return func(r *PayloadReader) (string, error) { return fields(r, kinds) }
	}
	return []goldenRecord{
		{0, OpSet, cat(AppendBytes(nil, b("k1")), AppendBytes(nil, b("v1")), AppendI64(nil, 0)), lay("bbq")},
		{1, OpSet, cat(AppendBytes(nil, b("k2")), AppendBytes(nil, b("12345")), AppendI64(nil, 1767225600000)), lay("bbq")},
		{0, OpDel, AppendBytes(nil, b("k1")), lay("b")},
		{1, OpExpire, cat(AppendBytes(nil, b("k2")), AppendI64(nil, 1767225601000)), lay("bq")},
		{1, OpExpire, cat(AppendBytes(nil, b("k2")), AppendI64(nil, 0)), lay("bq")},
		{2, OpFlushDB, nil, lay("")},
		{0, OpFlushAll, nil, lay("")},
		{0, OpSwapDB, cat(AppendU16(nil, 3), AppendU16(nil, 4)), lay("hh")},
		{0, OpMove, cat(AppendBytes(nil, b("mk")), AppendU16(nil, 5)), lay("bh")},
		{0, OpRename, cat(AppendBytes(nil, b("src")), AppendBytes(nil, b("dst"))), lay("bb")},
		{0, OpCopy, cat(AppendBytes(nil, b("src")), AppendBytes(nil, b("dst")), AppendU16(nil, 6), AppendU8(nil, 1)), lay("bbhc")},
		{0, OpAppend, cat(AppendBytes(nil, b("k")), AppendBytes(nil, b("tail"))), lay("bb")},
		{0, OpSetRange, cat(AppendBytes(nil, b("k")), AppendU64(nil, 10), AppendBytes(nil, b("xyz"))), lay("bQb")},
		{15, OpIdempotencyPut, cat(AppendBytes(nil, b("idem:req-1")), AppendBytes(nil, b("\x01packed\x00")), AppendI64(nil, 1767229200000)), lay("bbq")},
	}
}

func goldenBytes(t testing.TB) []byte {
	var out []byte
	for i, g := range goldenRecords() {
		var err error
		out, err = AppendRecord(out, Record{Seq: uint64(i + 1), DB: g.db, Op: g.op, Payload: g.p})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestGoldenWAL(t *testing.T) {
	want := goldenBytes(t)
	if *updateGolden {
		f, err := OSFS{}.Create(goldenWAL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(want); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	f, err := OSFS{}.Open(goldenWAL)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The encoder must still produce the released bytes.
	if !bytes.Equal(data, want) {
		t.Fatal("encoder output differs from testdata/golden-v1.wal: the v1 format changed")
	}
	// Decode the released bytes independently of the encoder.
	recs := goldenRecords()
	expected := []string{
		`Set db0 ["k1" "v1" 0]`,
		`Set db1 ["k2" "12345" 1767225600000]`,
		`Del db0 ["k1"]`,
		`Expire db1 ["k2" 1767225601000]`,
		`Expire db1 ["k2" 0]`,
		`FlushDB db2 []`,
		`FlushAll db0 []`,
		`SwapDB db0 [3 4]`,
		`Move db0 ["mk" 5]`,
		`Rename db0 ["src" "dst"]`,
		`Copy db0 ["src" "dst" 6 1]`,
		`Append db0 ["k" "tail"]`,
		`SetRange db0 ["k" 10 "xyz"]`,
		`IdempotencyPut db15 ["idem:req-1" "\x01packed\x00" 1767229200000]`,
	}
	rest := data
	for i := range recs {
		r, n, err := DecodeRecord(rest)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if r.Seq != uint64(i+1) {
			t.Fatalf("record %d: seq %d", i, r.Seq)
		}
		pr := NewPayloadReader(r.Payload)
		s, err := recs[i].check(&pr)
		if err != nil {
			t.Fatalf("record %d (%s): %v", i, r.Op, err)
		}
		if got := fmt.Sprintf("%s db%d %s", r.Op, r.DB, s); got != expected[i] {
			t.Fatalf("record %d: got %s, want %s", i, got, expected[i])
		}
		rest = rest[n:]
	}
	if len(rest) != 0 {
		t.Fatalf("%d trailing bytes", len(rest))
	}
	// Recover reads the golden file as a segment.
	mem := NewMemFS()
	mem.WriteFile(filepath.Join(testDir, SegmentName(0, 1)), data)
	got, st, err := recoverAll(t, mem, 0, false)
	if err != nil || len(got) != len(recs) || st.TruncatedBytes != 0 {
		t.Fatalf("recover golden: %d records, %v", len(got), err)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	payloads := [][]byte{nil, {}, []byte("x"), bytes.Repeat([]byte{0}, 1000), bytes.Repeat([]byte("ab"), 70000)}
	for i, p := range payloads {
		in := Record{Seq: uint64(i) * 1e15, DB: uint16(i), Op: OpSetRange, Payload: p}
		b, err := AppendRecord([]byte("prefix"), in)
		if err != nil {
			t.Fatal(err)
		}
		out, n, err := DecodeRecord(b[6:])
		if err != nil || n != len(b)-6 || out.Seq != in.Seq || out.DB != in.DB || out.Op != in.Op || !bytes.Equal(out.Payload, p) {
			t.Fatalf("case %d: %+v %d %v", i, out, n, err)
		}
		// Every single-bit flip is detected (CRC covers length too).
		for off := 0; off < min(len(b)-6, 64); off++ {
			c := append([]byte(nil), b[6:]...)
			c[off] ^= 1
			if _, _, err := DecodeRecord(c); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("case %d: flip at %d not detected", i, off)
			}
		}
	}
}

// TestLengthCRC: the length field's CRC is crc32.Update's, for every
// byte value in every position.
func TestLengthCRC(t *testing.T) {
	for pos := 0; pos < 4; pos++ {
		for v := 0; v < 256; v++ {
			b := []byte{0x11, 0x22, 0x33, 0x44}
			b[pos] = byte(v)
			if got, want := lengthCRC(b), crc32.Update(0, castagnoli, b); got != want {
				t.Fatalf("% x: %08x, want %08x", b, got, want)
			}
		}
	}
}

// BenchmarkRecordCRC is the CRC of a small record, as an LPUSH writes.
func BenchmarkRecordCRC(b *testing.B) {
	rec := make([]byte, 8+40)
	for i := range rec {
		rec[i] = byte(i * 7)
	}
	b.ReportAllocs()
	var sink uint32
	for b.Loop() {
		sink += recordCRC(rec)
	}
	_ = sink
}
