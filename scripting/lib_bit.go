package scripting

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The bit library (LuaBitOp 1.0 as bundled with the server): operations
// on 32-bit two's complement integers; results are signed.

// toBit normalises a Lua number to int32 the way LuaBitOp does: numbers
// are taken modulo 2^32 after rounding to the nearest integer.
func toBit(L *lua.LState, n int) int32 {
	f := math.RoundToEven(float64(L.CheckNumber(n)))
	m := math.Mod(f, 1<<32)
	if m < 0 {
		m += 1 << 32
	}
	if m != m {
		return 0
	}
	return int32(uint32(uint64(m)))
}

func openBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	push := func(L *lua.LState, v int32) int { L.Push(lua.LNumber(v)); return 1 }
	fns := map[string]lua.LGFunction{
		"tobit": func(L *lua.LState) int { return push(L, toBit(L, 1)) },
		"bnot":  func(L *lua.LState) int { return push(L, ^toBit(L, 1)) },
		"band": func(L *lua.LState) int {
			v := toBit(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				v &= toBit(L, i)
			}
			return push(L, v)
		},
		"bor": func(L *lua.LState) int {
			v := toBit(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				v |= toBit(L, i)
			}
			return push(L, v)
		},
		"bxor": func(L *lua.LState) int {
			v := toBit(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				v ^= toBit(L, i)
			}
			return push(L, v)
		},
		"lshift": func(L *lua.LState) int {
			v, n := uint32(toBit(L, 1)), uint32(toBit(L, 2))&31
			return push(L, int32(v<<n))
		},
		"rshift": func(L *lua.LState) int {
			v, n := uint32(toBit(L, 1)), uint32(toBit(L, 2))&31
			return push(L, int32(v>>n))
		},
		"arshift": func(L *lua.LState) int {
			v, n := toBit(L, 1), uint32(toBit(L, 2))&31
			return push(L, v>>n)
		},
		"rol": func(L *lua.LState) int {
			v, n := uint32(toBit(L, 1)), uint32(toBit(L, 2))&31
			return push(L, int32(v<<n|v>>((32-n)&31)))
		},
		"ror": func(L *lua.LState) int {
			v, n := uint32(toBit(L, 1)), uint32(toBit(L, 2))&31
			return push(L, int32(v>>n|v<<((32-n)&31)))
		},
		"bswap": func(L *lua.LState) int {
			v := uint32(toBit(L, 1))
			return push(L, int32(v>>24|(v>>8)&0xff00|(v&0xff00)<<8|v<<24))
		},
		"tohex": func(L *lua.LState) int {
			b := uint32(toBit(L, 1))
			n := int32(8)
			if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
				n = toBit(L, 2)
			}
			digits := "0123456789abcdef"
			if n < 0 {
				n = -n
				digits = "0123456789ABCDEF"
			}
			if n > 8 {
				n = 8
			}
			var buf [8]byte
			for i := int(n) - 1; i >= 0; i-- {
				buf[i] = digits[b&15]
				b >>= 4
			}
			L.Push(lua.LString(buf[:n]))
			return 1
		},
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}
