-- IDEM key COMPLETE fingerprint owner result, for redis-server 7 (bench/keyjobs.sh).
-- EVALSHA sha 1 key fingerprint owner result
-- Publishes result on a live pending record with the same fingerprint and owner, keeping
-- its TTL (HSET does not touch it): 1; an identical repeat: 1 without a write; a missing
-- record, another fingerprint or owner, or a different result on a completed record: 0.
local fp, owner, res = ARGV[1], ARGV[2], ARGV[3]
if #fp < 1 or #fp > 128 then return redis.error_reply('ERR IDEM fingerprint must be 1-128 bytes') end
if #owner < 1 or #owner > 128 then return redis.error_reply('ERR IDEM owner must be 1-128 bytes') end
if #res > 4194304 then return redis.error_reply('ERR IDEM result exceeds 4194304 bytes') end
local r = redis.call('HMGET', KEYS[1], 's', 'fp', 'owner', 'r')
if not r[1] or r[2] ~= fp or r[3] ~= owner then return 0 end
if r[1] == 'C' then
	if r[4] == res then return 1 end
	return 0
end
redis.call('HSET', KEYS[1], 's', 'C', 'r', res)
return 1
