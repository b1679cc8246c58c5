package persistence

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// The RESTORE opcode (120) has its own golden log, so the released logs
// keep their bytes. Regenerate with -update only before it is released.
const goldenRestoreWAL = "testdata/golden-restore-v1.wal"

func TestGoldenRestoreWAL(t *testing.T) {
	// A sorted set value in types/zset's encoding, deadline 1700000000000.
	p := AppendBytes(nil, []byte("zk"))
	p = AppendI64(p, 1700000000000)
	p = AppendU8(p, 81)
	p = append(p, zsetGoldenEncoding...)
	want, err := AppendRecord(nil, Record{Seq: 1, DB: 2, Op: OpRestore, Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	if *updateGolden {
		f, err := OSFS{}.Create(goldenRestoreWAL)
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
	f, err := OSFS{}.Open(goldenRestoreWAL)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("encoder output differs from " + goldenRestoreWAL + ": the restore record format changed")
	}
	r, n, err := DecodeRecord(data)
	if err != nil || n != len(data) {
		t.Fatalf("decode: %v (%d of %d bytes)", err, n, len(data))
	}
	pr := NewPayloadReader(r.Payload)
	key, _ := pr.Bytes()
	at, _ := pr.I64()
	kind, err := pr.U8()
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s db%d %s %d %d %s", r.Op, r.DB, key, at, kind, fmtBytes(pr.Rest()))
	if exp := "Restore db2 zk 1700000000000 81 " + string(fmtBytes(zsetGoldenEncoding)); got != exp {
		t.Fatalf("got %s\nwant %s", got, exp)
	}
}
