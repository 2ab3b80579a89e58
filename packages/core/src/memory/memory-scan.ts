import type { BackendScan, ReservationFilter } from '../contract/backend.js';
import type { RunnablePosition } from '../contract/priority.js';
import type { IdRange, Reservation } from '../contract/types.js';
import { inRange } from '../partition.js';
import { runnableInOrder } from './memory-claims.js';
import type { MemorySpace } from './memory-space.js';

/**
 * `scanRunnable` on the memory backend: walks the range in the runnable order (priority,
 * then id), as a sorted store's levels would, skipping deferred records but noting the
 * earliest of them.
 */
export function memoryScanRunnable(
  space: MemorySpace,
  range: IdRange | undefined,
  limit: number,
  after: RunnablePosition | undefined,
  now: number,
): BackendScan {
  const ids: string[] = [];
  const ops: string[] = [];
  const priorities: number[] = [];
  let itemsRead = 0;
  let nextDeferralAt: number | undefined;
  let last: RunnablePosition | undefined;
  for (const { id, e } of runnableInOrder(space, range, after)) {
    itemsRead++;
    if (e.deferUntil > now) {
      nextDeferralAt = Math.min(nextDeferralAt ?? e.deferUntil, e.deferUntil);
      continue;
    }
    if (ids.length === limit) {
      last = { id: ids[ids.length - 1] as string, priority: priorities[ids.length - 1] ?? 0 };
      break;
    }
    ids.push(id);
    ops.push(e.op);
    priorities.push(e.priority ?? 0);
  }
  return {
    ids,
    ops,
    priorities,
    itemsRead,
    ...(nextDeferralAt ? { nextDeferralAt } : {}),
    ...(last !== undefined ? { last: last.id, lastPriority: last.priority } : {}),
  };
}

/** `reservations` on the memory backend: the held records of the filter, in id order. */
export function memoryReservations(
  space: MemorySpace,
  filter: ReservationFilter,
): Array<{ id: string; reservation: Reservation }> {
  const out: Array<{ id: string; reservation: Reservation }> = [];
  for (const [id, r] of space.records) {
    if (!r.reservation || !inRange(id, filter.range)) continue;
    if (filter.lockId !== undefined && r.reservation.lockId !== filter.lockId) continue;
    out.push({ id, reservation: r.reservation });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}
