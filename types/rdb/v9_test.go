package rdb

import (
	"bytes"
	"encoding/binary"
	"io"
	"strconv"
	"testing"
)

// ziplist builds a ziplist the way Redis 6 writes one: integers in the
// smallest encoding, strings with 6, 14 or 32-bit lengths.
func ziplist(items ...string) []byte {
	b := make([]byte, 10)
	prev, last := 0, 10
	for _, it := range items {
		start := len(b)
		last = start
		if prev < 254 {
			b = append(b, byte(prev))
		} else {
			b = binary.LittleEndian.AppendUint32(append(b, 0xFE), uint32(prev))
		}
		if v, ok := canonicalInt([]byte(it)); ok {
			switch {
			case v >= 0 && v <= 12:
				b = append(b, 0xF1+byte(v))
			case v >= -128 && v <= 127:
				b = append(b, 0xFE, byte(v))
			case v >= -1<<15 && v < 1<<15:
				b = binary.LittleEndian.AppendUint16(append(b, 0xC0), uint16(v))
			case v >= -1<<23 && v < 1<<23:
				b = append(b, 0xF0, byte(v), byte(v>>8), byte(v>>16))
			case v >= -1<<31 && v < 1<<31:
				b = binary.LittleEndian.AppendUint32(append(b, 0xD0), uint32(v))
			default:
				b = binary.LittleEndian.AppendUint64(append(b, 0xE0), uint64(v))
			}
		} else {
			switch l := len(it); {
			case l < 64:
				b = append(b, byte(l))
			case l < 16384:
				b = append(b, 0x40|byte(l>>8), byte(l))
			default:
				b = binary.BigEndian.AppendUint32(append(b, 0x80), uint32(l))
			}
			b = append(b, it...)
		}
		prev = len(b) - start
	}
	b = append(b, 0xFF)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint32(b[4:], uint32(last))
	binary.LittleEndian.PutUint16(b[8:], uint16(len(items)))
	return b
}

// version9File builds a Redis 6 style file; long and many are parts of
// its values.
func version9File() (b []byte, long string, many []string) {
	long = string(bytes.Repeat([]byte("L"), 300))
	for i := range 100 {
		many = append(many, "x"+strconv.Itoa(i))
	}
	b = []byte("REDIS0009")
	b = append(b, opAux)
	b = AppendString(b, []byte("redis-ver"))
	b = AppendString(b, []byte("6.2.14"))
	b = append(b, opSelectDB, 0, opResizeDB, 5, 0)
	key := func(t Type, k string) {
		b = append(b, byte(t))
		b = AppendString(b, []byte(k))
	}
	// A quicklist of two ziplist nodes (the first LZF-compressed).
	key(TypeListQuicklist, "ql")
	b = AppendLength(b, 2)
	b = AppendString(b, ziplist(many...))
	b = AppendString(b, ziplist("1", "-200", "70000", "-9000000", "5000000000", long, "12", "13"))
	key(TypeListZiplist, "zl")
	b = AppendString(b, ziplist("a", "b"))
	b = append(b, opExpireTime)
	b = binary.LittleEndian.AppendUint32(b, 2000000000)
	key(TypeHashZiplist, "h")
	b = AppendString(b, ziplist("f", "v", "n", "7"))
	key(TypeZSetZiplist, "z")
	b = AppendString(b, ziplist("a", "1.5", "b", "-3", "c", "inf"))
	key(TypeZSet, "zt")
	b = AppendLength(b, 3)
	b = AppendString(b, []byte("m"))
	b = append(b, 3, '2', '.', '5')
	b = AppendString(b, []byte("p"))
	b = append(b, 254)
	b = AppendString(b, []byte("q"))
	b = append(b, 255)
	// A module value (RedisBloom-like id) and module auxiliary data are
	// skipped, by name.
	key(TypeModule2, "bf")
	b = AppendLength(b, 0x1234567890ab<<10|3)
	b = append(b, moduleUInt, 5, moduleString)
	b = AppendString(b, []byte("blob"))
	b = append(b, moduleDouble, 0, 0, 0, 0, 0, 0, 0, 0, moduleEOF)
	b = append(b, opEOF)
	b = binary.LittleEndian.AppendUint64(b, CRC64(0, b))

	return b, long, many
}

// TestVersion9File reads the encodings of Redis 6 files: ziplist-based
// quicklists, lists, hashes and sorted sets, text scores, and deadlines
// in seconds.
func TestVersion9File(t *testing.T) {
	b, long, many := version9File()
	want := map[string]string{
		"ql": normalize(Value{Kind: KindList, Elems: bs(append(many, "1", "-200", "70000", "-9000000", "5000000000", long, "12", "13")...)}),
		"zl": normalize(Value{Kind: KindList, Elems: bs("a", "b")}),
		"h":  normalize(Value{Kind: KindHash, Pairs: bs("f", "v", "n", "7")}),
		"z":  "zset \"a\"=1.5 \"b\"=-3 \"c\"=+Inf",
		"zt": "zset \"m\"=2.5 \"p\"=+Inf \"q\"=-Inf",
	}
	r, err := NewFileReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r.Version() != 9 {
		t.Fatal(r.Version())
	}
	got := map[string]string{}
	var skipped []string
	for {
		e, sk, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if sk != nil {
			skipped = append(skipped, sk.What+" "+string(sk.Key))
			continue
		}
		got[string(e.Key)] = normalize(e.Value)
		if string(e.Key) == "h" && e.ExpireAtMs != 2000000000000 {
			t.Fatalf("deadline %d", e.ExpireAtMs)
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %.200s, want %.200s", k, got[k], w)
		}
	}
	if len(skipped) != 1 || skipped[0] != "module bf" {
		t.Fatalf("skipped %v", skipped)
	}
	// A ziplist whose entries and header disagree is refused.
	zl := ziplist("a", "b")
	zl[8] = 3
	if _, err := packedValue(TypeListZiplist, zl); err == nil {
		t.Fatal("bad ziplist count accepted")
	}
}
