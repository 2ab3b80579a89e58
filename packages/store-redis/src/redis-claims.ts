import {
  type ClaimedRecord,
  compareRunnable,
  type IdRange,
  type Reservation,
  type ServerClock,
} from '@fate/core';
import { idBounds, type ShardKeys } from './redis-keys.js';
import { indexPrelude, LUA_SERVER_NOW } from './redis-lua-fragments.js';
import { storedPriority } from './redis-records.js';
import { scanShard } from './redis-scan.js';
import { type RedisClient, RedisScript } from './redis-script.js';

/** Due deferrals one claim moves at most (as a scan does). */
export const MAX_DUE_MOVED = 1_000;

/**
 * KEYS: the shard's runnable set (the other indexes are named after it). ARGV: lex min, lex max,
 * transaction key prefix, lock id, most due deferrals to move, mode ('claim' | 'held' | 'fresh'),
 * then one uuid per slot. Returns the records as {id, op, status, stack, info, defer_until, uuid,
 * priority}.
 *
 * First the records this lock id holds in the shard under one of the uuids (a repeat
 * after a lost reply: the `holders` entries of the lock, i.e. its work in flight): when
 * there are any, they are the answer, as stored. Mode 'held' stops there; mode 'fresh'
 * skips that lookup. Otherwise due deferrals are moved into their level's runnable set (as
 * a scan does) and the lex range of each level's set is read, highest level first, each
 * record reserved with the next uuid and started when SUBMITTED, exactly as the tryReserve
 * script does; an index entry its record contradicts is repaired, not claimed. A Lua
 * function of its ARGV, so a finish-and-claim can call it after its write.
 */
export const CLAIM_FUNCTION = `
local function claim_records(A)
  local min, max, tx, lock = A[1], A[2], A[3], A[4]
  local uuids, wanted = {}, {}
  for i = 7, #A do uuids[#uuids + 1] = A[i]; wanted[A[i]] = true end
  local out = {}
  -- mode 'fresh': no earlier attempt can have applied (a finish-and-claim whose write just
  -- ended its reservation), so the lock's work in flight need not be read
  local holders = A[6] == 'fresh' and {} or redis.call('ZRANGEBYLEX', HOLDERS_KEY, '[' .. lock .. '|', '(' .. lock .. '|~')
  for _, m in ipairs(holders) do
    local id, uuid = string.match(m, '^[^|]*|([^|]*)|(.*)$')
    if wanted[uuid] then
      local r = redis.call('HMGET', tx .. id, 'status', 'stack', 'info', 'defer_until', 'res_lock', 'res_uuid', 'op', 'priority')
      if r[5] == lock and r[6] == uuid then
        out[#out + 1] = {id, r[7] or '', r[1] or '', r[2] or '', r[3] or '', r[4] or '0', uuid, r[8] or '0'}
      end
    end
  end
  if #out > 0 or A[6] == 'held' then return out end
  local now = server_now()
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', DEFERRED_KEY, '-inf', ms_text(now), 'LIMIT', 0, tonumber(A[5]))) do
    local r = redis.call('HMGET', tx .. id, 'status', 'op', 'priority')
    if r[1] then schedule(id, r[1], '0', r[2], r[3]) else forget(id) end
  end
  for level = MAX_LEVEL, MIN_LEVEL, -1 do
    local lo = min
    while #out < #uuids do
      local members = redis.call('ZRANGEBYLEX', LEVEL_KEY[level], lo, max, 'LIMIT', 0, #uuids - #out)
      if #members == 0 then break end
      lo = '(' .. members[#members]
      for _, m in ipairs(members) do
        local id = string.sub(m, 1, 36)
        local key = tx .. id
        local r = redis.call('HMGET', key, 'status', 'stack', 'info', 'defer_until', 'res_lock', 'op', 'priority')
        if not r[1] then
          forget(id)
        elseif r[5] or not RUNNABLE[r[1]] then
          unschedule(id) -- an entry its record contradicts (reserved or not runnable)
        else
          local uuid = uuids[#out + 1]
          hold(id, lock, uuid)
          unschedule(id, r[7] or '0')
          if r[1] == 'SUBMITTED' then
            index_status(id, r[1], 'IN_PROGRESS')
            recount(r[1], 'IN_PROGRESS', r[6])
            redis.call('HSET', key, 'res_lock', lock, 'res_uuid', uuid, 'status', 'IN_PROGRESS')
          else
            redis.call('HSET', key, 'res_lock', lock, 'res_uuid', uuid)
          end
          out[#out + 1] = {id, r[6] or '', r[1], r[2] or '', r[3] or '', r[4] or '0', uuid, r[7] or '0'}
        end
      end
    end
  end
  return out
end
`;

