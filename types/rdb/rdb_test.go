package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestCRC64(t *testing.T) {
	// The check value of the Jones CRC-64 as Redis computes it.
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %x", got)
	}
}

func TestLZFRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := 0
	for n := 0; n < 3000; n += 1 + n/10 {
		for _, alphabet := range []int{1, 2, 4, 26, 256} {
			in := make([]byte, n)
			for i := range in {
				in[i] = byte('a' + rng.IntN(alphabet))
			}
			c, ok := Compress(nil, in, n+n/16+64)
			if n == 0 {
				if ok {
					t.Fatal("empty input compressed")
				}
				continue
			}
			if !ok {
				t.Fatalf("n=%d alphabet=%d: did not fit", n, alphabet)
			}
			out, err := Decompress(c, n)
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("n=%d alphabet=%d: round trip failed: %v", n, alphabet, err)
			}
			if _, err := Decompress(c, n+1); err == nil {
				t.Fatal("wrong declared length accepted")
			}
			cases++
		}
	}
	if cases < 300 {
		t.Fatalf("only %d cases", cases)
	}
	// Incompressible data does not fit in less than its size.
	in := make([]byte, 100)
	for i := range in {
		in[i] = byte(rng.Uint32())
	}
	if _, ok := Compress(nil, in, 96); ok {
		t.Fatal("random bytes compressed by 4 bytes")
	}
}

func TestLengthsAndStrings(t *testing.T) {
	for _, n := range []uint64{0, 63, 64, 16383, 16384, 1<<32 - 1, 1 << 32, 1<<64 - 1} {
		b := AppendLength(nil, n)
		d := newDecoder(bytes.NewReader(b))
		got, err := d.plainLength()
		if err != nil || got != n || d.n != int64(len(b)) {
			t.Fatalf("length %d: %d %v (%d bytes of %d)", n, got, err, d.n, len(b))
		}
	}
	for _, s := range []string{"", "0", "-0", "01", "127", "-128", "128", "32767", "-32769", "2147483647", "2147483648",
		"-2147483648", "99999999999", " 1", "+1", "abc", string(bytes.Repeat([]byte("ab"), 40))} {
		b := AppendString(nil, []byte(s))
		d := newDecoder(bytes.NewReader(b))
		got, err := d.string()
		if err != nil || string(got) != s || d.n != int64(len(b)) {
			t.Fatalf("string %q: %q %v", s, got, err)
		}
	}
	if b := AppendString(nil, []byte("-2147483648")); b[0] != 0xC2 {
		t.Fatalf("int32 not used: %x", b)
	}
	if b := AppendString(nil, []byte("01")); b[0] != 2 {
		t.Fatalf("non-canonical integer encoded as one: %x", b)
	}
}

