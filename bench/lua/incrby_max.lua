-- INCRBY key n MAX limit, for redis-server 7 (bench/keyjobs.sh).
-- EVALSHA sha 1 key n limit
-- Adds n only when the result stays at or below limit and returns it; otherwise nil and
-- nothing is written.
local n, lim = tonumber(ARGV[1]), tonumber(ARGV[2])
if not n or n % 1 ~= 0 or not lim or lim % 1 ~= 0 then
	return redis.error_reply('ERR value is not an integer or out of range')
end
local v = redis.call('GET', KEYS[1])
local cur = 0
if v then
	if not string.find(v, '^%-?%d+$') then
		return redis.error_reply('ERR value is not an integer or out of range')
	end
	cur = tonumber(v)
end
if cur + n > lim then return false end
return redis.call('INCRBY', KEYS[1], n)
