package scripting

import (
	"testing"

	"github.com/ruvio/ruvio/codec"
)

// TestReplyToLua covers every reply type a command can give redis.call,
// for each RESP version the script asked for and each protocol of the
// caller (the RESP3 "protocol parsing" cases of the server's scripting
// suite, plus the RESP2 ones). The fake command "raw" returns the reply
// verbatim; the script returns what redis.call gave it.
func TestReplyToLua(t *testing.T) {
	cases := []struct {
		name, reply string
		script      string // body after redis.setresp(n); default returns the value
		want        [4]string
	}{
		// want: [script resp2/client 2, resp2/3, resp3/2, resp3/3]
		{"integer", ":42\r\n", "", [4]string{":42\r\n", ":42\r\n", ":42\r\n", ":42\r\n"}},
		{"bulk", "$3\r\nabc\r\n", "", [4]string{"$3\r\nabc\r\n", "$3\r\nabc\r\n", "$3\r\nabc\r\n", "$3\r\nabc\r\n"}},
		{"null bulk is false", "$-1\r\n", "return {type(r), tostring(r)}", [4]string{"*2\r\n$7\r\nboolean\r\n$5\r\nfalse\r\n", "*2\r\n$7\r\nboolean\r\n$5\r\nfalse\r\n", "*2\r\n$7\r\nboolean\r\n$5\r\nfalse\r\n", "*2\r\n$7\r\nboolean\r\n$5\r\nfalse\r\n"}},
		{"null array is false", "*-1\r\n", "return type(r)", [4]string{"$7\r\nboolean\r\n", "$7\r\nboolean\r\n", "$7\r\nboolean\r\n", "$7\r\nboolean\r\n"}},
		{"status", "+OK\r\n", "return {type(r), r.ok}", [4]string{"*2\r\n$5\r\ntable\r\n$2\r\nOK\r\n", "*2\r\n$5\r\ntable\r\n$2\r\nOK\r\n", "*2\r\n$5\r\ntable\r\n$2\r\nOK\r\n", "*2\r\n$5\r\ntable\r\n$2\r\nOK\r\n"}},
		{"status passes through", "+OK\r\n", "", [4]string{"+OK\r\n", "+OK\r\n", "+OK\r\n", "+OK\r\n"}},
		{"error via pcall", "-WRONGTYPE bad\r\n", "return r.err", [4]string{"$13\r\nWRONGTYPE bad\r\n", "$13\r\nWRONGTYPE bad\r\n", "$13\r\nWRONGTYPE bad\r\n", "$13\r\nWRONGTYPE bad\r\n"}},
		{"array with nested array", "*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n", "", [4]string{"*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n", "*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n", "*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n", "*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n"}},
		{"RESP3 null is nil", "_\r\n", "return type(r)", [4]string{"$3\r\nnil\r\n", "$3\r\nnil\r\n", "$3\r\nnil\r\n", "$3\r\nnil\r\n"}},
		{"RESP3 null passes through", "_\r\n", "", [4]string{"$-1\r\n", "_\r\n", "$-1\r\n", "_\r\n"}},
		{"RESP3 true", "#t\r\n", "", [4]string{":1\r\n", ":1\r\n", ":1\r\n", "#t\r\n"}},
		{"RESP3 false", "#f\r\n", "", [4]string{"$-1\r\n", "_\r\n", ":0\r\n", "#f\r\n"}},
		{"RESP3 double", ",3.141\r\n", "", [4]string{"$5\r\n3.141\r\n", ",3.141\r\n", "$5\r\n3.141\r\n", ",3.141\r\n"}},
		{"RESP3 double field", ",3.5\r\n", "return tostring(r.double)", [4]string{"$3\r\n3.5\r\n", "$3\r\n3.5\r\n", "$3\r\n3.5\r\n", "$3\r\n3.5\r\n"}},
		{"RESP3 big number", "(1234567999999999999999999999999999999\r\n", "", [4]string{"$37\r\n1234567999999999999999999999999999999\r\n", "(1234567999999999999999999999999999999\r\n", "$37\r\n1234567999999999999999999999999999999\r\n", "(1234567999999999999999999999999999999\r\n"}},
		{"RESP3 verbatim", "=22\r\ntxt:This is a verbatim\r\n", "", [4]string{"$18\r\nThis is a verbatim\r\n", "=22\r\ntxt:This is a verbatim\r\n", "$18\r\nThis is a verbatim\r\n", "=22\r\ntxt:This is a verbatim\r\n"}},
		{"RESP3 verbatim fields", "=9\r\nmkd:hello\r\n", "return {r.verbatim_string.format, r.verbatim_string.string}", [4]string{"*2\r\n$3\r\nmkd\r\n$5\r\nhello\r\n", "*2\r\n$3\r\nmkd\r\n$5\r\nhello\r\n", "*2\r\n$3\r\nmkd\r\n$5\r\nhello\r\n", "*2\r\n$3\r\nmkd\r\n$5\r\nhello\r\n"}},
		{"RESP3 map", "%1\r\n$1\r\nk\r\n:1\r\n", "", [4]string{"*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n", "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"}},
		{"RESP3 map field", "%1\r\n$1\r\nk\r\n:1\r\n", "return r.map.k", [4]string{":1\r\n", ":1\r\n", ":1\r\n", ":1\r\n"}},
		{"RESP3 set", "~1\r\n$1\r\nm\r\n", "", [4]string{"*1\r\n$1\r\nm\r\n", "~1\r\n$1\r\nm\r\n", "*1\r\n$1\r\nm\r\n", "~1\r\n$1\r\nm\r\n"}},
		{"RESP3 set field", "~1\r\n$1\r\nm\r\n", "return tostring(r.set.m)", [4]string{"$4\r\ntrue\r\n", "$4\r\ntrue\r\n", "$4\r\ntrue\r\n", "$4\r\ntrue\r\n"}},
		{"RESP3 attribute is skipped", "|1\r\n$3\r\nkey\r\n$5\r\nvalue\r\n$4\r\nreal\r\n", "", [4]string{"$4\r\nreal\r\n", "$4\r\nreal\r\n", "$4\r\nreal\r\n", "$4\r\nreal\r\n"}},
		{"RESP3 null inside array leaves a hole", "*3\r\n:1\r\n_\r\n:3\r\n", "return #r == 3 or #r == 1", [4]string{":1\r\n", ":1\r\n", ":1\r\n", "#t\r\n"}},
		{"malformed reply", "?\r\n", "return r.err", [4]string{"$32\r\nERR malformed reply from command\r\n", "$32\r\nERR malformed reply from command\r\n", "$32\r\nERR malformed reply from command\r\n", "$32\r\nERR malformed reply from command\r\n"}},
	}
	e := New(Config{})
	defer e.Close()
	f := newFake(e)
	for _, c := range cases {
		f.raw["x"] = c.reply
		body := c.script
		if body == "" {
			body = "return r"
		}
		for i, mode := range [4]struct{ script, client int }{{2, 2}, {2, 3}, {3, 2}, {3, 3}} {
			script := "redis.setresp(" + itoa(mode.script) + "); local r = redis.pcall('raw', 'x'); " + body
			got := evalReply(t, e, f, mode.client, script, nil, nil)
			if got != c.want[i] {
				t.Errorf("%s (script RESP%d, client RESP%d): got %q, want %q", c.name, mode.script, mode.client, got, c.want[i])
			}
		}
	}
}

