import { inRange, type Reservation, type ReservationFilter } from '@fate/core';
import { idBounds, type ShardKeys } from './redis-keys.js';
import type { RedisClient } from './redis-script.js';

type Entry = { id: string; reservation: Reservation };

// Lock ids are [A-Za-z0-9_.:@-] and uuids hex and '-': every member of a lock id, and only
// those, lies between `<lock>|` and `<lock>|~`.
const AFTER_ANY = '~';

/**
 * The reservations of one shard, from its reservation indexes: with a lock id, the
 * `holders` members of that lock id only; else the lex range of `reserved` (all of it
 * without a range). Ascending by id either way. Entries whose record is gone are
 * repaired by the fenced call the guard makes next (`clearReservation`).
 */
export async function shardReservations(
  redis: RedisClient,
  shard: ShardKeys,
  filter: ReservationFilter,
): Promise<Entry[]> {
  if (filter.lockId !== undefined) {
    const { lockId } = filter;
    const members = await redis.zrangebylex(
      shard.holders,
      `[${lockId}|`,
      `(${lockId}|${AFTER_ANY}`,
    );
    return parse(members, (lock, id, uuid) => [id, lock, uuid]).filter((e) =>
      inRange(e.id, filter.range),
    );
  }
  const [min, max] = idBounds(filter.range);
  const members = await redis.zrangebylex(shard.reserved, min, max);
  return parse(members, (id, lock, uuid) => [id, lock, uuid]);
}

function parse(
  members: readonly string[],
  order: (a: string, b: string, c: string) => [string, string, string],
): Entry[] {
  const out: Entry[] = [];
  for (const member of members) {
    const parts = member.split('|');
    if (parts.length !== 3) continue; // only the scripts write these; skip what they did not
    const [id, lockId, uuid] = order(...(parts as [string, string, string]));
    out.push({ id, reservation: { lockId, uuid } });
  }
  return out;
}
