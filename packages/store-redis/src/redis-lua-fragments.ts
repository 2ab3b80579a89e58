import {
  MAX_PRIORITY,
  MIN_PRIORITY,
  PRIORITY_LEVELS,
  RUNNABLE_STATUSES,
  STORED_STATUSES,
} from '@fate/core';
import { INDEX_SUFFIXES } from './redis-keys.js';

/**
 * Lua: the store's clock, `TIME` in epoch ms with its microseconds as the fraction. Redis 7
 * replicates scripts by their effects, so a script may read TIME and then write: replicas
 * and the AOF get the values written, never the call.
 */
export const LUA_SERVER_NOW = `
local function server_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
-- Lua numbers would reach Redis as integers (or %.14g text): times travel as text.
local function ms_text(ms)
  return string.format('%.3f', ms)
end
`;

/** Lua: the set of runnable statuses, `RUNNABLE[status]`. */
export const LUA_RUNNABLE = `local RUNNABLE = {${[...RUNNABLE_STATUSES].map((s) => `${s} = true`).join(', ')}}`;

const RUNNABLE_SUFFIX = ':runnable';

/** Lua: the name of the shard index key with this suffix (one of `INDEX_SUFFIXES`). */
function indexKey(suffix: string): string {
  if (!INDEX_SUFFIXES.includes(suffix)) throw new Error(`no index key ends in ${suffix}`);
  return suffix === RUNNABLE_SUFFIX ? 'RUNNABLE_KEY' : `TAG .. '${suffix}'`;
}

/** Lua: `TAG .. prefix .. <the looked-up value>`, checked against `INDEX_SUFFIXES` for each of `values`. */
function indexKeyOf(prefix: string, values: readonly (string | number)[]): string {
  for (const v of values) indexKey(`${prefix}${v}`);
  return `TAG .. '${prefix}' .. v`;
}

/**
 * Lua helpers over the indexes of one shard, whose runnable set is `KEYS[first]`. The
 * other index keys are built from its name (`INDEX_SUFFIXES`, as `ShardKeys.indexes`
 * names them): they share its hash tag, so its slot, and a call sends 1 key instead of
 * 24 (about 1 KB less for the client to build and send, and the server to parse, per call).
 *
 * The invariants they keep: an id is in `runnable` (as `<id>|<op>`) or `deferred` exactly
 * when its record has a runnable status and no reservation (`deferred` when its stored
 * deferUntil is set);
 * `reserved` and `holders` hold `(id, lock, uuid)` exactly when the record is reserved so;
 * an id is in the set of its stored status only.
 */
