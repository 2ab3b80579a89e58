import { setTimeout as sleep } from 'node:timers/promises';
import { Status, sameReservation } from '@fate/core';
import { forwarding, setDeferral } from './forwarding.js';
import type { BackendMutant } from './mutant.js';

/** `tryReserve` (promises 15, 18, 23, 24, 25) and the `reservations` listing (28). */
export const reserveMutants: readonly BackendMutant[] = [
  {
    name: 'reserve-retry-held',
    promise: 18,
    breaks: 'tryReserve with the reservation already stored (a retry) answers held',
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const stored = await inner.read(id);
          if (stored && sameReservation(stored.reservation, reservation)) return 'held';
          return inner.tryReserve(id, reservation, start);
        },
      }),
  },
  {
    name: 'reserve-same-lock-steals',
    promise: 23,
    breaks: 'tryReserve takes a record held by the same lock id under another uuid',
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const held = (await inner.read(id))?.reservation;
          if (held && held.lockId === reservation.lockId) await inner.clearReservation(id, held);
          return inner.tryReserve(id, reservation, start);
        },
      }),
  },
  {
    name: 'reserve-absent-answers-held',
    promise: 23,
    breaks: "tryReserve of an absent id answers 'held' instead of 'absent'",
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const got = await inner.tryReserve(id, reservation, start);
          return got === 'absent' ? 'held' : got;
        },
      }),
  },
  {
    name: 'reserve-reply-without-reservation',
    promise: 23,
    breaks: 'tryReserve answers the record as it was read, without the new reservation',
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const got = await inner.tryReserve(id, reservation, start);
          return typeof got === 'string' ? got : { ...got, reservation: null };
        },
      }),
  },
  {
    name: 'reserve-not-atomic',
    promise: 15,
    breaks: 'tryReserve checks, then sets: a reservation taken in between is overwritten',
    needs: 'a macrotask between check and set; the memory backend answers within one',
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const before = await inner.read(id);
          if (!before || before.reservation) return inner.tryReserve(id, reservation, start);
          await sleep(1);
          const now = (await inner.read(id))?.reservation;
          if (now && !sameReservation(now, reservation)) await inner.clearReservation(id, now);
          return inner.tryReserve(id, reservation, start);
        },
      }),
  },
  {
    name: 'reserve-start-any-status',
    promise: 24,
    breaks: 'tryReserve with start also starts NEW and FAILED_IN_PROGRESS records',
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const got = await inner.tryReserve(id, reservation, start);
          if (!start || typeof got === 'string') return got;
          if (got.status !== Status.NEW && got.status !== Status.FAILED_IN_PROGRESS) return got;
          await inner.write(id, reservation, { status: Status.IN_PROGRESS });
          return { ...got, status: Status.IN_PROGRESS };
        },
      }),
  },
  {
    name: 'reserve-start-ignored',
    promise: 24,
    breaks: 'tryReserve ignores start: a SUBMITTED record stays SUBMITTED',
    wrap: (inner) =>
      forwarding(inner, {
        tryReserve: (id, reservation) => inner.tryReserve(id, reservation, false),
      }),
  },
  {
    name: 'reserve-start-answers-stored',
    promise: 24,
    breaks:
      'tryReserve with start answers the status it stored (IN_PROGRESS), not the one it found: a fresh start reads as a repeat that may have run',
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const got = await inner.tryReserve(id, reservation, start);
          if (typeof got === 'string' || !start || got.status !== Status.SUBMITTED) return got;
          return { ...got, status: Status.IN_PROGRESS };
        },
      }),
  },
  {
    name: 'reserve-clears-deferral',
    promise: 25,
    breaks: 'tryReserve resets the stored deferral to 0 (and answers 0)',
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const got = await inner.tryReserve(id, reservation, start);
          if (typeof got === 'string' || got.deferUntil === 0) return got;
          await setDeferral(inner, id, 0);
          return { ...got, deferUntil: 0 };
        },
      }),
  },
  {
    name: 'reserve-drops-info',
    promise: 25,
    breaks: "tryReserve answers the record's info as '{}'",
    wrap: (inner) =>
      forwarding(inner, {
        async tryReserve(id, reservation, start) {
          const got = await inner.tryReserve(id, reservation, start);
          return typeof got === 'string' ? got : { ...got, info: '{}' };
        },
      }),
  },
  {
    name: 'reservations-unsorted',
    promise: 28,
    breaks: 'reservations come in reverse id order',
    wrap: (inner) =>
      forwarding(inner, {
        reservations: async (filter) => (await inner.reservations(filter)).reverse(),
      }),
  },
  {
    name: 'reservations-range-start-exclusive',
    promise: 28,
    breaks: "the range filter leaves out the reservation at the range's start",
    wrap: (inner) =>
      forwarding(inner, {
        async reservations(filter) {
          const start = filter?.range?.start;
          return (await inner.reservations(filter)).filter((r) => r.id !== start);
        },
      }),
  },
  {
    name: 'reservations-range-shifted',
    promise: 28,
    breaks: 'the range filter returns the range after the one asked for ([end, ∞))',
    wrap: (inner) =>
      forwarding(inner, {
        async reservations(filter) {
          const range = filter?.range;
          if (!range) return inner.reservations(filter);
          const shifted = range.end === undefined ? { start: '~' } : { start: range.end };
          return inner.reservations({ ...filter, range: shifted });
        },
      }),
  },
  {
    name: 'reservations-lock-filter-on-uuid',
    promise: 28,
    breaks: 'the lockId filter compares against the uuid, so it finds nothing',
    wrap: (inner) =>
      forwarding(inner, {
        async reservations(filter) {
          const all = await inner.reservations(filter?.range ? { range: filter.range } : {});
          const lockId = filter?.lockId;
          return lockId === undefined ? all : all.filter((r) => r.reservation.uuid === lockId);
        },
      }),
  },
  {
    name: 'reservations-uuid-missing',
    promise: 28,
    breaks: "reservations answer each reservation's lock id with an empty uuid",
    wrap: (inner) =>
      forwarding(inner, {
        reservations: async (filter) =>
          (await inner.reservations(filter)).map(({ id, reservation }) => ({
            id,
            reservation: { lockId: reservation.lockId, uuid: '' },
          })),
      }),
  },
];
