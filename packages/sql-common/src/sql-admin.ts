import type { BackendCount, BackendListPage, BackendListQuery, BackendListRow } from '@fate/core';
import { type Compilable, sql } from 'kysely';
import type { SqlDialect } from './sql-dialect.js';
import { DUE_INDEX, FINISHED_INDEX, STATUS_OP_INDEX } from './sql-schema.js';

/** Most rows one `listPage` examines (in id order, after the cursor) before it returns. */
export const LIST_WINDOW = 10_000;

export interface AgeOffDueArgs {
  finishedBefore: number;
  now: number;
  limit: number;
}

/** A row of the list window. */
export interface ListRowColumns {
  id: string;
  status: string;
  op: string;
  res_lock: string | null;
  res_uuid: string | null;
  defer_until: number;
  priority: number;
  finished_at: number | string | null;
}

/**
 * The administrative and periodic queries of a SQL store, each answered from an index:
 * age-off from the two partial finish-time indexes, counts by a GROUP BY over the
 * (status, op) index, list pages from a bounded window of the primary key.
 */
export function adminQueries(d: SqlDialect) {
  const { db } = d;
  const ms = (value: number) => sql<number>`cast(${value} as bigint)`;
  return {
    /** Due rows without their own retention, oldest first. */
    finishedDue: (p: AgeOffDueArgs) =>
      d.pin(
        db
          .selectFrom('transactions')
          .select(['id', 'finished_at'])
          .where('finished_at', 'is not', null)
          .where('due_at', 'is', null)
          .where('finished_at', '<=', ms(p.finishedBefore))
          .orderBy('finished_at')
          .limit(p.limit),
        'transactions',
        FINISHED_INDEX,
      ),
    /** Due rows with their own retention, earliest due first. */
    ownDue: (p: AgeOffDueArgs) =>
      d.pin(
        db
          .selectFrom('transactions')
          .select(['id', 'finished_at'])
          .where('due_at', 'is not', null)
          .where('due_at', '<=', ms(p.now))
          .orderBy('due_at')
          .limit(p.limit),
        'transactions',
        DUE_INDEX,
      ),
    /** Deletes the given ids that are unreserved, finished and due (built per call). */
    deleteAgedOff: (ids: readonly string[], p: AgeOffDueArgs) =>
      db
        .deleteFrom('transactions')
        .where('id', 'in', [...ids])
        .where('res_lock', 'is', null)
        .where('finished_at', 'is not', null)
        .where((eb) =>
          eb.or([
            eb.and([eb('due_at', 'is', null), eb('finished_at', '<=', ms(p.finishedBefore))]),
            eb('due_at', '<=', ms(p.now)),
          ]),
        ),
    /** Rows by status and op. */
    counts: () =>
      d.pin(
        db
          .selectFrom('transactions')
          .select(['status', 'op', (eb) => eb.fn.countAll<number | string>().as('count')])
          .groupBy(['status', 'op']),
        'transactions',
        STATUS_OP_INDEX,
      ),
    /** The filtered rows of the window of `LIST_WINDOW` ids after the cursor (built per call). */
    listPage: (q: BackendListQuery): Compilable<ListRowColumns> => {
      let window = db
        .selectFrom('transactions')
        .select([
          'id',
          'status',
          'op',
          'res_lock',
          'res_uuid',
          'defer_until',
          'priority',
          'finished_at',
        ]);
      if (q.after !== undefined) window = window.where('id', '>', q.after);
      let page = db.selectFrom(window.orderBy('id').limit(LIST_WINDOW).as('w')).selectAll();
      if (q.statuses) page = page.where('status', 'in', [...q.statuses]);
      if (q.op !== undefined) page = page.where('op', '=', q.op);
      if (q.reserved !== undefined) {
        page = page.where('res_lock', q.reserved ? 'is not' : 'is', null);
      }
      if (q.holder !== undefined) {
        const prefix = `${q.holder}@`;
        page = page.where((eb) =>
          eb.or([
            eb('res_lock', '=', q.holder as string),
            eb(sql`substr(res_lock, 1, ${sql.lit(prefix.length)})`, '=', prefix),
          ]),
        );
      }
      if (q.deferred !== undefined) {
        page = page.where('defer_until', q.deferred ? '>' : '<=', d.clock());
      }
      return page.orderBy('id').limit(q.limit) as unknown as Compilable<ListRowColumns>;
    },
    /** How many ids the window after the cursor holds, and its last. */
    listWindowEnd: (q: BackendListQuery) => {
      let window = db.selectFrom('transactions').select('id');
      if (q.after !== undefined) window = window.where('id', '>', q.after);
      return db
        .selectFrom(window.orderBy('id').limit(LIST_WINDOW).as('w'))
        .select([
          (eb) => eb.fn.countAll<number | string>().as('n'),
          (eb) => eb.fn.max('id').as('last'),
        ]);
    },
  };
}

/** Merges the two age-off reads, oldest finish first, at most `limit`. */
export function mergeDue(
  a: ReadonlyArray<{ id: string; finished_at: number | string | null }>,
  b: ReadonlyArray<{ id: string; finished_at: number | string | null }>,
  limit: number,
): Array<{ id: string; finishedAt: number }> {
  return [...a, ...b]
    .map((r) => ({ id: r.id, finishedAt: Number(r.finished_at) }))
    .sort((x, y) => x.finishedAt - y.finishedAt)
    .slice(0, limit);
}

/** Counts rows as the backend contract answers them (drivers give bigints as text). */
export function toCounts(
  rows: ReadonlyArray<{ status: string; op: string; count: number | string }>,
): BackendCount[] {
  return rows.map((r) => ({ status: r.status, op: r.op, count: Number(r.count) }));
}

/** A page from the window's matching rows and the window's size and last id. */
export function toListPage(
  rows: readonly ListRowColumns[],
  end: { n: number | string; last: string | null } | undefined,
  limit: number,
): BackendListPage {
  const out: BackendListRow[] = rows.map((r) => ({
    id: r.id,
    status: r.status,
    op: r.op,
    reservation: r.res_lock === null ? null : { lockId: r.res_lock, uuid: r.res_uuid as string },
    deferUntil: Number(r.defer_until),
    ...(Number(r.priority) ? { priority: Number(r.priority) } : {}),
    ...(r.finished_at !== null ? { finishedAt: Number(r.finished_at) } : {}),
  }));
  if (out.length === limit) return { rows: out, last: out[out.length - 1]?.id as string };
  if (end && Number(end.n) === LIST_WINDOW && end.last !== null) {
    return { rows: out, last: end.last };
  }
  return { rows: out };
}
