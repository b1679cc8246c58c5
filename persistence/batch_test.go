package persistence

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

// TestBatchGolden pins the v1 Batch layout (opcode 54): a change of these
// bytes is a format change.
func TestBatchGolden(t *testing.T) {
	var b BatchBuilder
	b.Add(0, OpSet, bytes.Join([][]byte{AppendBytes(nil, []byte("k")), AppendBytes(nil, []byte("v")), AppendI64(nil, 0)}, nil))
	b.Add(2, OpDel, AppendBytes(nil, []byte("d")))
	p := b.AppendPayload(nil)
	const want = "02" + "0000" + "01" + "0c" + "016b" + "0176" + "0000000000000000" + "0200" + "02" + "02" + "0164"
	if got := hex.EncodeToString(p); got != want {
		t.Fatalf("batch payload %s, want %s", got, want)
	}
	rec, err := AppendRecord(nil, Record{Seq: 9, Op: OpBatch, Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	r, n, err := DecodeRecord(rec)
	if err != nil || n != len(rec) || r.Op != OpBatch || r.Op.String() != "Batch" {
		t.Fatalf("decode: %+v %d %v", r, n, err)
	}
	es, err := DecodeBatch(nil, r.Payload)
	if err != nil || len(es) != 2 || es[0].Op != OpSet || es[1].DB != 2 || string(es[1].Payload) != "\x01d" {
		t.Fatalf("entries %+v, %v", es, err)
	}
	b.Reset()
	b.Add(3, OpExpire, []byte("xyz"))
	if db, op, pl := b.Single(); b.Len() != 1 || db != 3 || op != OpExpire || string(pl) != "xyz" {
		t.Fatalf("single: %d %v %q", db, op, pl)
	}
}

func TestDecodeBatchErrors(t *testing.T) {
	var b BatchBuilder
	b.Add(0, OpDel, AppendBytes(nil, []byte("k")))
	good := b.AppendPayload(nil)
	nested := AppendBatchEntry([]byte{1}, 0, OpBatch, good)
	for name, p := range map[string][]byte{
		"empty":     nil,
		"trailing":  append(append([]byte(nil), good...), 0),
		"short":     good[:len(good)-1],
		"big count": {0xff, 0x01},
		"nested":    nested,
	} {
		es, err := DecodeBatch(nil, p)
		if !errors.Is(err, ErrCorrupt) || len(es) != 0 {
			t.Errorf("%s: %v, %d entries", name, err, len(es))
		}
	}
}

func FuzzDecodeBatch(f *testing.F) {
	var b BatchBuilder
	b.Add(1, OpSet, []byte("abc"))
	b.Add(0, OpFlushAll, nil)
	f.Add(b.AppendPayload(nil))
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, p []byte) {
		es, err := DecodeBatch(nil, p)
		if err != nil {
			return
		}
		// What decodes re-encodes to the same bytes.
		var rb BatchBuilder
		for _, e := range es {
			rb.Add(e.DB, e.Op, e.Payload)
		}
		if got := rb.AppendPayload(nil); !bytes.Equal(got, p) {
			// Uvarint lengths may be non-minimal in p; only the entries
			// must round-trip.
			es2, err := DecodeBatch(nil, got)
			if err != nil || len(es2) != len(es) {
				t.Fatalf("re-encoded batch does not decode: %v", err)
			}
		}
	})
}
