package keyspace

import (
	"math"
	"testing"

	"github.com/ruvio/ruvio/codec"
)

func TestParseBlockTimeout(t *testing.T) {
	sh := &Shard{nowMs: 1_000_000}
	cases := []struct {
		in       string
		deadline int64
		err      string
	}{
		{"0", 0, ""},
		{"0.0", 0, ""},
		{"-0", 0, ""},
		{"-0.0001", 0, ""}, // rounds up to zero: for ever
		{"1", 1_001_000, ""},
		{"0.001", 1_000_001, ""},
		{"0.0001", 1_000_001, ""}, // rounded up to a millisecond
		{"1.5", 1_001_500, ""},
		{"1e1", 1_010_000, ""},
		{"0x10", 1_016_000, ""},
		{"9223372036854770", math.MaxInt64, ""}, // the deadline saturates
		{"-1", 0, "-ERR timeout is negative\r\n"},
		{"inf", 0, "-ERR timeout is negative\r\n"},
		{"-inf", 0, "-ERR timeout is negative\r\n"},
		{"1e300", 0, "-ERR timeout is negative\r\n"},
		{"9223372036854776", 0, "-ERR timeout is negative\r\n"},
		{"nan", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"", 0, "-ERR timeout is not a float or out of range\r\n"},
		{" 1", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"1 ", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"1_0", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"abc", 0, "-ERR timeout is not a float or out of range\r\n"},
		{"1e5000", 0, "-ERR timeout is not a float or out of range\r\n"},
	}
	for _, tc := range cases {
		var w codec.Writer
		x := &Ctx{S: sh, W: &w}
		d, ok := x.ParseBlockTimeout([]byte(tc.in))
		if got := string(w.Buf); got != tc.err || ok != (tc.err == "") || d != tc.deadline {
			t.Errorf("%q: deadline %d ok %v reply %q, want %d %q", tc.in, d, ok, got, tc.deadline, tc.err)
		}
	}
}

func TestParseBlockTimeoutMs(t *testing.T) {
	sh := &Shard{nowMs: 5000}
	for in, want := range map[string]string{"0": "", "10": "", "-1": "-ERR timeout is negative\r\n", "1.5": "-ERR timeout is not an integer or out of range\r\n"} {
		var w codec.Writer
		x := &Ctx{S: sh, W: &w}
		_, ok := x.ParseBlockTimeoutMs([]byte(in))
		if string(w.Buf) != want || ok != (want == "") {
			t.Errorf("%q: ok %v reply %q, want %q", in, ok, w.Buf, want)
		}
	}
}

// FuzzParseBlockTimeout: any bytes give either a deadline not before now
// (or 0) and no reply, or one error reply.
func FuzzParseBlockTimeout(f *testing.F) {
	for _, s := range []string{"0", "0.1", "-0.0001", "1e300", "inf", "nan", "0x1p-2", " 1", "9223372036854775"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sh := &Shard{nowMs: 1_700_000_000_000}
		var w codec.Writer
		x := &Ctx{S: sh, W: &w}
		d, ok := x.ParseBlockTimeout(b)
		if ok {
			if len(w.Buf) != 0 || d != 0 && d <= sh.nowMs {
				t.Fatalf("%q: deadline %d, reply %q", b, d, w.Buf)
			}
			return
		}
		if len(w.Buf) == 0 || w.Buf[0] != '-' {
			t.Fatalf("%q: refused without an error reply: %q", b, w.Buf)
		}
	})
}
