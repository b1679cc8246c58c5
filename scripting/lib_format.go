package scripting

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// string.format as Lua 5.1 has it. gopher-lua handed the format string to
// Go's fmt.Sprintf, so a conversion Go does not know came back as
// "%!(NOVERB)" text, widths were unbounded and Go's verbs differ from C's
// (%g, %x of negatives, %s counted in runes, inf and nan spelled Go's
// way). Here every item is parsed as Lua 5.1 parses it, with its limits
// and its error texts, and formatted as C's printf does on the 64-bit
// platforms the server runs on.

// formatFlags are the flags a format item may carry; Lua 5.1 refuses an
// item with more flag characters than there are flags.
const formatFlags = "-+ #0"

// formatItem is one parsed "%[flags][width][.precision]" prefix.
type formatItem struct {
	flags              string
	width, prec        int
	hasPrec            bool
	minus, plus, space bool
}

// luaFormat is string.format.
func luaFormat(L *lua.LState) int {
	fs := formatStringArg(L, 1)
	top := L.GetTop()
	arg := 1
	out := make([]byte, 0, len(fs)+16)
	for i := 0; i < len(fs); {
		if fs[i] != '%' {
			out = append(out, fs[i])
			i++
			continue
		}
		i++
		if i < len(fs) && fs[i] == '%' {
			out = append(out, '%')
			i++
			continue
		}
		// As in Lua 5.1, the argument is counted before the item is read.
		if arg++; arg > top {
			argError(L, arg, "no value")
		}
		var it formatItem
		i = scanFormat(L, fs, i, &it)
		var conv byte // NUL when the string ends after the item
		if i < len(fs) {
			conv = fs[i]
		}
		i++
		switch conv {
		case 'c':
			b := byte(uint32(cInt(formatNumberArg(L, arg))))
			out = appendCString(out, it.pad(string([]byte{b})))
		case 'd', 'i':
			out = appendCString(out, formatInt(&it, cLong(formatNumberArg(L, arg))))
		case 'o', 'u', 'x', 'X':
			out = appendCString(out, formatUnsigned(&it, conv, cUlong(formatNumberArg(L, arg))))
		case 'e', 'E', 'f', 'g', 'G':
			out = appendCString(out, formatFloat(&it, conv, formatNumberArg(L, arg)))
		case 'q':
			out = appendQuoted(out, formatStringArg(L, arg))
		case 's':
			s := formatStringArg(L, arg)
			if !it.hasPrec && len(s) >= 100 {
				// Lua 5.1 keeps a long string whole, embedded zeros and
				// all, rather than format it.
				out = append(out, s...)
				break
			}
			if z := strings.IndexByte(s, 0); z >= 0 {
				s = s[:z] // printf's %s stops at a NUL
			}
			if it.hasPrec && it.prec < len(s) {
				s = s[:it.prec]
			}
			out = append(out, it.pad(s)...)
		default:
			raise(L, "invalid option '%"+cChar(conv)+"' to 'format'")
		}
	}
	L.Push(lua.LString(out))
	return 1
}