func TestListpackEncodings(t *testing.T) {
	vals := []string{"0", "127", "128", "-1", "4095", "-4096", "4096", "-4097", "32767", "-32768", "32768",
		"8388607", "-8388608", "8388608", "2147483647", "-2147483648", "2147483648",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "", "x",
		string(bytes.Repeat([]byte("y"), 63)), string(bytes.Repeat([]byte("y"), 64)),
		string(bytes.Repeat([]byte("y"), 4095)), string(bytes.Repeat([]byte("y"), 4096)), string(bytes.Repeat([]byte("z"), 20000))}
	lb := newListpack()
	for _, v := range vals {
		lb.add([]byte(v))
	}
	lp := lb.finish()
	var got []string
	if err := parseListpack(lp, func(v []byte) error { got = append(got, string(v)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(vals) {
		t.Fatalf("%d entries", len(got))
	}
	for i := range vals {
		if got[i] != vals[i] {
			t.Fatalf("entry %d: %q, want %q", i, got[i], vals[i])
		}
	}
	// Every damaged byte is either caught or harmless; never a panic.
	for i := range lp {
		bad := bytes.Clone(lp)
		bad[i] ^= 0x5a
		_ = parseListpack(bad, func([]byte) error { return nil })
	}
}

func TestScoreFormat(t *testing.T) {
	for f, want := range map[float64]string{1: "1", -3: "-3", 0.1: "0.10000000000000001", math.Inf(1): "inf",
		math.Inf(-1): "-inf", math.Copysign(0, -1): "-0", 1e20: "1e+20", 1 << 62: "4611686018427387904"} {
		if got := string(FormatScore(nil, f)); got != want {
			t.Errorf("%v: %q, want %q", f, got, want)
		}
	}
}

func TestBadPayloads(t *testing.T) {
	ok := AppendDump(nil, &Value{Kind: KindList, Elems: bs("a", "b")})
	wrap := func(body []byte) []byte { return AppendFooter(bytes.Clone(body), 0) }
	for name, c := range map[string]struct {
		p    []byte
		want error
	}{
		"short":           {[]byte("abc"), ErrDumpFooter},
		"crc":             {append(bytes.Clone(ok[:len(ok)-1]), ok[len(ok)-1]^1), ErrDumpFooter},
		"version":         {func() []byte { p := wrap([]byte{0, 1, 'a'}); p[3] = 11; return p }(), ErrDumpFooter},
		"empty":           {wrap(nil), ErrBadFormat},
		"opcode":          {wrap([]byte{0xFE, 0}), ErrBadFormat},
		"module":          {wrap([]byte{7, 0}), ErrUnsupportedType},
		"stream":          {wrap([]byte{19, 0}), ErrBadFormat},
		"truncated":       {wrap(ok[:len(ok)-12]), ErrBadFormat},
		"empty set":       {wrap([]byte{2, 0}), ErrEmpty},
		"dup set":         {wrap([]byte{2, 2, 1, 'a', 1, 'a'}), ErrBadFormat},
		"dup hash":        {wrap([]byte{4, 2, 1, 'a', 1, 'x', 1, 'a', 1, 'y'}), ErrBadFormat},
		"nan score":       {wrap(append([]byte{5, 1, 1, 'a'}, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f)), ErrBadFormat},
		"huge string":     {wrap([]byte{0, 0x81, 0, 0, 1, 0, 0, 0, 0, 0, 'a'}), ErrBadFormat},
		"huge lzf":        {wrap([]byte{0, 0xC3, 1, 0x80, 0xff, 0xff, 0xff, 0xff, 0}), ErrBadFormat},
		"bad lzf":         {wrap([]byte{0, 0xC3, 2, 10, 0x20, 0}), ErrBadFormat},
		"huge count":      {wrap([]byte{1, 0x81, 0, 0, 0, 1, 0, 0, 0, 0}), ErrBadFormat},
		"bad container":   {wrap([]byte{18, 1, 3, 1, 'a'}), ErrBadFormat},
		"zipmap":          {wrap([]byte{9, 1, 0}), ErrUnsupportedType},
		"intset unsorted": {wrap(append([]byte{11, 12}, 2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 3, 0)), ErrBadFormat},
	} {
		_, _, err := ParseDump(c.p)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

// seedValues are values of every kind and encoding for fuzz corpora.
func seedValues() []Value {
	var big [][]byte
	for i := range 300 {
		big = append(big, []byte("e"+strconv.Itoa(i)))
	}
	return []Value{
		{Kind: KindString, Str: []byte("hello")},
		{Kind: KindString, Str: []byte("123")},
		{Kind: KindString, Str: bytes.Repeat([]byte("abc"), 30)},
		{Kind: KindList, Elems: bs("a", "1", "-70000")},
		{Kind: KindSet, Elems: bs("1", "2", "-3")},
		{Kind: KindSet, Elems: bs("a", "b")},
		{Kind: KindHash, Pairs: bs("f", "v", "g", "12")},
		{Kind: KindHash, Pairs: big},
		{Kind: KindHash, Pairs: bs("f", "v", "g", "12", "h", "x"), FieldTTLs: []int64{1_700_000_000_000, 0, 1_800_000_000_000}},
		{Kind: KindZSet, Z: []ZEntry{{[]byte("a"), 1.5}, {[]byte("b"), math.Inf(1)}}},
		{Kind: KindZSet, Z: func() (z []ZEntry) {
			for i, m := range big {
				z = append(z, ZEntry{m, float64(i)})
			}
			return z
		}()},
		{Kind: KindStream, Stream: &Stream{
			Entries: []StreamEntry{{ID: StreamID{1, 0}, Fields: bs("a", "1", "b", "x")}, {ID: StreamID{1, 1}, Fields: bs("a", "2", "b", "y")},
				{ID: StreamID{3, 0}, Fields: bs("c", "z")}},
			LastID: StreamID{4, 0}, FirstID: StreamID{1, 0}, MaxDeletedID: StreamID{4, 0}, EntriesAdded: 4,
			Groups: []StreamGroup{{Name: []byte("g"), LastID: StreamID{3, 0}, EntriesRead: -1,
				PEL:       []StreamPending{{ID: StreamID{1, 0}, DeliveryTime: 1700000000000, DeliveryCount: 2}, {ID: StreamID{3, 0}, DeliveryTime: 1, DeliveryCount: 1}},
				Consumers: []StreamConsumer{{Name: []byte("c1"), SeenTime: 9, PEL: []StreamID{{1, 0}}}, {Name: []byte("c2"), PEL: []StreamID{{3, 0}}}}}},
		}},
		{Kind: KindStream, Stream: &Stream{LastID: StreamID{5, 0}, MaxDeletedID: StreamID{5, 0}, EntriesAdded: 1}},
	}
}

func FuzzParseDump(f *testing.F) {
	for _, v := range seedValues() {
		f.Add(AppendDump(nil, &v))
	}
	f.Add([]byte(legacyStream))
	f.Fuzz(func(t *testing.T, p []byte) {
		_, v, err := ParseDump(p)
		if err != nil {
			return
		}
		// What decodes encodes and decodes to the same contents.
		_, back, err := ParseDump(AppendDump(nil, &v))
		if err != nil || normalize(back) != normalize(v) {
			t.Fatalf("round trip of %s: %v", normalize(v), err)
		}
	})
}

// FuzzParseValue feeds bodies without the footer (no checksum to pass),
// so the fuzzer reaches the value decoders.
func FuzzParseValue(f *testing.F) {
	for _, v := range seedValues() {
		p := AppendValue(nil, &v)
		f.Add(p)
	}
	// Redis 7.4's small hash with field deadlines (type 25).
	lb := newListpack()
	for _, e := range []string{"a", "1", "1700000000500", "b", "2", "0"} {
		lb.add([]byte(e))
	}
	f.Add(AppendString(binary.LittleEndian.AppendUint64([]byte{byte(TypeHashListpackEx)}, 1_700_000_000_500), lb.finish()))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, v, err := ParseDump(AppendFooter(bytes.Clone(body), 0))
		if err != nil {
			return
		}
		if _, back, err := ParseDump(AppendDump(nil, &v)); err != nil || normalize(back) != normalize(v) {
			t.Fatalf("round trip of %s: %v", normalize(v), err)
		}
	})
}

func FuzzPacked(f *testing.F) {
	lb := newListpack()
	lb.add([]byte("a"))
	lb.add([]byte("1"))
	f.Add(uint8(TypeHashListpack), lb.finish())
	f.Add(uint8(TypeSetIntset), appendIntset(nil, []int64{1, 2, 70000}))
	// A ziplist of "a" and 7.
	f.Add(uint8(TypeHashZiplist), []byte{15, 0, 0, 0, 12, 0, 0, 0, 2, 0, 0, 1, 'a', 3, 0xF8, 0xFF})
	f.Fuzz(func(t *testing.T, typ uint8, blob []byte) {
		switch Type(typ) {
		case TypeListZiplist, TypeSetIntset, TypeZSetZiplist, TypeHashZiplist, TypeHashListpack, TypeZSetListpack:
			_, _ = packedValue(Type(typ), blob)
		}
	})
}

func FuzzLZF(f *testing.F) {
	f.Add([]byte("abcabcabcabcabcabcabcabcabcabc"), 30)
	f.Add([]byte{0x20, 0, 1}, 5)
	f.Fuzz(func(t *testing.T, in []byte, n int) {
		if n < 0 || n > 1<<20 {
			return
		}
		// Decompressing anything either fails or yields n bytes.
		if out, err := Decompress(in, n); err == nil && len(out) != n {
			t.Fatalf("%d bytes, want %d", len(out), n)
		}
		// Compressing anything round-trips.
		if c, ok := Compress(nil, in, len(in)+len(in)/16+64); ok {
			out, err := Decompress(c, len(in))
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("round trip: %v", err)
			}
		}
	})
}

func FuzzFileReader(f *testing.F) {
	f.Add(testFile(f))
	v9, _, _ := version9File()
	f.Add(v9)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewFileReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		for range 10000 {
			if _, _, err := r.Next(); err != nil {
				return
			}
		}
	})
}

