package scripting

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The cmsgpack library (lua-cmsgpack 0.4.0 as the server bundles it).
// pack encodes each argument and concatenates them; tables whose keys are
// exactly 1..n are arrays, other tables maps; nesting deeper than 16
// encodes as nil; integral numbers use the smallest integer form, others
// a float when it is exact, else a double. unpack decodes every object,
// unpack_one(s, offset) and unpack_limit(s, limit, offset) return the
// offset of the next object (-1 at the end) before the objects.

const msgpackMaxNesting = 16

// msgpackMaxSparse is how far past a decoded map's array part an integer
// key may land.
const msgpackMaxSparse = 1 << 16

func openCmsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	set := func(name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set("pack", func(L *lua.LState) int {
		n := L.GetTop()
		if n == 0 {
			argError(L, 0, "MessagePack pack needs input.")
		}
		var b []byte
		for i := 1; i <= n; i++ {
			b = msgpackEncode(b, L.Get(i), 0)
		}
		L.Push(lua.LString(b))
		return 1
	})
	set("unpack", func(L *lua.LState) int { return msgpackUnpack(L, L.CheckString(1), 0, 0, false) })
	set("unpack_one", func(L *lua.LState) int {
		return msgpackUnpack(L, L.CheckString(1), 1, L.OptInt(2, 0), true)
	})
	set("unpack_limit", func(L *lua.LState) int {
		return msgpackUnpack(L, L.CheckString(1), L.CheckInt(2), L.OptInt(3, 0), true)
	})
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

func msgpackEncode(b []byte, v lua.LValue, level int) []byte {
	switch v := v.(type) {
	case lua.LBool:
		if v {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(v)
		if !math.IsInf(f, 0) && f == math.Floor(f) && f >= -9.223372036854775808e18 && f < 9.223372036854775807e18 {
			return msgpackInt(b, int64(f))
		}
		if float64(float32(f)) == f || math.IsNaN(f) {
			b = append(b, 0xca)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	case lua.LString:
		n := len(v)
		switch {
		case n < 32:
			b = append(b, 0xa0|byte(n))
		case n <= 0xff:
			b = append(b, 0xd9, byte(n))
		case n <= 0xffff:
			b = append(b, 0xda)
			b = binary.BigEndian.AppendUint16(b, uint16(n))
		default:
			b = append(b, 0xdb)
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		return append(b, v...)
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := msgpackArrayLen(v); ok {
			b = msgpackHeader(b, n, 0x90, 0xdc, 0xdd)
			for i := 1; i <= n; i++ {
				b = msgpackEncode(b, v.RawGetInt(i), level+1)
			}
			return b
		}
		n := 0
		v.ForEach(func(lua.LValue, lua.LValue) { n++ })
		b = msgpackHeader(b, n, 0x80, 0xde, 0xdf)
		for k, val := v.Next(lua.LNil); k != lua.LNil; k, val = v.Next(k) {
			b = msgpackEncode(b, k, level+1)
			b = msgpackEncode(b, val, level+1)
		}
		return b
	}
	return append(b, 0xc0)
}

// msgpackArrayLen reports whether t's keys are exactly 1..n.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, max := 0, 0
	ok := true
	t.ForEach(func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		if !isNum || float64(n) < 1 || float64(n) != math.Floor(float64(n)) {
			ok = false
			return
		}
		count++
		if int(n) > max {
			max = int(n)
		}
	})
	return max, ok && max == count
}

func msgpackHeader(b []byte, n int, fix, c16, c32 byte) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		b = append(b, c16)
		return binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, c32)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
}

func msgpackInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		default:
			return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
		}
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(int8(n)))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(n)))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(n)))
	default:
		return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
	}
}

type msgpackDecoder struct {
	L   *lua.LState
	s   string
	i   int
	bad string // set on the first error
}

func (d *msgpackDecoder) need(n int) bool {
	if len(d.s)-d.i < n {
		d.bad = "Missing bytes in input."
		return false
	}
	return true
}

func (d *msgpackDecoder) u(n int) uint64 {
	var v uint64
	for k := 0; k < n; k++ {
		v = v<<8 | uint64(d.s[d.i+k])
	}
	d.i += n
	return v
}

