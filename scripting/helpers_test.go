package scripting

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/codec"
)

var _ ReplyWriter = (*codec.Writer)(nil)

// fakeServer answers the few commands the tests' scripts call, encoding
// replies the way the command layer would.
type fakeServer struct {
	e     *Engine
	data  map[string]string
	calls [][]string
	// raw, when set, is returned verbatim for the command "raw".
	raw map[string]string
}

func newFake(e *Engine) *fakeServer {
	return &fakeServer{e: e, data: map[string]string{}, raw: map[string]string{}}
}

func (f *fakeServer) call(args [][]byte, resp int, out []byte) []byte {
	w := codec.Writer{Buf: out, Proto: resp}
	var words []string
	for _, a := range args {
		words = append(words, string(a))
	}
	f.calls = append(f.calls, words)
	switch strings.ToLower(words[0]) {
	case "ping":
		if len(words) == 1 {
			w.SimpleString("PONG")
		} else if len(words) == 2 {
			w.BulkString(words[1])
		} else {
			w.Error("ERR wrong number of arguments for 'ping' command")
		}
	case "echo":
		w.BulkString(words[1])
	case "get":
		if len(words) != 2 {
			w.Error("ERR Wrong number of args calling Redis command from script")
			break
		}
		if v, ok := f.data[words[1]]; ok {
			w.BulkString(v)
		} else {
			w.Null()
		}
	case "set":
		f.e.MarkWritten()
		f.data[words[1]] = words[2]
		w.OK()
	case "incr":
		f.e.MarkWritten()
		n, err := strconv.ParseInt(f.data[words[1]], 10, 64)
		if _, ok := f.data[words[1]]; ok && err != nil {
			w.Error("ERR value is not an integer or out of range")
			break
		}
		n++
		f.data[words[1]] = strconv.FormatInt(n, 10)
		w.Int(n)
	case "hgetall":
		w.MapHeader(1)
		w.BulkString("field")
		w.BulkString("value")
	case "raw":
		w.Raw([]byte(f.raw[words[1]]))
	case "args":
		w.ArrayHeader(len(words) - 1)
		for _, s := range words[1:] {
			w.BulkString(s)
		}
	default:
		w.Error("ERR Unknown Redis command called from script")
	}
	return w.Buf
}

// evalReply runs body as EVAL with the caller speaking proto and returns
// the raw reply.
func evalReply(t testing.TB, e *Engine, f *fakeServer, proto int, body string, keys, args []string) string {
	t.Helper()
	w := codec.Writer{Proto: proto}
	s, err := e.Load([]byte(body))
	if err != nil {
		w.Error(err.Error())
		return string(w.Buf)
	}
	inv := &Invocation{Keys: bytesList(keys), Args: bytesList(args)}
	if f != nil {
		inv.Call = f.call
	}
	e.Eval(&w, s, inv)
	return string(w.Buf)
}

func bytesList(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}
