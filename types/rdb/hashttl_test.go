package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// A hash with field deadlines is written as RDB 12's type 24 (minimum
// deadline, then per field the deadline relative to it plus 1, or 0) in a
// version 12 payload, and read back; the pre-GA type 22 (absolute
// deadlines) is read too.
func TestHashWithFieldTTLs(t *testing.T) {
	v := Value{Kind: KindHash, Pairs: bs("a", "1", "b", "2", "c", "3"), FieldTTLs: []int64{1_700_000_000_500, 0, 1_700_000_000_000}}
	p := AppendDump(nil, &v)
	if p[0] != byte(TypeHashMetadata) {
		t.Fatalf("type %d, want %d", p[0], TypeHashMetadata)
	}
	if got := binary.LittleEndian.Uint16(p[len(p)-10:]); got != VersionFieldTTLs {
		t.Fatalf("version %d, want %d", got, VersionFieldTTLs)
	}
	want := []byte{byte(TypeHashMetadata)}
	want = binary.LittleEndian.AppendUint64(want, 1_700_000_000_000)
	want = append(want, 3, 0x41, 0xf5, 1, 'a', 0xc0, 1, 0, 1, 'b', 0xc0, 2, 1, 1, 'c', 0xc0, 3)
	if !bytes.Equal(p[:len(p)-10], want) {
		t.Fatalf("encoding\n got %x\nwant %x", p[:len(p)-10], want)
	}
	typ, back, err := ParseDump(p)
	if err != nil || typ != TypeHashMetadata || normalize(back) != normalize(v) {
		t.Fatalf("decode: %v %v %s", typ, err, normalize(back))
	}

	// Pre-GA: absolute deadlines, no minimum.
	pre := []byte{byte(TypeHashMetadataPreGA), 1}
	pre = AppendLength(pre, 1_700_000_000_000)
	pre = AppendString(pre, []byte("f"))
	pre = AppendString(pre, []byte("v"))
	_, back, err = ParseDump(AppendFooter(pre, 0))
	if err != nil || len(back.FieldTTLs) != 1 || back.FieldTTLs[0] != 1_700_000_000_000 {
		t.Fatalf("pre-GA: %v %+v", err, back)
	}

	// Redis 7.4's small form: a listpack of (field, value, deadline)
	// triplets after the minimum deadline; the pre-GA form without it.
	for _, typ := range []Type{TypeHashListpackEx, TypeHashListpackExPreGA} {
		lb := newListpack()
		for _, e := range []string{"a", "1", "1700000000500", "b", "2", "0"} {
			lb.add([]byte(e))
		}
		body := []byte{byte(typ)}
		if typ == TypeHashListpackEx {
			body = binary.LittleEndian.AppendUint64(body, 1_700_000_000_500)
		}
		body = AppendString(body, lb.finish())
		_, back, err = ParseDump(AppendFooter(body, 0))
		want := Value{Kind: KindHash, Pairs: bs("a", "1", "b", "2"), FieldTTLs: []int64{1_700_000_000_500, 0}}
		if err != nil || normalize(back) != normalize(want) {
			t.Fatalf("type %d: %v %s", typ, err, normalize(back))
		}
	}

	// No deadline at all: the plain encodings and version 10, as before.
	plain := Value{Kind: KindHash, Pairs: bs("a", "1"), FieldTTLs: []int64{0}}
	p = AppendDump(nil, &plain)
	if p[0] != byte(TypeHashListpack) || binary.LittleEndian.Uint16(p[len(p)-10:]) != Version {
		t.Fatalf("plain hash: type %d version %d", p[0], binary.LittleEndian.Uint16(p[len(p)-10:]))
	}

	// A deadline past 48 bits, a version past 12: refused.
	bad := []byte{byte(TypeHashMetadata)}
	bad = binary.LittleEndian.AppendUint64(bad, 1<<48)
	bad = append(bad, 1, 1, 1, 'f', 1, 'v')
	if _, _, err := ParseDump(AppendFooter(bad, 0)); err == nil {
		t.Fatal("a minimum deadline past 48 bits decoded")
	}
	p = appendFooterVersion(AppendValue(nil, &v), 0, VersionFieldTTLs+1)
	if _, _, err := ParseDump(p); !errors.Is(err, ErrDumpFooter) {
		t.Fatalf("version 13: %v", err)
	}
}
