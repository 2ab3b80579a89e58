import { indexPrelude, LUA_SERVER_NOW } from './redis-lua-fragments.js';
import { RedisScript } from './redis-script.js';

// Every change of a transaction is one of these scripts, so a record, its reservation and
// every index move together: Redis runs a script with nothing in between. They take
// KEYS in the order of `recordScriptKeys`: the transaction hash, then the shard's runnable set.
// Each gives the same answer when repeated after it applied (a lost reply is asked again).

/** What every record script starts with (KEYS: the transaction hash, the shard's runnable set). */
export const PRELUDE = `${LUA_SERVER_NOW}${indexPrelude(2)}
local TX = KEYS[1]

-- Fencing: true only when the stored reservation is exactly (lock, uuid); then the fields
-- res_lock, res_uuid and those named after them, read with it in one HMGET.
local function held_by(lock, uuid, ...)
  local r = redis.call('HMGET', TX, 'res_lock', 'res_uuid', ...)
  return r[1] == lock and r[2] == uuid, r
end

-- A fenced call that does not hold (lock, uuid): whatever the indexes still say of that
-- reservation, or of a record that is gone, is stale, and is repaired here.
local function fenced_off(id, lock, uuid)
  unhold(id, lock, uuid)
  if redis.call('EXISTS', TX) == 0 then forget(id) end
  return 0
end

local function release(id, lock, uuid)
  redis.call('HDEL', TX, 'res_lock', 'res_uuid')
  unhold(id, lock, uuid)
end
`;

/**
 * ARGV: id, status, stack, info, op, wake-up channel, deferMs ('0' or absent: none; else
 * deferUntil is the server's TIME now + deferMs), priority ('0' or absent: none stored,
 * read as 0). Returns 1 if inserted, 0 if the id
 * exists. Index entries left by a lost record of the same id are dropped first: every
 * record's id is in `ids` until its record is deleted, so an id already there is one whose
 * hash was lost or removed behind the store's back (forgetting it walks every index: most
 * of an insert's commands, paid only then).
 */
const INSERT = `${PRELUDE}
local id, status = ARGV[1], ARGV[2]
if redis.call('EXISTS', TX) == 1 then return 0 end
if redis.call('ZADD', IDS_KEY, 0, id) == 0 then
  forget(id)
  redis.call('ZADD', IDS_KEY, 0, id)
end
local defer, defer_until = tonumber(ARGV[7] or '0') or 0, '0'
if defer > 0 then defer_until = string.format('%.0f', math.ceil(server_now() + defer)) end
redis.call('HSET', TX, 'status', status, 'stack', ARGV[3], 'info', ARGV[4], 'op', ARGV[5], 'defer_until', defer_until)
local prio = tostring(level_of(ARGV[8]))
if prio ~= '0' then redis.call('HSET', TX, 'priority', prio) end
index_status(id, false, status)
recount(false, status, ARGV[5])
enqueue(id, status, defer_until, ARGV[5], prio) -- a new id, or one forget took out of every set
if status == 'SUBMITTED' then redis.call('PUBLISH', ARGV[6], id) end
return 1
`;

/**
 * ARGV: id, lockId, uuid, start ('1'/'0'). Returns 'absent', 'held', or the reserved
 * record as [status, stack, info, defer_until, priority]. With start (an engine takes it to run), a
 * SUBMITTED record also becomes IN_PROGRESS; the answer keeps the status as found. Taking it again with the same reservation is
 * a retry: it finds the record as the first attempt left it and answers the same.
 */
/** The reservation as a Lua function of its ARGV (a batch calls it for each of its calls). */
const TRY_RESERVE_FUNCTION = `
local function try_reserve(A)
  local id, lock, uuid = A[1], A[2], A[3]
  local r = redis.call('HMGET', TX, 'status', 'stack', 'info', 'defer_until', 'res_lock', 'res_uuid', 'priority', 'op')
  -- every record has a status: only a hash without one can be no record at all
  if not r[1] and redis.call('EXISTS', TX) == 0 then return 'absent' end
  if r[5] and (r[5] ~= lock or r[6] ~= uuid) then return 'held' end
  hold(id, lock, uuid)
  unschedule(id, r[7] or '0')
  if A[4] == '1' and r[1] == 'SUBMITTED' then
    index_status(id, r[1], 'IN_PROGRESS')
    recount(r[1], 'IN_PROGRESS', r[8])
    redis.call('HSET', TX, 'res_lock', lock, 'res_uuid', uuid, 'status', 'IN_PROGRESS')
  else
    redis.call('HSET', TX, 'res_lock', lock, 'res_uuid', uuid)
  end
  return {r[1] or '', r[2] or '', r[3] or '', r[4] or '0', r[7] or '0'}
end
`;

const TRY_RESERVE = `${PRELUDE}${TRY_RESERVE_FUNCTION}
return try_reserve(ARGV)
`;

