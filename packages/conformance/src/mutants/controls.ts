import { forwarding } from './forwarding.js';
import type { BackendMutant } from './mutant.js';

/**
 * Behaviour the contract allows. The suite must pass every one of these: a case that
 * fails one relies on something no backend promised.
 */
export const controlMutants: readonly BackendMutant[] = [
  {
    name: 'list-ignores-statuses',
    promise: 27,
    allowed: true,
    breaks: 'list answers every record whatever statuses it was given (they are a hint)',
    wrap: (inner) => forwarding(inner, { list: () => inner.list() }),
  },
  {
    name: 'reservations-ignore-filter',
    promise: 28,
    allowed: true,
    breaks: 'reservations answers every reservation whatever the filter (it is a hint)',
    wrap: (inner) => forwarding(inner, { reservations: () => inner.reservations() }),
  },
  {
    name: 'scan-last-on-every-full-page',
    promise: 13,
    allowed: true,
    breaks: 'a page with exactly `limit` ids has a last even when the range ends there',
    wrap: (inner) =>
      forwarding(inner, {
        async scanRunnable(range, limit, after) {
          const page = await inner.scanRunnable(range, limit, after);
          const tail = page.ids.at(-1);
          if (page.ids.length !== limit || tail === undefined) return page;
          // the place is an id and its level: with priorities, the tail's own level
          const level = page.priorities?.at(-1);
          return { ...page, last: tail, ...(level !== undefined ? { lastPriority: level } : {}) };
        },
      }),
  },
  {
    name: 'instances-kept-longer',
    promise: 30,
    allowed: true,
    breaks: 'liveness records are kept twice their ttl',
    wrap: (inner) =>
      forwarding(inner, {
        heartbeat: (lockId, state, ttlMs) => inner.heartbeat(lockId, state, ttlMs * 2),
      }),
  },
];
