package persistence

import (
	"errors"
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
