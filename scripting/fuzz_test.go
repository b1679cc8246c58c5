package scripting

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/codec"
)

// FuzzShebang parses arbitrary first lines as EVAL shebangs and library
// metadata: no panic, and a parsed shebang length always ends at the first
// newline.
func FuzzShebang(f *testing.F) {
	for _, s := range []string{
		"#!lua\n", "#!lua flags=no-writes,allow-oom\n", "#!lua name=lib\n", "#!lua name=\"q\\x41\" \n",
		"#!lua 'a\\'b'\n", "#!lua \"unterminated\n", "#!\n", "return 1", "#!lua flags=\n", "#! name=x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, n, err := ParseShebang(b)
		if err == nil && n > 0 && (n >= len(b) || b[n] != '\n' || strings.IndexByte(string(b[:n]), '\n') >= 0) {
			t.Fatalf("shebang length %d for %q", n, b)
		}
		if md, err := ParseLibraryMeta(b); err == nil && !strings.HasPrefix(md.Code, "\n") {
			t.Fatalf("code %q of %q", md.Code, b)
		}
	})
}

// FuzzDecoders feeds arbitrary bytes to cjson.decode, cmsgpack.unpack and
// struct.unpack: they may fail, but only with their own errors, never a
// Go runtime error, and the engine answers every time.
func FuzzDecoders(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00"}`, "[1e5,-0.5,true,false]", "\x93\x01\xa1a\xc3",
		"\xdc\x00\x02\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a\xc0", "\x01\x02\x03\x04abc\x00", "[[[[[[", "\xdf\xff\xff\xff\xff",
	} {
		f.Add([]byte(s), "<i4 s")
	}
	e := New(Config{})
	defer e.Close()
	s, err := e.Load([]byte(`
		local a, b = pcall(cjson.decode, ARGV[1])
		local c, d = pcall(cmsgpack.unpack, ARGV[1])
		local g, h = pcall(struct.unpack, ARGV[2], ARGV[1])
		local r = {}
		for _, v in ipairs({b, d, h}) do if type(v) == 'string' then r[#r+1] = v end end
		return r`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		w := codec.Writer{}
		e.Eval(&w, s, &Invocation{Args: [][]byte{data, []byte(format)}})
		if len(w.Buf) == 0 || w.Buf[0] != '*' {
			t.Fatalf("reply %q", w.Buf)
		}
		if strings.Contains(string(w.Buf), "runtime error") {
			t.Fatalf("Go runtime error for %q / %q: %q", data, format, w.Buf)
		}
	})
}
