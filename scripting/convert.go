package scripting

import (
	"errors"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Conversion between replies and Lua values.
//
// Command reply → Lua (what redis.call returns):
//
//	integer            number
//	bulk string        string
//	null bulk / array  false
//	array              array table (RESP3 nulls inside leave holes)
//	status             {ok=<text>}
//	error              {err="<CODE> <text>"} (redis.call raises it)
//	RESP3 null         nil
//	RESP3 boolean      true / false
//	RESP3 double       {double=<number>}
//	RESP3 big number   {big_number=<digits>}
//	RESP3 verbatim     {verbatim_string={format=<3 letters>, string=<text>}}
//	RESP3 map          {map={<key>=<value>, ...}}
//	RESP3 set          {set={<member>=true, ...}}
//	RESP3 attribute    skipped; the reply that follows it is used
//
// Lua → script result (what EVAL replies):
//
//	string             bulk string
//	number             integer, truncated toward zero
//	true               :1 (RESP2 script) or #t (setresp(3))
//	false              null (RESP2 script) or #f (setresp(3))
//	{err=s}            error reply s
//	{ok=s}             status reply s (CR/LF become spaces)
//	{double=n}         double
//	{big_number=s}     big number (CR/LF become spaces)
//	{verbatim_string={format=f, string=s}}  verbatim string
//	{map=t}            map of t's pairs
//	{set=t}            set of t's keys
//	other table        array of t[1], t[2], ... up to the first nil
//	nil, function, …   null
//
// The special fields are read with rawget, so metatables never run.
// Tables nested deeper than maxReplyDepth end in the error "reached lua
// stack limit", which is where the server's Lua stack gives out.

const maxReplyDepth = 7995

var errBadReply = errors.New("malformed reply from command")

// parseReply decodes the RESP reply at buf[pos:] into a Lua value and
// returns the position after it.
func parseReply(L *lua.LState, buf []byte, pos, depth int) (lua.LValue, int, error) {
	if pos >= len(buf) || depth > maxReplyDepth {
		return lua.LNil, pos, errBadReply
	}
	kind := buf[pos]
	line, next, ok := replyLine(buf, pos+1)
	if !ok {
		return lua.LNil, pos, errBadReply
	}
	switch kind {
	case '+':
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(line))
		return t, next, nil
	case '-':
		return errorTable(L, "-"+string(line)), next, nil
	case ':':
		n, ok := parseInt64(line)
		if !ok {
			return lua.LNil, pos, errBadReply
		}
		return lua.LNumber(n), next, nil
	case '$', '=':
		n, err := strconv.Atoi(string(line))
		if err != nil || n < -1 {
			return lua.LNil, pos, errBadReply
		}
		if n == -1 {
			if kind == '=' {
				return lua.LNil, pos, errBadReply
			}
			return lua.LFalse, next, nil
		}
		if next+n+2 > len(buf) || buf[next+n] != '\r' || buf[next+n+1] != '\n' {
			return lua.LNil, pos, errBadReply
		}
		body := buf[next : next+n]
		if kind == '$' {
			return lua.LString(body), next + n + 2, nil
		}
		if n < 4 || body[3] != ':' {
			return lua.LNil, pos, errBadReply
		}
		inner := L.CreateTable(0, 2)
		inner.RawSetString("string", lua.LString(body[4:]))
		inner.RawSetString("format", lua.LString(body[:3]))
		t := L.CreateTable(0, 1)
		t.RawSetString("verbatim_string", inner)
		return t, next + n + 2, nil
	case '*', '>', '%', '~', '|':
		n, err := strconv.Atoi(string(line))
		if err != nil || n < -1 || (n == -1 && kind != '*') || n > len(buf) {
			return lua.LNil, pos, errBadReply
		}
		if n == -1 {
			return lua.LFalse, next, nil
		}
		switch kind {
		case '*', '>':
			t := L.CreateTable(n, 0)
			for i := 1; i <= n; i++ {
				var v lua.LValue
				v, next, err = parseReply(L, buf, next, depth+1)
				if err != nil {
					return lua.LNil, pos, err
				}
				t.RawSetInt(i, v)
			}
			return t, next, nil
		case '%', '~':
			inner := L.CreateTable(0, n)
			for i := 0; i < n; i++ {
				var k, v lua.LValue
				k, next, err = parseReply(L, buf, next, depth+1)
				if err != nil {
					return lua.LNil, pos, err
				}
				v = lua.LTrue
				if kind == '%' {
					v, next, err = parseReply(L, buf, next, depth+1)
					if err != nil {
						return lua.LNil, pos, err
					}
				}
				if k != lua.LNil {
					inner.RawSet(k, v)
				}
			}
			t := L.CreateTable(0, 1)
			if kind == '%' {
				t.RawSetString("map", inner)
			} else {
				t.RawSetString("set", inner)
			}
			return t, next, nil
		default: // attribute: skip its pairs, keep the reply after it
			for i := 0; i < 2*n; i++ {
				if _, next, err = parseReply(L, buf, next, depth+1); err != nil {
					return lua.LNil, pos, err
				}
			}
			return parseReply(L, buf, next, depth+1)
		}
	case '_':
		if len(line) != 0 {
			return lua.LNil, pos, errBadReply
		}
		return lua.LNil, next, nil
	case '#':
		if len(line) != 1 || (line[0] != 't' && line[0] != 'f') {
			return lua.LNil, pos, errBadReply
		}
		return lua.LBool(line[0] == 't'), next, nil
	case ',':
		f, ok := parseDouble(string(line))
		if !ok {
			return lua.LNil, pos, errBadReply
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(f))
		return t, next, nil
	case '(':
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(line))
		return t, next, nil
	}
	return lua.LNil, pos, errBadReply
}

