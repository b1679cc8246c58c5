package persistence

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"testing"
)

// The set, sorted set and Bloom opcodes (80–87) have their own golden log, so the released
// golden-v1.wal keeps its bytes. Regenerate with -update only before the
// opcodes are released.
const goldenSetWAL = "testdata/golden-collections-v1.wal"

func goldenSetRecords() []goldenRecord {
	b := func(s string) []byte { return []byte(s) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	lay := func(kinds string) func(r *PayloadReader) (string, error) {
		return func(r *PayloadReader) (string, error) { return fields(r, kinds) }
	}
	// A set encoding as types/set writes it: version 1, compact form 0,
	// then an intset of 2-byte members 1 and 2.
	setEnc := []byte{1, 0, 2, 1, 0, 2, 0}
	zsetEnc := zsetGoldenEncoding
	return []goldenRecord{
		{0, OpSetAdd, cat(AppendBytes(nil, b("s")), AppendU64(nil, 2), AppendBytes(nil, b("a")), AppendBytes(nil, b("b"))), lay("bQbb")},
		{3, OpSetRemove, cat(AppendBytes(nil, b("s")), AppendU64(nil, 1), AppendBytes(nil, b("a"))), lay("bQb")},
		{0, OpSetStore, cat(AppendBytes(nil, b("dst")), setEnc), func(r *PayloadReader) (string, error) {
			k, err := r.Bytes()
			if err != nil {
				return "", err
			}
			return string(k) + " " + string(fmtBytes(r.Rest())), r.Done()
		}},
		{0, OpSetMove, cat(AppendBytes(nil, b("src")), AppendBytes(nil, b("dst")), AppendBytes(nil, b("m"))), lay("bbb")},
		{1, OpZAdd, cat(AppendBytes(nil, b("z")), AppendU64(nil, 2), AppendU64(nil, math.Float64bits(1.5)), AppendBytes(nil, b("a")),
			AppendU64(nil, math.Float64bits(math.Inf(-1))), AppendBytes(nil, b("b"))), func(r *PayloadReader) (string, error) {
			k, err := r.Bytes()
			if err != nil {
				return "", err
			}
			n, err := r.U64()
			if err != nil {
				return "", err
			}
			out := fmt.Sprintf("%q %d", k, n)
			for range n {
				bits, err := r.U64()
				if err != nil {
					return "", err
				}
				m, err := r.Bytes()
				if err != nil {
					return "", err
				}
				out += fmt.Sprintf(" %v %q", math.Float64frombits(bits), m)
			}
			return out, r.Done()
		}},
		{1, OpZRemove, cat(AppendBytes(nil, b("z")), AppendU64(nil, 1), AppendBytes(nil, b("a"))), lay("bQb")},
		{1, OpZStore, cat(AppendBytes(nil, b("zd")), zsetEnc), func(r *PayloadReader) (string, error) {
			k, err := r.Bytes()
			if err != nil {
				return "", err
			}
			return string(k) + " " + string(fmtBytes(r.Rest())), r.Done()
		}},
		{2, OpBloomAdd, cat(AppendBytes(nil, b("bf")), AppendU64(nil, math.Float64bits(0.01)), AppendU64(nil, 100), AppendU64(nil, 2),
			AppendU8(nil, 0), AppendU64(nil, 2), AppendBytes(nil, b("x")), AppendBytes(nil, b("y"))), lay("bQQQcQbb")},
	}
}

func fmtBytes(p []byte) []byte {
	var out []byte
	for i, c := range p {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '0'+c/100, '0'+c/10%10, '0'+c%10)
	}
	return out
}

func TestGoldenSetWAL(t *testing.T) {
	var want []byte
	for i, g := range goldenSetRecords() {
		var err error
		want, err = AppendRecord(want, Record{Seq: uint64(i + 1), DB: g.db, Op: g.op, Payload: g.p})
		if err != nil {
			t.Fatal(err)
		}
	}
	if *updateGolden {
		f, err := OSFS{}.Create(goldenSetWAL)
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
	f, err := OSFS{}.Open(goldenSetWAL)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("encoder output differs from " + goldenSetWAL + ": the set record format changed")
	}
	expected := []string{
		`SetAdd db0 ["s" 2 "a" "b"]`,
		`SetRemove db3 ["s" 1 "a"]`,
		`SetStore db0 dst 001,000,002,001,000,002,000`,
		`SetMove db0 ["src" "dst" "m"]`,
		`ZAdd db1 "z" 2 1.5 "a" -Inf "b"`,
		`ZRemove db1 ["z" 1 "a"]`,
		`ZStore db1 zd ` + string(fmtBytes(zsetGoldenEncoding)),
		`BloomAdd db2 ["bf" 4576918229304087675 100 2 0 2 "x" "y"]`,
	}
	recs := goldenSetRecords()
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

// zsetGoldenEncoding is the sorted set {m: 2} as types/zset encodes it;
// keyspace's TestZSetEncodingMatchesGolden pins the same bytes.
var zsetGoldenEncoding = []byte{1, 0, 1, 0, 0, 0, 1, 'm', 2, 1, 2, 2}
