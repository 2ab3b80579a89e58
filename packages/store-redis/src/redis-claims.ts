import type { ClaimedRecord, IdRange, Reservation } from '@fate/core';
import { idBounds, type ShardKeys } from './redis-keys.js';
import { indexPrelude, LUA_SERVER_NOW } from './redis-lua-fragments.js';
import { type RedisClient, RedisScript } from './redis-script.js';

/** Due deferrals one claim moves at most (as a scan does). */
const MAX_DUE_MOVED = 1_000;

/**
 * KEYS: the shard's indexes. ARGV: lex min, lex max, transaction key prefix, lock id, most
 * due deferrals to move, mode ('claim' | 'held'), then one uuid per slot. Returns the
 * records as {id, op, status, stack, info, defer_until, uuid}.
 *
 * First the records this lock id holds in the shard under one of the uuids (a repeat
 * after a lost reply: the `holders` entries of the lock, i.e. its work in flight): when
 * there are any, they are the answer, as stored. Mode 'held' stops there. Otherwise due
 * deferrals are moved into `runnable` (as a scan does) and the lex range of `runnable` is
 * read, each record reserved with the next uuid and started when SUBMITTED, exactly as
 * the tryReserve script does; an index entry its record contradicts is repaired, not
 * claimed.
 */
const CLAIM = `${LUA_SERVER_NOW}${indexPrelude(1)}
local min, max, tx, lock = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local uuids, wanted = {}, {}
for i = 7, #ARGV do uuids[#uuids + 1] = ARGV[i]; wanted[ARGV[i]] = true end
local out = {}
for _, m in ipairs(redis.call('ZRANGEBYLEX', HOLDERS_KEY, '[' .. lock .. '|', '(' .. lock .. '|~')) do
  local id, uuid = string.match(m, '^[^|]*|([^|]*)|(.*)$')
  if wanted[uuid] then
    local r = redis.call('HMGET', tx .. id, 'status', 'stack', 'info', 'defer_until', 'res_lock', 'res_uuid', 'op')
    if r[5] == lock and r[6] == uuid then
      out[#out + 1] = {id, r[7] or '', r[1] or '', r[2] or '', r[3] or '', r[4] or '0', uuid}
    end
  end
end
if #out > 0 or ARGV[6] == 'held' then return out end
local now = server_now()
for _, id in ipairs(redis.call('ZRANGEBYSCORE', DEFERRED_KEY, '-inf', ms_text(now), 'LIMIT', 0, tonumber(ARGV[5]))) do
  local r = redis.call('HMGET', tx .. id, 'status', 'op')
  if r[1] then schedule(id, r[1], '0', r[2]) else forget(id) end
end
while #out < #uuids do
  local members = redis.call('ZRANGEBYLEX', RUNNABLE_KEY, min, max, 'LIMIT', 0, #uuids - #out)
  if #members == 0 then break end
  min = '(' .. members[#members]
  for _, m in ipairs(members) do
    local id = string.sub(m, 1, 36)
    local key = tx .. id
    local r = redis.call('HMGET', key, 'status', 'stack', 'info', 'defer_until', 'res_lock', 'op')
    if not r[1] then
      forget(id)
    elseif r[5] or not RUNNABLE[r[1]] then
      unschedule(id) -- an entry its record contradicts (reserved or not runnable)
    else
      local uuid = uuids[#out + 1]
      redis.call('HSET', key, 'res_lock', lock, 'res_uuid', uuid)
      hold(id, lock, uuid)
      unschedule(id)
      if r[1] == 'SUBMITTED' then
        index_status(id, r[1], 'IN_PROGRESS')
        recount(r[1], 'IN_PROGRESS', r[6])
        redis.call('HSET', key, 'status', 'IN_PROGRESS')
      end
      out[#out + 1] = {id, r[6] or '', r[1], r[2] or '', r[3] or '', r[4] or '0', uuid}
    end
  end
end
return out
`;

export const CLAIM_SCRIPT = new RedisScript('claim', CLAIM);

type ClaimReply = Array<[string, string, string, string, string, string, string]>;

/**
 * `claimMany` over the shards of `range`, in id order, one script call per shard (each
 * on one hash tag, so one Cluster slot) until every slot is used. `repeat`: the call may
 * have applied before (its reply was lost): every shard is first asked only for what it
 * holds under these uuids, and when any does, that is the answer — so a uuid is never
 * used twice, and nothing the first call took is left out.
 */
export async function claimMany(
  redis: RedisClient,
  shards: readonly ShardKeys[],
  range: IdRange | undefined,
  reservations: readonly Reservation[],
  repeat: boolean,
): Promise<ClaimedRecord[]> {
  const lockId = reservations[0]?.lockId;
  if (lockId === undefined) return [];
  const [min, max] = idBounds(range);
  const call = async (shard: ShardKeys, mode: 'claim' | 'held', uuids: readonly string[]) => {
    const reply = (await CLAIM_SCRIPT.run(redis, {
      keys: shard.indexes,
      args: [min, max, shard.txPrefix, lockId, MAX_DUE_MOVED, mode, ...uuids],
    })) as ClaimReply;
    return reply.map(([id, op, status, stack, info, deferUntil, uuid]) => ({
      id,
      op,
      record: {
        status,
        stack,
        info,
        reservation: { lockId, uuid },
        deferUntil: Number(deferUntil) || 0,
      },
    }));
  };
  const all = reservations.map((r) => r.uuid);
  if (repeat && shards.length > 1) {
    const held = (await Promise.all(shards.map((s) => call(s, 'held', all)))).flat();
    if (held.length > 0) return held.sort((a, b) => (a.id < b.id ? -1 : 1));
  }
  const out: ClaimedRecord[] = [];
  let rest = all;
  for (const shard of shards) {
    if (rest.length === 0) break;
    const got = await call(shard, 'claim', rest);
    const used = new Set(got.map((c) => c.record.reservation.uuid));
    rest = rest.filter((u) => !used.has(u));
    out.push(...got);
  }
  return out;
}