// parseInt64 parses a decimal integer without allocating.
func parseInt64(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

// replyLine returns the bytes up to the next CRLF and the position after it.
func replyLine(buf []byte, pos int) ([]byte, int, bool) {
	for i := pos; i+1 < len(buf); i++ {
		if buf[i] == '\r' {
			if buf[i+1] != '\n' {
				return nil, 0, false
			}
			return buf[pos:i], i + 2, true
		}
	}
	return nil, 0, false
}

func parseDouble(s string) (float64, bool) {
	switch s {
	case "inf", "+inf":
		return math.Inf(1), true
	case "-inf":
		return math.Inf(-1), true
	case "nan", "-nan":
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// writeReply converts a script's result (or an element of it) to a reply.
// resp is the script's protocol version, which decides how booleans go
// out; w turns RESP3 types into RESP2 ones for a RESP2 caller.
func writeReply(w ReplyWriter, env *luaEnv, v lua.LValue, resp, depth int) {
	if depth >= maxReplyDepth {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.BulkString(string(v))
	case lua.LBool:
		switch {
		case resp == 3:
			w.Bool(bool(v))
		case bool(v):
			w.Int(1)
		default:
			w.Null()
		}
	case lua.LNumber:
		w.Int(luaInt(float64(v)))
	case *lua.LTable:
		if r, isProxy := env.proxies[v]; isProxy {
			v = r
		}
		if s, ok := v.RawGetString("err").(lua.LString); ok {
			w.Error(string(s))
			return
		}
		if s, ok := v.RawGetString("ok").(lua.LString); ok {
			w.SimpleString(noCRLF(string(s)))
			return
		}
		if n, ok := v.RawGetString("double").(lua.LNumber); ok {
			w.Double(float64(n))
			return
		}
		if s, ok := v.RawGetString("big_number").(lua.LString); ok {
			w.BigNumber(noCRLF(string(s)))
			return
		}
		if vt, ok := v.RawGetString("verbatim_string").(*lua.LTable); ok {
			f, okF := vt.RawGetString("format").(lua.LString)
			s, okS := vt.RawGetString("string").(lua.LString)
			if okF && okS {
				format := string(f)
				for len(format) < 3 {
					format += " "
				}
				w.Verbatim(format[:3], string(s))
				return
			}
		}
		if m, ok := v.RawGetString("map").(*lua.LTable); ok {
			if r, isProxy := env.proxies[m]; isProxy {
				m = r
			}
			n := 0
			m.ForEach(func(lua.LValue, lua.LValue) { n++ })
			w.MapHeader(n)
			for k, val := m.Next(lua.LNil); k != lua.LNil; k, val = m.Next(k) {
				writeReply(w, env, k, resp, depth+1)
				writeReply(w, env, val, resp, depth+1)
			}
			return
		}
		if s, ok := v.RawGetString("set").(*lua.LTable); ok {
			if r, isProxy := env.proxies[s]; isProxy {
				s = r
			}
			n := 0
			s.ForEach(func(lua.LValue, lua.LValue) { n++ })
			w.SetHeader(n)
			for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
				writeReply(w, env, k, resp, depth+1)
			}
			return
		}
		n := 0
		for v.RawGetInt(n+1) != lua.LNil {
			n++
		}
		w.ArrayHeader(n)
		for i := 1; i <= n; i++ {
			writeReply(w, env, v.RawGetInt(i), resp, depth+1)
		}
	default:
		w.Null()
	}
}

// luaInt is the C cast of a Lua number to long long: truncation, with
// out-of-range values pinned (the cast is undefined there).
func luaInt(f float64) int64 {
	switch {
	case f != f:
		return -1 << 63
	case f >= 9.223372036854775807e18:
		return -1 << 63
	case f <= -9.223372036854775808e18:
		return -1 << 63
	}
	return int64(f)
}

func noCRLF(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		return strings.Map(func(r rune) rune {
			if r == '\r' || r == '\n' {
				return ' '
			}
			return r
		}, s)
	}
	return s
}

// strconvParseLuaNumber converts a string as Lua's tonumber does: decimal
// or 0x hex, surrounding spaces allowed.
func strconvParseLuaNumber(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		n, err := strconv.ParseUint(t[2:], 16, 64)
		return float64(n), err
	}
	if strings.ContainsAny(t, "_") {
		return 0, errBadReply
	}
	return strconv.ParseFloat(t, 64)
}

func isNumeric(s string) bool {
	_, err := strconvParseLuaNumber(s)
	return err == nil
}