export function indexPrelude(first: number): string {
  const levels = PRIORITY_LEVELS.filter((p) => p !== 0);
  return `
${LUA_RUNNABLE}
local RUNNABLE_KEY = KEYS[${first}]
local TAG = string.sub(RUNNABLE_KEY, 1, -${RUNNABLE_SUFFIX.length + 1})
local DEFERRED_KEY, RESERVED_KEY, HOLDERS_KEY = ${indexKey(':deferred')}, ${indexKey(':reserved')}, ${indexKey(':holders')}
local FINISHED_KEY, DUE_KEY, IDS_KEY, COUNTS_KEY = ${indexKey(':finished')}, ${indexKey(':due')}, ${indexKey(':ids')}, ${indexKey(':counts')}
-- The set of each stored status, and the runnable set of each priority (issue 25; 0's is
-- RUNNABLE_KEY), named when first looked up: a call uses two or three of the 16, and
-- naming them all took about a microsecond of every call.
local STORED = {${STORED_STATUSES.map((s) => `${s} = true`).join(', ')}}
local STATUS_KEY = setmetatable({}, {__index = function(t, v)
  if not STORED[v] then return nil end
  t[v] = ${indexKeyOf(':status:', STORED_STATUSES)}
  return t[v]
end})
local MAX_LEVEL, MIN_LEVEL = ${MAX_PRIORITY}, ${MIN_PRIORITY}
local LEVEL_KEY = setmetatable({[0] = RUNNABLE_KEY}, {__index = function(t, v)
  if type(v) ~= 'number' or v % 1 ~= 0 or v < MIN_LEVEL or v > MAX_LEVEL then return nil end
  t[v] = ${indexKeyOf(':runnable:', levels)}
  return t[v]
end})
-- A stored priority ('' or absent: 0; anything else out of range reads as 0).
local function level_of(text)
  local p = tonumber(text or '0') or 0
  if LEVEL_KEY[p] then return p end
  return 0
end

-- The counts by status and op: one record of (old status, op) becomes one of (new, op);
-- false for none (an insert, a delete).
local function recount(old, new, op)
  op = op or ''
  if old and redis.call('HINCRBY', COUNTS_KEY, old .. '|' .. op, -1) <= 0 then
    redis.call('HDEL', COUNTS_KEY, old .. '|' .. op)
  end
  if new then redis.call('HINCRBY', COUNTS_KEY, new .. '|' .. op, 1) end
end

-- The age-off index entry of a write: mode '1' takes id out, '2' puts it in at its stamp
-- (at: '' = the server's clock) by finish time, or by due time with its own retention.
-- The hash field to set goes into set (name, value), which the caller writes.
local function index_finished(id, tx, set, mode, at, retain)
  if mode == '1' then
    redis.call('ZREM', FINISHED_KEY, id)
    redis.call('ZREM', DUE_KEY, id)
    redis.call('HDEL', tx, 'finished_at')
  elseif mode == '2' then
    local stamp = tonumber(at) or math.floor(server_now())
    local text = string.format('%.0f', stamp)
    set[#set + 1], set[#set + 2] = 'finished_at', text
    if retain ~= '' then
      redis.call('ZREM', FINISHED_KEY, id)
      redis.call('ZADD', DUE_KEY, string.format('%.0f', stamp + tonumber(retain)), id)
    else
      redis.call('ZREM', DUE_KEY, id)
      redis.call('ZADD', FINISHED_KEY, text, id)
    end
  end
end

local function unindex_status(id)
  for status in pairs(STORED) do redis.call('SREM', STATUS_KEY[status], id) end
end

-- Moves id from the set of status old to that of status new. An old status that is no
-- stored status (a field corrupted behind the store's back) may have left id anywhere.
local function index_status(id, old, new)
  local from = old and STATUS_KEY[old]
  if from then redis.call('SREM', from, id) elseif old then unindex_status(id) end
  local to = STATUS_KEY[new]
  if to then redis.call('SADD', to, id) end
end

-- Members of runnable are '<id>|<op>': a scan gets each id's op with the range read. Ids
-- are 36 characters and sort before '|', so lex bounds on ids still cut the set by id, and
-- every member of an id lies between '<id>|' and '<id>|\\255' (UTF-8 has no byte 255).
-- prio: the record's stored priority; nil: not known (a record gone), every level.
local function unschedule(id, prio)
  if prio == nil then
    for level = MAX_LEVEL, MIN_LEVEL, -1 do
      redis.call('ZREMRANGEBYLEX', LEVEL_KEY[level], '[' .. id .. '|', '(' .. id .. '|\\255')
    end
  else
    redis.call('ZREMRANGEBYLEX', LEVEL_KEY[level_of(prio)], '[' .. id .. '|', '(' .. id .. '|\\255')
  end
  redis.call('ZREM', DEFERRED_KEY, id)
end

-- For a record in no runnable or deferred set (reserved until now, or just inserted): where
-- work finders will see it, if anywhere. defer_until is the stored text, passed on as is so
-- no precision is lost. prio: the stored priority field (false/nil: 0), which picks the set.
local function enqueue(id, status, defer_until, op, prio)
  if RUNNABLE[status] then
    if (tonumber(defer_until) or 0) > 0 then
      redis.call('ZADD', DEFERRED_KEY, defer_until, id)
    else
      redis.call('ZADD', LEVEL_KEY[level_of(prio)], 0, id .. '|' .. (op or ''))
    end
  end
end

-- For an unreserved record that may be listed already: listed again where finders see it.
local function schedule(id, status, defer_until, op, prio)
  unschedule(id, prio or '0')
  enqueue(id, status, defer_until, op, prio)
end

local function hold(id, lock, uuid)
  redis.call('ZADD', RESERVED_KEY, 0, id .. '|' .. lock .. '|' .. uuid)
  redis.call('ZADD', HOLDERS_KEY, 0, lock .. '|' .. id .. '|' .. uuid)
end

local function unhold(id, lock, uuid)
  redis.call('ZREM', RESERVED_KEY, id .. '|' .. lock .. '|' .. uuid)
  redis.call('ZREM', HOLDERS_KEY, lock .. '|' .. id .. '|' .. uuid)
end

-- Takes an id whose record is gone out of every index (hygiene: a hash removed by hand
-- or lost must not stay listed forever). Lock ids and uuids never contain '|' or '~'.
local function forget(id)
  unindex_status(id)
  unschedule(id)
  redis.call('ZREM', FINISHED_KEY, id)
  redis.call('ZREM', DUE_KEY, id)
  redis.call('ZREM', IDS_KEY, id)
  for _, m in ipairs(redis.call('ZRANGEBYLEX', RESERVED_KEY, '[' .. id .. '|', '(' .. id .. '|~')) do
    local lock, uuid = string.match(m, '^[^|]*|([^|]*)|(.*)$')
    unhold(id, lock, uuid)
  end
end
`;
}
