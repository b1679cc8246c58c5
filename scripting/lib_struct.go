package scripting

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library (Roberto Ierusalimschy's struct 0.2 as the server
// bundles it): struct.pack(fmt, ...), struct.unpack(fmt, s [, pos]) and
// struct.size(fmt). Format letters: '<' '>' '=' byte order (native is
// little-endian), '!n' maximum alignment (bare '!' is 8), 'x' a zero
// byte, 'b'/'B' 1-byte, 'h'/'H' 2-byte, 'l'/'L' and 'T' 8-byte, 'i'/'I'
// with an optional size (default 4) integers (lower case signed), 'f'
// float, 'd' double, 's' zero-terminated string, 'cn' n characters ('c0':
// the whole string when packing, the length read just before when
// unpacking); spaces are ignored.

type structHeader struct {
	little bool
	align  int
}

const structMaxIntSize = 32

type structOpt struct {
	op   byte
	size int
}

// structNext reads the next option from fmt at *i.
func structNext(L *lua.LState, fmt string, i *int, h *structHeader) (structOpt, bool) {
	for *i < len(fmt) {
		c := fmt[*i]
		*i++
		num := func(def int) int {
			if *i >= len(fmt) || fmt[*i] < '0' || fmt[*i] > '9' {
				return def
			}
			n := 0
			for *i < len(fmt) && fmt[*i] >= '0' && fmt[*i] <= '9' {
				n = n*10 + int(fmt[*i]-'0')
				if n > 1<<30 {
					raisef(L, "size too large")
				}
				*i++
			}
			return n
		}
		switch c {
		case 'b', 'B':
			return structOpt{c, 1}, true
		case 'h', 'H':
			return structOpt{c, 2}, true
		case 'l', 'L', 'T':
			return structOpt{c, 8}, true
		case 'f':
			return structOpt{c, 4}, true
		case 'd':
			return structOpt{c, 8}, true
		case 'x':
			return structOpt{c, 1}, true
		case 's':
			return structOpt{c, 0}, true
		case 'c':
			return structOpt{c, num(1)}, true
		case 'i', 'I':
			n := num(4)
			if n > structMaxIntSize {
				raisef(L, "integral size %d is larger than limit of %d", n, structMaxIntSize)
			}
			return structOpt{c, n}, true
		case ' ':
		case '>':
			h.little = false
		case '<', '=':
			h.little = true
		case '!':
			a := num(8)
			if a&(a-1) != 0 {
				argError(L, 1, "alignment must be power of 2")
			}
			h.align = a
		default:
			argError(L, 1, "invalid format option '"+string(c)+"'")
		}
	}
	return structOpt{}, false
}

// structGap is the padding before an option of the given size at offset.
func structGap(o structOpt, h *structHeader, offset int) int {
	if o.op == 'c' || o.op == 's' || o.op == 'x' {
		return 0
	}
	a := min(o.size, h.align)
	if a <= 1 {
		return 0
	}
	return (a - offset%a) % a
}

func openStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

func putInt(b []byte, v uint64, size int, little bool) []byte {
	start := len(b)
	for k := 0; k < size; k++ {
		var byt byte
		if k < 8 {
			byt = byte(v >> (8 * k))
		} else if int64(v) < 0 {
			byt = 0xff
		}
		b = append(b, byt)
	}
	if !little {
		for l, r := start, len(b)-1; l < r; l, r = l+1, r-1 {
			b[l], b[r] = b[r], b[l]
		}
	}
	return b
}

func structPack(L *lua.LState) int {
	fmt := L.CheckString(1)
	h := structHeader{little: true, align: 1}
	var b []byte
	arg := 2
	i := 0
	for {
		o, ok := structNext(L, fmt, &i, &h)
		if !ok {
			break
		}
		for g := structGap(o, &h, len(b)); g > 0; g-- {
			b = append(b, 0)
		}
		switch o.op {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := float64(L.CheckNumber(arg))
			arg++
			var v uint64
			if n < 0 {
				v = uint64(int64(n))
			} else {
				v = uint64(n)
			}
			if o.size < 8 && o.op >= 'a' {
				lim := int64(1) << (o.size*8 - 1)
				if int64(n) < -lim || int64(n) >= lim {
					argError(L, arg-1, "integer overflow")
				}
			}
			b = putInt(b, v, o.size, h.little)
		case 'x':
			b = append(b, 0)
		case 'f':
			f := float32(L.CheckNumber(arg))
			arg++
			if h.little {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
			} else {
				b = binary.BigEndian.AppendUint32(b, math.Float32bits(f))
			}
		case 'd':
			f := float64(L.CheckNumber(arg))
			arg++
			if h.little {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
			} else {
				b = binary.BigEndian.AppendUint64(b, math.Float64bits(f))
			}
		case 'c', 's':
			s := L.CheckString(arg)
			arg++
			size := o.size
			if o.op == 's' || size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg-1, "string too short")
			}
			b = append(b, s[:size]...)
			if o.op == 's' {
				b = append(b, 0)
			}
		}
	}
	L.Push(lua.LString(b))
	return 1
}

