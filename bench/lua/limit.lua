-- LIMIT key max window_ms, for redis-server 7 (bench/keyjobs.sh).
-- EVALSHA sha 1 key max window_ms
-- A fixed window: the counter's TTL is the window, set by the first call. Returns the
-- remaining allowance after this call, or nil when the window is full; a refused call does
-- not count (unlike MULTI INCR PEXPIRE EXEC, which counts every call).
local max, win = tonumber(ARGV[1]), tonumber(ARGV[2])
if not max or max % 1 ~= 0 or not win or win % 1 ~= 0 then
	return redis.error_reply('ERR value is not an integer or out of range')
end
if max < 1 then return redis.error_reply('ERR max must be a positive integer') end
if win < 1 then return redis.error_reply("ERR invalid expire time in 'limit' command") end
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c >= max then return false end
c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], win) end
return max - c
