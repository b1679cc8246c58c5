package codec

import (
	"bytes"
	"math"
	"strconv"
	"testing"
)

func TestWriter(t *testing.T) {
	cases := []struct {
		name  string
		write func(w *Writer)
		resp2 string
		resp3 string // "" means the same as resp2
	}{
		{"Raw", func(w *Writer) { w.Raw([]byte("+x\r\n")) }, "+x\r\n", ""},
		{"SimpleString", func(w *Writer) { w.SimpleString("PONG") }, "+PONG\r\n", ""},
		{"SimpleString empty", func(w *Writer) { w.SimpleString("") }, "+\r\n", ""},
		{"OK", func(w *Writer) { w.OK() }, "+OK\r\n", ""},
		{"Error", func(w *Writer) { w.Error("ERR unknown command") }, "-ERR unknown command\r\n", ""},
		{"Error CRLF", func(w *Writer) { w.Error("ERR a\r\nb\nc") }, "-ERR a  b c\r\n", ""},
		{"Int", func(w *Writer) { w.Int(42) }, ":42\r\n", ""},
		{"Int negative", func(w *Writer) { w.Int(-1) }, ":-1\r\n", ""},
		{"Int min", func(w *Writer) { w.Int(math.MinInt64) }, ":-9223372036854775808\r\n", ""},
		{"Bulk", func(w *Writer) { w.Bulk([]byte("a\r\nb")) }, "$4\r\na\r\nb\r\n", ""},
		{"Bulk empty", func(w *Writer) { w.Bulk(nil) }, "$0\r\n\r\n", ""},
		{"BulkString", func(w *Writer) { w.BulkString("hello") }, "$5\r\nhello\r\n", ""},
		{"BulkInt", func(w *Writer) { w.BulkInt(-123) }, "$4\r\n-123\r\n", ""},
		{"Null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"NullArray", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"ArrayHeader", func(w *Writer) { w.ArrayHeader(3) }, "*3\r\n", ""},
		{"ArrayHeader empty", func(w *Writer) { w.ArrayHeader(0) }, "*0\r\n", ""},
		{"MapHeader", func(w *Writer) { w.MapHeader(2) }, "*4\r\n", "%2\r\n"},
		{"SetHeader", func(w *Writer) { w.SetHeader(2) }, "*2\r\n", "~2\r\n"},
		{"PushHeader", func(w *Writer) { w.PushHeader(3) }, "*3\r\n", ">3\r\n"},
		{"Bool true", func(w *Writer) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"Bool false", func(w *Writer) { w.Bool(false) }, ":0\r\n", "#f\r\n"},
		{"Double", func(w *Writer) { w.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"Double integral", func(w *Writer) { w.Double(3) }, "$1\r\n3\r\n", ",3\r\n"},
		{"Double 0.1", func(w *Writer) { w.Double(0.1) }, "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{"Double inf", func(w *Writer) { w.Double(math.Inf(1)) }, "$3\r\ninf\r\n", ",inf\r\n"},
		{"Double -inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"Double nan", func(w *Writer) { w.Double(math.NaN()) }, "$3\r\nnan\r\n", ",nan\r\n"},
		{"BigNumber", func(w *Writer) { w.BigNumber("3492890328409238509324850943850943825024385") },
			"$43\r\n3492890328409238509324850943850943825024385\r\n", "(3492890328409238509324850943850943825024385\r\n"},
		{"Verbatim", func(w *Writer) { w.Verbatim("txt", "Some string") }, "$11\r\nSome string\r\n", "=15\r\ntxt:Some string\r\n"},
		{"BulkStrings", func(w *Writer) { w.BulkStrings([]string{"a", ""}) }, "*2\r\n$1\r\na\r\n$0\r\n\r\n", ""},
		{"BulkStrings empty", func(w *Writer) { w.BulkStrings(nil) }, "*0\r\n", ""},
		{"map of pairs", func(w *Writer) {
			w.MapHeader(1)
			w.BulkString("k")
			w.Bool(true)
		}, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n#t\r\n"},
	}
	for _, c := range cases {
		for _, proto := range []int{0, 2, 3} {
			want := c.resp2
			if proto == 3 && c.resp3 != "" {
				want = c.resp3
			}
			w := Writer{Buf: []byte("prefix"), Proto: proto}
			c.write(&w)
			if got := string(w.Buf); got != "prefix"+want {
				t.Errorf("%s RESP%d: got %q, want %q", c.name, proto, got, "prefix"+want)
			}
			if w.Len() != len("prefix"+want) {
				t.Errorf("%s RESP%d: Len() = %d", c.name, proto, w.Len())
			}
		}
	}
}

func TestWriterReset(t *testing.T) {
	w := Writer{Proto: 3}
	w.OK()
	c := cap(w.Buf)
	w.Reset()
	if w.Len() != 0 || cap(w.Buf) != c {
		t.Fatalf("after Reset: len %d cap %d, want 0 %d", w.Len(), cap(w.Buf), c)
	}
	w.Int(7)
	if string(w.Buf) != ":7\r\n" {
		t.Fatalf("got %q", w.Buf)
	}
}

func TestAppendFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-2.5, "-2.5"}, {1e6, "1000000"}, {1e21, "1e+21"},
		{0.1, "0.10000000000000001"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
	} {
		if got := string(AppendFloat([]byte("x"), c.f)); got != "x"+c.want {
			t.Errorf("AppendFloat(%v) = %q, want %q", c.f, got, "x"+c.want)
		}
	}
}

func TestWriterRepliesParseAsRequests(t *testing.T) {
	// A RESP2 array of bulk strings is also a valid multibulk request: the
	// writer and the parser agree on framing.
	var w Writer
	w.BulkStrings([]string{"SET", "k", "a\r\nb"})
	args, n, err := ParseCommand(w.Buf, nil, Limits{})
	if err != nil || n != len(w.Buf) {
		t.Fatalf("n %d err %v", n, err)
	}
	if got := toStrings(args); !equalStrings(got, []string{"SET", "k", "a\r\nb"}) {
		t.Fatalf("args %q", got)
	}
}

// A Writer with a Limit takes whole elements until Buf reaches it, then
// drops everything but errors; truncating Buf below the limit opens it
// again.
func TestWriterLimit(t *testing.T) {
	w := Writer{Proto: 2, Limit: 10}
	w.ArrayHeader(3)       // 4 bytes
	w.BulkString("abcdef") // 12 more: crosses the limit, taken whole
	if !w.Full() || string(w.Buf) != "*3\r\n$6\r\nabcdef\r\n" {
		t.Fatalf("Full %v, Buf %q", w.Full(), w.Buf)
	}
	kept := string(w.Buf)
	w.Raw([]byte("+x\r\n"))
	w.SimpleString("s")
	w.OK()
	w.Int(1)
	w.Bulk([]byte("b"))
	w.BulkInt(2)
	w.Null()
	w.NullArray()
	w.MapHeader(1)
	w.SetHeader(1)
	w.PushHeader(1)
	w.Bool(true)
	w.Double(1.5)
	w.BigNumber("1")
	w.Verbatim("txt", "v")
	w.BulkStrings([]string{"a", "b"})
	if string(w.Buf) != kept {
		t.Fatalf("a full Writer took more: %q", w.Buf)
	}
	w.Error("ERR e")
	if string(w.Buf) != kept+"-ERR e\r\n" {
		t.Fatalf("an error was not taken: %q", w.Buf)
	}
	w.Buf = w.Buf[:4]
	if w.Full() {
		t.Fatal("still full after truncation")
	}
	w.Int(5)
	if string(w.Buf) != "*3\r\n:5\r\n" {
		t.Fatalf("after truncation: %q", w.Buf)
	}
	// A long list stops one element past the limit.
	w = Writer{Proto: 2, Limit: 10}
	w.BulkStrings([]string{"a", "b", "c", "d", "e"})
	if string(w.Buf) != "*5\r\n$1\r\na\r\n" {
		t.Fatalf("BulkStrings past the limit: %q", w.Buf)
	}
	// No limit: never full.
	w = Writer{Proto: 2}
	for i := 0; i < 100; i++ {
		w.BulkString("abcdefgh")
	}
	if w.Full() || len(w.Buf) != 1400 {
		t.Fatalf("without a limit: Full %v, %d bytes", w.Full(), len(w.Buf))
	}
}

// Past doubleFrom the buffer doubles when it grows, and keeps every byte.
func TestWriterGrowsLargeBuffersByDoubling(t *testing.T) {
	val := bytes.Repeat([]byte("x"), 10<<10)
	w := &Writer{Proto: 2, Buf: make([]byte, 0, doubleFrom)}
	var want []byte
	grows := 0
	for i := 0; i < 1000; i++ {
		before := cap(w.Buf)
		if i%2 == 0 {
			w.Bulk(val)
		} else {
			w.BulkString(string(val[:i]))
		}
		if c := cap(w.Buf); c != before {
			grows++
			if c < 2*before {
				t.Fatalf("grew from %d to %d, not doubled", before, c)
			}
		}
		if i%2 == 0 {
			want = append(want, "$10240\r\n"...)
			want = append(want, val...)
		} else {
			want = append(want, "$"+strconv.Itoa(i)+"\r\n"...)
			want = append(want, val[:i]...)
		}
		want = append(want, "\r\n"...)
	}
	if !bytes.Equal(w.Buf, want) {
		t.Fatal("replies differ from what was appended")
	}
	// 10 MB from 64 KB: 8 doublings; a quarter at a time takes about 23.
	if grows > 8 {
		t.Fatalf("%d grows", grows)
	}
	w = &Writer{Proto: 2, Buf: make([]byte, 0, doubleFrom)}
	w.Raw(val)
	w.Raw(bytes.Repeat(val, 8))
	if len(w.Buf) != 9*len(val) || cap(w.Buf) < len(w.Buf) {
		t.Fatalf("raw: len %d cap %d", len(w.Buf), cap(w.Buf))
	}
}

// A batch of 1,024 GETs of a 10 KB value, replied into a buffer that
// starts at the pool's size.
func BenchmarkWriterBigBulks(b *testing.B) {
	val := bytes.Repeat([]byte("x"), 10<<10)
	b.ReportAllocs()
	b.SetBytes(1024 * int64(len(val)))
	for b.Loop() {
		w := &Writer{Proto: 2, Buf: make([]byte, 0, 16<<10)}
		for range 1024 {
			w.Bulk(val)
		}
	}
}
