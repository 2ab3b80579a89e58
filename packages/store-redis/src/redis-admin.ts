import {
  type BackendCount,
  type BackendListPage,
  type BackendListQuery,
  type BackendListRow,
  idAfter,
  rowMatches,
} from '@fate/core';
import type { RedisKeys, ShardKeys } from './redis-keys.js';
import type { RedisClient } from './redis-script.js';

/** Most ids one list page examines (one lex range read and one pipeline of HMGETs). */
export const REDIS_LIST_WINDOW = 2_000;

const LIST_FIELDS = ['status', 'op', 'res_lock', 'res_uuid', 'defer_until', 'finished_at'] as const;

/**
 * Due finished ids of every shard, oldest first: a score range of each shard's `finished`
 * (by finish time) and `due` (by due time) sorted sets, at most `limit` from each.
 */
export async function redisAgeOffDue(
  redis: RedisClient,
  keys: RedisKeys,
  q: { finishedBefore: number; now: number; limit: number },
): Promise<Array<{ id: string; finishedAt: number }>> {
  const found = await Promise.all(
    keys.shards.map(async (shard) => {
      const [finished, due] = await Promise.all([
        redis.zrangebyscore(
          shard.finished,
          '-inf',
          q.finishedBefore,
          'WITHSCORES',
          'LIMIT',
          0,
          q.limit,
        ),
        redis.zrangebyscore(shard.due, '-inf', q.now, 'LIMIT', 0, q.limit),
      ]);
      const out: Array<{ id: string; finishedAt: number }> = [];
      for (let i = 0; i < finished.length; i += 2) {
        out.push({ id: finished[i] as string, finishedAt: Number(finished[i + 1]) });
      }
      if (due.length > 0) {
        const pipeline = redis.pipeline();
        for (const id of due) pipeline.hget(shard.tx(id), 'finished_at');
        const replies = (await pipeline.exec()) ?? [];
        due.forEach((id, i) => {
          const at = Number(replies[i]?.[1]);
          if (Number.isFinite(at)) out.push({ id, finishedAt: at });
        });
      }
      return out;
    }),
  );
  return found
    .flat()
    .sort((a, b) => a.finishedAt - b.finishedAt)
    .slice(0, q.limit);
}

/** The counts every shard's scripts keep, summed. */
export async function redisCounts(redis: RedisClient, keys: RedisKeys): Promise<BackendCount[]> {
  const groups = new Map<string, number>();
  for (const shard of keys.shards) {
    const hash = await redis.hgetall(shard.counts);
    for (const [key, n] of Object.entries(hash))
      groups.set(key, (groups.get(key) ?? 0) + Number(n));
  }
  const out: BackendCount[] = [];
  for (const [key, count] of groups) {
    if (count <= 0) continue;
    const bar = key.indexOf('|');
    out.push({ status: key.slice(0, bar), op: key.slice(bar + 1), count });
  }
  return out;
}

/**
 * One page in id order: each shard from the cursor's on (shards hold ranges of ids, in
 * order), a lex range of its `ids` set, the records' fields read in one pipeline, filtered.
 * At most `REDIS_LIST_WINDOW` ids are examined; `last` is the last one examined.
 */
export async function redisListPage(
  redis: RedisClient,
  keys: RedisKeys,
  q: BackendListQuery,
  now: number,
): Promise<BackendListPage> {
  const rows: BackendListRow[] = [];
  let examined = 0;
  let last: string | undefined;
  const start = q.after === undefined ? undefined : idAfter(q.after);
  if (q.after !== undefined && start === undefined) return { rows };
  for (const shard of keys.shardsIn(start === undefined ? undefined : { start })) {
    const lower = last ?? q.after;
    const ids = await redis.zrangebylex(
      shard.ids,
      lower === undefined ? '-' : `(${lower}`,
      '+',
      'LIMIT',
      0,
      REDIS_LIST_WINDOW - examined,
    );
    const fields = await readFields(redis, shard, ids);
    for (const [i, id] of ids.entries()) {
      examined++;
      last = id;
      const f = fields[i];
      if (f) {
        const row = toRow(id, f);
        if (rowMatches(row, q, now)) rows.push(row);
      }
      if (rows.length === q.limit) return { rows, last: id };
    }
    if (examined >= REDIS_LIST_WINDOW) return { rows, ...(last ? { last } : {}) };
  }
  return { rows };
}

type Fields = ReadonlyArray<string | null>;

async function readFields(
  redis: RedisClient,
  shard: ShardKeys,
  ids: readonly string[],
): Promise<Array<Fields | undefined>> {
  if (ids.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hmget(shard.tx(id), ...LIST_FIELDS);
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([err, value]) => {
    if (err) throw err;
    const f = value as Fields;
    return f.every((x) => x === null) ? undefined : f;
  });
}

function toRow(id: string, f: Fields): BackendListRow {
  const [status, op, lock, uuid, deferUntil, finishedAt] = f;
  return {
    id,
    status: status ?? '',
    op: op ?? '',
    reservation: lock != null && uuid != null ? { lockId: lock, uuid } : null,
    deferUntil: Number(deferUntil ?? 0) || 0,
    ...(finishedAt != null ? { finishedAt: Number(finishedAt) } : {}),
  };
}
