package codec

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// streamParse parses in the way a connection does: the complete requests
// of each piece with ParseCommand, the incomplete rest with a Parser that
// carries it into the next pieces. It returns the requests, the error that
// ended the stream ("" when none) and the parser.
func streamParse(t testing.TB, pieces [][]byte, lim Limits) (reqs [][]string, errMsg string, p *Parser) {
	t.Helper()
	p = &Parser{}
	var args [][]byte
	for _, piece := range pieces {
		piece = bytes.Clone(piece)
		if p.Active() {
			n, done, err := p.Feed(piece, lim)
			if err != nil {
				return reqs, err.Error(), p
			}
			if n < 0 || n > len(piece) {
				t.Fatalf("Feed consumed %d of %d", n, len(piece))
			}
			if !done {
				if n != len(piece) {
					t.Fatalf("Feed stopped at %d of %d without finishing", n, len(piece))
				}
				continue
			}
			var got [][]byte
			got, _ = p.Take(nil, nil)
			if len(got) > 0 {
				reqs = append(reqs, toStrings(got))
			}
			piece = piece[n:]
		}
		for len(piece) > 0 {
			a, n, err := ParseCommand(piece, args, lim)
			args = a
			if err != nil {
				return reqs, err.Error(), p
			}
			if n == 0 {
				fn, done, err := p.Feed(piece, lim)
				if err != nil {
					return reqs, err.Error(), p
				}
				if done || fn != len(piece) {
					t.Fatalf("ParseCommand found %q incomplete, Feed: done %v after %d bytes", piece, done, fn)
				}
				break
			}
			if len(a) > 0 {
				reqs = append(reqs, toStrings(a))
			}
			piece = piece[n:]
		}
	}
	return reqs, "", p
}

// splitAt cuts b into pieces at the offsets the bytes of cuts choose.
func splitAt(b, cuts []byte) [][]byte {
	var out [][]byte
	for _, c := range cuts {
		if len(b) == 0 {
			break
		}
		n := int(c)%len(b) + 1
		out = append(out, b[:n])
		b = b[n:]
	}
	if len(b) > 0 {
		out = append(out, b)
	}
	return out
}

// FuzzParserSplit checks that a stream split anywhere parses into the same
// requests and the same error as the stream parsed whole.
func FuzzParserSplit(f *testing.F) {
	for _, s := range []string{
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"PING\r\nSET \"a\\x41\\n\" 'b\\'c'\r\n*0\r\n*-1\r\n\r\n",
		"*1\r\n$-1\r\n", "*1\r\n+\r\n", "*2\r\n$1\r\na\x00\r\n", "*12\r\n",
		"*1\r\n$20000\r\n", "ECHO \"a\"x\n", "*1\r\n$3\r\nab",
	} {
		f.Add([]byte(s), []byte{1, 3, 7}, false)
		f.Add([]byte(s), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, true)
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, unauth bool) {
		// A line's "too big" check depends on how much had arrived; keep
		// every line within the limit so the split cannot matter.
		lim := Limits{MaxInlineLen: len(data) + 1, MaxBulkLen: 1 << 20, AuthRequired: unauth}
		want, wantErr, _ := streamParse(t, [][]byte{data}, lim)
		got, gotErr, p := streamParse(t, splitAt(data, cuts), lim)
		if gotErr != wantErr || len(got) != len(want) {
			t.Fatalf("split %v: %q err %q, whole: %q err %q", cuts, got, gotErr, want, wantErr)
		}
		for i := range got {
			if !equalStrings(got[i], want[i]) {
				t.Fatalf("request %d: %q, want %q", i, got[i], want[i])
			}
		}
		if p.Buffered() < 0 || p.Buffered() > len(data) {
			t.Fatalf("Buffered %d for %d bytes", p.Buffered(), len(data))
		}
	})
}

// pieces cuts b into pieces of n bytes.
func pieces(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	return append(out, b)
}

func TestParserBigValueInPiecesIsLinear(t *testing.T) {
	const size = 8 << 20
	val := bytes.Repeat([]byte("x"), size)
	req := []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + strconv.Itoa(size) + "\r\n")
	req = append(append(req, val...), "\r\n"...)
	ps := pieces(req, 1024)
	reqs, errMsg, p := streamParse(t, ps, Limits{})
	if errMsg != "" || len(reqs) != 1 || len(reqs[0]) != 3 || reqs[0][2] != string(val) {
		t.Fatalf("got %d requests, err %q", len(reqs), errMsg)
	}
	// Every byte is examined about once, not once per piece.
	if p.Scanned() > int64(len(req))+64 {
		t.Fatalf("scanned %d bytes for a %d-byte request in %d pieces", p.Scanned(), len(req), len(ps))
	}
}

