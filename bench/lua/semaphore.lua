-- SEMAPHORE key max ttl_ms, for redis-server 7 (bench/keyjobs.sh).
-- EVALSHA sha 1 key max ttl_ms
-- Holders are members of a sorted set (member = token, score = the holder's deadline in
-- ms); the member 'last' holds the last token granted. Tokens of a new key start from the
-- clock in microseconds (not nanoseconds as natively: Lua numbers are doubles, exact only
-- below 2^53), so 'last' always scores above any ms deadline and ZREMRANGEBYSCORE never
-- drops it. The key's TTL is the latest holder deadline (a key without a TTL keeps none),
-- so the key goes away with its last holder. Returns the token, or nil when max holders are live.
local max, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
if not max or max % 1 ~= 0 or not ttl or ttl % 1 ~= 0 then
	return redis.error_reply('ERR value is not an integer or out of range')
end
if max < 1 then return redis.error_reply('ERR max must be a positive integer') end
if ttl < 1 then return redis.error_reply("ERR invalid expire time in 'semaphore' command") end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local last = redis.call('ZSCORE', KEYS[1], 'last')
local existed = last and true or false
if existed then
	redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
	if redis.call('ZCARD', KEYS[1]) - 1 >= max then return false end
	last = tonumber(last) + 1
else
	last = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local tok = string.format('%.0f', last)
redis.call('ZADD', KEYS[1], now + ttl, tok, tok, 'last')
if not existed then
	redis.call('PEXPIRE', KEYS[1], ttl)
else
	local pttl = redis.call('PTTL', KEYS[1])
	if pttl >= 0 and pttl < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
end
return last
