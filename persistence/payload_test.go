package persistence

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestPayloadRoundTrip(t *testing.T) {
	var p []byte
	p = AppendBytes(p, []byte("key"))
	p = AppendBytes(p, nil)
	p = AppendU8(p, 9)
	p = AppendU16(p, 0xBEEF)
	p = AppendU64(p, 1<<60)
	p = AppendI64(p, -5)
	r := NewPayloadReader(p)
	k, err1 := r.Bytes()
	e, err2 := r.Bytes()
	u8, err3 := r.U8()
	u16, err4 := r.U16()
	u64, err5 := r.U64()
	i64, err6 := r.I64()
	if err := errors.Join(err1, err2, err3, err4, err5, err6, r.Done()); err != nil {
		t.Fatal(err)
	}
	if string(k) != "key" || len(e) != 0 || u8 != 9 || u16 != 0xBEEF || u64 != 1<<60 || i64 != -5 {
		t.Fatal("mismatch")
	}
	// Every truncation of the payload fails cleanly with ErrCorrupt.
	for cut := 0; cut < len(p); cut++ {
		r := NewPayloadReader(p[:cut])
		var err error
		if _, err = r.Bytes(); err == nil {
			if _, err = r.Bytes(); err == nil {
				if _, err = r.U8(); err == nil {
					if _, err = r.U16(); err == nil {
						if _, err = r.U64(); err == nil {
							_, err = r.I64()
						}
					}
				}
			}
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut %d: %v", cut, err)
		}
	}
	// A huge length prefix is an error, not an allocation.
	bad := append([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 'x')
	r = NewPayloadReader(bad)
	if _, err := r.Bytes(); !errors.Is(err, ErrCorrupt) {
		t.Fatal(err)
	}
	if r := NewPayloadReader([]byte{1}); r.Done() == nil {
		t.Fatal("trailing bytes not reported")
	}
}

func TestPayloadHelpersDoNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 256)
	key := []byte("key")
	allocs := testing.AllocsPerRun(100, func() {
		b := AppendBytes(buf[:0], key)
		b = AppendI64(b, 42)
		r := NewPayloadReader(b)
		_, _ = r.Bytes()
		_, _ = r.I64()
	})
	if allocs != 0 {
		t.Fatalf("%v allocs", allocs)
	}
}

// TestPayloadReaderSticky: the first error is kept, later reads return
// zero values and consume nothing, and Err/End report that first error.
func TestPayloadReaderSticky(t *testing.T) {
	p := AppendU16(AppendBytes(nil, []byte("key")), 7)
	r := NewPayloadReader(p)
	if k := r.NextBytes(); string(k) != "key" || r.Err() != nil {
		t.Fatalf("NextBytes = %q, %v", k, r.Err())
	}
	if v := r.NextU64(); v != 0 || !errors.Is(r.Err(), ErrCorrupt) {
		t.Fatalf("NextU64 past the end = %d, %v", v, r.Err())
	}
	first := r.Err()
	// The two bytes of the u16 are still there but are not read any more.
	if v := r.NextU16(); v != 0 || r.Len() != 2 || r.Err() != first {
		t.Fatalf("after the error: NextU16 = %d, Len = %d, Err = %v", v, r.Len(), r.Err())
	}
	if b, err := r.Bytes(); b != nil || err != first {
		t.Fatalf("Bytes after the error = %q, %v", b, err)
	}
	if r.Rest() != nil || r.End() != first || r.Done() != first {
		t.Fatal("Rest/End/Done after the error")
	}
	if f := r.NextFields(1); f.Len() != 0 || f.Err() != nil {
		t.Fatal("NextFields after the error")
	}

	// Every truncation of a payload fails with one check at the end.
	var full []byte
	full = AppendBytes(full, []byte("k"))
	full = AppendU8(full, 1)
	full = AppendI64(full, -1)
	full = AppendBytes(full, []byte("v"))
	for cut := 0; cut <= len(full); cut++ {
		r := NewPayloadReader(full[:cut])
		k, u, i, v := r.NextBytes(), r.NextU8(), r.NextI64(), r.NextBytes()
		err := r.End()
		if cut < len(full) {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("cut %d: %v", cut, err)
			}
			continue
		}
		if err != nil || string(k) != "k" || u != 1 || i != -1 || string(v) != "v" {
			t.Fatalf("full payload: %q %d %d %q %v", k, u, i, v, err)
		}
	}
	if r := NewPayloadReader(append(bytes.Clone(full), 0)); r.Rest() == nil || r.End() != nil {
		t.Fatal("Rest then End")
	}
	r = NewPayloadReader([]byte{0})
	if err := r.End(); !errors.Is(err, ErrCorrupt) || r.Err() != err {
		t.Fatalf("End with a trailing byte: %v (Err %v)", err, r.Err())
	}
}

func TestPayloadReaderNextCount(t *testing.T) {
	for _, c := range []struct {
		n, size, have int
		ok            bool
	}{
		{0, 8, 0, true},
		{2, 8, 16, true},
		{2, 8, 17, true},
		{3, 8, 16, false},
		{5, 1, 4, false},
		{4, 1, 4, true},
	} {
		p := AppendU64(nil, uint64(c.n))
		p = append(p, make([]byte, c.have)...)
		r := NewPayloadReader(p)
		n := r.NextCount(c.size)
		if ok := r.Err() == nil; ok != c.ok || (ok && n != uint64(c.n)) || (!ok && (n != 0 || !errors.Is(r.Err(), ErrCorrupt))) {
			t.Errorf("count %d of %d-byte elements in %d bytes: n = %d, err = %v", c.n, c.size, c.have, n, r.Err())
		}
	}
	// A count of 2^64-1 is an error, not an overflow.
	r := NewPayloadReader(AppendU64(nil, 1<<64-1))
	if r.NextCount(1); r.Err() == nil {
		t.Fatal("huge count accepted")
	}
}

