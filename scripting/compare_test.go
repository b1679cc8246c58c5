package scripting

import (
	"bufio"
	"encoding/json"
	"flag"
	"strings"

	"github.com/ruvio/ruvio/codec"
	"io"
	"net"
	"os"
	"strconv"
	"testing"
	"time"
)

// probes are scripts whose replies must match the reference server byte
// for byte. They use only commands the fake server implements the same way
// (PING, ECHO, GET, SET, INCR) on keys no probe shares.
var probes = []string{
	"return 'hello'",
	"return 100.5",
	"return -100.9",
	"return true",
	"return false",
	"return nil",
	"return {ok='fine'}",
	"return {ok='a\\r\\nb'}",
	"return {err='ERR this is an error'}",
	"return {err='no code'}",
	"return {1,2,3,'ciao',{1,2}}",
	"return {1,2,nil,4}",
	"return {}",
	"return _G",
	"return {double=3.5}",
	"return {big_number='123\\r\\n123'}",
	"return {map={a=1}}",
	"return {set={a=true}}",
	"return {verbatim_string={format='txt', string='hi'}}",
	"return redis.call('ping')",
	"return redis.call('echo', 3.0)",
	"return redis.call('echo', 0.1)",
	"return redis.call('echo', 1e20)",
	"return redis.call('echo', -1/0)",
	"return redis.call('echo', 9007199254740991)",
	"return redis.pcall('ping', 1, 2)",
	"return redis.call('ping', 1, 2)",
	"return redis.call()",
	"return redis.call({})",
	"return redis.pcall({})",
	"return redis.call('nosuchcommand')",
	"return redis.error_reply('MY_ERR_CODE custom msg')",
	"return redis.error_reply('')",
	"return redis.error_reply('-X y')",
	"return redis.status_reply('MY_OK custom')",
	"return redis.status_reply(1)",
	"return redis.sha1hex('')",
	"return redis.sha1hex(12)",
	"return redis.sha1hex()",
	"return redis.setresp(4)",
	"return redis.setresp()",
	"redis.setresp(3); return true",
	"redis.setresp(3); return false",
	"redis.setresp(3); return {double=0.1}",
	"return redis.log(redis.LOG_DEBUG)",
	"return redis.log(9, 'x')",
	"return redis.log('x', 'x')",
	"return redis.set_repl(9)",
	"return redis.set_repl(redis.REPL_ALL)",
	"return redis.breakpoint()",
	"return redis.debug('x')",
	"return redis.replicate_commands()",
	"return redis.REDIS_VERSION",
	"return redis.REDIS_VERSION_NUM",
	"return a",
	"a = 10",
	"return 1 + {}",
	"return 'a' .. {}",
	"return ({}) .. 'a'",
	"return 'x' + 1",
	"return -{}",
	"return ('5' + 1) * 2",
	"local x = 5; return x.y",
	"local ok, e = pcall(function() return 1 + nil end); return e",
	"error('boom')",
	"error('boom', 0)",
	"error({err='X y'})",
	"error({err='X y'}, 0)",
	"local t = redis.pcall('nosuchcommand'); return t.err",
	"local ok, e = pcall(redis.call, 'nosuchcommand'); return {tostring(ok), e}",
	"local ok, e = pcall(error, {err='ERR tbl'}); return e",
	"local status, res = pcall(function() return foo end); return res",
	"return tostring(1e15)",
	"return tostring(0.1)",
	"return tostring(-0.0)",
	"return tostring(1/3)",
	"return tostring(2^53)",
	"return tostring(math.huge)",
	"math.randomseed(10); return tostring(math.random())",
	"math.randomseed(10); return {math.random(10), math.random(5, 20)}",
	"math.randomseed(-3); return tostring(math.random())",
	"setmetatable(_G, {})",
	"local g = getmetatable(_G); g.__index = {}",
	"redis = function() return 1 end",
	"_G = {}",
	"redis.call = function() return 1 end",
	"cjson.encode = function() return 1 end",
	"cmsgpack.pack = function() return 1 end",
	"bit.lshift = function() return 1 end",
	"string.format = nil",
	"rawset(_G, 'x', 1)",
	"rawset(redis, 'x', 1)",
	"table.insert(string, 1)",
	"loadfile('some file')",
	"dofile('some file')",
	"print('some data')",
	"return os",
	"return io",
	"return require",
	"return package",
	"return debug",
	"return module",
	"return type(loadstring)",
	"return loadstring('return 1 + 1')()",
	"return loadstring('x = 1')()",
	"return 'hello' --trailing comment",
	"local function f(n) return f(n + 1) + 1 end return f(1)",
	"local function f(n) if n == 0 then return 0 end return f(n - 1) + 1 end return f(150)",
	"local a = {} for i = 1, 7999 do a[i] = 1 end return #{unpack(a)}",
	"return string.format('%d %5.1f %x %q', 3.7, 2.25, 255, 'a\\nb')",
	"return {tonumber('0x10'), tonumber('  12  '), tonumber('1e2'), tonumber('z'), tonumber('10', 2)}",
	"return string.len(string.rep('ab', 1000))",
	"return {pcall(string.rep, 'x', -1)}",
	"return select('#', 1, nil, 3)",
	"return math.floor(-3.5) .. ' ' .. math.ceil(-3.5) .. ' ' .. math.fmod(7, 3)",
	"return tostring(10 / 4) .. ' ' .. tostring(2^31) .. ' ' .. tostring(-7 % 3)",
	"return table.concat({1, 2.5, 'x'}, ',')",
	"local t = {3, 1, 2}; table.sort(t); return t",
	"local t = {3, 1, 2}; table.sort(t, function(a, b) return a > b end); return t",
	"local t = {1, 2}; table.insert(t, 3); table.insert(t, 1, 0); table.remove(t, 2); return t",
	"return {string.find('hello world', 'o w'), string.match('key:123', '(%a+):(%d+)')}",
	"return (string.gsub('hello', 'l', 'L'))",
	"local r = {} for w in string.gmatch('a b c', '%a') do r[#r+1] = w end return r",
	"return {xpcall(function() error('x') end, function(e) return 'handled: ' .. e end)}",
	"return type(collectgarbage('count'))",
	"return _VERSION",
	"local n = 0 table.foreach({a=1, b=2}, function(k, v) n = n + v end) return n",
	"return table.foreachi({5, 6}, function(i, v) if v == 6 then return i end end)",
	"return {pcall(table.setn, {}, 1)}",
	"return type(__redis__err__handler)",
	"local t = {} for k in pairs(_G) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(redis) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(math) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(table) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(string) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(cjson) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(cmsgpack) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(bit) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(struct) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local t = {} for k in pairs(coroutine) do t[#t+1] = k end table.sort(t) return table.concat(t, ' ')",
	"local a = {}; setmetatable(a,{__index=function() foo() end}) return a",
	"return {type(KEYS), #KEYS, type(ARGV), #ARGV}",
	"KEYS[1] = 'x'; return KEYS[1]",
	"return cjson.encode({})",
	"return cjson.encode({1,2,3})",
	"return cjson.encode({a=1})",
	"return cjson.encode('a/b\"c\\\\d\\n\\1\\127')",
	"return cjson.encode(0.1)",
	"return cjson.encode(1e100)",
	"return cjson.encode(123456789012345)",
	"return cjson.encode(-2.5)",
	"return cjson.encode({[1]='a',[3]='c'})",
	"return cjson.encode({[1]='a',[30]='c'})",
	"return cjson.encode(cjson.null)",
	"return cjson.encode(true)",
	"return {pcall(cjson.encode, {[true]=1})}",
	"return {pcall(cjson.encode, 0/0)}",
	"return {pcall(cjson.encode, print)}",
	"return table.concat(cjson.decode('[0.0, -5e3, -1, 0.3e-3, 1023.2, 0e10]'), ' ')",
	"local d = cjson.decode('{\"keya\": \"a\", \"keyb\": \"b\"}'); return {d.keya, d.keyb}",
	"return tostring(cjson.decode('null') == cjson.null)",
	"return cjson.decode('\"\\\\u00e9\\\\ud83d\\\\ude00\"')",
	"return {pcall(cjson.decode, '[1,2')}",
	"return {pcall(cjson.decode, '{1:2}')}",
	"return {pcall(cjson.decode, '')}",
	"return {pcall(cjson.decode, 'nope')}",
	"return {pcall(cjson.decode, '[1] x')}",
	"return cjson.decode('[1,[2,[3]]]')[2][2][1]",
	"return cjson.encode_max_depth()",
	"return {cjson.encode_sparse_array()}",
	"local s = cmsgpack.pack(0.1); return s",
	"return cmsgpack.pack(-1099511627776)",
	"return cmsgpack.pack(1, -1, 200, -200, 70000, -70000, 5000000000, 1.5, 'abc', true, false)",
	"return cmsgpack.pack({1,2,3}, {a=1}, {})",
	"return cmsgpack.pack(string.rep('x', 40), string.rep('y', 300))",
	"return {cmsgpack.unpack(cmsgpack.pack(1, 'two', {3}, {x=4}))}",
	"return {cmsgpack.unpack_one(cmsgpack.pack(1, 2), 0)}",
	"return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2, 0)}",
	"return {pcall(cmsgpack.unpack, '\\205')}",
	"return {pcall(cmsgpack.unpack, '\\193')}",
	"local a = {x=nil,y=5}; local b = {x=a}; a['x'] = b; return cmsgpack.pack(a)",
	"return {bit.tobit(1), bit.tobit(2^32+3), bit.tobit(-1), bit.tobit(0xffffffff)}",
	"return {bit.band(1), bit.bxor(1,2), bit.bor(1,2,4,8,16,32,64,128)}",
	"return {bit.bnot(0), bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4)}",
	"return {bit.rol(0x12345678, 8), bit.ror(0x12345678, 8), bit.bswap(0x12345678)}",
	"return {bit.tohex(255), bit.tohex(-1), bit.tohex(255, 2), bit.tohex(255, -4)}",
	"return {bit.tobit(1.5), bit.tobit(2.5), bit.tobit(-1.5)}",
	"return struct.pack('>I2', 258)",
	"return struct.pack('<i4', -2)",
	"return struct.pack('bBhHlL', -1, 255, -2, 65535, -3, 4)",
	"return struct.pack('!4 b i4', 1, 2)",
	"return struct.pack('s', 'abc')",
	"return struct.pack('c5', 'abcdefg')",
	"return struct.pack('c0', 'abcdefg')",
	"return struct.pack('d', 1.5)",
	"return struct.pack('>f', 1.5)",
	"return {struct.unpack('>I2', '\\1\\2')}",
	"return {struct.unpack('<i4', struct.pack('<i4', -2))}",
	"return {struct.unpack('b s c2', '\\3abc\\0xyz')}",
	"return {struct.unpack('B c0', '\\3abcdef')}",
	"return {struct.unpack('d', struct.pack('d', 2.25))}",
	"return {struct.unpack('i4', 'abc', 1)}",
	"return {pcall(struct.unpack, 'i4', 'ab')}",
	"return struct.size('bhi4d')",
	"return struct.size('!8 b d')",
	"return {pcall(struct.size, 's')}",
	"return {pcall(struct.pack, 'q', 1)}",
	"return string.format('%d %s %5.2f', 3, 'x', 1.5)",
	"return string.rep('ab', 3)",
	"return {string.byte('abc', 1, 3)}",
	"return ('x'):upper()",
	"return tostring(getmetatable('').__index == string)",
	"getmetatable('').__index.upper = 1",
	"return unpack({1,2,3})",
	"return select('#', unpack({1,2,3}))",
	"return {unpack({1,2,3})}",
	"local t = {} ; for k, v in pairs(redis) do t[#t+1] = k end; return #t > 10",
	"local n = 0; for k, v in pairs(_G) do n = n + 1 end; return n > 10",
	"local f, s = pairs(_G); rawset(s, 'x', 1)",
	"return rawget(_G, 'redis') == redis",
	"return type(getfenv(0))",
	"getfenv(0).x = 1",
	"return coroutine.wrap(function() coroutine.yield(7) end)()",
	"return #redis.sha1hex('x')",
	"#!lua\nreturn 1",
	"#!lua flags=no-writes\nreturn 1",
	"#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 1",
	"#!lua flags=\nreturn 1",
	"#!not-lua\nreturn 1",
	"#!lua badger=data\nreturn 1",
	"#!lua flags=allow-oom,what?\nreturn 1",
	"#!lua",
	"#!lua \"unterminated\nreturn 1",
	"#!lua\nreturn a",
	"\nreturn a",
	"local t = {}\nt.x = 1\nreturn t.x.y.z",
	"local x = redis.call('get', '{probe}nokey'); return {type(x), tostring(x)}",
	"redis.call('set', '{probe}k', 'v'); return redis.call('get', '{probe}k')",
	"local r = redis.call('set', '{probe}k2', 'v'); return {type(r), r.ok}",
	"redis.call('set', '{probe}n', '5'); return {type(redis.call('incr', '{probe}n')), redis.call('incr', '{probe}n')}",
	"redis.call('set', '{probe}s', 'x'); return redis.pcall('incr', '{probe}s')",
	"redis.call('set', '{probe}s', 'x'); return redis.call('incr', '{probe}s')",
	"redis.call('set', '{probe}s', 'x'); local t = redis.pcall('incr', '{probe}s'); local n = 0; for k in pairs(t) do n = n + 1 end; return {t.err, n}",
}

