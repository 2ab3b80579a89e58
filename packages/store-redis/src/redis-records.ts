import { STORED_STATUSES, type Status, type StoredRecord } from '@fate/core';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';

/** The hash fields `read` and `list` fetch, in this order. */
export const RECORD_FIELDS = [
  'status',
  'stack',
  'info',
  'res_lock',
  'res_uuid',
  'defer_until',
] as const;

type Fields = ReadonlyArray<string | null>;

/**
 * A record from its hash fields, or undefined when the hash is gone. Fields that do not
 * decode are handed on as they are: the guard reports them as corrupt, in one place.
 */
export function toRecord(fields: Fields): StoredRecord | undefined {
  if (fields.every((f) => f === null)) return undefined;
  const [status, stack, info, lockId, uuid, deferUntil] = fields;
  return {
    status: status ?? '',
    stack: stack ?? '',
    info: info ?? '',
    reservation: lockId != null && uuid != null ? { lockId, uuid } : null,
    deferUntil: Number(deferUntil ?? 0) || 0,
  };
}

/** The record as `tryReserve` returns it: [status, stack, info, defer_until] plus the new holder. */
export function reservedRecord(
  fields: readonly string[],
  reservation: { lockId: string; uuid: string },
): StoredRecord {
  const [status = '', stack = '', info = '', deferUntil = '0'] = fields;
  return { status, stack, info, reservation, deferUntil: Number(deferUntil) || 0 };
}

// Big enough to amortise round trips, small enough not to hold a huge reply in memory twice.
const PAGE = 500;

/**
 * Every record whose id is in the status sets of `statuses` (all when omitted). Each
 * record is read atomically; a record deleted meanwhile is skipped, and one whose status
 * changed meanwhile is returned as it is now (the guard filters again).
 */
export async function listRecords(
  redis: Redis,
  keys: RedisKeys,
  statuses?: ReadonlySet<Status>,
): Promise<Array<{ id: string; record: StoredRecord }>> {
  const sets = STORED_STATUSES.filter((s) => !statuses || statuses.has(s)).map((s) =>
    keys.status(s),
  );
  if (sets.length === 0) return [];
  const ids = await redis.sunion(...sets);
  const out: Array<{ id: string; record: StoredRecord }> = [];
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    const pipeline = redis.pipeline();
    for (const id of page) pipeline.hmget(keys.tx(id), ...RECORD_FIELDS);
    const replies = (await pipeline.exec()) ?? [];
    page.forEach((id, j) => {
      const [err, fields] = replies[j] ?? [new Error('no reply')];
      if (err) throw err;
      const record = toRecord(fields as Fields);
      if (record) out.push({ id, record });
    });
  }
  return out;
}

/** Every reservation, from the reservation index (one read). */
export async function listReservations(
  redis: Redis,
  keys: RedisKeys,
): Promise<Array<{ id: string; reservation: { lockId: string; uuid: string } }>> {
  const all = await redis.hgetall(keys.reservations);
  const out: Array<{ id: string; reservation: { lockId: string; uuid: string } }> = [];
  for (const [id, text] of Object.entries(all)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue; // only the scripts write this index; skip what they did not write
    }
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') {
      out.push({ id, reservation: { lockId: value[0], uuid: value[1] } });
    }
  }
  return out;
}
