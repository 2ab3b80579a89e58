import type { BackendListQuery } from '@fate/core';
import type { ShardKeys } from './redis-keys.js';
import { type RedisClient, RedisScript } from './redis-script.js';

/** The fields a list row is made of, in the order the script answers them. */
export const LIST_FIELDS = [
  'status',
  'op',
  'res_lock',
  'res_uuid',
  'defer_until',
  'finished_at',
  'priority',
] as const;

/**
 * KEYS: one shard's `ids` set. ARGV: the shard's transaction key prefix, the lex bound to
 * start after ('-' for the start), the most ids to examine, the most rows to answer, then
 * the filter: statuses (comma-separated, '' for any), op ('' for any, with its flag), reserved
 * ('' / '1' / '0'), holder, deferred ('' / '1' / '0') and now. Walks the ids in order, reads
 * each record's list fields and keeps those matching, all on the server: a page that matches
 * one id in ten costs one call, not a read of every examined record. Answers the number of
 * ids examined, the last examined ('' for none) and, per kept row, its id and fields ('' for
 * a missing field). Read-only.
 */
const LIST_PAGE = `
local prefix, after, window, limit = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local statuses, hasOp, op = ARGV[5], ARGV[6] == '1', ARGV[7]
local reserved, holder, deferred, now = ARGV[8], ARGV[9], ARGV[10], tonumber(ARGV[11])
local wanted = nil
if statuses ~= '' then
  wanted = {}
  for s in string.gmatch(statuses, '[^,]+') do wanted[s] = true end
end
local out = {0, ''}
local rows, examined, last = 0, 0, after
local chunk = math.max(limit, 50)
while examined < window do
  local lower = last == '-' and '-' or '(' .. last
  local want = math.min(chunk, window - examined)
  local ids = redis.call('ZRANGEBYLEX', KEYS[1], lower, '+', 'LIMIT', 0, want)
  chunk = chunk * 2
  for _, id in ipairs(ids) do
    examined = examined + 1
    last = id
    local f = redis.call('HMGET', prefix .. id, ${LIST_FIELDS.map((f) => `'${f}'`).join(', ')})
    local keep = f[1] ~= false
    if keep and wanted and not wanted[f[1]] then keep = false end
    if keep and hasOp and f[2] ~= op then keep = false end
    local lock = f[3]
    if keep and reserved ~= '' and ((lock ~= false and f[4] ~= false) ~= (reserved == '1')) then keep = false end
    if keep and holder ~= '' then
      if lock == false or f[4] == false or (lock ~= holder and string.sub(lock, 1, #holder + 1) ~= holder .. '@') then keep = false end
    end
    if keep and deferred ~= '' and (((tonumber(f[5]) or 0) > now) ~= (deferred == '1')) then keep = false end
    if keep then
      table.insert(out, id)
      for i = 1, ${LIST_FIELDS.length} do table.insert(out, f[i] == false and '' or f[i]) end
      rows = rows + 1
      if rows == limit then break end
    end
  end
  if rows == limit or #ids < want then break end
end
out[1] = examined
out[2] = last == '-' and '' or last
return out
`;

export const LIST_PAGE_SCRIPT = new RedisScript('listPage', LIST_PAGE);

/** What one shard's script call answered. */
export interface ShardPage {
  readonly examined: number;
  /** The last id examined, if any. */
  readonly last?: string;
  /** Per kept row: its id and its fields in `LIST_FIELDS` order (null when missing). */
  readonly rows: ReadonlyArray<{ id: string; fields: ReadonlyArray<string | null> }>;
}

/** One shard's part of a page: ids after `after`, at most `window` examined, `limit` kept. */
export async function listShardPage(
  redis: RedisClient,
  shard: ShardKeys,
  q: BackendListQuery,
  after: string | undefined,
  window: number,
  now: number,
): Promise<ShardPage> {
  const reply = (await LIST_PAGE_SCRIPT.run(redis, {
    keys: [shard.ids],
    args: [
      shard.txPrefix,
      after ?? '-',
      window,
      q.limit,
      q.statuses ? [...q.statuses].join(',') : '',
      q.op !== undefined ? '1' : '0',
      q.op ?? '',
      flag(q.reserved),
      q.holder ?? '',
      flag(q.deferred),
      now,
    ],
  })) as string[];
  const [examined, last, ...flat] = reply;
  const rows: Array<{ id: string; fields: Array<string | null> }> = [];
  const width = LIST_FIELDS.length + 1;
  for (let i = 0; i + width <= flat.length; i += width) {
    rows.push({
      id: flat[i] as string,
      fields: flat.slice(i + 1, i + width).map((f) => (f === '' ? null : (f as string))),
    });
  }
  return { examined: Number(examined), ...(last ? { last } : {}), rows };
}

function flag(b: boolean | undefined): string {
  return b === undefined ? '' : b ? '1' : '0';
}