// scanFormat reads the flags, width and precision of the item at fs[i:]
// into it and returns the index of its conversion character.
func scanFormat(L *lua.LState, fs string, i int, it *formatItem) int {
	start := i
	for i < len(fs) && strings.IndexByte(formatFlags, fs[i]) >= 0 {
		i++
	}
	if i-start > len(formatFlags) {
		raise(L, "invalid format (repeated flags)")
	}
	it.flags = fs[start:i]
	it.minus = strings.IndexByte(it.flags, '-') >= 0
	it.plus = strings.IndexByte(it.flags, '+') >= 0
	it.space = strings.IndexByte(it.flags, ' ') >= 0
	digits := func() int {
		n := 0
		for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
			n = n*10 + int(fs[i]-'0')
			i++
		}
		return n
	}
	it.width = digits()
	if i < len(fs) && fs[i] == '.' {
		i++
		it.hasPrec = true
		it.prec = digits()
	}
	if i < len(fs) && isDigit(fs[i]) {
		raise(L, "invalid format (width or precision too long)")
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// cChar is how luaL_error's %c shows a byte: a NUL shows as nothing.
func cChar(c byte) string {
	if c == 0 {
		return ""
	}
	return string([]byte{c})
}

// pad pads s with spaces to the item's width, on the left unless the item
// has the '-' flag.
func (it *formatItem) pad(s string) string {
	if len(s) >= it.width {
		return s
	}
	fill := strings.Repeat(" ", it.width-len(s))
	if it.minus {
		return s + fill
	}
	return fill + s
}

// goVerb builds the Go format of the item with the given flags dropped.
func (it *formatItem) goVerb(verb byte, drop string) string {
	var b strings.Builder
	b.WriteByte('%')
	for k := 0; k < len(it.flags); k++ {
		if strings.IndexByte(drop, it.flags[k]) < 0 {
			b.WriteByte(it.flags[k])
		}
	}
	if it.width > 0 {
		fmt.Fprintf(&b, "%d", it.width)
	}
	if it.hasPrec {
		fmt.Fprintf(&b, ".%d", it.prec)
	}
	b.WriteByte(verb)
	return b.String()
}

// formatInt is C's %d of a long.
func formatInt(it *formatItem, n int64) string {
	return fmt.Sprintf(it.goVerb('d', "#"), n)
}

// formatUnsigned is C's %o, %u, %x or %X of an unsigned long: no sign, so
// '+' and ' ' do nothing, and '#' adds no prefix to zero.
func formatUnsigned(it *formatItem, conv byte, n uint64) string {
	drop := "+ "
	if n == 0 && conv != 'o' {
		drop += "#"
	}
	verb := conv
	if conv == 'u' {
		verb, drop = 'd', drop+"#"
	}
	return fmt.Sprintf(it.goVerb(verb, drop), n)
}

// formatFloat is C's %e, %E, %f, %g or %G of a double.
func formatFloat(it *formatItem, conv byte, f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := "inf"
		if math.IsNaN(f) {
			s = "nan"
		}
		if conv == 'E' || conv == 'G' {
			s = strings.ToUpper(s)
		}
		switch {
		case math.Signbit(f):
			s = "-" + s
		case it.plus:
			s = "+" + s
		case it.space:
			s = " " + s
		}
		return it.pad(s) // C pads infinities and NaNs with spaces only
	}
	if !it.hasPrec {
		// C's default precision; Go's would be the shortest exact form.
		it.hasPrec, it.prec = true, 6
	}
	return fmt.Sprintf(it.goVerb(conv, ""), f)
}

// appendCString appends s up to its first NUL: Lua 5.1 measures each
// formatted item with strlen.
func appendCString(out []byte, s string) []byte {
	if z := strings.IndexByte(s, 0); z >= 0 {
		s = s[:z]
	}
	return append(out, s...)
}

// appendQuoted is %q: s in double quotes, readable back by Lua.
func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for k := 0; k < len(s); k++ {
		switch c := s[k]; c {
		case '"', '\\', '\n':
			out = append(out, '\\', c)
		case '\r':
			out = append(out, '\\', 'r')
		case 0:
			out = append(out, '\\', '0', '0', '0')
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// formatNumberArg is luaL_checknumber: a number or a numeric string.
func formatNumberArg(L *lua.LState, n int) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, err := strconvParseLuaNumber(string(v)); err == nil {
			return f
		}
	}
	argError(L, n, "number expected, got "+luaTypeName(L.Get(n)))
	return 0
}

// formatStringArg is luaL_checklstring: a string, or a number as
// tostring writes it.
func formatStringArg(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return formatNumber(float64(v))
	}
	msg := "string expected, got " + luaTypeName(L.Get(n))
	if n > L.GetTop() {
		msg = "string expected, got no value"
	}
	argError(L, n, msg)
	return ""
}

// luaTypeName is Lua 5.1's name of a value's type.
func luaTypeName(v lua.LValue) string {
	if _, ok := v.(*lua.LState); ok {
		return "thread"
	}
	return v.Type().String()
}

// cLong is C's conversion of a double to a long on x86-64: truncation,
// and the "integer indefinite" value for NaN and out-of-range values.
func cLong(f float64) int64 {
	if math.IsNaN(f) || f >= 0x1p63 || f < -0x1p63 {
		return math.MinInt64
	}
	return int64(f)
}

// cUlong is C's conversion of a double to an unsigned long on x86-64,
// as the compiler emits it: values from 2^63 up are converted less 2^63.
func cUlong(f float64) uint64 {
	if f >= 0x1p63 {
		return uint64(cLong(f-0x1p63)) ^ 1<<63
	}
	return uint64(cLong(f))
}

// cInt is C's conversion of a double to an int on x86-64.
func cInt(f float64) int32 {
	if math.IsNaN(f) || f >= 0x1p31 || f < -0x1p31 {
		return math.MinInt32
	}
	return int32(f)
}
