package hll

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Values and estimates produced by redis-server 7.0.15 for the same calls.
func TestKnownValues(t *testing.T) {
	empty := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
	if got := string(New()); got != empty {
		t.Fatalf("New() = %q, want %q", got, empty)
	}
	v, o, idx, err := Add(New(), []byte("a"), 3000)
	if err != nil || o != Rewritten || idx != 12711 {
		t.Fatalf("Add(a): outcome %d, register %d, err %v", o, idx, err)
	}
	if got := string(Decode(v)); got != "Z:12711 v:2,1 Z:3672" {
		t.Errorf("Decode = %q", got)
	}
	if n, err := Count(v); err != nil || n != 1 {
		t.Errorf("Count = %d, %v", n, err)
	}
	if h := murmur64A([]byte("hello"), hashSeed); h == 0 {
		t.Error("hash of hello is 0")
	}
}

// model keeps the registers as a plain array.
type model [Registers]uint8

func (m *model) set(i int, c uint8) bool {
	if m[i] >= c {
		return false
	}
	m[i] = c
	return true
}

func decodeAll(t *testing.T, v []byte) *[Registers]uint8 {
	t.Helper()
	var regs [Registers]uint8
	if err := Merge(&regs, v); err != nil {
		t.Fatalf("Merge: %v", err)
	}
	return &regs
}

// TestSetAgainstModel drives Set with random registers and values on
// values of different sparse limits and checks the registers, the change
// report, the canonical merging of VAL runs, and the estimate.
func TestSetAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	steps := 0
	for round := 0; round < 60; round++ {
		limit := []int{3000, 100, 20, 1 << 16}[round%4]
		v := New()
		var m model
		// Registers cluster so that runs form and merge.
		base := rng.IntN(Registers - 200)
		for i := 0; i < 400; i++ {
			idx := base + rng.IntN(200)
			if rng.IntN(10) == 0 {
				idx = rng.IntN(Registers)
			}
			c := uint8(1 + rng.IntN(4))
			if rng.IntN(50) == 0 {
				c = uint8(1 + rng.IntN(q+1))
			}
			out, o, err := Set(v, idx, c, limit)
			if err != nil {
				t.Fatal(err)
			}
			v = out
			if changed := m.set(idx, c); changed != (o != Unchanged) {
				t.Fatalf("Set(%d, %d): outcome %d, model changed %v", idx, c, o, changed)
			}
			if err := Check(v); err != nil {
				t.Fatal(err)
			}
			if !IsDense(v) {
				if len(v) > max(limit, HeaderLen+2) && o != Unchanged {
					t.Fatalf("sparse value of %d bytes over the limit %d", len(v), limit)
				}
				checkCanonicalRuns(t, v)
			}
			steps++
		}
		if got := decodeAll(t, v); *got != m {
			t.Fatalf("round %d: registers differ from the model", round)
		}
		n, err := Count(v)
		if err != nil || n != CountRegisters((*[Registers]uint8)(&m)) {
			t.Fatalf("Count = %d (%v), registers give %d", n, err, CountRegisters((*[Registers]uint8)(&m)))
		}
		d, err := ToDense(v)
		if err != nil || !bytes.Equal(DenseRegisters(d), m[:]) {
			t.Fatalf("ToDense: %v", err)
		}
	}
	if steps != 60*400 {
		t.Fatal(steps)
	}
}

// checkCanonicalRuns: no two neighbouring VAL opcodes with the same value
// could have been one (Set merges around what it changes).
func checkCanonicalRuns(t *testing.T, v []byte) {
	t.Helper()
	p := v[HeaderLen:]
	for i := 0; i+1 < len(p); i++ {
		if isXZero(p[i]) {
			i++
			continue
		}
		if isVal(p[i]) && isVal(p[i+1]) && valValue(p[i]) == valValue(p[i+1]) && valLen(p[i])+valLen(p[i+1]) <= sparseValMaxLen {
			t.Fatalf("unmerged VAL runs at %d: %s", i, Decode(v))
		}
	}
}

func TestEstimateError(t *testing.T) {
	v := New()
	var el [8]byte
	for n := 1; n <= 200000; n++ {
		binary.LittleEndian.PutUint64(el[:], uint64(n)*0x9e3779b97f4a7c15)
		v, _, _, _ = Add(v, el[:], 3000)
		if n%20000 == 0 {
			c, err := Count(v)
			if err != nil {
				t.Fatal(err)
			}
			if e := float64(c)/float64(n) - 1; e > 0.05 || e < -0.05 {
				t.Errorf("%d elements estimated %d", n, c)
			}
		}
	}
	if !IsDense(v) {
		t.Error("200000 elements still sparse")
	}
}