/**
 * ARGV: id, lockId, uuid, mode ('delete' | 'update'), status ('' = unchanged),
 * has stack ('1'/'0'), stack, has info, info, release ('1'/'0'), deferMs, then the age-off
 * entry: mode ('0' keep, '1' remove, '2' set), stamp ('' = server clock), own retention ('').
 * Returns 1 when applied, 0 when the reservation is not (lockId, uuid): fenced. A release
 * computes deferUntil from the server's clock, so no client clock is ever stored.
 */
/** The write as a Lua function of its ARGV (a finish-and-claim calls it too). */
export const WRITE_FUNCTION = `
local function write_record(A)
  local id, lock, uuid = A[1], A[2], A[3]
  -- one read for the fence and for what the indexes need (a write changes neither op
  -- nor priority); the fields written go in one HSET
  local held, r = held_by(lock, uuid, 'status', 'op', 'priority')
  if not held then return fenced_off(id, lock, uuid) end
  local status, op = r[3], r[4]
  if A[4] == 'delete' then
    recount(status or '', false, op)
    redis.call('DEL', TX)
    forget(id)
    return 1
  end
  local set = {}
  if A[5] ~= '' then
    index_status(id, status or '', A[5])
    recount(status or '', A[5], op)
    status = A[5]
    set[#set + 1], set[#set + 2] = 'status', status
  end
  index_finished(id, TX, set, A[12] or '0', A[13] or '', A[14] or '')
  if A[6] == '1' then set[#set + 1], set[#set + 2] = 'stack', A[7] end
  if A[8] == '1' then set[#set + 1], set[#set + 2] = 'info', A[9] end
  local defer_until
  if A[10] == '1' then
    local defer = tonumber(A[11])
    defer_until = '0'
    if defer > 0 then defer_until = string.format('%.0f', math.ceil(server_now() + defer)) end
    set[#set + 1], set[#set + 2] = 'defer_until', defer_until
  end
  if #set > 0 then redis.call('HSET', TX, unpack(set)) end
  if defer_until then
    release(id, lock, uuid)
    -- held until now, so in no runnable or deferred set (the invariant of the indexes)
    enqueue(id, status, defer_until, op, r[5])
  end
  return 1
end
`;

const WRITE = `${PRELUDE}${WRITE_FUNCTION}
return write_record(ARGV)
`;

/** ARGV: id, lockId, uuid. Clears the reservation only if it is still (lockId, uuid). */
const CLEAR_RESERVATION = `${PRELUDE}
local id, lock, uuid = ARGV[1], ARGV[2], ARGV[3]
if not held_by(lock, uuid) then return fenced_off(id, lock, uuid) end
release(id, lock, uuid)
local r = redis.call('HMGET', TX, 'status', 'defer_until', 'op', 'priority')
enqueue(id, r[1], r[2] or '0', r[3], r[4]) -- held until now: in no runnable or deferred set
return 1
`;

/**
 * KEYS: the shard's runnable set (the other indexes are named after it). ARGV: transaction key
 * prefix, then ids whose hash was found missing. Takes each id that is still missing out of every
 * index; returns how many.
 */
const FORGET = `${indexPrelude(1)}
local n = 0
for i = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. ARGV[i]) == 0 then
    forget(ARGV[i])
    n = n + 1
  end
end
return n
`;

/**
 * Many calls of one record function (`fn`) in one script (issue 23: the calls of one tick,
 * `TickBatch`), all on one shard. KEYS: the first call's transaction hash, the shard's
 * runnable set, then the other calls' hashes, in order. ARGV: how many arguments each call
 * has, then each call's arguments in turn. Answers one reply per call, each as its own
 * script would; a call that raised an error answers [nil, message] and the calls after it
 * still run (an error in one call leaves what that call did so far, as alone).
 */
function batchOf(fn: string, body: string): string {
  return `${PRELUDE}${body}
local per = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS - 1 do
  if i > 1 then TX = KEYS[i + 1] end
  local first = 2 + (i - 1) * per
  local ok, res = pcall(${fn}, {unpack(ARGV, first, first + per - 1)})
  if ok then out[i] = res
  else out[i] = {false, type(res) == 'table' and tostring(res.err) or tostring(res)} end
end
return out
`;
}

/** The scripts that change transactions, by operation. */
export const RECORD_SCRIPTS = Object.freeze({
  insert: new RedisScript('insert', INSERT),
  tryReserve: new RedisScript('tryReserve', TRY_RESERVE),
  write: new RedisScript('write', WRITE),
  clearReservation: new RedisScript('clearReservation', CLEAR_RESERVATION),
  forget: new RedisScript('forget', FORGET),
  /** `write` of many records of one shard (`batchOf`). */
  writeMany: new RedisScript('writeMany', batchOf('write_record', WRITE_FUNCTION)),
  /** `tryReserve` of many records of one shard (`batchOf`). */
  tryReserveMany: new RedisScript('tryReserveMany', batchOf('try_reserve', TRY_RESERVE_FUNCTION)),
});
