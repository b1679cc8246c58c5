package scripting

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// The cjson library, with the behaviour of lua-cjson 2.1.0 as the server
// bundles it: an empty table encodes as {}, JSON null decodes to
// cjson.null, numbers encode with 14 significant digits, '/' is escaped,
// tables whose keys are all positive integers are arrays (unless
// excessively sparse), and the configuration functions return the current
// settings. Settings belong to the Lua state, as in the server.

type cjsonConfig struct {
	encodeMaxDepth    int
	decodeMaxDepth    int
	encodeInvalidNums bool
	decodeInvalidNums bool
	encodeKeepBuffer  bool
	encodePrecision   int
	sparseConvert     bool
	sparseRatio       int
	sparseSafe        int
	null              *lua.LUserData
}

func openCjson(L *lua.LState) *lua.LTable {
	cfg := &cjsonConfig{
		encodeMaxDepth:    1000,
		decodeMaxDepth:    1000,
		decodeInvalidNums: true,
		encodeKeepBuffer:  true,
		encodePrecision:   14,
		sparseRatio:       2,
		sparseSafe:        10,
		null:              L.NewUserData(),
	}
	t := L.NewTable()
	set := func(name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set("encode", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "expected 1 argument")
		}
		var b []byte
		b = cfg.encode(L, b, L.Get(1), 0)
		L.Push(lua.LString(b))
		return 1
	})
	set("decode", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "expected 1 argument")
		}
		s := L.CheckString(1)
		d := jsonDecoder{L: L, cfg: cfg, s: s}
		d.skipSpace()
		v := d.value(1)
		d.skipSpace()
		if d.i < len(d.s) {
			d.fail("the end", d.tokenName())
		}
		L.Push(v)
		return 1
	})
	intOpt := func(name string, field *int, lo, hi int) {
		set(name, func(L *lua.LState) int {
			if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
				n := L.CheckInt(1)
				if n < lo || n > hi {
					argError(L, 1, "expected integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi))
				}
				*field = n
			}
			L.Push(lua.LNumber(*field))
			return 1
		})
	}
	intOpt("encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
	intOpt("decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
	intOpt("encode_number_precision", &cfg.encodePrecision, 1, 14)
	boolOpt := func(name string, field *bool) {
		set(name, func(L *lua.LState) int {
			if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
				switch v := L.Get(1).(type) {
				case lua.LBool:
					*field = bool(v)
				case lua.LString:
					switch strings.ToLower(string(v)) {
					case "on":
						*field = true
					case "off":
						*field = false
					default:
						argError(L, 1, "invalid option '"+string(v)+"'")
					}
				default:
					argError(L, 1, "invalid option")
				}
			}
			L.Push(lua.LBool(*field))
			return 1
		})
	}
	boolOpt("encode_invalid_numbers", &cfg.encodeInvalidNums)
	boolOpt("decode_invalid_numbers", &cfg.decodeInvalidNums)
	boolOpt("encode_keep_buffer", &cfg.encodeKeepBuffer)
	set("encode_sparse_array", func(L *lua.LState) int {
		if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
			cfg.sparseConvert = lua.LVAsBool(L.Get(1))
		}
		if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
			cfg.sparseRatio = L.CheckInt(2)
		}
		if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
			cfg.sparseSafe = L.CheckInt(3)
		}
		L.Push(lua.LBool(cfg.sparseConvert))
		L.Push(lua.LNumber(cfg.sparseRatio))
		L.Push(lua.LNumber(cfg.sparseSafe))
		return 3
	})
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		L.Push(openCjson(L))
		return 1
	}))
	t.RawSetString("null", cfg.null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// arrayLength returns n > 0 when t is an array of n items, 0 for an
// object (including the empty table), -1 for an excessively sparse array.
func (c *cjsonConfig) arrayLength(t *lua.LTable) int {
	max, items := 0, 0
	isArray := true
	t.ForEach(func(k, _ lua.LValue) {
		if !isArray {
			return
		}
		n, ok := k.(lua.LNumber)
		if ok && float64(n) >= 1 && float64(n) == math.Floor(float64(n)) {
			if int(n) > max {
				max = int(n)
			}
			items++
			return
		}
		isArray = false
	})
	if !isArray {
		return 0
	}
	if c.sparseRatio > 0 && max > items*c.sparseRatio && max > c.sparseSafe {
		if c.sparseConvert {
			return 0
		}
		return -1
	}
	return max
}

func (c *cjsonConfig) encode(L *lua.LState, b []byte, v lua.LValue, depth int) []byte {
	switch v := v.(type) {
	case *lua.LNilType:
		return append(b, "null"...)
	case lua.LBool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case lua.LNumber:
		return c.encodeNumber(L, b, float64(v))
	case lua.LString:
		return jsonQuote(b, string(v))
	case *lua.LUserData:
		if v == c.null {
			return append(b, "null"...)
		}
	case *lua.LTable:
		depth++
		if depth > c.encodeMaxDepth {
			raisef(L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		n := c.arrayLength(v)
		if n < 0 {
			raisef(L, "Cannot serialise table: excessively sparse array")
		}
		if n > 0 {
			b = append(b, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					b = append(b, ',')
				}
				b = c.encode(L, b, v.RawGetInt(i), depth)
			}
			return append(b, ']')
		}
		b = append(b, '{')
		first := true
		for k, val := v.Next(lua.LNil); k != lua.LNil; k, val = v.Next(k) {
			if !first {
				b = append(b, ',')
			}
			first = false
			switch k := k.(type) {
			case lua.LString:
				b = jsonQuote(b, string(k))
			case lua.LNumber:
				b = append(b, '"')
				b = c.encodeNumber(L, b, float64(k))
				b = append(b, '"')
			default:
				raisef(L, "Cannot serialise %s: table key must be a number or string", k.Type().String())
			}
			b = append(b, ':')
			b = c.encode(L, b, val, depth)
		}
		return append(b, '}')
	}
	raisef(L, "Cannot serialise %s: type not supported", v.Type().String())
	return b
}

func (c *cjsonConfig) encodeNumber(L *lua.LState, b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if !c.encodeInvalidNums {
			raisef(L, "Cannot serialise number: must not be NaN or Inf")
		}
		switch {
		case math.IsNaN(f):
			return append(b, "nan"...)
		case f > 0:
			return append(b, "inf"...)
		default:
			return append(b, "-inf"...)
		}
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e14 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return append(b, cFormatG(f, c.encodePrecision)...)
}

const jsonHex = "0123456789abcdef"

func jsonQuote(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"':
			b = append(b, '\\', '"')
		case ch == '\\':
			b = append(b, '\\', '\\')
		case ch == '/':
			b = append(b, '\\', '/')
		case ch == '\b':
			b = append(b, '\\', 'b')
		case ch == '\f':
			b = append(b, '\\', 'f')
		case ch == '\n':
			b = append(b, '\\', 'n')
		case ch == '\r':
			b = append(b, '\\', 'r')
		case ch == '\t':
			b = append(b, '\\', 't')
		case ch < 0x20 || ch == 0x7f:
			b = append(b, '\\', 'u', '0', '0', jsonHex[ch>>4], jsonHex[ch&15])
		default:
			b = append(b, ch)
		}
	}
	return append(b, '"')
}

