package persistence

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// OpListStore (69) has its own golden log, so the released golden files
// keep their bytes. Regenerate with -update only before the opcode is
// released.
const goldenListStoreWAL = "testdata/golden-liststore-v1.wal"

// listGoldenEncoding is the list ["a", "b"] as types/list encodes it;
// keyspace's TestListEncodingMatchesGolden pins the same bytes.
var listGoldenEncoding = []byte{1, 1, 2, 6, 1, 'a', 2, 1, 'b', 2}

func TestGoldenListStoreWAL(t *testing.T) {
	payload := append(AppendBytes(nil, []byte("dst")), listGoldenEncoding...)
	want, err := AppendRecord(nil, Record{Seq: 1, DB: 2, Op: OpListStore, Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	if *updateGolden {
		f, err := OSFS{}.Create(goldenListStoreWAL)
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
	f, err := OSFS{}.Open(goldenListStoreWAL)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("encoder output differs from " + goldenListStoreWAL + ": the ListStore record format changed")
	}
	r, n, err := DecodeRecord(data)
	if err != nil || n != len(data) {
		t.Fatalf("decode: %v (%d of %d bytes)", err, n, len(data))
	}
	p := NewPayloadReader(r.Payload)
	k, err := p.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%s db%d %s %s", r.Op, r.DB, k, fmtBytes(p.Rest())); got != "ListStore db2 dst 001,001,002,006,001,097,002,001,098,002" {
		t.Fatalf("got %s", got)
	}
}
