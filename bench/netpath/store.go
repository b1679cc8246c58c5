package main

import (
	"bytes"
	"strconv"

	"github.com/ruvio/ruvio/codec"
)

// maxInput bounds one connection's unparsed input.
const maxInput = 1 << 20

// store is the data: what a request does once parsed, the same in every mode.
type store struct {
	m    map[string][]byte
	args [][]byte // the arguments of the request being served, reused
}

// serve runs every whole command in p and appends its reply to out; used is
// how many bytes of p the commands took. Requests are parsed by Ruvio's own
// parser (codec.ParseCommand), so that the tool does that part of a
// request's work as Ruvio does.
func (st *store) serve(p []byte, out []byte) (used int, _ []byte, _ error) {
	for {
		args, next, err := codec.ParseCommand(p[used:], st.args, codec.Limits{})
		st.args = args
		if err != nil || next == 0 {
			return used, out, err
		}
		used += next
		out = st.run(args, out)
	}
}

func (st *store) run(args [][]byte, out []byte) []byte {
	n := len(args)
	if n == 0 {
		return out
	}
	switch {
	case n == 2 && bytes.EqualFold(args[0], []byte("GET")):
		v, ok := st.m[string(args[1])]
		if !ok {
			return append(out, "$-1\r\n"...)
		}
		out = append(out, '$')
		out = strconv.AppendInt(out, int64(len(v)), 10)
		out = append(out, '\r', '\n')
		out = append(out, v...)
		return append(out, '\r', '\n')
	case n == 3 && bytes.EqualFold(args[0], []byte("SET")):
		v := st.m[string(args[1])]
		st.m[string(args[1])] = append(v[:0], args[2]...)
		return append(out, "+OK\r\n"...)
	case bytes.EqualFold(args[0], []byte("PING")):
		return append(out, "+PONG\r\n"...)
	case bytes.EqualFold(args[0], []byte("CONFIG")):
		return append(out, "*0\r\n"...)
	default:
		return append(out, "+OK\r\n"...)
	}
}