// resp3Probes run for a caller that said HELLO 3.
var resp3Probes = []string{
	"return true",
	"return false",
	"return nil",
	"return {1, 2, {3}}",
	"return {ok='fine'}",
	"return {err='ERR bad'}",
	"return {double=3.5}",
	"return {double=0.1}",
	"return {double=1/0}",
	"return {big_number='12345678901234567890'}",
	"return {verbatim_string={format='txt', string='hello'}}",
	"return {map={a=1}}",
	"return {set={a=true}}",
	"redis.setresp(3); return true",
	"redis.setresp(3); return false",
	"redis.setresp(3); return nil",
	"redis.setresp(3); return {map={x={1, 2}}}",
	"redis.setresp(3); return redis.call('ping')",
	"redis.setresp(3); return redis.call('get', '{probe}missing')",
	"redis.setresp(3); local r = redis.call('get', '{probe}missing'); return type(r)",
	"redis.setresp(2); local r = redis.call('get', '{probe}missing'); return type(r)",
	"return redis.call('get', '{probe}missing')",
	"return redis.pcall('nosuchcommand')",
	"return a",
}

// functionProbes are FUNCTION LOAD payloads, each followed by FCALL of
// the function named after the first newline-separated word "call=" in
// the probe key (empty: load only). The reference state is flushed first.
var functionProbes = []struct{ payload, call string }{
	{"#!lua name=lib1\nredis.register_function('f1', function(keys, args) return {keys[1], args[1]} end)", "f1"},
	{"#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() return redis.call('ping') end, flags={'no-writes'}}", "f1"},
	{"#!lua name=lib1\nlocal function p() return 'x' end\nredis.register_function('f1', function() return p() end)", "f1"},
	{"#!lua name=lib1\nredis.register_function('f1', function() return a end)", "f1"},
	{"#!lua name=lib1\nredis.register_function('f1', function() redis.register_function('f2', function() end) end)", "f1"},
	{"#!lua name=lib1\nlocal lib = redis\nredis.register_function('f1', function() lib.register_function('f2', function() end) end)", "f1"},
	{"#!lua name=lib1\nlocal lib = redis\nredis.register_function('f1', function() lib.redis = redis end)", "f1"},
	{"#!lua name=lib1\nredis.register_function('f1', function() mt = getmetatable(_G) end)", "f1"},
	{"#!lua name=lib1\nredis.register_function('f1', function() return redis.REDIS_VERSION end)", "f1"},
	{"#!lua name=lib1\nredis.register_function('f1', function() return math.random(100) end)", "f1"},
	{"#!lua name=lib1\nredis.register_function('F1', function() return 1 end)", "f1"},
	{"#!lua name=lib1\nredis.register_function()", ""},
	{"#!lua name=lib1\nredis.register_function('f1')", ""},
	{"#!lua name=lib1\nredis.register_function('f1', function() return 1 end, {}, 'd', 'x')", ""},
	{"#!lua name=lib1\nredis.register_function(nil, function() return 1 end)", ""},
	{"#!lua name=lib1\nredis.register_function('f1', 'not a function')", ""},
	{"#!lua name=lib1\nredis.register_function('te-st', function() return 1 end)", ""},
	{"#!lua name=lib1\nredis.register_function('', function() return 1 end)", ""},
	{"#!lua name=lib1\nredis.register_function('f1', function() end)\nredis.register_function('f1', function() end)", ""},
	{"#!lua name=lib1\nredis.register_function{function_name=1, callback=function() end}", ""},
	{"#!lua name=lib1\nredis.register_function{function_name={}, callback=function() end}", ""},
	{"#!lua name=lib1\nredis.register_function{function_name='f1', callback='x'}", ""},
	{"#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() end, description={}}", ""},
	{"#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() end, flags='no-writes'}", ""},
	{"#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() end, flags={'bad'}}", ""},
	{"#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() end, flags={1}}", ""},
	{"#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() end, other=1}", ""},
	{"#!lua name=lib1\nredis.register_function{callback=function() end}", ""},
	{"#!lua name=lib1\nredis.register_function{function_name='f1'}", ""},
	{"#!lua name=lib1\nreturn math.random()", ""},
	{"#!lua name=lib1\nreturn redis.call('ping')", ""},
	{"#!lua name=lib1\nreturn redis.setresp(3)", ""},
	{"#!lua name=lib1\nredis.math.random()", ""},
	{"#!lua name=lib1\nmt = getmetatable(_G)", ""},
	{"#!lua name=lib1\na = 1", ""},
	{"#!lua name=lib1\nreturn 1", ""},
	{"#!lua name=lib1\nbad script", ""},
	{"#!lua name=lib1\nlocal a = 1 while true do a = a + 1 end", ""},
	{"#!lua name=lib1\nredis.log(redis.LOG_DEBUG, 'x') redis.register_function('f1', function() return 1 end)", "f1"},
	{"#!lua name=bad-name\nredis.register_function('f1', function() end)", ""},
	{"#!lua name=\"quoted\"\nredis.register_function('f1', function() end)", ""},
	{"#! name=x\nredis.register_function('f1', function() end)", ""},
	{"#!bad_engine name=x\nredis.register_function('f1', function() end)", ""},
	{"#!LUA name=x\nredis.register_function('f1', function() end)", ""},
	{"#!lua name=x foo=bar\nredis.register_function('f1', function() end)", ""},
	{"#!lua\nredis.register_function('f1', function() end)", ""},
	{"#!lua name=a name=b\nredis.register_function('f1', function() end)", ""},
	{"no shebang", ""},
	{"#!lua name=x", ""},
}

