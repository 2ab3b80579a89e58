import { forwarding } from './forwarding.js';
import type { BackendMutant } from './mutant.js';
import { deferralBy, including, only, runnable, withLast } from './scan-rewrites.js';

/** One page of `scanRunnable` (promises 9, 10, 12, 13, 14). */
export const scanMutants: readonly BackendMutant[] = [
  {
    name: 'scan-unsorted',
    promise: 9,
    breaks: 'a page lists its ids (and ops) in descending order',
    wrap: (inner) =>
      forwarding(inner, {
        async scanRunnable(range, limit, after) {
          const page = await inner.scanRunnable(range, limit, after);
          return { ...page, ids: [...page.ids].reverse(), ops: [...page.ops].reverse() };
        },
      }),
  },
  {
    name: 'scan-limit-ignored',
    promise: 9,
    breaks: 'a page holds every runnable id of the range, whatever the limit',
    wrap: (inner) =>
      forwarding(inner, { scanRunnable: (range) => inner.scanRunnable(range, 100_000) }),
  },
  {
    name: 'scan-ops-misaligned',
    promise: 10,
    breaks: "ops are shifted by one against the ids (the first id gets the second's op)",
    wrap: (inner) =>
      forwarding(inner, {
        async scanRunnable(range, limit, after) {
          const page = await inner.scanRunnable(range, limit, after);
          return { ...page, ops: [...page.ops.slice(1), ...page.ops.slice(0, 1)] };
        },
      }),
  },
  {
    name: 'scan-includes-reserved',
    promise: 14,
    breaks: 'a scan also returns runnable records that are reserved',
    wrap: (inner) => including(inner, (r, now) => r.reservation !== null && r.deferUntil <= now),
  },
  {
    name: 'scan-includes-deferred',
    promise: 14,
    breaks: 'a scan also returns runnable records whose deferral has not passed',
    wrap: (inner) => including(inner, (r, now) => r.reservation === null && r.deferUntil > now),
  },
  {
    name: 'scan-skips-failed-in-progress',
    promise: 14,
    breaks: 'a scan leaves out FAILED_IN_PROGRESS records (no rollback is ever found)',
    wrap: (inner) =>
      forwarding(inner, {
        async scanRunnable(range, limit, after) {
          const page = await inner.scanRunnable(range, limit, after);
          const statuses = await Promise.all(
            page.ids.map(async (id) => (await inner.read(id as never))?.status),
          );
          return only(page, (id) => statuses[page.ids.indexOf(id)] !== 'FAILED_IN_PROGRESS');
        },
      }),
  },
  {
    name: 'scan-items-read-zero',
    promise: 11,
    breaks: 'a scan says it read nothing',
    wrap: (inner) =>
      forwarding(inner, {
        scanRunnable: async (range, limit, after) => ({
          ...(await inner.scanRunnable(range, limit, after)),
          itemsRead: 0,
        }),
      }),
  },
  {
    name: 'scan-ignores-range-end',
    promise: 14,
    breaks: 'a range scan runs on past the end of its range',
    wrap: (inner) =>
      forwarding(inner, {
        scanRunnable: (range, limit) =>
          inner.scanRunnable(
            range?.start === undefined ? undefined : { start: range.start },
            limit,
          ),
      }),
  },
  {
    name: 'scan-includes-range-end',
    promise: 14,
    breaks: "a range scan includes an id equal to the range's end",
    wrap: (inner) =>
      forwarding(inner, {
        async scanRunnable(range, limit, after) {
          const end = range?.end;
          if (end === undefined) return inner.scanRunnable(range, limit, after);
          const wider = await inner.scanRunnable({ ...range, end: undefined }, limit, after);
          const page = only(wider, (id) => id <= end);
          return page.ids.length < wider.ids.length ? withLast(page) : page;
        },
      }),
  },
  {
    name: 'scan-excludes-range-start',
    promise: 14,
    breaks: "a range scan leaves out an id equal to the range's start",
    wrap: (inner) =>
      forwarding(inner, {
        scanRunnable: async (range, limit, after) =>
          only(await inner.scanRunnable(range, limit, after), (id) => id !== range?.start),
      }),
  },
  {
    name: 'scan-last-missing',
    promise: 13,
    breaks: 'a page that ended at the limit has no last',
    wrap: (inner) =>
      forwarding(inner, {
        scanRunnable: async (range, limit, after) =>
          withLast(await inner.scanRunnable(range, limit, after)),
      }),
  },
  {
    name: 'scan-last-on-partial-page',
    promise: 13,
    breaks: 'a page that reached the end of its range still has a last',
    wrap: (inner) =>
      forwarding(inner, {
        async scanRunnable(range, limit, after) {
          const page = await inner.scanRunnable(range, limit, after);
          const tail = page.ids.at(-1);
          return page.last === undefined && tail !== undefined ? withLast(page, tail) : page;
        },
      }),
  },
  {
    name: 'scan-last-one-too-far',
    promise: 13,
    breaks: 'last is the id after the last one returned, so the next page skips it',
    wrap: (inner) =>
      forwarding(inner, {
        async scanRunnable(range, limit, after) {
          const page = await inner.scanRunnable(range, limit + 1, after);
          if (page.ids.length <= limit) return page;
          return {
            ...page,
            ids: page.ids.slice(0, limit),
            ops: page.ops.slice(0, limit),
            last: page.ids[limit] as string,
          };
        },
      }),
  },
  {
    name: 'scan-next-deferral-latest',
    promise: 12,
    breaks: 'nextDeferralAt is the latest deferral, not the earliest',
    wrap: (inner) =>
      deferralBy(
        inner,
        (r) => runnable(r) && !r.reservation,
        (v) => Math.max(...v),
      ),
  },
  {
    name: 'scan-next-deferral-counts-reserved',
    promise: 12,
    breaks: 'nextDeferralAt also counts deferred records that are reserved',
    wrap: (inner) => deferralBy(inner, runnable, (v) => Math.min(...v)),
  },
  {
    name: 'scan-next-deferral-counts-finished',
    promise: 12,
    breaks: 'nextDeferralAt also counts deferred records that are not runnable (finished, NEW)',
    wrap: (inner) =>
      deferralBy(
        inner,
        (r) => !r.reservation,
        (v) => Math.min(...v),
      ),
  },
  {
    name: 'scan-next-deferral-only-when-empty',
    promise: 12,
    breaks: 'nextDeferralAt is given only when the page has no runnable id',
    wrap: (inner) =>
      forwarding(inner, {
        async scanRunnable(range, limit, after) {
          const page = await inner.scanRunnable(range, limit, after);
          if (page.ids.length === 0) return page;
          const { nextDeferralAt: _dropped, ...rest } = page;
          return rest;
        },
      }),
  },
];