func (d *msgpackDecoder) decode(depth int) lua.LValue {
	if d.bad != "" || !d.need(1) {
		return lua.LNil
	}
	if depth > 1000 {
		d.bad = "Bad data format in input."
		return lua.LNil
	}
	c := d.s[d.i]
	d.i++
	sized := func(n int) int {
		if !d.need(n) {
			return -1
		}
		return int(d.u(n))
	}
	str := func(n int) lua.LValue {
		if n < 0 || !d.need(n) {
			return lua.LNil
		}
		v := d.s[d.i : d.i+n]
		d.i += n
		return lua.LString(v)
	}
	array := func(n int) lua.LValue {
		if n < 0 {
			return lua.LNil
		}
		t := d.L.CreateTable(min(n, 1024), 0)
		for k := 1; k <= n && d.bad == ""; k++ {
			t.RawSetInt(k, d.decode(depth+1))
		}
		return t
	}
	mapping := func(n int) lua.LValue {
		if n < 0 {
			return lua.LNil
		}
		t := d.L.CreateTable(0, min(n, 1024))
		for k := 0; k < n && d.bad == ""; k++ {
			key := d.decode(depth + 1)
			val := d.decode(depth + 1)
			if key != lua.LNil && d.bad == "" {
				if f, ok := key.(lua.LNumber); ok {
					if f != f {
						continue
					}
					// gopher-lua keeps every integer key below
					// lua.MaxArrayIndex in a slice, so a key far past the
					// end would turn a few input bytes into a huge
					// allocation: refuse such input.
					if f == lua.LNumber(int64(f)) && f > lua.LNumber(t.Len()+msgpackMaxSparse) && float64(f) < float64(lua.MaxArrayIndex) {
						d.bad = "Bad data format in input."
						return lua.LNil
					}
				}
				t.RawSet(key, val)
			}
		}
		return t
	}
	switch {
	case c <= 0x7f:
		return lua.LNumber(c)
	case c >= 0xe0:
		return lua.LNumber(int8(c))
	case c&0xe0 == 0xa0:
		return str(int(c & 0x1f))
	case c&0xf0 == 0x90:
		return array(int(c & 0x0f))
	case c&0xf0 == 0x80:
		return mapping(int(c & 0x0f))
	}
	switch c {
	case 0xc0:
		return lua.LNil
	case 0xc2:
		return lua.LFalse
	case 0xc3:
		return lua.LTrue
	case 0xcc, 0xcd, 0xce, 0xcf:
		n := 1 << (c - 0xcc)
		if !d.need(n) {
			return lua.LNil
		}
		return lua.LNumber(float64(d.u(n)))
	case 0xd0:
		if !d.need(1) {
			return lua.LNil
		}
		return lua.LNumber(int8(d.u(1)))
	case 0xd1:
		if !d.need(2) {
			return lua.LNil
		}
		return lua.LNumber(int16(d.u(2)))
	case 0xd2:
		if !d.need(4) {
			return lua.LNil
		}
		return lua.LNumber(int32(d.u(4)))
	case 0xd3:
		if !d.need(8) {
			return lua.LNil
		}
		return lua.LNumber(int64(d.u(8)))
	case 0xca:
		if !d.need(4) {
			return lua.LNil
		}
		return lua.LNumber(math.Float32frombits(uint32(d.u(4))))
	case 0xcb:
		if !d.need(8) {
			return lua.LNil
		}
		return lua.LNumber(math.Float64frombits(d.u(8)))
	case 0xd9, 0xc4:
		return str(sized(1))
	case 0xda, 0xc5:
		return str(sized(2))
	case 0xdb, 0xc6:
		return str(sized(4))
	case 0xdc:
		return array(sized(2))
	case 0xdd:
		return array(sized(4))
	case 0xde:
		return mapping(sized(2))
	case 0xdf:
		return mapping(sized(4))
	}
	d.bad = "Bad data format in input."
	return lua.LNil
}

func msgpackUnpack(L *lua.LState, s string, limit, offset int, withOffset bool) int {
	if offset < 0 || limit < 0 {
		raisef(L, "Invalid request to unpack with offset of %d and limit of %d.", offset, limit)
	}
	if offset > len(s) {
		raisef(L, "Start offset %d greater than input length %d.", offset, len(s))
	}
	d := msgpackDecoder{L: L, s: s, i: offset}
	var out []lua.LValue
	for d.i < len(d.s) && (limit == 0 || len(out) < limit) {
		v := d.decode(0)
		if d.bad != "" {
			raisef(L, "%s", d.bad)
		}
		out = append(out, v)
	}
	if withOffset {
		next := d.i
		if next >= len(s) {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range out {
		L.Push(v)
	}
	if withOffset {
		return len(out) + 1
	}
	return len(out)
}