type jsonDecoder struct {
	L   *lua.LState
	cfg *cjsonConfig
	s   string
	i   int
}

func (d *jsonDecoder) fail(expected, found string) {
	raisef(d.L, "Expected %s but found %s at character %d", expected, found, d.i+1)
}

func (d *jsonDecoder) tokenName() string {
	if d.i >= len(d.s) {
		return "T_END"
	}
	switch d.s[d.i] {
	case '{':
		return "T_OBJ_BEGIN"
	case '}':
		return "T_OBJ_END"
	case '[':
		return "T_ARR_BEGIN"
	case ']':
		return "T_ARR_END"
	case ',':
		return "T_COMMA"
	case ':':
		return "T_COLON"
	case '"':
		return "T_STRING"
	}
	rest := d.s[d.i:]
	switch {
	case strings.HasPrefix(rest, "true"), strings.HasPrefix(rest, "false"):
		return "T_BOOLEAN"
	case strings.HasPrefix(rest, "null"):
		return "T_NULL"
	case rest[0] == '-' || rest[0] >= '0' && rest[0] <= '9':
		return "T_NUMBER"
	}
	return "invalid token"
}

func (d *jsonDecoder) skipSpace() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) lua.LValue {
	if d.i >= len(d.s) {
		d.fail("value", "T_END")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		if depth > d.cfg.decodeMaxDepth {
			raisef(d.L, "Found too many nested data structures (%d) at character %d", depth, d.i+1)
		}
		d.i++
		t := d.L.NewTable()
		d.skipSpace()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return t
		}
		for {
			d.skipSpace()
			if d.i >= len(d.s) || d.s[d.i] != '"' {
				d.fail("object key string", d.tokenName())
			}
			k := d.str()
			d.skipSpace()
			if d.i >= len(d.s) || d.s[d.i] != ':' {
				d.fail("colon", d.tokenName())
			}
			d.i++
			d.skipSpace()
			t.RawSetString(k, d.value(depth+1))
			d.skipSpace()
			if d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.s) && d.s[d.i] == '}' {
				d.i++
				return t
			}
			d.fail("comma or object end", d.tokenName())
		}
	case c == '[':
		if depth > d.cfg.decodeMaxDepth {
			raisef(d.L, "Found too many nested data structures (%d) at character %d", depth, d.i+1)
		}
		d.i++
		t := d.L.NewTable()
		d.skipSpace()
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			return t
		}
		for n := 1; ; n++ {
			d.skipSpace()
			t.RawSetInt(n, d.value(depth+1))
			d.skipSpace()
			if d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.s) && d.s[d.i] == ']' {
				d.i++
				return t
			}
			d.fail("comma or array end", d.tokenName())
		}
	case c == '"':
		return lua.LString(d.str())
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return lua.LTrue
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return lua.LFalse
	case strings.HasPrefix(d.s[d.i:], "null"):
		d.i += 4
		return d.cfg.null
	case c == '-' || c >= '0' && c <= '9' || c == 'i' || c == 'n' || c == 'I' || c == 'N':
		return d.number()
	}
	d.fail("value", d.tokenName())
	return lua.LNil
}

