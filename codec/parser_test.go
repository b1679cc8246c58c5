package codec

import (
	"errors"
	"strings"
	"testing"
	"unsafe"
)

// parseCase is one ParseCommand call and its exact expected result.
type parseCase struct {
	name string
	in   string
	lim  Limits
	args []string // nil: no arguments
	n    int
	err  string // expected ProtocolError.Msg; "" means no error
}

// parse runs ParseCommand on a private copy of in and returns the arguments
// as strings.
func parse(t *testing.T, in string, lim Limits) ([]string, int, error) {
	t.Helper()
	buf := []byte(in)
	args, n, err := ParseCommand(buf, nil, lim)
	var out []string
	for _, a := range args {
		out = append(out, string(a))
	}
	return out, n, err
}

// check compares one parse result with c.
func check(t *testing.T, c parseCase) {
	t.Helper()
	args, n, err := parse(t, c.in, c.lim)
	if c.err != "" {
		var pe *ProtocolError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: err = %v, want *ProtocolError %q", c.name, err, c.err)
		}
		if pe.Msg != c.err {
			t.Fatalf("%s: Msg = %q, want %q", c.name, pe.Msg, c.err)
		}
		if pe.Error() != "ERR "+c.err {
			t.Fatalf("%s: Error() = %q", c.name, pe.Error())
		}
		if n != 0 || len(args) != 0 {
			t.Fatalf("%s: error with n = %d, args = %q", c.name, n, args)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: unexpected error %v", c.name, err)
	}
	if n != c.n {
		t.Fatalf("%s: n = %d, want %d", c.name, n, c.n)
	}
	if !equalStrings(args, c.args) {
		t.Fatalf("%s: args = %q, want %q", c.name, args, c.args)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseCommand(t *testing.T) {
	cases := []parseCase{
		// Multibulk, complete.
		{name: "get", in: "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", args: []string{"GET", "k"}, n: 20},
		{name: "set", in: "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n", args: []string{"SET", "key", "value"}, n: 33},
		{name: "binary bulk", in: "*2\r\n$4\r\nECHO\r\n$6\r\na\r\n\x00\r\n\r\n", args: []string{"ECHO", "a\r\n\x00\r\n"}, n: 26},
		{name: "empty bulk", in: "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", args: []string{"ECHO", ""}, n: 20},
		{name: "trailing bytes", in: "*1\r\n$4\r\nPING\r\n*1\r\n$4\r", args: []string{"PING"}, n: 14},
		{name: "lenient CR and bulk terminator", in: "*1\rx$1\ryaZZ", args: []string{"a"}, n: 11},
		{name: "max int bulk len incomplete", in: "*1\r\n$9223372036854775807\r\n", lim: Limits{MaxBulkLen: 1<<63 - 1}},

		// Empty requests.
		{name: "*0", in: "*0\r\n", n: 4},
		{name: "*-1", in: "*-1\r\n", n: 5},
		{name: "*-5", in: "*-5\r\nPING\r\n", n: 5},
		{name: "blank LF", in: "\n", n: 1},
		{name: "blank CRLF", in: "\r\n", n: 2},
		{name: "blank spaces", in: " \t\r\n", n: 4},

		// Incomplete.
		{name: "empty", in: ""},
		{name: "star", in: "*"},
		{name: "count CR", in: "*2\r"},
		{name: "huge count little data", in: "*1048576\r\n$3\r\nGET\r\n"},
		{name: "bulk data short", in: "*1\r\n$4\r\nPIN"},
		{name: "bulk CRLF missing", in: "*1\r\n$4\r\nPING"},
		{name: "max bulk len incomplete", in: "*1\r\n$536870912\r\n"},
		{name: "inline no LF", in: "PING\r"},
		{name: "NUL before CR", in: "*1\r\n\x00\r\n"},
		{name: "NUL before inline LF", in: "PING\x00\n"},
		{name: "mbulk count string at limit", in: "*" + strings.Repeat("0", 65535)},
		{name: "bulk count string at limit", in: "*1\r\n$" + strings.Repeat("0", 65535)},
		{name: "inline at limit", in: strings.Repeat("x", 65536)},

		// Inline.
		{name: "ping LF", in: "PING\n", args: []string{"PING"}, n: 5},
		{name: "ping CRLF", in: "PING\r\n", args: []string{"PING"}, n: 6},
		{name: "blanks around", in: " PING\t\r\n", args: []string{"PING"}, n: 8},
		{name: "words", in: "SET  k\tv\r\nGET k\r\n", args: []string{"SET", "k", "v"}, n: 10},
		{name: "CR inside line separates", in: "GET\rk\r\n", args: []string{"GET", "k"}, n: 7},
		{name: "VT is not a word separator", in: "\vGET\vk\n", args: []string{"GET\vk"}, n: 7},
		{name: "double quotes", in: `SET "a key" "x y"` + "\r\n", args: []string{"SET", "a key", "x y"}, n: 19},
		{name: "escapes", in: `ECHO "\n\r\t\b\a\\\"\x41\x7a\xZZ\x4\q"` + "\n", args: []string{"ECHO", "\n\r\t\b\a\\\"Azx" + "ZZx4q"}, n: 39},
		{name: "single quotes", in: `ECHO 'it\'s' 'a\nb' '"'` + "\n", args: []string{"ECHO", "it's", `a\nb`, `"`}, n: 24},
		{name: "empty quoted", in: `ECHO "" ''` + "\n", args: []string{"ECHO", "", ""}, n: 11},
		{name: "quote inside word", in: `ECHO a"b c"` + "\n", args: []string{"ECHO", "ab c"}, n: 12},
		{name: "closing quote then VT", in: "ECHO \"a\"\vb\n", args: []string{"ECHO", "a", "b"}, n: 11},
		{name: "high bytes", in: "ECHO \xff\xfe\n", args: []string{"ECHO", "\xff\xfe"}, n: 8},

		// Errors.
		{name: "count not a number", in: "*abc\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "count empty", in: "*\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "count leading zero", in: "*01\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "count plus", in: "*+1\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "count -0", in: "*-0\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "count over limit", in: "*1048577\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "count overflow", in: "*9223372036854775808\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "expected dollar", in: "*1\r\n+PING\r\n", err: "Protocol error: expected '$', got '+'"},
		{name: "expected dollar CR", in: "*1\r\n\r\n", err: "Protocol error: expected '$', got ' '"},
		{name: "expected dollar LF", in: "*1\r\n\n\r\n", err: "Protocol error: expected '$', got ' '"},
		{name: "expected dollar second arg", in: "*2\r\n$1\r\na\r\n:1\r\n", err: "Protocol error: expected '$', got ':'"},
		{name: "bulk len not a number", in: "*1\r\n$x\r\n", err: "Protocol error: invalid bulk length"},
		{name: "bulk len negative", in: "*1\r\n$-1\r\n", err: "Protocol error: invalid bulk length"},
		{name: "bulk len empty", in: "*1\r\n$\r\n", err: "Protocol error: invalid bulk length"},
		{name: "bulk len over limit", in: "*1\r\n$536870913\r\n", err: "Protocol error: invalid bulk length"},
		{name: "bulk len overflow", in: "*1\r\n$18446744073709551616\r\n", lim: Limits{MaxBulkLen: 1<<63 - 1}, err: "Protocol error: invalid bulk length"},
		{name: "too big mbulk count", in: "*" + strings.Repeat("0", 65536), err: "Protocol error: too big mbulk count string"},
		{name: "too big bulk count", in: "*1\r\n$" + strings.Repeat("0", 65536), err: "Protocol error: too big bulk count string"},
		{name: "long count line", in: "*" + strings.Repeat("0", 65536) + "\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "too big inline", in: strings.Repeat("x", 65537), err: "Protocol error: too big inline request"},
		{name: "NUL inline too big", in: "PING\x00\n" + strings.Repeat("x", 65531), err: "Protocol error: too big inline request"},
		{name: "unterminated double", in: "ECHO \"a\n", err: "Protocol error: unbalanced quotes in request"},
		{name: "unterminated single", in: "ECHO 'a\r\n", err: "Protocol error: unbalanced quotes in request"},
		{name: "double then letter", in: "ECHO \"a\"x\n", err: "Protocol error: unbalanced quotes in request"},
		{name: "single then letter", in: "ECHO 'a'x\n", err: "Protocol error: unbalanced quotes in request"},
		{name: "escaped double at end", in: "ECHO \"a\\\"\n", err: "Protocol error: unbalanced quotes in request"},
		{name: "escaped single at end", in: "ECHO 'a\\'\n", err: "Protocol error: unbalanced quotes in request"},

		// Limits.
		{name: "custom count limit ok", in: "*2\r\n$1\r\na\r\n$1\r\nb\r\n", lim: Limits{MaxMultibulkLen: 2}, args: []string{"a", "b"}, n: 18},
		{name: "custom count limit", in: "*3\r\n", lim: Limits{MaxMultibulkLen: 2}, err: "Protocol error: invalid multibulk length"},
		{name: "custom bulk limit ok", in: "*1\r\n$3\r\nabc\r\n", lim: Limits{MaxBulkLen: 3}, args: []string{"abc"}, n: 13},
		{name: "custom bulk limit", in: "*1\r\n$4\r\n", lim: Limits{MaxBulkLen: 3}, err: "Protocol error: invalid bulk length"},
		{name: "custom inline limit at", in: "0123456789", lim: Limits{MaxInlineLen: 10}},
		{name: "custom inline limit", in: "0123456789a", lim: Limits{MaxInlineLen: 10}, err: "Protocol error: too big inline request"},
		{name: "custom inline limit long line ok", in: "0123456789 abcdef\n", lim: Limits{MaxInlineLen: 10}, args: []string{"0123456789", "abcdef"}, n: 18},
		{name: "custom limit header", in: "*1\r\n$00000000000", lim: Limits{MaxInlineLen: 10}, err: "Protocol error: too big bulk count string"},
		{name: "negative limits are defaults", in: "*1\r\n$536870913\r\n", lim: Limits{MaxMultibulkLen: -1, MaxBulkLen: -1, MaxInlineLen: -1}, err: "Protocol error: invalid bulk length"},
	}
	for _, c := range cases {
		check(t, c)
	}
}

// complete requests used by the prefix, pipelining and streaming tests.
var completeRequests = []struct {
	in   string
	args []string
}{
	{"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n", []string{"SET", "key", "value"}},
	{"*2\r\n$3\r\nGET\r\n$10\r\n\r\n\r\n\r\n\r\n\r\n\r\n", []string{"GET", "\r\n\r\n\r\n\r\n\r\n"}},
	{"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", []string{"ECHO", ""}},
	{"*0\r\n", nil},
	{"*-1\r\n", nil},
	{"PING\r\n", []string{"PING"}},
	{"\r\n", nil},
	{"SET k \"a \\x41\\n\" 'b c'\n", []string{"SET", "k", "a A\n", "b c"}},
}

func TestParseCommandEveryPrefixIsIncomplete(t *testing.T) {
	for _, r := range completeRequests {
		for i := 0; i < len(r.in); i++ {
			args, n, err := parse(t, r.in[:i], Limits{})
			if n != 0 || err != nil || len(args) != 0 {
				t.Fatalf("prefix %q of %q: args %q n %d err %v, want incomplete", r.in[:i], r.in, args, n, err)
			}
		}
		check(t, parseCase{name: r.in, in: r.in, args: r.args, n: len(r.in)})
	}
}

func TestParseCommandPipelined(t *testing.T) {
	var all []byte
	for _, r := range completeRequests {
		all = append(all, r.in...)
	}
	var args [][]byte
	buf := all
	for i, r := range completeRequests {
		var n int
		var err error
		args, n, err = ParseCommand(buf, args, Limits{})
		if err != nil || n != len(r.in) {
			t.Fatalf("request %d: n %d err %v, want n %d", i, n, err, len(r.in))
		}
		if got := toStrings(args); !equalStrings(got, r.args) {
			t.Fatalf("request %d: args %q, want %q", i, got, r.args)
		}
		buf = buf[n:]
	}
	if len(buf) != 0 {
		t.Fatalf("%d bytes left", len(buf))
	}
}

// TestParseCommandStreaming feeds the pipeline one byte at a time, parsing
// after each byte as an event loop would.
func TestParseCommandStreaming(t *testing.T) {
	var all []byte
	for _, r := range completeRequests {
		all = append(all, r.in...)
	}
	var pending []byte
	var args [][]byte
	next := 0
	for _, b := range all {
		pending = append(pending, b)
		for {
			var n int
			var err error
			args, n, err = ParseCommand(pending, args, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if got := toStrings(args); !equalStrings(got, completeRequests[next].args) {
				t.Fatalf("request %d: args %q, want %q", next, got, completeRequests[next].args)
			}
			next++
			pending = append(pending[:0], pending[n:]...)
		}
	}
	if next != len(completeRequests) || len(pending) != 0 {
		t.Fatalf("parsed %d of %d requests, %d bytes pending", next, len(completeRequests), len(pending))
	}
}

func toStrings(args [][]byte) []string {
	var out []string
	for _, a := range args {
		out = append(out, string(a))
	}
	return out
}

// within reports whether a lies inside buf's backing array.
func within(a, buf []byte) bool {
	if len(a) == 0 {
		return true
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	return p >= start && p+uintptr(len(a)) <= start+uintptr(len(buf))
}

func TestParseCommandAliasesBuf(t *testing.T) {
	for _, in := range []string{
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"SET \"k\\x20\" 'v'\r\n",
	} {
		buf := []byte(in)
		args, n, err := ParseCommand(buf, nil, Limits{})
		if err != nil || n != len(buf) || len(args) != 3 {
			t.Fatalf("%q: args %q n %d err %v", in, args, n, err)
		}
		for _, a := range args {
			if !within(a, buf[:n]) {
				t.Fatalf("%q: arg %q does not alias buf", in, a)
			}
			if cap(a) != len(a) {
				t.Fatalf("%q: arg %q has cap %d, want %d", in, a, cap(a), len(a))
			}
		}
	}
}

func TestParseCommandUnescapesInPlace(t *testing.T) {
	buf := []byte("SET \"k\\x20\" 'it\\'s' plain\r\n")
	args, n, err := ParseCommand(buf, nil, Limits{})
	if err != nil || n != len(buf) {
		t.Fatalf("n %d err %v", n, err)
	}
	if got := toStrings(args); !equalStrings(got, []string{"SET", "k ", "it's", "plain"}) {
		t.Fatalf("args %q", got)
	}
	// Each unescaped word starts where its quote was; the rest of the word's
	// input bytes are left as they were.
	if want := "SET k \\x20\" it's's' plain\r\n"; string(buf) != want {
		t.Fatalf("buf = %q, want %q", buf, want)
	}

	// Plain inline requests and multibulk requests are not written to.
	for _, in := range []string{"GET key\r\n", "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n"} {
		buf := []byte(in)
		if _, _, err := ParseCommand(buf, nil, Limits{}); err != nil {
			t.Fatal(err)
		}
		if string(buf) != in {
			t.Fatalf("buf changed to %q", buf)
		}
	}
}

func TestParseCommandReusesArgs(t *testing.T) {
	args := make([][]byte, 0, 8)
	buf := []byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
	got, _, _ := ParseCommand(buf, args, Limits{})
	if &got[:1][0] != &args[:1][0] {
		t.Fatal("args backing array not reused")
	}
	// A large declared count does not preallocate beyond maxPrealloc.
	got, n, err := ParseCommand([]byte("*1048576\r\n$1\r\na\r\n"), nil, Limits{})
	if n != 0 || err != nil || len(got) != 0 || cap(got) > maxPrealloc {
		t.Fatalf("n %d err %v len %d cap %d", n, err, len(got), cap(got))
	}
}

func TestParseInt(t *testing.T) {
	for _, c := range []struct {
		in string
		v  int64
		ok bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"-1", -1, true}, {"10", 10, true},
		{"9223372036854775807", 1<<63 - 1, true},
		{"-9223372036854775808", -1 << 63, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"18446744073709551615", 0, false},
		{"99999999999999999999", 0, false},
		{"-99999999999999999999", 0, false},
		{"", 0, false}, {"-", 0, false}, {"-0", 0, false}, {"00", 0, false},
		{"01", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false},
		{"1a", 0, false}, {"0x1", 0, false},
	} {
		v, ok := parseInt([]byte(c.in))
		if v != c.v || ok != c.ok {
			t.Errorf("parseInt(%q) = %d, %v; want %d, %v", c.in, v, ok, c.v, c.ok)
		}
	}
}
