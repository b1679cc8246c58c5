package codec

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzParseCommand checks that ParseCommand never panics, that n stays
// within buf, that arguments alias the consumed bytes, and that a result
// depends only on the bytes it consumed: parsing a fresh copy of buf[:n],
// or buf with more bytes after it, gives the same answer, and buf[:n-1] is
// incomplete.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n",
		"*0\r\n", "*-1\r\n", "\r\n",
		"SET \"a\\x41\\n\" 'b\\'c'\r\n",
		"ECHO \"a\"x\n",
		"*1\r\n$-1\r\n",
		"*1\r\n+\r\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, orig []byte, small bool) {
		lim := Limits{}
		if small {
			lim = Limits{MaxMultibulkLen: 4, MaxBulkLen: 8, MaxInlineLen: 16}
		}
		buf := bytes.Clone(orig)
		args, n, err := ParseCommand(buf, nil, lim)
		if n < 0 || n > len(buf) {
			t.Fatalf("n = %d, len(buf) = %d", n, len(buf))
		}
		if err != nil {
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *ProtocolError", err, err)
			}
			if n != 0 || len(args) != 0 {
				t.Fatalf("error %v with n %d args %q", err, n, args)
			}
			if bytes.ContainsAny([]byte(pe.Msg), "\r\n") {
				t.Fatalf("Msg %q contains CR or LF", pe.Msg)
			}
			// More bytes never turn an error into something else, except the
			// "too big" errors, which more bytes may end with a terminator.
			if strings.HasPrefix(pe.Msg, "Protocol error: too big ") {
				return
			}
			_, n2, err2 := ParseCommand(append(bytes.Clone(orig), orig...), nil, lim)
			if n2 != 0 || err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("with more bytes: n %d err %v, want error %v", n2, err2, err)
			}
			return
		}
		if n == 0 {
			if len(args) != 0 {
				t.Fatalf("incomplete with args %q", args)
			}
			if !bytes.Equal(buf, orig) {
				t.Fatalf("incomplete request rewritten: %q -> %q", orig, buf)
			}
			return
		}
		got := make([]string, len(args))
		for i, a := range args {
			if !within(a, buf[:n]) {
				t.Fatalf("arg %d %q is not inside buf[:%d]", i, a, n)
			}
			if cap(a) != len(a) {
				t.Fatalf("arg %d has cap %d > len %d", i, cap(a), len(a))
			}
			got[i] = string(a)
		}
		if orig[0] == '*' && !bytes.Equal(buf, orig) {
			t.Fatalf("multibulk request rewritten: %q -> %q", orig, buf)
		}
		if !bytes.Equal(buf[n:], orig[n:]) {
			t.Fatalf("bytes after the request rewritten")
		}
		// The consumed prefix alone parses the same.
		args2, n2, err2 := ParseCommand(bytes.Clone(orig[:n]), nil, lim)
		if err2 != nil || n2 != n || !equalStrings(toStrings(args2), toStrings(args)) {
			t.Fatalf("prefix %q: args %q n %d err %v, want %q n %d", orig[:n], toStrings(args2), n2, err2, got, n)
		}
		// So does the request followed by more bytes.
		more := append(bytes.Clone(orig[:n]), "*1\r\n$1\r\nx\r\n"...)
		args3, n3, err3 := ParseCommand(more, nil, lim)
		if err3 != nil || n3 != n || !equalStrings(toStrings(args3), toStrings(args)) {
			t.Fatalf("with more bytes: args %q n %d err %v, want %q n %d", toStrings(args3), n3, err3, got, n)
		}
		// One byte short is incomplete (unless the line is over the limit).
		maxInline := lim.withDefaults().MaxInlineLen
		if n-1 <= maxInline {
			short, ns, errs := ParseCommand(bytes.Clone(orig[:n-1]), nil, lim)
			if ns != 0 || errs != nil || len(short) != 0 {
				t.Fatalf("%q one byte short: args %q n %d err %v, want incomplete", orig[:n], toStrings(short), ns, errs)
			}
		}
	})
}

// FuzzHeaderLen checks the one-pass header reader against the general
// path it stands in for: wherever headerLen answers, findLineEnd finds the
// same CR with its next byte present and parseInt reads the same number.
func FuzzHeaderLen(f *testing.F) {
	for _, s := range []string{"$3\r\n", "*3\r\n", "$0\r\n", "$03\r\n", "$-1\r\n", "$1\x00\r\n",
		"$123456789012345678\r\n", "$1234567890123456789\r\n", "$12\r", "$\r\n", "*12a\r\n", "\x000\r0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, cr, ok := headerLen(b)
		if !ok {
			return
		}
		want := findLineEnd(b, '\r')
		if want != cr || cr+1 >= len(b) {
			t.Fatalf("%q: CR at %d, general path %d", b, cr, want)
		}
		v, vok := parseInt(b[1:cr])
		if !vok || v != n {
			t.Fatalf("%q: %d, general path %d (ok %v)", b, n, v, vok)
		}
	})
}