func TestCorruptValues(t *testing.T) {
	hdr := string(New()[:HeaderLen])
	for _, v := range []string{
		hdr + "\x7f\xff\x00",         // one register too many
		hdr + "\x7f",                 // XZERO cut off
		hdr + "\x7f\xfe",             // one register short
		hdr + "\x7f\xfe\xff",         // VAL past the end
		hdr + "",                     // no opcodes
		hdr + "\x00\x7f\xff\x00\x00", // too many
	} {
		b := []byte(v)
		if Check(b) != nil {
			t.Fatalf("%q: header refused", v)
		}
		var regs [Registers]uint8
		if err := Merge(&regs, b); err != ErrCorrupt {
			t.Errorf("Merge(%q) = %v", v, err)
		}
		if _, err := Count(b); err != ErrCorrupt {
			t.Errorf("Count(%q) = %v", v, err)
		}
		if _, err := ToDense(b); err != ErrCorrupt {
			t.Errorf("ToDense(%q) = %v", v, err)
		}
	}
	for _, v := range []string{"", "HYLL", "HYLX\x01" + hdr[5:] + "\x7f\xff", "HYLL\x02" + hdr[5:] + "\x7f\xff", "HYLL\x00" + hdr[5:] + "\x7f\xff"} {
		if Check([]byte(v)) != ErrNotHLL {
			t.Errorf("Check(%q) accepted", v)
		}
	}
}

// FuzzValue feeds arbitrary bytes behind a valid header: decoding never
// panics, Set either refuses or keeps every other register, and the
// sparse and dense views agree.
func FuzzValue(f *testing.F) {
	f.Add([]byte("\x7f\xff"), uint16(5), uint8(3))
	f.Add([]byte("\x00\x80\x7f\xfd"), uint16(1), uint8(2))
	f.Add([]byte("\x40"), uint16(0), uint8(40))
	f.Fuzz(func(t *testing.T, body []byte, idx uint16, c uint8) {
		v := append(New()[:HeaderLen:HeaderLen], body...)
		_ = Decode(v)
		var before [Registers]uint8
		if Merge(&before, v) != nil {
			if _, err := Count(v); err == nil {
				t.Fatal("Count accepted what Merge refused")
			}
			_, _, _ = Set(v, int(idx)%Registers, c%(q+2), 3000)
			return
		}
		i, c := int(idx)%Registers, c%(q+1)+1
		out, o, err := Set(v, i, c, 300)
		if err != nil {
			t.Fatalf("Set on a valid value: %v", err)
		}
		after := decodeAll(t, out)
		want := before
		if want[i] < c {
			want[i] = c
		}
		if *after != want {
			t.Fatalf("Set(%d, %d) outcome %d: registers wrong", i, c, o)
		}
	})
}

func BenchmarkAddSparse(b *testing.B) {
	b.ReportAllocs()
	els := make([][]byte, 1000)
	for i := range els {
		els[i] = []byte("element:" + strconv.Itoa(i))
	}
	for b.Loop() {
		v := New()
		for _, el := range els[:100] {
			v, _, _, _ = Add(v, el, 3000)
		}
	}
}

func BenchmarkAddDense(b *testing.B) {
	b.ReportAllocs()
	v, _ := ToDense(New())
	el := []byte("element:000000")
	i := 0
	for b.Loop() {
		binary.LittleEndian.PutUint32(el[8:], uint32(i))
		i++
		v, _, _, _ = Add(v, el, 3000)
	}
}

func BenchmarkCountDense(b *testing.B) {
	b.ReportAllocs()
	v, _ := ToDense(New())
	for i := 0; i < 100000; i++ {
		v, _, _, _ = Add(v, []byte(strconv.Itoa(i)), 3000)
	}
	for b.Loop() {
		_, _ = Count(v)
	}
}

// TestHashRunLength checks Hash's run length against its definition: the
// position (from 1) of the lowest set bit of the hash above the index
// bits, at most q+1.
func TestHashRunLength(t *testing.T) {
	seen := map[uint8]bool{}
	for i := 0; i < 200000; i++ {
		el := []byte("el:" + strconv.Itoa(i))
		h := murmur64A(el, hashSeed)
		want := uint8(1)
		for r := h >> P; r&1 == 0 && want <= q; r >>= 1 {
			want++
		}
		idx, count := Hash(el)
		if idx != int(h&(Registers-1)) || count != want {
			t.Fatalf("Hash(%q) = %d, %d; want %d, %d", el, idx, count, h&(Registers-1), want)
		}
		seen[count] = true
	}
	if len(seen) < 12 {
		t.Fatalf("only %d run lengths seen", len(seen))
	}
}
