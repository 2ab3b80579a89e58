import type { RecordWrite } from '@fate/core';
import { forwarding, setDeferral } from './forwarding.js';
import type { BackendMutant } from './mutant.js';

const THIRTY_S = 30_000;

/** What a fenced `write` keeps and changes (promises 5-8, 20) and the store clock (32). */
export const writeMutants: readonly BackendMutant[] = [
  {
    name: 'write-stack-drops-info',
    promise: 5,
    breaks: "a write that sets only the stack stores info as '{}'",
    wrap: (inner) =>
      forwarding(inner, {
        write: (id, r, c) =>
          inner.write(
            id,
            r,
            c.stack !== undefined && c.info === undefined ? { ...c, info: '{}' } : c,
          ),
      }),
  },
  {
    name: 'write-info-drops-stack',
    promise: 5,
    breaks: "a write that sets only info stores the stack as '[]'",
    wrap: (inner) =>
      forwarding(inner, {
        write: (id, r, c) =>
          inner.write(
            id,
            r,
            c.info !== undefined && c.stack === undefined ? { ...c, stack: '[]' } : c,
          ),
      }),
  },
  {
    name: 'write-status-alone-ignored',
    promise: 5,
    breaks: 'a write that sets status without a stack leaves the status as it was',
    wrap: (inner) =>
      forwarding(inner, {
        write(id, r, c) {
          if (c.stack !== undefined || c.status === undefined) return inner.write(id, r, c);
          const { status: _dropped, ...rest } = c;
          return inner.write(id, r, rest);
        },
      }),
  },
  {
    name: 'release-drops-status',
    promise: 5,
    breaks: 'a write with release forgets the status it carries',
    wrap: (inner) =>
      forwarding(inner, {
        write(id, r, c) {
          if (!c.release) return inner.write(id, r, c);
          const { status: _dropped, ...rest } = c;
          return inner.write(id, r, rest);
        },
      }),
  },
  {
    name: 'release-ignores-defer',
    promise: 6,
    breaks: 'release stores no deferral, whatever deferMs says',
    wrap: (inner) =>
      forwarding(inner, {
        write: (id, r, c) => inner.write(id, r, c.release ? { ...c, release: { deferMs: 0 } } : c),
      }),
  },
  {
    name: 'release-zero-keeps-deferral',
    promise: 6,
    breaks: 'release with deferMs 0 keeps an earlier stored deferral (`COALESCE`)',
    wrap: (inner) =>
      forwarding(inner, {
        async write(id, r, c) {
          if (c.release?.deferMs !== 0) return inner.write(id, r, c);
          const until = (await inner.read(id))?.deferUntil ?? 0;
          const left = until - inner.now();
          return inner.write(id, r, left > 0 ? { ...c, release: { deferMs: left } } : c);
        },
      }),
  },
  {
    name: 'release-zero-stores-now',
    promise: 3,
    breaks: "release with deferMs 0 stores the store's now (+1 ms) instead of 0",
    wrap: (inner) =>
      forwarding(inner, {
        write: (id, r, c) =>
          inner.write(id, r, c.release?.deferMs === 0 ? { ...c, release: { deferMs: 1 } } : c),
      }),
  },
  {
    name: 'release-keeps-reservation',
    promise: 6,
    breaks: 'release writes the fields but keeps the reservation',
    wrap: (inner) =>
      forwarding(inner, {
        write(id, r, c) {
          if (!c.release) return inner.write(id, r, c);
          const { release: _dropped, ...rest } = c;
          return inner.write(id, r, rest);
        },
      }),
  },
  {
    name: 'write-drops-reservation',
    promise: 7,
    breaks: 'every write ends the reservation, with or without release',
    wrap: (inner) =>
      forwarding(inner, {
        write: (id, r, c) =>
          inner.write(id, r, c.delete || c.release ? c : { ...c, release: { deferMs: 0 } }),
      }),
  },
  {
    name: 'write-clears-deferral',
    promise: 7,
    breaks: 'a write without release resets the stored deferral to 0',
    wrap: (inner) =>
      forwarding(inner, {
        async write(id, r, c) {
          if (!(await inner.write(id, r, c))) return false;
          if (!c.release && !c.delete && ((await inner.read(id))?.deferUntil ?? 0) !== 0) {
            await setDeferral(inner, id, 0);
          }
          return true;
        },
      }),
  },
  {
    name: 'delete-with-fields-updates',
    promise: 8,
    breaks: 'a delete that carries other fields writes them instead of deleting',
    wrap: (inner) =>
      forwarding(inner, {
        write(id, r, c) {
          if (!c.delete || (c.status ?? c.stack ?? c.info ?? c.release) === undefined) {
            return inner.write(id, r, c);
          }
          const { delete: _dropped, ...rest } = c;
          return inner.write(id, r, rest as RecordWrite);
        },
      }),
  },
  {
    name: 'write-repeat-answers-false',
    promise: 20,
    breaks: 'a write that changes nothing (a repeat after it applied) answers false',
    wrap: (inner) =>
      forwarding(inner, {
        async write(id, r, c) {
          const before = await inner.read(id);
          const same =
            before !== undefined &&
            !c.delete &&
            !c.release &&
            (c.status ?? before.status) === before.status &&
            (c.stack ?? before.stack) === before.stack &&
            (c.info ?? before.info) === before.info;
          const ok = await inner.write(id, r, c);
          return ok && !same;
        },
      }),
  },
  {
    name: 'now-ahead-30s',
    promise: 32,
    breaks: 'now() answers 30 s ahead of the clock deferrals are stored by',
    wrap: (inner) => forwarding(inner, { now: () => inner.now() + THIRTY_S }),
  },
  {
    name: 'now-behind-30s',
    promise: 32,
    breaks: 'now() answers 30 s behind the clock deferrals are stored by',
    wrap: (inner) => forwarding(inner, { now: () => inner.now() - THIRTY_S }),
  },
];
