import {
  type BackendCount,
  type BackendListPage,
  type BackendListQuery,
  type BackendListRow,
  idAfter,
  rowMatches,
} from '@fate/core';
import type { RedisKeys } from './redis-keys.js';
import { listShardPage } from './redis-list-page.js';
import { storedPriority } from './redis-records.js';
import type { RedisClient } from './redis-script.js';

/** Most ids one list page examines (one lex range read and one pipeline of HMGETs). */
export const REDIS_LIST_WINDOW = 2_000;

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
 * order), walked by one script call that reads the records' list fields and filters them on
 * the server, so a page costs a call per shard it reaches whatever the filter keeps. At most
 * `REDIS_LIST_WINDOW` ids are examined; `last` is the last one examined.
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
    const want = { ...q, limit: q.limit - rows.length };
    const page = await listShardPage(
      redis,
      shard,
      want,
      last ?? q.after,
      REDIS_LIST_WINDOW - examined,
      now,
    );
    examined += page.examined;
    last = page.last ?? last;
    for (const { id, fields } of page.rows) {
      const row = toRow(id, fields);
      if (rowMatches(row, q, now)) rows.push(row);
      if (rows.length === q.limit) return { rows, last: id };
    }
    if (examined >= REDIS_LIST_WINDOW) return { rows, ...(last ? { last } : {}) };
  }
  return { rows };
}

type Fields = ReadonlyArray<string | null>;

function toRow(id: string, f: Fields): BackendListRow {
  const [status, op, lock, uuid, deferUntil, finishedAt, priority] = f;
  return {
    id,
    status: status ?? '',
    op: op ?? '',
    reservation: lock != null && uuid != null ? { lockId: lock, uuid } : null,
    deferUntil: Number(deferUntil ?? 0) || 0,
    ...storedPriority(priority),
    ...(finishedAt != null ? { finishedAt: Number(finishedAt) } : {}),
  };
}