const CLAIM = `${LUA_SERVER_NOW}${indexPrelude(1)}${CLAIM_FUNCTION}
return claim_records(ARGV)
`;

export const CLAIM_SCRIPT = new RedisScript('claim', CLAIM);

export type ClaimReply = Array<[string, string, string, string, string, string, string, string]>;

/** The records of a claim script's reply, all under `lockId`, in the runnable order. */
export function claimedRecords(reply: ClaimReply, lockId: string): ClaimedRecord[] {
  return reply
    .map(([id, op, status, stack, info, deferUntil, uuid, priority]) => ({
      id,
      op,
      record: {
        status,
        stack,
        info,
        reservation: { lockId, uuid },
        deferUntil: Number(deferUntil) || 0,
        ...storedPriority(priority),
      },
    }))
    .sort(byRunnableOrder);
}

/**
 * `claimMany` over the shards of `range`, in id order, one script call per shard (each
 * on one hash tag, so one Cluster slot) until every slot is used. `repeat`: the call may
 * have applied before (its reply was lost): every shard is first asked only for what it
 * holds under these uuids, and when any does, that is the answer — so a uuid is never
 * used twice, and nothing the first call took is left out. `heldOnly`: only that answer.
 */
export async function claimMany(
  redis: RedisClient,
  shards: readonly ShardKeys[],
  range: IdRange | undefined,
  reservations: readonly Reservation[],
  repeat: boolean,
  clock: ServerClock,
  heldOnly = false,
): Promise<ClaimedRecord[]> {
  const lockId = reservations[0]?.lockId;
  if (lockId === undefined) return [];
  const [min, max] = idBounds(range);
  const call = async (shard: ShardKeys, mode: 'claim' | 'held', uuids: readonly string[]) => {
    const reply = (await CLAIM_SCRIPT.run(redis, {
      keys: [shard.runnable],
      args: [min, max, shard.txPrefix, lockId, MAX_DUE_MOVED, mode, ...uuids],
    })) as ClaimReply;
    return claimedRecords(reply, lockId);
  };
  const all = reservations.map((r) => r.uuid);
  if ((repeat && shards.length > 1) || heldOnly) {
    const held = (await Promise.all(shards.map((s) => call(s, 'held', all)))).flat();
    if (held.length > 0 || heldOnly) return held.sort(byRunnableOrder);
  }
  // Several shards: how many of the first `n` in the runnable order each one holds, read
  // first; each then claims that many of its own first (one that lost some to another
  // claimer meanwhile claims fewer). One shard claims all it can at once.
  const wants =
    shards.length > 1 && !repeat
      ? await shareOfFirst(redis, clock, shards, range, all.length)
      : shards.map(() => all.length);
  const out: ClaimedRecord[] = [];
  let rest = all;
  for (const [i, shard] of shards.entries()) {
    const want = Math.min(wants[i] ?? 0, rest.length);
    if (want === 0) continue;
    const got = await call(shard, 'claim', rest.slice(0, want));
    const used = new Set(got.map((c) => c.record.reservation?.uuid));
    rest = rest.filter((u) => !used.has(u));
    out.push(...got);
  }
  return out.sort(byRunnableOrder);
}

/** How many of the first `n` runnable entries of `range` (runnable order) each shard holds. */
async function shareOfFirst(
  redis: RedisClient,
  clock: ServerClock,
  shards: readonly ShardKeys[],
  range: IdRange | undefined,
  n: number,
): Promise<number[]> {
  const pages = await Promise.all(shards.map((s) => scanShard(redis, clock, s, range, n)));
  const first = pages
    .flatMap((p, shard) => p.entries.map((e) => ({ shard, ...e })))
    .sort(compareRunnable)
    .slice(0, n);
  return shards.map((_, i) => first.filter((e) => e.shard === i).length);
}

function byRunnableOrder(a: ClaimedRecord, b: ClaimedRecord): number {
  return compareRunnable(
    { id: a.id, priority: a.record.priority ?? 0 },
    { id: b.id, priority: b.record.priority ?? 0 },
  );
}
