package scripting_test

import (
	"fmt"
	"strconv"

	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/scripting"
)

// A command layer runs scripts with a callback executing redis.call and
// a codec.Writer receiving the result.
func ExampleEngine_Eval() {
	e := scripting.New(scripting.Config{})
	defer e.Close()
	counters := map[string]int64{}
	incr := func(args [][]byte, resp int, out []byte) []byte {
		w := codec.Writer{Buf: out, Proto: resp}
		if string(args[0]) != "INCR" {
			w.Error("ERR Unknown Redis command called from script")
			return w.Buf
		}
		e.MarkWritten()
		counters[string(args[1])]++
		w.Int(counters[string(args[1])])
		return w.Buf
	}
	s, err := e.Load([]byte("return redis.call('INCR', KEYS[1]) + tonumber(ARGV[1])"))
	if err != nil {
		panic(err)
	}
	w := codec.Writer{Proto: 2}
	inv := &scripting.Invocation{Keys: [][]byte{[]byte("hits")}, Args: [][]byte{[]byte("10")}, Call: incr}
	e.Eval(&w, s, inv)
	e.Eval(&w, s, inv)
	fmt.Println(strconv.Quote(string(w.Buf)), s.SHA == scripting.SHA1Hex(s.Body))
	// Output: ":11\r\n:12\r\n" true
}