// testFile builds a small RDB file of every value kind.
func testFile(t testing.TB) []byte {
	b := []byte("REDIS0010")
	b = append(b, opAux)
	b = AppendString(b, []byte("redis-ver"))
	b = AppendString(b, []byte("7.0.15"))
	b = append(b, opSelectDB, 0, opResizeDB, 3, 1)
	for i, v := range seedValues() {
		if i == 2 {
			b = append(b, opExpireTimeMs)
			b = append(b, 0x10, 0x27, 0, 0, 0, 0, 0, 0)
		}
		p := AppendValue(nil, &v)
		b = append(b, p[0])
		b = AppendString(b, []byte("key"+strconv.Itoa(i)))
		b = append(b, p[1:]...)
		if i == 5 {
			b = append(b, opSelectDB, 3)
		}
	}
	b = append(b, opEOF)
	var crc [8]byte
	c := CRC64(0, b)
	for i := range crc {
		crc[i] = byte(c >> (8 * i))
	}
	return append(b, crc[:]...)
}

func TestFileReader(t *testing.T) {
	data := testFile(t)
	r, err := NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	seeds := seedValues()
	for i := 0; ; i++ {
		e, sk, err := r.Next()
		if err == io.EOF {
			if i != len(seeds) {
				t.Fatalf("%d keys", i)
			}
			break
		}
		if err != nil || sk != nil {
			t.Fatalf("key %d: %v %v", i, err, sk)
		}
		wantDB := 0
		if i > 5 {
			wantDB = 3
		}
		if e.DB != wantDB || string(e.Key) != "key"+strconv.Itoa(i) || normalize(e.Value) != normalize(seeds[i]) {
			t.Fatalf("key %d: db %d %q %s", i, e.DB, e.Key, normalize(e.Value))
		}
		if (i >= 2) != (e.ExpireAtMs == 10000) {
			// The deadline applies to the next key only.
			if !(i > 2 && e.ExpireAtMs == 0) {
				t.Fatalf("key %d: deadline %d", i, e.ExpireAtMs)
			}
		}
	}
	if r.Aux["redis-ver"] != "7.0.15" {
		t.Fatalf("aux %v", r.Aux)
	}
	data[len(data)-1] ^= 1
	r, _ = NewFileReader(bytes.NewReader(data))
	for {
		if _, _, err = r.Next(); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrBadFormat) {
		t.Fatalf("bad checksum: %v", err)
	}
}
