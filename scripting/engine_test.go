package scripting

import (
	"strings"
	"testing"
)

func TestSmoke(t *testing.T) {
	e := New(Config{})
	defer e.Close()
	f := newFake(e)
	for _, c := range []string{
		"return 'hello'",
		"return a",
		"a = 1",
		"return 1+nil",
		"return redis.call('nosuch')",
		"error('boom')",
		"error({err='X y'})",
		"return tostring(math.random())",
		"return tostring(math.random())",
		"return {1,2,3,nil,4}",
		"return redis.pcall('incr','x')",
		"return _G",
		"setmetatable(_G, {})",
		"local g = getmetatable(_G); g.__index = {}",
		"redis = function() return 1 end",
		"_G = {}",
		"redis.call = function() return 1 end",
		"bit.lshift = function() return 1 end",
		"loadfile('x')",
		"print('x')",
		"return loadstring(string.dump(function() return 1 end))()",
		"local t = redis.pcall('incr','x'); return t.err",
		"local status, res = pcall(function() return foo end); return 'status: ' .. tostring(status) .. ' result: ' .. res",
		"return redis.call()",
		"return redis.sha1hex('Pizza & Mandolino')",
		"while true do end",
	} {
		if strings.Contains(c, "while true") {
			continue
		}
		if c == "return redis.pcall('incr','x')" {
			f.data["x"] = "y"
		}
		t.Logf("%-60q -> %q", c, evalReply(t, e, f, 2, c, nil, nil))
	}
}
