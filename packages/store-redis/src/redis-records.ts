import { STORED_STATUSES, type Status, type StoredRecord } from '@fate/core';
import type { ShardKeys } from './redis-keys.js';
import { RECORD_SCRIPTS } from './redis-record-scripts.js';
import type { RedisClient } from './redis-script.js';

/** The hash fields `read` and `list` fetch, in this order. */
export const RECORD_FIELDS = [
  'status',
  'stack',
  'info',
  'res_lock',
  'res_uuid',
  'defer_until',
  'priority',
] as const;

type Fields = ReadonlyArray<string | null>;

/**
 * A record from its hash fields, or undefined when the hash is gone. Fields that do not
 * decode are handed on as they are: the guard reports them as corrupt, in one place.
 */
export function toRecord(fields: Fields): StoredRecord | undefined {
  if (fields.every((f) => f === null)) return undefined;
  const [status, stack, info, lockId, uuid, deferUntil, priority] = fields;
  return {
    status: status ?? '',
    stack: stack ?? '',
    info: info ?? '',
    reservation: lockId != null && uuid != null ? { lockId, uuid } : null,
    deferUntil: Number(deferUntil ?? 0) || 0,
    ...storedPriority(priority),
  };
}

/** The record as `tryReserve` returns it: [status, stack, info, defer_until] plus the new holder. */
export function reservedRecord(
  fields: readonly string[],
  reservation: { lockId: string; uuid: string },
): StoredRecord {
  const [status = '', stack = '', info = '', deferUntil = '0', priority] = fields;
  return {
    status,
    stack,
    info,
    reservation,
    deferUntil: Number(deferUntil) || 0,
    ...storedPriority(priority),
  };
}

/** The `priority` field of a record (absent in stores written before priorities: 0). */
export function storedPriority(text: string | null | undefined): { priority?: number } {
  const priority = Number(text ?? 0) || 0;
  return priority !== 0 ? { priority } : {};
}

// Big enough to amortise round trips, small enough not to hold a huge reply in memory twice.
const PAGE = 500;

/**
 * Every record of one shard whose id is in the status sets of `statuses` (all when
 * omitted). Each record is read atomically; a record deleted meanwhile is skipped, and
 * one whose status changed meanwhile is returned as it is now (the guard filters again).
 * Ids whose hash is gone are taken out of the indexes (the script checks again, so a
 * record inserted meanwhile stays listed).
 */
export async function listShard(
  redis: RedisClient,
  shard: ShardKeys,
  statuses?: ReadonlySet<Status>,
): Promise<Array<{ id: string; record: StoredRecord }>> {
  const sets = STORED_STATUSES.filter((s) => !statuses || statuses.has(s)).map(shard.status);
  if (sets.length === 0) return [];
  const ids = (await redis.sunion(...sets)).sort();
  const out: Array<{ id: string; record: StoredRecord }> = [];
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    const pipeline = redis.pipeline();
    for (const id of page) pipeline.hmget(shard.tx(id), ...RECORD_FIELDS);
    const replies = (await pipeline.exec()) ?? [];
    page.forEach((id, j) => {
      const [err, fields] = replies[j] ?? [new Error('no reply')];
      if (err) throw err;
      const record = toRecord(fields as Fields);
      if (record) out.push({ id, record });
      else missing.push(id);
    });
  }
  for (let i = 0; i < missing.length; i += PAGE) {
    await RECORD_SCRIPTS.forget.run(redis, {
      keys: [shard.runnable],
      args: [shard.txPrefix, ...missing.slice(i, i + PAGE)],
    });
  }
  return out;
}
