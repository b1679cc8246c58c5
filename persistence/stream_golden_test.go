package persistence

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// The stream opcodes (100–111) have their own golden log. Regenerate with
// -update only before the opcodes are released.
const goldenStreamWAL = "testdata/golden-streams-v1.wal"

func goldenStreamRecords() []goldenRecord {
	b := func(s string) []byte { return AppendBytes(nil, []byte(s)) }
	u := func(v uint64) []byte { return AppendU64(nil, v) }
	i := func(v int64) []byte { return AppendI64(nil, v) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	lay := func(kinds string) func(r *PayloadReader) (string, error) {
		return func(r *PayloadReader) (string, error) { return fields(r, kinds) }
	}
	return []goldenRecord{
		// key, id 7-1, due, trim-through 0-0, 1 pair.
		{0, OpStreamAdd, cat(b("s"), u(7), u(1), i(1000), u(0), u(0), u(1), b("f"), b("v")), lay("bQQqQQQbb")},
		{0, OpStreamDel, cat(b("s"), u(1), u(7), u(1)), lay("bQQQ")},
		{0, OpStreamTrim, cat(b("s"), u(7), u(1)), lay("bQQ")},
		{0, OpStreamSetID, cat(b("s"), u(9), u(0), u(3), u(7), u(1)), lay("bQQQQQ")},
		{1, OpStreamGroupCreate, cat(b("s"), b("g"), u(0), u(0), i(-1)), lay("bbQQq")},
		{1, OpStreamGroupSetID, cat(b("s"), b("g"), u(7), u(1), i(1)), lay("bbQQq")},
		{1, OpStreamGroupDestroy, cat(b("s"), b("g")), lay("bb")},
		{1, OpStreamConsumerCreate, cat(b("s"), b("g"), b("c"), i(5)), lay("bbbq")},
		{1, OpStreamConsumerDel, cat(b("s"), b("g"), b("c")), lay("bbb")},
		// delivered [7-1], deferred [8-0], resolved [].
		{2, OpStreamGroupRead, cat(b("s"), b("g"), b("c"), i(5), AppendU8(nil, 0), u(8), u(0), i(2),
			u(1), u(7), u(1), u(1), u(8), u(0), u(0)), lay("bbbqcQQqQQQQQQQ")},
		{2, OpStreamClaim, cat(b("s"), b("g"), b("c"), i(5), u(1), u(7), u(1), i(4), u(2)), lay("bbbqQQQqQ")},
		{2, OpStreamAck, cat(b("s"), b("g"), u(1), u(7), u(1)), lay("bbQQQ")},
	}
}

func TestGoldenStreamWAL(t *testing.T) {
	var want []byte
	for i, g := range goldenStreamRecords() {
		var err error
		want, err = AppendRecord(want, Record{Seq: uint64(i + 1), DB: g.db, Op: g.op, Payload: g.p})
		if err != nil {
			t.Fatal(err)
		}
	}
	if *updateGolden {
		f, err := OSFS{}.Create(goldenStreamWAL)
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
	f, err := OSFS{}.Open(goldenStreamWAL)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("encoder output differs from " + goldenStreamWAL + ": the stream record format changed")
	}
	expected := []string{
		`StreamAdd db0 ["s" 7 1 1000 0 0 1 "f" "v"]`,
		`StreamDel db0 ["s" 1 7 1]`,
		`StreamTrim db0 ["s" 7 1]`,
		`StreamSetID db0 ["s" 9 0 3 7 1]`,
		`StreamGroupCreate db1 ["s" "g" 0 0 -1]`,
		`StreamGroupSetID db1 ["s" "g" 7 1 1]`,
		`StreamGroupDestroy db1 ["s" "g"]`,
		`StreamConsumerCreate db1 ["s" "g" "c" 5]`,
		`StreamConsumerDel db1 ["s" "g" "c"]`,
		`StreamGroupRead db2 ["s" "g" "c" 5 0 8 0 2 1 7 1 1 8 0 0]`,
		`StreamClaim db2 ["s" "g" "c" 5 1 7 1 4 2]`,
		`StreamAck db2 ["s" "g" 1 7 1]`,
	}
	recs := goldenStreamRecords()
	rest := data
	for i := range expected {
		r, n, err := DecodeRecord(rest)
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		rest = rest[n:]
		p := NewPayloadReader(r.Payload)
		got, err := recs[i].check(&p)
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if s := fmt.Sprintf("%s db%d %s", r.Op, r.DB, got); s != expected[i] {
			t.Errorf("record %d: got %s, want %s", i+1, s, expected[i])
		}
	}
}
