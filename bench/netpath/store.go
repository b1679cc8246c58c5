package main

import (
	"bytes"
	"errors"
	"strconv"
)

// errProtocol ends a connection whose input is not RESP multibulk.
var errProtocol = errors.New("protocol error")

// maxInput bounds one connection's unparsed input.
const maxInput = 1 << 20

// store is the data: what a request does once parsed, the same in every mode.
type store struct{ m map[string][]byte }

// serve runs every whole command in p and appends its reply to out; used is
// how many bytes of p the commands took.
func (st *store) serve(p []byte, out []byte) (used int, _ []byte, _ error) {
	var args [3][]byte
	for {
		n, next, err := parseCommand(p[used:], &args)
		if err != nil || next == 0 {
			return used, out, err
		}
		used += next
		out = st.run(args[:min(n, len(args))], n, out)
	}
}

func (st *store) run(args [][]byte, n int, out []byte) []byte {
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

// parseCommand reads one RESP multibulk command from p: its argument count,
// the first len(args) arguments (aliasing p) and the bytes it took; next is
// 0 when p holds no whole command yet.
func parseCommand(p []byte, args *[3][]byte) (n, next int, err error) {
	if len(p) == 0 {
		return 0, 0, nil
	}
	if p[0] != '*' {
		return 0, 0, errProtocol
	}
	count, pos, ok, err := parseLength(p, 0)
	if !ok || err != nil {
		return 0, 0, err
	}
	for a := 0; a < count; a++ {
		if pos >= len(p) {
			return 0, 0, nil
		}
		if p[pos] != '$' {
			return 0, 0, errProtocol
		}
		l, start, ok, err := parseLength(p, pos)
		if !ok || err != nil {
			return 0, 0, err
		}
		if len(p) < start+l+2 {
			return 0, 0, nil
		}
		if a < len(args) {
			args[a] = p[start : start+l]
		}
		pos = start + l + 2
	}
	return count, pos, nil
}

// parseLength reads the number after p[at] ('*' or '$') up to CRLF: the
// number and where the bytes after the CRLF start; ok is false when the
// line is not complete.
func parseLength(p []byte, at int) (v, next int, ok bool, err error) {
	end := bytes.IndexByte(p[at:], '\n')
	if end < 0 {
		if len(p)-at > 32 {
			return 0, 0, false, errProtocol
		}
		return 0, 0, false, nil
	}
	end += at
	if end < at+2 || p[end-1] != '\r' {
		return 0, 0, false, errProtocol
	}
	v, convErr := strconv.Atoi(string(p[at+1 : end-1]))
	if convErr != nil || v < 0 || v > maxInput {
		return 0, 0, false, errProtocol
	}
	return v, end + 1, true, nil
}
