-- CL.THROTTLE key max_burst count_per_period period [quantity], for redis-server 7
-- (bench/keyjobs.sh): the generic cell rate algorithm as redis-cell runs it, in a script.
-- EVALSHA sha 1 key max_burst count period [quantity]
-- The key holds the theoretical arrival time (TAT) in microseconds (Lua's numbers are
-- doubles: nanoseconds would lose precision) and expires when the limiter is full again.
-- Reply: {limited, max_burst + 1, remaining, retry_after s (-1 when admitted), reset_after s}.
local burst, count, period = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local qty = tonumber(ARGV[4] or '1')
if not burst or not count or not period or not qty then
	return redis.error_reply('Cell error: Couldn\'t parse as integer')
end
if count == 0 or period == 0 then return redis.error_reply('Cell error: Zero rates are not supported') end
local emission = math.floor(period * 1e6 / count) -- microseconds between calls
local dvt = emission * (burst + 1)
local inc = emission * qty
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1e6 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new = tat + inc
local diff = now - (new - dvt)
local limited, retry, ttl = 0, -1, 0
if diff < 0 then
	if inc <= dvt then retry = math.ceil(-diff / 1e6) end
	limited, ttl = 1, tat - now
else
	ttl = new - now
	if ttl >= 1000 then
		redis.call('SET', KEYS[1], string.format('%d', new), 'PX', math.floor(ttl / 1000))
	end
end
local remaining = 0
if dvt - ttl > -emission then remaining = math.floor((dvt - ttl) / emission) end
return {limited, burst + 1, remaining, retry, math.ceil(ttl / 1e6)}
