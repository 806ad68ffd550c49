package redis

import (
	goredis "github.com/redis/go-redis/v9"
)

// appendScript is the one script that appends: idempotency, optimistic
// concurrency and the append itself, atomically (Redis runs a script with no
// other command in between).
//
// Redis's Lua has no SHA-256, so the client computes the new projection
// digest from the head it last saw (ARGV[5], the snapshot) and the script
// appends only if the head is still exactly that snapshot; otherwise it
// answers "stale" with the current head and the client recomputes. The
// stored chain is therefore always P(v) = sha256(P(v-1) || E(v)) of the
// stored predecessor.
//
// Every key is read before anything is written, so a key of the wrong type
// (a foreign or damaged store) fails the script before it writes: Redis does
// not roll a script back. The events list is written without being read
// first: RPUSH fails on a key of another type before its writes, and the
// list's agreement with the head is checked on every read instead of on
// every append (the hot path is five commands).
//
//	KEYS: 1 events list, 2 idempotency hash, 3 heads hash, 4 keys sorted set
//	ARGV: 1 expected version or "", 2 idempotency key, 3 event digest,
//	      4 aggregate_id, 5 snapshot head record ("" for none), 6 element,
//	      7 new head record, 8 idempotency value "<version>\x1f<digest>"
//
// Answers: {"committed"}, {"replayed", element}, {"idempotency_conflict",
// head}, {"version_conflict", head}, {"stale", head}, {"corrupt", head}.
const appendScript = `
local existing = redis.call('HGET', KEYS[2], ARGV[2])
local head = redis.call('HGET', KEYS[3], ARGV[4]) or ''
if existing then
  local version, digest = string.match(existing, '^(%d+)\031(.*)$')
  if not version then return {'corrupt', head} end
  if digest ~= ARGV[3] then return {'idempotency_conflict', head} end
  local element = redis.call('LINDEX', KEYS[1], tonumber(version) - 1)
  if not element then return {'corrupt', head} end
  return {'replayed', element}
end
local current = 0
if head ~= '' then
  current = tonumber(string.match(head, '^(%d+)\031'))
  if not current then return {'corrupt', head} end
end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= current then return {'version_conflict', head} end
if head ~= ARGV[5] then return {'stale', head} end
if current == 0 then
  redis.call('ZSCORE', KEYS[4], ARGV[4])
  if redis.call('TYPE', KEYS[1]).ok ~= 'none' then return {'corrupt', head} end
end
redis.call('RPUSH', KEYS[1], ARGV[6])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[8])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[7])
if current == 0 then redis.call('ZADD', KEYS[4], 0, ARGV[4]) end
return {'committed'}
`

var appendLua = goredis.NewScript(appendScript)