func respCommand(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

type golden struct {
	Kind   string `json:"kind"` // eval, load or fcall
	Script string `json:"script"`
	Reply  string `json:"reply"` // strconv.Quote of the raw reply
}

const goldenPath = "testdata/reference_replies.json"

var update = flag.Bool("update", false, "rewrite "+goldenPath+" from the server at SCRIPTING_REDIS_ADDR")

// knownDifferences are probes whose text differs from the reference for a
// documented reason: gopher-lua words its own runtime errors differently,
// and chunks made by loadstring report their source differently.
var knownDifferences = map[string]string{
	"local t = {}\nt.x = 1\nreturn t.x.y.z": "the reference names the indexed field; gopher-lua does not track it",
	"local x = 5; return x.y":               "the reference names the indexed local; gopher-lua does not track it",
	"return -{}":                            "gopher-lua's unary minus error text",
	"local function f(n) return f(n + 1) + 1 end return f(1)":                                                      "the overflow has no position",
	"return string.format('%d %5.1f %x %q', 3.7, 2.25, 255, 'a\\nb')":                                              "gopher-lua's %q escapes a newline as \\n",
	"return loadstring('x = 1')()":                                                                                 "source of a loadstring chunk in the error suffix",
	"#!lua name=lib1\nredis.register_function('f1', function() redis.register_function('f2', function() end) end)": "gopher-lua's call error text",
	"#!lua name=lib1\nbad script":                                                                                  "gopher-lua's parser words syntax errors differently",
}

// TestReferenceReplies runs every probe and compares the raw reply with
// the reference server's, recorded in testdata by
// "go test -run TestReferenceReplies -update" with SCRIPTING_REDIS_ADDR
// pointing at a scratch redis-server 7.0.15 (its keys {probe}* and its
// functions are overwritten).
func TestReferenceReplies(t *testing.T) {
	if *update {
		recordGolden(t)
	}
	raw, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var want []golden
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	e := New(Config{})
	defer e.Close()
	f := newFake(e)
	mismatches := 0
	for _, g := range ourReplies(t, e, f) {
		w := want[0]
		want = want[1:]
		if w.Reply, err = strconv.Unquote(w.Reply); err != nil {
			t.Fatalf("golden reply of %q: %v", w.Script, err)
		}
		if w.Script != g.Script || w.Kind != g.Kind {
			t.Fatalf("golden file out of date at %q; run with -update", g.Script)
		}
		if reason, ok := knownDifferences[g.Script]; ok {
			t.Logf("known difference (%s): %q", reason, g.Script)
			continue
		}
		if g.Reply != w.Reply {
			mismatches++
			t.Errorf("%s %q\n got  %q\n want %q", g.Kind, g.Script, g.Reply, w.Reply)
		}
	}
	if len(want) != 0 {
		t.Fatalf("golden file has %d extra entries; run with -update", len(want))
	}
}

// ourReplies runs the probes on the engine.
func ourReplies(t *testing.T, e *Engine, f *fakeServer) []golden {
	var out []golden
	for _, p := range probes {
		out = append(out, golden{"eval", p, evalReply(t, e, f, 2, p, nil, nil)})
	}
	for _, p := range resp3Probes {
		out = append(out, golden{"eval3", p, evalReply(t, e, f, 3, p, nil, nil)})
	}
	for _, p := range functionProbes {
		e.FlushLibraries()
		w := codec.Writer{Proto: 2}
		if name, err := e.LoadLibrary([]byte(p.payload), true); err != nil {
			w.Error(err.Error())
		} else {
			w.BulkString(name)
		}
		out = append(out, golden{"load", p.payload, string(w.Buf)})
		if p.call != "" {
			w.Reset()
			if fn, ok := e.Function(p.call); ok {
				e.Fcall(&w, fn, &Invocation{Keys: bytesList([]string{"k"}), Args: bytesList([]string{"a"}), Call: f.call})
			} else {
				w.Error("ERR Function not found")
			}
			out = append(out, golden{"fcall", p.payload, string(w.Buf)})
		}
	}
	return out
}

func recordGolden(t *testing.T) {
	addr := os.Getenv("SCRIPTING_REDIS_ADDR")
	if addr == "" {
		t.Fatal("-update needs SCRIPTING_REDIS_ADDR")
	}
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close()
	rd := bufio.NewReader(conn)
	do := func(args ...string) string {
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write([]byte(respCommand(args...))); err != nil {
			t.Fatal(err)
		}
		r, err := readRaw(rd)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return r
	}
	var out []golden
	for _, p := range probes {
		out = append(out, golden{"eval", p, do("EVAL", p, "0")})
	}
	do("HELLO", "3")
	for _, p := range resp3Probes {
		out = append(out, golden{"eval3", p, do("EVAL", p, "0")})
	}
	do("HELLO", "2")
	for _, p := range functionProbes {
		do("FUNCTION", "FLUSH")
		out = append(out, golden{"load", p.payload, do("FUNCTION", "LOAD", "REPLACE", p.payload)})
		if p.call != "" {
			out = append(out, golden{"fcall", p.payload, do("FCALL", p.call, "1", "k", "a")})
		}
	}
	do("FUNCTION", "FLUSH")
	for i := range out {
		out[i].Reply = strconv.Quote(out[i].Reply)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenPath, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readRaw reads one complete RESP2 or RESP3 reply as raw bytes.
func readRaw(rd *bufio.Reader) (string, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return "", err
	}
	out := line
	n, _ := strconv.Atoi(line[1 : len(line)-2])
	elems := 0
	switch line[0] {
	case '$', '=', '!':
		if n >= 0 {
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(rd, buf); err != nil {
				return "", err
			}
			out += string(buf)
		}
	case '*', '~', '>':
		elems = n
	case '%':
		elems = 2 * n
	case '|':
		elems = 2*n + 1
	}
	for i := 0; i < elems; i++ {
		s, err := readRaw(rd)
		if err != nil {
			return "", err
		}
		out += s
	}
	return out, nil
}
