package lp

import (
	"bytes"
	"testing"
)

func TestWalkBothWays(t *testing.T) {
	var vals [][]byte
	for _, n := range []int{0, 1, 126, 127, 128, 129, 16383, 16384, 16385, 70000} {
		vals = append(vals, bytes.Repeat([]byte{byte(n)}, n))
	}
	var b []byte
	for _, v := range vals {
		b = Append(b, v)
	}
	if n, ok := Check(b); !ok || n != len(vals) {
		t.Fatalf("Check = %d %v", n, ok)
	}
	off := 0
	for i, v := range vals {
		got, next := Next(b, off)
		if !bytes.Equal(got, v) || next-off != EntrySize(len(v)) {
			t.Fatalf("entry %d: %d bytes, size %d", i, len(got), next-off)
		}
		off = next
	}
	end := len(b)
	for i := len(vals) - 1; i >= 0; i-- {
		s := Prev(b, end)
		got, next := Next(b, s)
		if next != end || !bytes.Equal(got, vals[i]) {
			t.Fatalf("backward entry %d", i)
		}
		end = s
	}
	if end != 0 {
		t.Fatalf("backward walk ended at %d", end)
	}
}

func TestInsertReplaceDelete(t *testing.T) {
	b := Append(nil, []byte("a"))
	b = Append(b, []byte("c"))
	b = Insert(b, EntrySize(1), []byte("b"))
	_, e1 := Next(b, 0)
	_, e2 := Next(b, e1)
	b = Replace(b, e1, e2, bytes.Repeat([]byte("B"), 200))
	b = Replace(b, 0, e1, nil)
	var got []string
	for off := 0; off < len(b); {
		v, next := Next(b, off)
		got = append(got, string(v))
		off = next
	}
	if len(got) != 3 || got[0] != "" || len(got[1]) != 200 || got[2] != "c" {
		t.Fatalf("got %q", got)
	}
	_, e1 = Next(b, 0)
	_, e2 = Next(b, e1)
	b = Delete(b, e1, e2)
	if n, ok := Check(b); !ok || n != 2 {
		t.Fatalf("after delete: %d %v", n, ok)
	}
}

// FuzzCheck: Check never panics, and what it accepts walks cleanly both
// ways.
func FuzzCheck(f *testing.F) {
	f.Add(Append(Append(nil, []byte("x")), bytes.Repeat([]byte("y"), 300)))
	f.Add([]byte{0x80})
	f.Add([]byte{5, 'a'})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, ok := Check(b)
		if !ok {
			return
		}
		k, end := 0, len(b)
		for end > 0 {
			end = Prev(b, end)
			k++
		}
		if k != n || end != 0 {
			t.Fatalf("backward walk: %d entries ending at %d, Check said %d", k, end, n)
		}
	})
}
