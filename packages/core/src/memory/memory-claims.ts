import type { ClaimedRecord } from '../contract/backend-claims.js';
import { compareRunnable, type RunnablePosition } from '../contract/priority.js';
import type { IdRange, Reservation } from '../contract/types.js';
import { sameReservation } from '../guard/codec.js';
import { RUNNABLE_STATUSES, Status } from '../status.js';
import { type Entry, type MemorySpace, storedEntry } from './memory-space.js';

/**
 * `claimMany` on the memory backend, synchronous (hence atomic as a whole): a repeat finds
 * what it took by its uuids; otherwise it walks the range in id order, as `scanRunnable`
 * does, and reserves and starts each runnable record with the next reservation.
 */
export function memoryClaimMany(
  space: MemorySpace,
  range: IdRange | undefined,
  reservations: readonly Reservation[],
  now: number,
): ClaimedRecord[] {
  const out: ClaimedRecord[] = [];
  for (const r of reservations) {
    const id = space.held.get(r.uuid);
    const e = id === undefined ? undefined : space.records.get(id);
    if (id !== undefined && e && sameReservation(e.reservation, r)) {
      out.push({ id, op: e.op, record: storedEntry(e) });
    }
  }
  if (out.length > 0) return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const { id, e } of runnableInOrder(space, range)) {
    if (out.length === reservations.length) break;
    if (e.deferUntil > now) continue;
    const r = reservations[out.length] as Reservation;
    const status = e.status === Status.SUBMITTED ? Status.IN_PROGRESS : e.status;
    const reserved = { ...e, status, reservation: { lockId: r.lockId, uuid: r.uuid } };
    space.put(id, reserved);
    out.push({ id, op: e.op, record: storedEntry(reserved, e.status) }); // the status as found
  }
  return out;
}

/**
 * The runnable, unreserved records of `range` in the runnable order (priority descending,
 * id ascending), after `after` when given: what a sorted store reads level by level.
 */
export function runnableInOrder(
  space: MemorySpace,
  range: IdRange | undefined,
  after?: RunnablePosition,
): Array<{ id: string; e: Entry }> {
  const sorted = space.sortedIds();
  const found: Array<{ id: string; e: Entry; priority: number }> = [];
  for (let i = firstAtOrAfter(sorted, range?.start); i < sorted.length; i++) {
    const id = sorted[i] as string;
    if (range?.end !== undefined && id >= range.end) break;
    const e = space.records.get(id);
    if (!e || e.reservation || !RUNNABLE_STATUSES.has(e.status as Status)) continue;
    const item = { id, e, priority: e.priority ?? 0 };
    if (after === undefined || compareRunnable(item, after) > 0) found.push(item);
  }
  return found.sort(compareRunnable);
}

/** The index of the first id >= `start` (binary search). */
export function firstAtOrAfter(sorted: readonly string[], start: string | undefined): number {
  if (start === undefined) return 0;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
