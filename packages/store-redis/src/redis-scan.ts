import {
  type BackendScan,
  compareRunnable,
  type IdRange,
  idAfter,
  MAX_PRIORITY,
  type RunnablePosition,
  type ServerClock,
} from '@fate/core';
import { ID_LENGTH, idBounds, type ShardKeys } from './redis-keys.js';
import { indexPrelude, LUA_SERVER_NOW } from './redis-lua-fragments.js';
import { type RedisClient, RedisScript } from './redis-script.js';

/** Due deferrals one scan moves at most: a burst of them is spread over several scans. */
const MAX_DUE_MOVED = 1_000;

/** Members read per command: Lua's unpack takes a few thousand values at most. */
const CHUNK = 1_000;

/**
 * KEYS: the shard's runnable set (the other indexes are named after it). ARGV: lex min, lex max,
 * limit, transaction key prefix, most due deferrals to move, the first level, the lex min in that
 * level. Returns {members ('<id>|<op>'), itemsRead, next deferral or '', '1' when the page ended at
 * the limit with more in range, server time, the level of each member}.
 *
 * First moves due deferrals (by the server's clock) into their level's runnable set, then
 * reads the levels from the first down to the lowest, each a lex range of its set (the
 * first from its own min: a page's cursor), in chunks. The members carry the ops, so no
 * transaction hash is read; one EXISTS over a chunk's hashes checks that every record is
 * still there, and only when some are missing are they found and taken out of every index
 * (hygiene: an entry whose record was removed behind the store's back is read by one
 * scan, not all).
 */
const SCAN = `${LUA_SERVER_NOW}${indexPrelude(1)}
local min, max, limit, tx = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local from, first_min = tonumber(ARGV[6]), ARGV[7]
local now = server_now()
local read = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', DEFERRED_KEY, '-inf', ms_text(now), 'LIMIT', 0, tonumber(ARGV[5]))) do
  read = read + 1
  local r = redis.call('HMGET', tx .. id, 'status', 'op', 'priority')
  if r[1] then schedule(id, r[1], '0', r[2], r[3]) else forget(id) end
end
-- Ids are 36 characters: a member is '<id>|<op>'. Members go back as they are (the client
-- splits them), which keeps this loop free of string work on the usual path.
local found, levels = {}, {}
local more = ''
for level = from, MIN_LEVEL, -1 do
  local key = LEVEL_KEY[level]
  local lo = min
  if level == from then lo = first_min end
  local exhausted = false
  while #found < limit and not exhausted do
    local want = math.min(limit - #found, ${CHUNK})
    local members = redis.call('ZRANGEBYLEX', key, lo, max, 'LIMIT', 0, want)
    exhausted = #members < want
    read = read + #members
    if #members == 0 then break end
    lo = '(' .. members[#members]
    local keys = {}
    for i, m in ipairs(members) do keys[i] = tx .. string.sub(m, 1, 36) end
    local all = redis.call('EXISTS', unpack(keys)) == #keys
    for i, m in ipairs(members) do
      if all or redis.call('EXISTS', keys[i]) == 1 then
        found[#found + 1] = m
        levels[#levels + 1] = tostring(level)
      else
        forget(string.sub(m, 1, 36))
      end
    end
  end
  if #found >= limit then
    -- full: is anything left, in the rest of this level or in a lower one?
    if not exhausted then
      read = read + 1
      if #redis.call('ZRANGEBYLEX', key, lo, max, 'LIMIT', 0, 1) > 0 then more = '1' end
    end
    local lower = level - 1
    while more == '' and lower >= MIN_LEVEL do
      read = read + 1
      if #redis.call('ZRANGEBYLEX', LEVEL_KEY[lower], min, max, 'LIMIT', 0, 1) > 0 then more = '1' end
      lower = lower - 1
    end
    break
  end
end
local first = redis.call('ZRANGE', DEFERRED_KEY, 0, 0, 'WITHSCORES')
if #first > 0 then read = read + 1 end
return {found, read, first[2] or '', more, ms_text(now), levels}
`;

