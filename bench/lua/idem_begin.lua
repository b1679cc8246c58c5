-- IDEM key BEGIN fingerprint owner ttl_ms, for redis-server 7 (bench/keyjobs.sh).
-- EVALSHA sha 1 key fingerprint owner ttl_ms
-- The record is a hash: s = 'P' (pending) or 'C' (completed), fp, owner, r (result);
-- the key's TTL is the retention. Replies like the native command:
-- {'acquired'}, {'pending'}, {'conflict'} or {'completed', result}.
-- Not checked (the native command is stricter): a hash without the fields, and a record
-- whose TTL was removed (that would cost one more call, PTTL, on every BEGIN).
local fp, owner, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
if #fp < 1 or #fp > 128 then return redis.error_reply('ERR IDEM fingerprint must be 1-128 bytes') end
if #owner < 1 or #owner > 128 then return redis.error_reply('ERR IDEM owner must be 1-128 bytes') end
if not ttl or ttl % 1 ~= 0 or ttl < 1 or ttl > 604800000 then
	return redis.error_reply('ERR IDEM ttl_ms must be an integer from 1 to 604800000')
end
local r = redis.call('HMGET', KEYS[1], 's', 'fp', 'r')
if not r[1] then
	redis.call('HSET', KEYS[1], 's', 'P', 'fp', fp, 'owner', owner)
	redis.call('PEXPIRE', KEYS[1], ttl)
	return {'acquired'}
end
if r[2] ~= fp then return {'conflict'} end
if r[1] == 'P' then return {'pending'} end
return {'completed', r[3]}
