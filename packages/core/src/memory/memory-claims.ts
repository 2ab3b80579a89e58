import { RUNNABLE_STATUSES, Status } from '../status.js';
import type { ClaimedRecord } from '../store/backend-claims.js';
import { sameReservation } from '../store/codec.js';
import type { IdRange, Reservation } from '../store/types.js';
import type { MemorySpace } from './memory-space.js';

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
      out.push({ id, op: e.op, record: stored(e, e.status) });
    }
  }
  if (out.length > 0) return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  const sorted = space.sortedIds();
  for (let i = firstAtOrAfter(sorted, range?.start); i < sorted.length; i++) {
    if (out.length === reservations.length) break;
    const id = sorted[i] as string;
    if (range?.end !== undefined && id >= range.end) break;
    const e = space.records.get(id);
    if (!e || e.reservation || !RUNNABLE_STATUSES.has(e.status as Status)) continue;
    if (e.deferUntil > now) continue;
    const r = reservations[out.length] as Reservation;
    const status = e.status === Status.SUBMITTED ? Status.IN_PROGRESS : e.status;
    const reserved = { ...e, status, reservation: { lockId: r.lockId, uuid: r.uuid } };
    space.put(id, reserved);
    out.push({ id, op: e.op, record: stored(reserved, e.status) }); // the status as found
  }
  return out;
}

function stored(
  e: { stack: string; info: string; reservation: Reservation | null; deferUntil: number },
  status: string,
) {
  return {
    status,
    stack: e.stack,
    info: e.info,
    reservation: e.reservation,
    deferUntil: e.deferUntil,
  };
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
