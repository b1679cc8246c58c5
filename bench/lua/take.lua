-- TAKE key count, for redis-server 7 (bench/keyjobs.sh).
-- EVALSHA sha 1 key count
-- Subtracts count when the integer at key holds at least that much and returns the
-- remainder; a missing key or a shortfall returns nil and changes nothing.
local n = tonumber(ARGV[1])
if not n or n % 1 ~= 0 then return redis.error_reply('ERR value is not an integer or out of range') end
if n < 1 then return redis.error_reply('ERR count must be a positive integer') end
local v = redis.call('GET', KEYS[1])
if not v then return false end
if not string.find(v, '^%-?%d+$') then
	return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value')
end
if tonumber(v) < n then return false end
return redis.call('DECRBY', KEYS[1], n)