func (d *jsonDecoder) number() lua.LValue {
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c == 'x' || c == 'X' ||
			c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == 'i' || c == 'n' || c == 'I' || c == 'N' || c == 't' || c == 'y' {
			d.i++
			continue
		}
		break
	}
	text := d.s[start:d.i]
	lower := strings.ToLower(strings.TrimPrefix(text, "-"))
	if lower == "inf" || lower == "infinity" || lower == "nan" || strings.HasPrefix(lower, "0x") {
		if !d.cfg.decodeInvalidNums {
			d.i = start
			d.fail("value", "invalid token")
		}
	}
	f, err := strconvParseLuaNumber(text)
	if err != nil {
		if lower == "nan" {
			return lua.LNumber(math.NaN())
		}
		d.i = start
		d.fail("value", "invalid token")
	}
	return lua.LNumber(f)
}

// str reads a JSON string at d.i (the opening quote).
func (d *jsonDecoder) str() string {
	d.i++
	var b strings.Builder
	for {
		if d.i >= len(d.s) {
			raisef(d.L, "Expected string but found invalid token at character %d", d.i+1)
		}
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return b.String()
		case c == '\\':
			if d.i+1 >= len(d.s) {
				raisef(d.L, "Expected string but found invalid escape code at character %d", d.i+1)
			}
			e := d.s[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					raisef(d.L, "Expected string but found invalid unicode escape code at character %d", d.i+1)
				}
				if utf16.IsSurrogate(r) {
					if !strings.HasPrefix(d.s[d.i:], "\\u") {
						raisef(d.L, "Expected string but found invalid unicode escape code at character %d", d.i+1)
					}
					d.i += 2
					r2, ok := d.hex4()
					if !ok {
						raisef(d.L, "Expected string but found invalid unicode escape code at character %d", d.i+1)
					}
					r = utf16.DecodeRune(r, r2)
				}
				var tmp [4]byte
				n := utf8.EncodeRune(tmp[:], r)
				b.Write(tmp[:n])
			default:
				raisef(d.L, "Expected string but found invalid escape code at character %d", d.i-1)
			}
		default:
			b.WriteByte(c)
			d.i++
		}
	}
}

func (d *jsonDecoder) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(d.s[d.i:d.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(n), true
}