export const SCAN_SCRIPT = new RedisScript('scan', SCAN);

type ScanReply = [string[], number, string, string, string, string[]];

/** One runnable entry a shard answered. */
export interface RunnableEntry {
  readonly id: string;
  readonly op: string;
  readonly priority: number;
}

/** One shard's page: its entries in the runnable order, and what else it said. */
export interface ShardPage {
  readonly entries: RunnableEntry[];
  readonly itemsRead: number;
  readonly next?: number;
  /** The shard has more in range after its entries. */
  readonly more: boolean;
}

/** The first level a scan reads and where in it: the top, or just after `after`. */
function startAt(
  range: IdRange | undefined,
  min: string | Buffer,
  after: RunnablePosition | undefined,
): [number, string | Buffer] {
  if (!after) return [MAX_PRIORITY, min];
  const next = idAfter(after.id);
  if (next === undefined) return [after.priority, '[g']; // past every id: nothing in it
  const start = range?.start !== undefined && range.start > next ? range.start : next;
  return [after.priority, idBounds({ start })[0]];
}

/** Up to `limit` runnable entries of one shard in `range`, from `after` on. */
export async function scanShard(
  redis: RedisClient,
  clock: ServerClock,
  shard: ShardKeys,
  range: IdRange | undefined,
  limit: number,
  after?: RunnablePosition,
): Promise<ShardPage> {
  const [min, max] = idBounds(range);
  const [from, firstMin] = startAt(range, min, after);
  const [members, read, next, more, , levels] = await clock.timed(
    async () =>
      (await SCAN_SCRIPT.run(redis, {
        keys: [shard.runnable],
        args: [min, max, limit, shard.txPrefix, MAX_DUE_MOVED, from, firstMin],
      })) as ScanReply,
    (reply) => Number(reply[4]),
  );
  const entries = members.map((member, i) => ({
    id: member.slice(0, ID_LENGTH),
    op: member.slice(ID_LENGTH + 1),
    priority: Number(levels[i] ?? 0),
  }));
  return {
    entries,
    itemsRead: read,
    ...(next !== '' ? { next: Number(next) } : {}),
    more: more === '1',
  };
}

/**
 * One page of runnable ids in `range`, in the runnable order: each shard overlapping the
 * range (those of a range partition only) answers its own first `limit`, and the page is
 * the first `limit` of them all. `nextDeferralAt` is the earliest deferral of the shards
 * read, which may lie outside the range: a work finder then wakes a little early, never
 * late.
 */
export async function scanRunnable(
  redis: RedisClient,
  clock: ServerClock,
  shards: readonly ShardKeys[],
  range: IdRange | undefined,
  limit: number,
  after?: RunnablePosition,
): Promise<BackendScan> {
  const pages = await Promise.all(
    shards.map((shard) => scanShard(redis, clock, shard, range, limit, after)),
  );
  const merged = pages.flatMap((p) => p.entries).sort(compareRunnable);
  const page = merged.slice(0, limit);
  let nextDeferralAt: number | undefined;
  for (const p of pages) {
    if (p.next !== undefined) nextDeferralAt = Math.min(nextDeferralAt ?? p.next, p.next);
  }
  const full = page.length >= limit && (merged.length > limit || pages.some((p) => p.more));
  const last = full ? page[page.length - 1] : undefined;
  return {
    ids: page.map((e) => e.id),
    ops: page.map((e) => e.op),
    priorities: page.map((e) => e.priority),
    itemsRead: pages.reduce((n, p) => n + p.itemsRead, 0),
    ...(nextDeferralAt !== undefined ? { nextDeferralAt } : {}),
    ...(last ? { last: last.id, lastPriority: last.priority } : {}),
  };
}
