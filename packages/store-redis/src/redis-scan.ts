import type { BackendScan, IdRange, ServerClock } from '@fate/core';
import { ID_LENGTH, idBounds, type ShardKeys } from './redis-keys.js';
import { indexPrelude, LUA_SERVER_NOW } from './redis-lua-fragments.js';
import { type RedisClient, RedisScript } from './redis-script.js';

/** Due deferrals one scan moves at most: a burst of them is spread over several scans. */
const MAX_DUE_MOVED = 1_000;

/** Members read per command: Lua's unpack takes a few thousand values at most. */
const CHUNK = 1_000;

/**
 * KEYS: the shard's indexes. ARGV: lex min, lex max, limit, transaction key prefix,
 * most due deferrals to move. Returns {members ('<id>|<op>'), itemsRead, next deferral or
 * '', '1' when the page ended at the limit with more in range, server time}.
 *
 * First moves due deferrals (by the server's clock) into `runnable`, then reads the lex
 * range of `runnable` in chunks. The members carry the ops, so no transaction hash is
 * read; one EXISTS over a chunk's hashes checks that every record is still there, and
 * only when some are missing are they found and taken out of every index (hygiene: an
 * entry whose record was removed behind the store's back is read by one scan, not all).
 */
const SCAN = `${LUA_SERVER_NOW}${indexPrelude(1)}
local min, max, limit, tx = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local now = server_now()
local read = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', DEFERRED_KEY, '-inf', ms_text(now), 'LIMIT', 0, tonumber(ARGV[5]))) do
  read = read + 1
  local r = redis.call('HMGET', tx .. id, 'status', 'op')
  if r[1] then schedule(id, r[1], '0', r[2]) else forget(id) end
end
-- Ids are 36 characters: a member is '<id>|<op>'. Members go back as they are (the client
-- splits them), which keeps this loop free of string work on the usual path.
local found = {}
local exhausted = false
while #found < limit and not exhausted do
  local want = math.min(limit - #found, ${CHUNK})
  local members = redis.call('ZRANGEBYLEX', RUNNABLE_KEY, min, max, 'LIMIT', 0, want)
  exhausted = #members < want
  read = read + #members
  if #members == 0 then break end
  min = '(' .. members[#members]
  local keys = {}
  for i, m in ipairs(members) do keys[i] = tx .. string.sub(m, 1, 36) end
  local all = redis.call('EXISTS', unpack(keys)) == #keys
  for i, m in ipairs(members) do
    if all or redis.call('EXISTS', keys[i]) == 1 then
      found[#found + 1] = m
    else
      forget(string.sub(m, 1, 36))
    end
  end
end
local more = ''
if not exhausted then
  read = read + 1
  if #redis.call('ZRANGEBYLEX', RUNNABLE_KEY, min, max, 'LIMIT', 0, 1) > 0 then more = '1' end
end
local first = redis.call('ZRANGE', DEFERRED_KEY, 0, 0, 'WITHSCORES')
if #first > 0 then read = read + 1 end
return {found, read, first[2] or '', more, ms_text(now)}
`;

export const SCAN_SCRIPT = new RedisScript('scan', SCAN);

type ScanReply = [string[], number, string, string, string];

/**
 * One page of runnable ids in `range`, read from `shards` (those overlapping the range,
 * in id order) one after another until the page is full. `nextDeferralAt` is the
 * earliest deferral of the shards read, which may lie outside the range: a work finder
 * then wakes a little early, never late.
 */
export async function scanRunnable(
  redis: RedisClient,
  clock: ServerClock,
  shards: readonly ShardKeys[],
  range: IdRange | undefined,
  limit: number,
): Promise<BackendScan> {
  const [min, max] = idBounds(range);
  const ids: string[] = [];
  const ops: string[] = [];
  let itemsRead = 0;
  let nextDeferralAt: number | undefined;
  for (const [i, shard] of shards.entries()) {
    const [members, read, next, more] = await clock.timed(
      async () =>
        (await SCAN_SCRIPT.run(redis, {
          keys: shard.indexes,
          args: [min, max, limit - ids.length, shard.txPrefix, MAX_DUE_MOVED],
        })) as ScanReply,
      (reply) => Number(reply[4]),
    );
    for (const member of members) {
      ids.push(member.slice(0, ID_LENGTH));
      ops.push(member.slice(ID_LENGTH + 1));
    }
    itemsRead += read;
    if (next !== '') nextDeferralAt = Math.min(nextDeferralAt ?? Number(next), Number(next));
    if (ids.length >= limit) {
      // Full: the next page starts after the last id, unless nothing at all is left.
      const last = more === '1' || i < shards.length - 1 ? ids[ids.length - 1] : undefined;
      return { ids, ops, itemsRead, ...deferral(nextDeferralAt), ...(last ? { last } : {}) };
    }
  }
  return { ids, ops, itemsRead, ...deferral(nextDeferralAt) };
}

function deferral(at: number | undefined): { nextDeferralAt?: number } {
  return at !== undefined ? { nextDeferralAt: at } : {};
}
