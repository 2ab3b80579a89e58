import type { Reservation, StoreBackend } from '@fate/core';
import { forwarding, setDeferral } from './forwarding.js';
import type { BackendMutant } from './mutant.js';

type Field = keyof Reservation;

/** A fence that compares only one field of the reservation (`WHERE res_lock = ?`). */
function halfFence(inner: StoreBackend, field: Field, op: 'write' | 'clearReservation') {
  const other = async (id: Parameters<StoreBackend['read']>[0], given: Reservation) => {
    const stored = (await inner.read(id))?.reservation;
    return stored && stored[field] === given[field] ? stored : undefined;
  };
  return op === 'write'
    ? forwarding(inner, {
        async write(id, reservation, change) {
          if (await inner.write(id, reservation, change)) return true;
          const stored = await other(id, reservation);
          return stored !== undefined && inner.write(id, stored, change);
        },
      })
    : forwarding(inner, {
        async clearReservation(id, reservation) {
          if (await inner.clearReservation(id, reservation)) return true;
          const stored = await other(id, reservation);
          return stored !== undefined && inner.clearReservation(id, stored);
        },
      });
}

/** Fencing of `write` and `clearReservation` (promises 16, 17, 26). */
export const fencingMutants: readonly BackendMutant[] = [
  {
    name: 'write-fences-lock-only',
    promise: 16,
    breaks: 'write applies when the stored lock id matches, whatever the uuid',
    wrap: (b) => halfFence(b, 'lockId', 'write'),
  },
  {
    name: 'write-fences-uuid-only',
    promise: 16,
    breaks: 'write applies when the stored uuid matches, whatever the lock id',
    wrap: (b) => halfFence(b, 'uuid', 'write'),
  },
  {
    name: 'write-unfenced-when-free',
    promise: 16,
    breaks: 'write also applies to an unreserved record (`res_lock IS NULL OR res_lock = ?`)',
    wrap: (inner) =>
      forwarding(inner, {
        async write(id, reservation, change) {
          if (await inner.write(id, reservation, change)) return true;
          const stored = await inner.read(id);
          if (!stored || stored.reservation) return false;
          if (typeof (await inner.tryReserve(id, reservation)) === 'string') return false;
          const ok = await inner.write(id, reservation, change);
          if (!change.release && !change.delete) await inner.clearReservation(id, reservation);
          return ok;
        },
      }),
  },
  {
    name: 'write-absent-answers-true',
    promise: 16,
    breaks: 'write to an absent record answers true',
    wrap: (inner) =>
      forwarding(inner, {
        async write(id, reservation, change) {
          return (await inner.write(id, reservation, change)) || !(await inner.read(id));
        },
      }),
  },
  {
    name: 'clear-fences-lock-only',
    promise: 17,
    breaks: 'clearReservation clears when the stored lock id matches, whatever the uuid',
    wrap: (b) => halfFence(b, 'lockId', 'clearReservation'),
  },
  {
    name: 'clear-fences-uuid-only',
    promise: 17,
    breaks: 'clearReservation clears when the stored uuid matches, whatever the lock id',
    wrap: (b) => halfFence(b, 'uuid', 'clearReservation'),
  },
  {
    name: 'clear-drops-deferral',
    promise: 26,
    breaks: 'clearReservation also resets the stored deferral to 0',
    wrap: (inner) =>
      forwarding(inner, {
        async clearReservation(id, reservation) {
          const before = await inner.read(id);
          if (!(await inner.clearReservation(id, reservation))) return false;
          if (before && before.deferUntil !== 0) await setDeferral(inner, id, 0);
          return true;
        },
      }),
  },
  {
    name: 'clear-answers-false',
    promise: 17,
    breaks: 'clearReservation clears but answers false when the reservation was held',
    wrap: (inner) =>
      forwarding(inner, {
        async clearReservation(id, reservation) {
          await inner.clearReservation(id, reservation);
          return false;
        },
      }),
  },
];