// TestLuaToReply covers every conversion of a script's result.
func TestLuaToReply(t *testing.T) {
	cases := []struct {
		script      string
		resp2, got3 string // caller RESP2 and RESP3
	}{
		{"return 'hello world'", "$11\r\nhello world\r\n", "$11\r\nhello world\r\n"},
		{"return 100.5", ":100\r\n", ":100\r\n"},
		{"return -100.9", ":-100\r\n", ":-100\r\n"},
		{"return 2^63", ":-9223372036854775808\r\n", ":-9223372036854775808\r\n"},
		{"return 0/0", ":-9223372036854775808\r\n", ":-9223372036854775808\r\n"},
		{"return true", ":1\r\n", ":1\r\n"},
		{"return false", "$-1\r\n", "_\r\n"},
		{"return nil", "$-1\r\n", "_\r\n"},
		{"return tostring", "$-1\r\n", "_\r\n"},
		{"redis.setresp(3) return true", ":1\r\n", "#t\r\n"},
		{"redis.setresp(3) return false", ":0\r\n", "#f\r\n"},
		{"return {ok='fine'}", "+fine\r\n", "+fine\r\n"},
		{"return {ok='a\\r\\nb'}", "+a  b\r\n", "+a  b\r\n"},
		{"return {err='ERR this is an error'}", "-ERR this is an error\r\n", "-ERR this is an error\r\n"},
		{"return {err='x', ok='y'}", "-x\r\n", "-x\r\n"},
		{"return {ok=1}", "*0\r\n", "*0\r\n"},
		{"return {1,2,3,'ciao',{1,2}}", "*5\r\n:1\r\n:2\r\n:3\r\n$4\r\nciao\r\n*2\r\n:1\r\n:2\r\n", "*5\r\n:1\r\n:2\r\n:3\r\n$4\r\nciao\r\n*2\r\n:1\r\n:2\r\n"},
		{"return {1,nil,3}", "*1\r\n:1\r\n", "*1\r\n:1\r\n"},
		{"return {double=1.5}", "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"return {big_number='123\\r\\n4'}", "$6\r\n123  4\r\n", "(123  4\r\n"},
		{"return {verbatim_string={format='txt', string='s'}}", "$1\r\ns\r\n", "=5\r\ntxt:s\r\n"},
		{"return {map={a=1}}", "*2\r\n$1\r\na\r\n:1\r\n", "%1\r\n$1\r\na\r\n:1\r\n"},
		{"return {set={a=true}}", "*1\r\n$1\r\na\r\n", "~1\r\n$1\r\na\r\n"},
		{"local a = {}; setmetatable(a, {__index=function() error('x') end}) return a", "*0\r\n", "*0\r\n"},
		{"return _G", "*0\r\n", "*0\r\n"},
	}
	e := New(Config{})
	defer e.Close()
	for _, c := range cases {
		if got := evalReply(t, e, nil, 2, c.script, nil, nil); got != c.resp2 {
			t.Errorf("%q to RESP2: got %q, want %q", c.script, got, c.resp2)
		}
		if got := evalReply(t, e, nil, 3, c.script, nil, nil); got != c.got3 {
			t.Errorf("%q to RESP3: got %q, want %q", c.script, got, c.got3)
		}
	}
}

// TestRecursiveReply checks a self-referencing table ends in the stack
// limit error after as many levels as the server emits.
func TestRecursiveReply(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	got := evalReply(t, e, nil, 2, "local a = {}; local b = {a}; a[1] = b; return a", nil, nil)
	const level = "*1\r\n"
	n := 0
	for len(got) >= len(level) && got[:len(level)] == level {
		got = got[len(level):]
		n++
	}
	if n != 7995 || got != "-ERR reached lua stack limit\r\n" {
		t.Fatalf("%d levels then %q", n, got)
	}
}

// FuzzReplyConversion feeds arbitrary bytes as a command's reply to
// redis.pcall and returns the result: the engine must not panic, must
// produce exactly one well-formed reply, and a well-formed input reply must
// come back unchanged when it only holds types that survive the round trip.
func FuzzReplyConversion(f *testing.F) {
	for _, s := range []string{
		":1\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*-1\r\n", "*2\r\n:1\r\n$1\r\nx\r\n", "+OK\r\n", "-ERR x\r\n",
		"_\r\n", "#t\r\n", ",1.5\r\n", "(123\r\n", "=5\r\ntxt:a\r\n", "%1\r\n$1\r\na\r\n:1\r\n", "~1\r\n:1\r\n",
		"|1\r\n:1\r\n:2\r\n:3\r\n", "*1\r\n*1\r\n*1\r\n_\r\n", "$5\r\nab", "*3\r\n", ">1\r\n:1\r\n",
	} {
		f.Add([]byte(s), uint8(2))
	}
	e := New(Config{})
	defer e.Close()
	fake := newFake(e)
	s, err := e.Load([]byte("redis.setresp(tonumber(ARGV[1])); return redis.pcall('raw', 'x')"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, reply []byte, proto uint8) {
		resp := 2 + int(proto%2)
		fake.raw["x"] = string(reply)
		w := codec.Writer{Proto: resp}
		e.Eval(&w, s, &Invocation{Args: [][]byte{[]byte(itoa(resp))}, Call: fake.call})
		args, n, err := codec.ParseCommand(w.Buf, nil, codec.Limits{})
		_ = args
		if len(w.Buf) == 0 {
			t.Fatal("no reply")
		}
		// Whatever came in, what goes out parses as exactly one reply.
		if _, end, perr := parseReply(e.eval.L, w.Buf, 0, 0); perr != nil || end != len(w.Buf) {
			t.Fatalf("output %q is not one reply (err %v, end %d)", w.Buf, perr, end)
		}
		_, _ = n, err
		if _, end, perr := parseReply(e.eval.L, reply, 0, 0); perr == nil && end == len(reply) && simpleReply(reply) {
			if string(w.Buf) != string(reply) {
				t.Fatalf("round trip of %q gave %q", reply, w.Buf)
			}
		}
	})
}

// simpleReply reports whether a reply holds only integers, bulk strings
// and arrays of them, which convert to Lua and back unchanged.
func simpleReply(b []byte) bool {
	for i := 0; i < len(b); {
		switch b[i] {
		case ':', '*':
			if i+1 < len(b) && b[i+1] == '-' && b[i] == '*' {
				return false
			}
		case '$':
			if i+1 < len(b) && b[i+1] == '-' {
				return false
			}
			line, next, ok := replyLine(b, i+1)
			if !ok {
				return false
			}
			n := 0
			for _, c := range line {
				if c < '0' || c > '9' {
					return false
				}
				n = n*10 + int(c-'0')
			}
			i = next + n + 2
			continue
		default:
			return false
		}
		_, next, ok := replyLine(b, i+1)
		if !ok {
			return false
		}
		if b[i] == ':' {
			line, _, _ := replyLine(b, i+1)
			if len(line) == 0 || (len(line) > 1 && line[0] == '0') || (line[0] == '-' && (len(line) == 1 || line[1] == '0')) || string(line) == "-0" {
				return false
			}
			for j, c := range line {
				if !(c >= '0' && c <= '9' || j == 0 && c == '-') {
					return false
				}
			}
			if len(line) > 15 {
				return false
			}
		}
		if b[i] == '*' {
			line, _, _ := replyLine(b, i+1)
			if len(line) > 1 && line[0] == '0' {
				return false
			}
		}
		i = next
	}
	return true
}