func TestPayloadReaderNextFields(t *testing.T) {
	var p []byte
	for _, s := range []string{"a", "", "ccc"} {
		p = AppendBytes(p, []byte(s))
	}
	p = AppendU8(p, 9)
	r := NewPayloadReader(p)
	f := r.NextFields(3)
	if r.Err() != nil || f.Len() != len(p)-1 {
		t.Fatalf("NextFields: Len %d, err %v", f.Len(), r.Err())
	}
	if v := r.NextU8(); v != 9 || r.End() != nil {
		t.Fatalf("after the fields: %d, %v", v, r.Err())
	}
	if a, b, c := f.NextBytes(), f.NextBytes(), f.NextBytes(); string(a) != "a" || len(b) != 0 || string(c) != "ccc" || f.End() != nil {
		t.Fatalf("fields read back: %q %q %q %v", a, b, c, f.Err())
	}
	// One field short: an error, and nothing to read back.
	r = NewPayloadReader(p[:len(p)-3])
	if f := r.NextFields(3); !errors.Is(r.Err(), ErrCorrupt) || f.Len() != 0 {
		t.Fatalf("short fields: Len %d, err %v", f.Len(), r.Err())
	}
}

func TestPayloadReaderNextRaw(t *testing.T) {
	r := NewPayloadReader([]byte("abcdef"))
	if b := r.NextRaw(0); len(b) != 0 || r.Err() != nil {
		t.Fatalf("NextRaw(0) = %q, %v", b, r.Err())
	}
	if b := r.NextRaw(4); string(b) != "abcd" || cap(b) != 4 || r.Len() != 2 {
		t.Fatalf("NextRaw(4) = %q (cap %d), Len %d", b, cap(b), r.Len())
	}
	if b := r.NextRaw(3); b != nil || !errors.Is(r.Err(), ErrCorrupt) || r.Len() != 2 {
		t.Fatalf("NextRaw past the end = %q, %v, Len %d", b, r.Err(), r.Len())
	}
}

func TestPayloadReaderNextDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 256)
	key := []byte("key")
	allocs := testing.AllocsPerRun(100, func() {
		b := AppendBytes(buf[:0], key)
		b = AppendU64(b, 1)
		b = AppendBytes(b, key)
		r := NewPayloadReader(b)
		_ = r.NextBytes()
		f := r.NextFields(r.NextCount(1))
		_ = f.NextBytes()
		_ = r.End()
	})
	if allocs != 0 {
		t.Fatalf("%v allocs", allocs)
	}
}

// FuzzPayloadReader reads arbitrary bytes as a program-chosen sequence of
// fields: no panic, reads never move backwards, the first error sticks, and
// both method styles agree.
func FuzzPayloadReader(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, AppendU16(AppendBytes(nil, []byte("key")), 3))
	f.Add([]byte{5, 0, 4}, AppendBytes(AppendU64(nil, 2), []byte("x")))
	f.Add([]byte{0}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, ops, payload []byte) {
		a, b := NewPayloadReader(payload), NewPayloadReader(payload)
		var first error
		for _, op := range ops {
			before := a.Len()
			var va, vb any
			var errB error
			switch op % 8 {
			case 0:
				va = string(a.NextBytes())
				var x []byte
				x, errB = b.Bytes()
				vb = string(x)
			case 1:
				va = a.NextU8()
				vb, errB = b.U8()
			case 2:
				va = a.NextU16()
				vb, errB = b.U16()
			case 3:
				va = a.NextU64()
				vb, errB = b.U64()
			case 4:
				va = a.NextI64()
				vb, errB = b.I64()
			case 5:
				size := int(op/8%16) + 1
				va = a.NextCount(size)
				vb = b.NextCount(size)
				errB = b.Err()
				if a.Err() == nil && va.(uint64)*uint64(size) > uint64(a.Len()) {
					t.Fatalf("count %d of %d bytes in %d bytes accepted", va, size, a.Len())
				}
			case 6:
				n := uint64(op / 8 % 4)
				fa := a.NextFields(n)
				fb := b.NextFields(n)
				errB = b.Err()
				va, vb = string(fa.Rest()), string(fb.Rest())
			case 7:
				n := int(op / 8 % 16)
				va, vb = string(a.NextRaw(n)), string(b.NextRaw(n))
				errB = b.Err()
			}
			if a.Len() > before {
				t.Fatalf("op %d: Len grew from %d to %d", op, before, a.Len())
			}
			if va != vb || fmt.Sprint(a.Err()) != fmt.Sprint(errB) || a.Len() != b.Len() {
				t.Fatalf("op %d: styles disagree: %v/%v, %v/%v", op, va, vb, a.Err(), errB)
			}
			if first != nil && (a.Err() != first || a.Len() != before) {
				t.Fatalf("op %d: after error %v: error %v, Len %d -> %d", op, first, a.Err(), before, a.Len())
			}
			if first = a.Err(); first != nil && !errors.Is(first, ErrCorrupt) {
				t.Fatalf("op %d: error %v does not wrap ErrCorrupt", op, first)
			}
		}
	})
}
