package persistence

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// The hash-field expiry opcodes (70 HashFieldExpire, 71 HashSetEx) have
// their own golden log, so the released logs keep their bytes. Regenerate
// with -update only before the opcodes are released. The commands
// package checks that HPEXPIREAT and HSETEX write exactly these records
// (TestHashFieldRecordsMatchGolden).
const goldenHashTTLWAL = "testdata/golden-hashttl-v1.wal"

// GoldenHashTTLRecords are the records of the golden log: HPEXPIREAT h
// 1700000100000 FIELDS 2 f g, then HSETEX h PXAT 1700000200000 FIELDS 1
// f v and HSETEX h KEEPTTL FIELDS 1 g w, in database 3.
func goldenHashTTLRecords() []Record {
	p1 := AppendBytes(nil, []byte("h"))
	p1 = AppendI64(p1, 1_700_000_100_000)
	p1 = AppendU64(p1, 2)
	p1 = AppendBytes(p1, []byte("f"))
	p1 = AppendBytes(p1, []byte("g"))
	p2 := AppendBytes(nil, []byte("h"))
	p2 = AppendU8(p2, 0)
	p2 = AppendI64(p2, 1_700_000_200_000)
	p2 = AppendU64(p2, 1)
	p2 = AppendBytes(p2, []byte("f"))
	p2 = AppendBytes(p2, []byte("v"))
	p3 := AppendBytes(nil, []byte("h"))
	p3 = AppendU8(p3, 1)
	p3 = AppendI64(p3, 0)
	p3 = AppendU64(p3, 1)
	p3 = AppendBytes(p3, []byte("g"))
	p3 = AppendBytes(p3, []byte("w"))
	return []Record{
		{Seq: 1, DB: 3, Op: OpHashFieldExpire, Payload: p1},
		{Seq: 2, DB: 3, Op: OpHashSetEx, Payload: p2},
		{Seq: 3, DB: 3, Op: OpHashSetEx, Payload: p3},
	}
}

func TestGoldenHashTTLWAL(t *testing.T) {
	var want []byte
	for _, r := range goldenHashTTLRecords() {
		var err error
		if want, err = AppendRecord(want, r); err != nil {
			t.Fatal(err)
		}
	}
	if *updateGolden {
		f, err := OSFS{}.Create(goldenHashTTLWAL)
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
	f, err := OSFS{}.Open(goldenHashTTLWAL)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("encoder output differs from " + goldenHashTTLWAL + ": the hash-field expiry record formats changed")
	}
	var got []string
	for len(data) > 0 {
		r, n, err := DecodeRecord(data)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		data = data[n:]
		p := NewPayloadReader(r.Payload)
		switch r.Op {
		case OpHashFieldExpire:
			key, at, n := p.NextBytes(), p.NextI64(), p.NextCount(1)
			fs := p.NextFields(n)
			var fields []string
			for fs.Len() > 0 {
				fields = append(fields, string(fs.NextBytes()))
			}
			got = append(got, fmt.Sprintf("%s db%d %s %d %v", r.Op, r.DB, key, at, fields))
		case OpHashSetEx:
			key, mode, at, n := p.NextBytes(), p.NextU8(), p.NextI64(), p.NextCount(2)
			fs := p.NextFields(2 * n)
			var kv []string
			for fs.Len() > 0 {
				kv = append(kv, string(fs.NextBytes()))
			}
			got = append(got, fmt.Sprintf("%s db%d %s mode%d %d %v", r.Op, r.DB, key, mode, at, kv))
		default:
			t.Fatalf("unexpected %s", r.Op)
		}
		if err := p.End(); err != nil {
			t.Fatal(err)
		}
	}
	want2 := []string{
		"HashFieldExpire db3 h 1700000100000 [f g]",
		"HashSetEx db3 h mode0 1700000200000 [f v]",
		"HashSetEx db3 h mode1 0 [g w]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want2) {
		t.Fatalf("got %q\nwant %q", got, want2)
	}
}