func getInt(s string, size int, little, signed bool) float64 {
	var v uint64
	for k := 0; k < size; k++ {
		var byt byte
		if little {
			byt = s[size-1-k]
		} else {
			byt = s[k]
		}
		v = v<<8 | uint64(byt)
	}
	if signed && size < 8 {
		shift := uint(64 - 8*size)
		return float64(int64(v<<shift) >> shift)
	}
	if signed {
		return float64(int64(v))
	}
	return float64(v)
}

func structUnpack(L *lua.LState) int {
	fmt := L.CheckString(1)
	data := L.CheckString(2)
	pos := L.OptInt(3, 1) - 1
	if pos < 0 || pos > len(data) {
		argError(L, 3, "offset must be 1 or greater")
	}
	h := structHeader{little: true, align: 1}
	i := 0
	n := 0
	var last float64
	for {
		o, ok := structNext(L, fmt, &i, &h)
		if !ok {
			break
		}
		pos += structGap(o, &h, pos)
		if o.op != 's' && pos+o.size > len(data) {
			argError(L, 2, "data string too short")
		}
		switch o.op {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			last = getInt(data[pos:pos+o.size], o.size, h.little, o.op >= 'a')
			L.Push(lua.LNumber(last))
			n++
			pos += o.size
		case 'x':
			pos++
		case 'f':
			var u uint32
			if h.little {
				u = binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			} else {
				u = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			L.Push(lua.LNumber(math.Float32frombits(u)))
			n++
			pos += 4
		case 'd':
			var u uint64
			if h.little {
				u = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				u = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			L.Push(lua.LNumber(math.Float64frombits(u)))
			n++
			pos += 8
		case 'c':
			size := o.size
			if size == 0 {
				if n == 0 || last < 0 {
					argError(L, 1, "format 'c0' needs a previous size")
				}
				L.Pop(1)
				n--
				size = int(last)
				if pos+size > len(data) {
					argError(L, 2, "data string too short")
				}
			}
			L.Push(lua.LString(data[pos : pos+size]))
			n++
			pos += size
		case 's':
			end := strings.IndexByte(data[pos:], 0)
			if end < 0 {
				argError(L, 2, "unfinished string in data")
			}
			L.Push(lua.LString(data[pos : pos+end]))
			n++
			pos += end + 1
		}
	}
	L.Push(lua.LNumber(pos + 1))
	return n + 1
}

func structSize(L *lua.LState) int {
	fmt := L.CheckString(1)
	h := structHeader{little: true, align: 1}
	i, size := 0, 0
	for {
		o, ok := structNext(L, fmt, &i, &h)
		if !ok {
			break
		}
		if o.op == 's' {
			argError(L, 1, "option 's' has no fixed size")
		}
		if o.op == 'c' && o.size == 0 {
			argError(L, 1, "option 'c0' has no fixed size")
		}
		size += structGap(o, &h, size) + o.size
	}
	L.Push(lua.LNumber(size))
	return 1
}