func TestParserManyArgumentsInPiecesIsLinear(t *testing.T) {
	const n = 100_000
	var b bytes.Buffer
	b.WriteString("*" + strconv.Itoa(2*n+1) + "\r\n$4\r\nMSET\r\n")
	for i := range n {
		k := "k" + strconv.Itoa(i)
		b.WriteString("$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n$1\r\nv\r\n")
	}
	req := b.Bytes()
	reqs, errMsg, p := streamParse(t, pieces(req, 4096), Limits{})
	if errMsg != "" || len(reqs) != 1 || len(reqs[0]) != 2*n+1 || reqs[0][2*n-1] != "k"+strconv.Itoa(n-1) {
		t.Fatalf("got %d requests, err %q", len(reqs), errMsg)
	}
	if p.Scanned() > int64(len(req)) {
		t.Fatalf("scanned %d bytes for a %d-byte request", p.Scanned(), len(req))
	}
}

func TestParserBigBulkGetsItsOwnBuffer(t *testing.T) {
	var p Parser
	hdr := "*1\r\n$" + strconv.Itoa(BigArgLen) + "\r\n"
	if n, done, err := p.Feed([]byte(hdr+"ab"), Limits{}); err != nil || done || n != len(hdr)+2 {
		t.Fatalf("n %d done %v err %v", n, done, err)
	}
	if len(p.data) != 0 || len(p.big) != BigArgLen {
		t.Fatalf("data %d big %d: a big bulk must go straight to its own buffer", len(p.data), len(p.big))
	}
	rest := append(bytes.Repeat([]byte("c"), BigArgLen-2), "\r\n"...)
	if n, done, err := p.Feed(rest, Limits{}); err != nil || !done || n != len(rest) {
		t.Fatalf("n %d done %v err %v", n, done, err)
	}
	args, _ := p.Take(nil, nil)
	if len(args) != 1 || len(args[0]) != BigArgLen || string(args[0][:3]) != "abc" {
		t.Fatalf("args %d", len(args))
	}
	if got := p.TakeBigDone(); got != BigArgLen {
		t.Fatalf("TakeBigDone = %d, want %d", got, BigArgLen)
	}
	if got := p.TakeBigDone(); got != 0 {
		t.Fatalf("TakeBigDone again = %d, want 0", got)
	}
}

func TestUnauthenticatedLimits(t *testing.T) {
	lim := Limits{AuthRequired: true}
	cases := []struct{ in, err string }{
		{"*11\r\n", "ERR Protocol error: unauthenticated multibulk length"},
		{"*1\r\n$16385\r\n", "ERR Protocol error: unauthenticated bulk length"},
		{"*3\r\n$4\r\nAUTH\r\n$2\r\npw\r\n$16385\r\n", "ERR Protocol error: unauthenticated bulk length"},
	}
	for _, c := range cases {
		for _, cut := range []int{1, 3, len(c.in)} {
			_, errMsg, _ := streamParse(t, pieces([]byte(c.in), cut), lim)
			if errMsg != c.err {
				t.Errorf("%q in pieces of %d: err %q, want %q", c.in, cut, errMsg, c.err)
			}
		}
		_, _, err := ParseCommand([]byte(c.in), nil, lim)
		var pe *ProtocolError
		if !errors.As(err, &pe) || !pe.Unauthenticated {
			t.Errorf("%q: %v is not an Unauthenticated error", c.in, err)
		}
		// Without the flag the same bytes are fine so far.
		if reqs, errMsg, _ := streamParse(t, [][]byte{[]byte(c.in)}, Limits{}); errMsg != "" || len(reqs) != 0 {
			t.Errorf("%q authenticated: %q %q", c.in, reqs, errMsg)
		}
	}
	// At the limits is fine.
	ok := "*10\r\n" + strings.Repeat("$16384\r\n"+strings.Repeat("v", 16384)+"\r\n", 10)
	if reqs, errMsg, _ := streamParse(t, pieces([]byte(ok), 1000), lim); errMsg != "" || len(reqs) != 1 {
		t.Fatalf("at the limits: %d requests, err %q", len(reqs), errMsg)
	}
}

// An Unauthenticated error leaves the refused header unconsumed: the same
// bytes parse once the client has authenticated.
func TestParserUnauthenticatedRetry(t *testing.T) {
	var p Parser
	in := []byte("*2\r\n$3\r\nSET\r\n$20000\r\n")
	n, done, err := p.Feed(in[:14], Limits{AuthRequired: true})
	if err != nil || done || n != 14 {
		t.Fatalf("n %d done %v err %v", n, done, err)
	}
	n, _, err = p.Feed(in[14:], Limits{AuthRequired: true})
	var pe *ProtocolError
	if !errors.As(err, &pe) || !pe.Unauthenticated || n != 0 {
		t.Fatalf("n %d err %v", n, err)
	}
	n, done, err = p.Feed(in[14:], Limits{})
	if err != nil || done || n != len(in)-14 {
		t.Fatalf("retry: n %d done %v err %v", n, done, err)
	}
	val := append(bytes.Repeat([]byte("v"), 20000), "\r\n"...)
	if _, done, err = p.Feed(val, Limits{}); err != nil || !done {
		t.Fatalf("value: done %v err %v", done, err)
	}
	if args, _ := p.Take(nil, nil); len(args) != 2 || string(args[0]) != "SET" || len(args[1]) != 20000 {
		t.Fatalf("args %q", toStrings(args)[:1])
	}
}
