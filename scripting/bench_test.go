package scripting

import (
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/codec"
)

// benchCall answers INCR and GET without the fake server's bookkeeping,
// the way a command layer writing into a reused buffer would.
func benchCall() CallFunc {
	var n int64
	return func(args [][]byte, resp int, out []byte) []byte {
		n++
		out = append(out, ':')
		out = strconv.AppendInt(out, n, 10)
		return append(out, '\r', '\n')
	}
}

func benchScript(b *testing.B, body string) {
	e := New(Config{})
	defer e.Close()
	s, err := e.Load([]byte(body))
	if err != nil {
		b.Fatal(err)
	}
	inv := &Invocation{Keys: [][]byte{[]byte("counter")}, Call: benchCall()}
	w := codec.Writer{Buf: make([]byte, 0, 64)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Reset()
		e.Eval(&w, s, inv)
	}
	if len(w.Buf) == 0 || w.Buf[0] != ':' {
		b.Fatalf("reply %q", w.Buf)
	}
}

// BenchmarkEvalshaIncr is EVALSHA of a cached script doing one redis.call.
func BenchmarkEvalshaIncr(b *testing.B) {
	benchScript(b, "return redis.call('INCR', KEYS[1])")
}

// BenchmarkEvalshaThreeCalls does three redis.call per run.
func BenchmarkEvalshaThreeCalls(b *testing.B) {
	benchScript(b, "redis.call('INCR', KEYS[1]) redis.call('INCR', KEYS[1]) return redis.call('INCR', KEYS[1])")
}

// BenchmarkEvalReturnOnly is the floor: a cached script with no call.
func BenchmarkEvalReturnOnly(b *testing.B) {
	benchScript(b, "return 1")
}

// BenchmarkFcallIncr is FCALL of a function doing one redis.call.
func BenchmarkFcallIncr(b *testing.B) {
	e := New(Config{})
	defer e.Close()
	if _, err := e.LoadLibrary([]byte("#!lua name=b\nredis.register_function('incr', function(keys) return redis.call('INCR', keys[1]) end)"), false); err != nil {
		b.Fatal(err)
	}
	f, _ := e.Function("incr")
	inv := &Invocation{Keys: [][]byte{[]byte("counter")}, Call: benchCall()}
	w := codec.Writer{Buf: make([]byte, 0, 64)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Reset()
		e.Fcall(&w, f, inv)
	}
}

// BenchmarkEvalLoop is a CPU-bound script (10000 loop iterations), which
// shows the per-instruction cost of the kill / interrupt check.
func BenchmarkEvalLoop(b *testing.B) {
	benchScript(b, "local n = 0 for i = 1, 10000 do n = n + i end return n")
}

// BenchmarkNew is the cost of an engine (one per shard) with its EVAL
// state.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		New(Config{}).Close()
	}
}
