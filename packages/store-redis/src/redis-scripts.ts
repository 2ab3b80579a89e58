import { RUNNABLE_STATUSES, STORED_STATUSES } from '@fate/core';
import { RedisScript } from './redis-script.js';

// Every change that touches more than one key is one of these scripts, so a record, its
// reservation and every index move together: Redis runs a script with nothing in between.
// The record scripts take KEYS in the order of `recordScriptKeys`:
//   1 the transaction hash, 2 runnable, 3 deferred, 4 reservations, 5..10 status sets.
// A transaction is in `runnable` or `deferred` exactly when its status is runnable and it
// is unreserved; in `deferred` when its stored deferUntil is set (> 0).

const PRELUDE = `
local STATUS_KEY = {${STORED_STATUSES.map((s, i) => `${s} = ${i + 5}`).join(', ')}}
local RUNNABLE = {${[...RUNNABLE_STATUSES].map((s) => `${s} = true`).join(', ')}}

local function unindex_status(id)
  for i = 5, 10 do redis.call('SREM', KEYS[i], id) end
end

local function index_status(id, status)
  unindex_status(id)
  local k = STATUS_KEY[status]
  if k then redis.call('SADD', KEYS[k], id) end
end

local function unschedule(id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end

-- For an unreserved record: where work finders will see it, if anywhere.
-- defer_until is the stored text, passed on as is so no precision is lost.
local function schedule(id, status, defer_until)
  unschedule(id)
  if RUNNABLE[status] then
    if (tonumber(defer_until) or 0) > 0 then
      redis.call('ZADD', KEYS[3], defer_until, id)
    else
      redis.call('ZADD', KEYS[2], 0, id)
    end
  end
end

-- Fencing: true only when the stored reservation is exactly (lock, uuid).
local function held_by(lock, uuid)
  local r = redis.call('HMGET', KEYS[1], 'res_lock', 'res_uuid')
  return r[1] == lock and r[2] == uuid
end

local function release(id)
  redis.call('HDEL', KEYS[1], 'res_lock', 'res_uuid')
  redis.call('HDEL', KEYS[4], id)
end
`;

/** ARGV: id, status, stack, info, wake-up channel. Returns 1 if inserted, 0 if the id exists. */
const INSERT = `${PRELUDE}
local id, status = ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'status', status, 'stack', ARGV[3], 'info', ARGV[4], 'defer_until', '0')
index_status(id, status)
schedule(id, status, '0')
if status == 'SUBMITTED' then redis.call('PUBLISH', ARGV[5], id) end
return 1
`;

/**
 * ARGV: id, lockId, uuid. Returns 'absent', 'held', or the reserved record as
 * [status, stack, info, defer_until]. Taking it again with the same reservation is a retry.
 */
const TRY_RESERVE = `${PRELUDE}
local id, lock, uuid = ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', KEYS[1]) == 0 then return 'absent' end
local r = redis.call('HMGET', KEYS[1], 'status', 'stack', 'info', 'defer_until', 'res_lock', 'res_uuid')
if r[5] and (r[5] ~= lock or r[6] ~= uuid) then return 'held' end
redis.call('HSET', KEYS[1], 'res_lock', lock, 'res_uuid', uuid)
redis.call('HSET', KEYS[4], id, cjson.encode({lock, uuid}))
unschedule(id)
return {r[1] or '', r[2] or '', r[3] or '', r[4] or '0'}
`;

/**
 * ARGV: id, lockId, uuid, mode ('delete' | 'update'), status ('' = unchanged),
 * has stack ('1'/'0'), stack, has info, info, release ('1'/'0'), deferUntil.
 * Returns 1 when applied, 0 when the reservation is not (lockId, uuid): fenced.
 */
const WRITE = `${PRELUDE}
local id = ARGV[1]
if not held_by(ARGV[2], ARGV[3]) then return 0 end
if ARGV[4] == 'delete' then
  redis.call('DEL', KEYS[1])
  unindex_status(id)
  unschedule(id)
  redis.call('HDEL', KEYS[4], id)
  return 1
end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'status', ARGV[5])
  index_status(id, ARGV[5])
end
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'stack', ARGV[7]) end
if ARGV[8] == '1' then redis.call('HSET', KEYS[1], 'info', ARGV[9]) end
if ARGV[10] == '1' then
  release(id)
  redis.call('HSET', KEYS[1], 'defer_until', ARGV[11])
  schedule(id, redis.call('HGET', KEYS[1], 'status'), ARGV[11])
end
return 1
`;

/** ARGV: id, lockId, uuid. Clears the reservation only if it is still (lockId, uuid). */
const CLEAR_RESERVATION = `${PRELUDE}
local id = ARGV[1]
if not held_by(ARGV[2], ARGV[3]) then return 0 end
release(id)
local r = redis.call('HMGET', KEYS[1], 'status', 'defer_until')
schedule(id, r[1], r[2] or '0')
return 1
`;

/**
 * KEYS: runnable, deferred. ARGV: now, lex min, lex max, transaction key prefix.
 * First makes due deferrals runnable, then reads only the lex range of `runnable`.
 * Each member's hash is checked too, so a record corrupted behind the store's back is
 * never handed out as work. Returns {ids, itemsRead, next deferral or ''}.
 */
const SCAN = `
local RUNNABLE = {${[...RUNNABLE_STATUSES].map((s) => `${s} = true`).join(', ')}}
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[1], 0, id)
end
local members = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[2], ARGV[3])
local ids = {}
for _, id in ipairs(members) do
  local r = redis.call('HMGET', ARGV[4] .. id, 'status', 'res_lock')
  if r[1] and RUNNABLE[r[1]] and not r[2] then ids[#ids + 1] = id end
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local read = #members + #due + #first / 2
return {ids, read, first[2] or ''}
`;

/** KEYS: instance key, instances. ARGV: id, timeoutMs, expiresAt, forget-before. */
const HEARTBEAT = `
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
-- Long-dead entries are dropped here, so the set stays small without a sweeper.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4])
return 1
`;

/** KEYS: instance key, instances. ARGV: id. */
const REMOVE_INSTANCE = `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

/** The scripts of a Redis store, by operation. */
export const SCRIPTS = Object.freeze({
  insert: new RedisScript('insert', INSERT),
  tryReserve: new RedisScript('tryReserve', TRY_RESERVE),
  write: new RedisScript('write', WRITE),
  clearReservation: new RedisScript('clearReservation', CLEAR_RESERVATION),
  scan: new RedisScript('scan', SCAN),
  heartbeat: new RedisScript('heartbeat', HEARTBEAT),
  removeInstance: new RedisScript('removeInstance', REMOVE_INSTANCE),
});
