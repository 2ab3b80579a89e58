import {
  type BackendScan,
  type IdRange,
  inRange,
  RUNNABLE_STATUSES,
  type RunnablePosition,
  type Status,
  type StoreBackend,
  type StoredRecord,
} from '@fate/core';
import { forwarding } from './forwarding.js';

/* The rewrites of a scan page the scan mutants are built from. */

/** Keeps the ids (and their ops) that `keep` accepts. */
export function only(page: BackendScan, keep: (id: string) => boolean): BackendScan {
  const at = page.ids.flatMap((id, i) => (keep(id) ? [i] : []));
  return {
    ...page,
    ids: at.map((i) => page.ids[i] as string),
    ops: at.map((i) => page.ops[i] as string),
  };
}

/** Drops `last` (and sets it to `last` when given). */
export function withLast(page: BackendScan, last?: string): BackendScan {
  const { last: _dropped, ...rest } = page;
  return last === undefined ? rest : { ...rest, last };
}

/** nextDeferralAt computed by a buggy rule from every record of the range. */
export function deferralBy(
  inner: StoreBackend,
  counts: (r: StoredRecord) => boolean,
  pick: (values: number[]) => number,
): StoreBackend {
  return forwarding(inner, {
    async scanRunnable(range: IdRange | undefined, limit: number, after?: RunnablePosition) {
      const { nextDeferralAt: _dropped, ...page } = await inner.scanRunnable(range, limit, after);
      const now = inner.now();
      const values = (await inner.list())
        .filter(({ id, record }) => inRange(id, range) && record.deferUntil > now && counts(record))
        .map(({ record }) => record.deferUntil);
      return values.length > 0 ? { ...page, nextDeferralAt: pick(values) } : page;
    },
  });
}

/** Whether a record's status is runnable. */
export const runnable = (r: StoredRecord) => RUNNABLE_STATUSES.has(r.status as Status);

/** A page that also holds the range's records `extra` accepts, merged in id order. */
export function including(inner: StoreBackend, extra: (r: StoredRecord, now: number) => boolean) {
  return forwarding(inner, {
    async scanRunnable(range, limit, after) {
      const page = await inner.scanRunnable(range, limit, after);
      const now = inner.now();
      const more = (await inner.list())
        .filter(({ id, record }) => inRange(id, range) && runnable(record) && extra(record, now))
        .map(({ id }) => [id, ''] as const);
      const merged = [...page.ids.map((id, i) => [id, page.ops[i] ?? ''] as const), ...more]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .slice(0, limit);
      return { ...page, ids: merged.map(([id]) => id), ops: merged.map(([, op]) => op) };
    },
  });
}
