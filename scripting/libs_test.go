package scripting

import "testing"

// TestLibraries* run the library checks of the server's scripting suite
// (JSON smoke test, msgpack smoke test, bitop sanity), written anew: each
// script raises on failure and returns "ok".
func TestLibrarySmoke(t *testing.T) {
	for name, script := range map[string]string{
		"cjson round trips and settings": `
			local m = {s1="Some string", n1=100, a1={"Some","String","Array"}, b1=true, b2=false}
			local d = cjson.decode(cjson.encode(m))
			assert(d.s1 == m.s1 and d.n1 == 100 and d.a1[3] == "Array" and d.b1 == true and d.b2 == false)
			cjson.encode_keep_buffer(false)
			assert(cjson.decode(cjson.encode(m)).s1 == m.s1)
			local t1 = cjson.decode(cjson.encode({one="one", [1]="one"}))
			assert(t1["one"] == "one" and t1["1"] == "one")
			assert(table.concat(cjson.decode(cjson.encode({"one", "two"}))) == "onetwo")
			local bad = {}; bad[false] = "false"
			assert(pcall(cjson.encode, bad) == false)
			cjson.encode_max_depth(1)
			assert(pcall(cjson.encode, m) == false)
			cjson.decode_max_depth(1)
			assert(pcall(cjson.decode, '{"obj": {"array": [1,2,3,4]}}') == false)
			assert(pcall(cjson.encode, {num1=0/0}) == false)
			cjson.encode_invalid_numbers(true)
			assert(pcall(cjson.encode, {num1=0/0}) == true)
			cjson.decode_max_depth(1000) cjson.encode_max_depth(1000) cjson.encode_invalid_numbers(false)
			assert(cjson.encode({}) == "{}")
			assert(cjson.decode('[null]')[1] == cjson.null)
			return "ok"`,
		"cmsgpack round trips": `
			local big, bigmap = {}, {}
			for i = 1, 70000 do big[i] = i; bigmap[tostring(i)] = i end
			local m = {s1=string.rep("x", 30), s2=string.rep("x", 250), s3=string.rep("x", 65530), s4=string.rep("x", 100000),
				d1=0.1, i1=1, i2=250, i3=65530, i4=100000, i5=2^40, i6=-1, i7=-120, i8=-32000, i9=-100000, i10=-3147483648,
				a1={1,2,3,4,5}, a2={1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18}, a3=big, m1={a=1, b=2}, m2=bigmap, b1=false, b2=true}
			local d = cmsgpack.unpack(cmsgpack.pack(m))
			for k, v in pairs(m) do
				if type(v) == "table" then
					for kk, vv in pairs(v) do assert(d[k][kk] == vv, k) end
				else
					assert(d[k] == v, k)
				end
			end
			local off, one = cmsgpack.unpack_one(cmsgpack.pack(m), 0)
			assert(off == -1 and one.s4 == m.s4)
			local multi = cmsgpack.pack(m.s1, m.s2, m.s3, m.s4)
			local o, v = cmsgpack.unpack_limit(multi, 1, 0); assert(v == m.s1)
			o, v = cmsgpack.unpack_limit(multi, 1, o); assert(v == m.s2)
			o, v = cmsgpack.unpack_limit(multi, 1, o); assert(v == m.s3)
			o, v = cmsgpack.unpack_limit(multi, 1, o); assert(v == m.s4 and o == -1)
			local a = {y=5}; local b = {x=a}; a.x = b
			local re = cmsgpack.unpack(cmsgpack.pack(a))
			assert(re.x.x.y == 5 and re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.y == 5)
			assert(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x == nil)
			return "ok"`,
		"bitop sanity": `
			assert(0x7fffffff == 2147483647)
			assert(tostring(-1) == "-1")
			assert(bit.tobit(1) == 1 and bit.band(1) == 1 and bit.bxor(1,2) == 3 and bit.bor(1,2,4,8,16,32,64,128) == 255)
			assert(bit.tohex(65535, -4) == "FFFF" and bit.bswap(1) == 16777216)
			assert(bit.rol(1, 33) == 2 and bit.ror(1, 1) == -2147483648 and bit.arshift(-8, 1) == -4)
			return "ok"`,
		"struct round trips": `
			local s = struct.pack(">!4 b i4 h d s c3", 1, -2, 3, 0.5, "zs", "abc")
			local a, b, c, d, e, f, pos = struct.unpack(">!4 b i4 h d s c3", s)
			assert(a == 1 and b == -2 and c == 3 and d == 0.5 and e == "zs" and f == "abc" and pos == #s + 1)
			assert(struct.size(">!4 b i4") == 8)
			assert(struct.unpack("<I8", struct.pack("<I8", 2^40)) == 2^40)
			return "ok"`,
	} {
		e := New(Config{})
		if got := evalReply(t, e, nil, 2, script, nil, nil); got != "$2\r\nok\r\n" {
			t.Errorf("%s: %q", name, got)
		}
		e.Close()
	}
}
