import type { Database } from 'better-sqlite3';
import { type Compilable, sql } from 'kysely';
import { PreparedQuery } from './sqlite-prepared.js';
import { indexedBy, type RangeArgs, rangeStatements } from './sqlite-ranges.js';
import {
  db,
  RESERVED_INDEX,
  RUNNABLE_INDEX,
  runnableUnreserved,
  storeClock,
} from './sqlite-schema.js';

interface Fence {
  id: string;
  lockId: string;
  uuid: string;
}

interface InsertArgs {
  id: string;
  status: string;
  stack: string;
  info: string;
  op: string;
}

/** A fenced update; NULL leaves a field as it is (`newLock` NULL releases). */
interface WriteArgs extends Fence {
  status: string | null;
  stack: string | null;
  info: string | null;
  newLock: string | null;
  newUuid: string | null;
  /** NULL keeps the stored deferral; 0 clears it; more defers that long by the store clock. */
  deferMs: number | null;
}

interface ScanArgs extends RangeArgs {
  limit: number;
}

export interface RecordColumns {
  status: string;
  stack: string;
  info: string;
  res_lock: string | null;
  res_uuid: string | null;
  defer_until: number;
}

const RECORD_COLUMNS = ['status', 'stack', 'info', 'res_lock', 'res_uuid', 'defer_until'] as const;

/**
 * The hot statements, compiled by kysely and prepared once per connection. Each is one
 * SQL statement, hence atomic against every other process on the file; every write
 * carries its fence (`res_lock` and `res_uuid`) in its WHERE clause, and every use of the
 * clock reads SQLite's own inside the statement.
 */
export function prepareStatements(database: Database) {
  const q = <A extends object, R>(build: (p: A) => Compilable<R>) =>
    new PreparedQuery<A, R>(database, build);
  const tx = db.updateTable('transactions');
  const reserved = () =>
    db
      .selectFrom('transactions')
      .select(['id', 'res_lock', 'res_uuid'])
      .where('res_lock', 'is not', null);
  return {
    now: q(() => db.selectNoFrom(storeClock().as('now'))),
    insert: q((p: InsertArgs) =>
      db
        .insertInto('transactions')
        .values({
          id: p.id,
          status: p.status,
          stack: p.stack,
          info: p.info,
          op: p.op,
          res_lock: null,
          res_uuid: null,
          defer_until: 0,
        })
        .onConflict((oc) => oc.doNothing()),
    ),
    read: q((p: { id: string }) =>
      db.selectFrom('transactions').select(RECORD_COLUMNS).where('id', '=', p.id),
    ),
    /** Takes an unreserved record, or re-takes one already held by this very reservation. */
    reserve: q((p: Fence) =>
      tx
        .set({ res_lock: p.lockId, res_uuid: p.uuid })
        .where('id', '=', p.id)
        .where((eb) =>
          eb.or([
            eb('res_lock', 'is', null),
            eb.and([eb('res_lock', '=', p.lockId), eb('res_uuid', '=', p.uuid)]),
          ]),
        )
        .returning(RECORD_COLUMNS),
    ),
    /** Tells "absent" from "held" after `reserve` matched nothing. */
    holder: q((p: { id: string }) =>
      db.selectFrom('transactions').select(['res_lock', 'res_uuid']).where('id', '=', p.id),
    ),
    write: q((p: WriteArgs) =>
      tx
        .set((eb) => ({
          status: eb.fn.coalesce(eb.val(p.status), eb.ref('status')),
          stack: eb.fn.coalesce(eb.val(p.stack), eb.ref('stack')),
          info: eb.fn.coalesce(eb.val(p.info), eb.ref('info')),
          res_lock: p.newLock,
          res_uuid: p.newUuid,
          defer_until: sql<number>`coalesce(case when ${p.deferMs} > 0 then ${storeClock()} + ${p.deferMs} when ${p.deferMs} = 0 then 0 end, defer_until)`,
        }))
        .where('id', '=', p.id)
        .where('res_lock', '=', p.lockId)
        .where('res_uuid', '=', p.uuid),
    ),
    remove: q((p: Fence) =>
      db
        .deleteFrom('transactions')
        .where('id', '=', p.id)
        .where('res_lock', '=', p.lockId)
        .where('res_uuid', '=', p.uuid),
    ),
    clearReservation: q((p: Fence) =>
      tx
        .set({ res_lock: null, res_uuid: null })
        .where('id', '=', p.id)
        .where('res_lock', '=', p.lockId)
        .where('res_uuid', '=', p.uuid),
    ),
    /**
     * Runnable, unreserved rows in id order, deferred ones included (they are read anyway
     * and give the earliest deferral); `due` is judged by the store clock.
     */
    scan: rangeStatements(q, (p: ScanArgs, start, end) => {
      let query = db
        .selectFrom('transactions')
        .select(['id', 'op', 'defer_until', sql<number>`defer_until <= ${storeClock()}`.as('due')])
        .where(runnableUnreserved);
      if (start) query = query.where('id', '>=', p.start);
      if (end) query = query.where('id', '<', p.end);
      return indexedBy(query.orderBy('id').limit(p.limit), 'transactions', RUNNABLE_INDEX);
    }),
    /** Held reservations in a range: a search of the partial index of held rows. */
    reserved: rangeStatements(q, (p: RangeArgs, start, end) => {
      let query = reserved();
      if (start) query = query.where('id', '>=', p.start);
      if (end) query = query.where('id', '<', p.end);
      return indexedBy(query.orderBy('id'), 'transactions', RESERVED_INDEX);
    }),
    /**
     * Held reservations of one lock id: a scan of the same partial index, whose size is the
     * work in flight (a second index by lock id would cost every reserve and release a page).
     */
    reservedBy: q((p: { lockId: string }) =>
      indexedBy(
        reserved().where('res_lock', '=', p.lockId).orderBy('id'),
        'transactions',
        RESERVED_INDEX,
      ),
    ),
    heartbeat: q((p: { lockId: string; state: string; ttlMs: number }) =>
      db
        .insertInto('liveness')
        .values({
          lock_id: p.lockId,
          state: p.state,
          forget_at: sql<number>`${storeClock()} + ${p.ttlMs}`,
        })
        .onConflict((oc) =>
          oc.column('lock_id').doUpdateSet((eb) => ({
            state: eb.ref('excluded.state'),
            forget_at: eb.ref('excluded.forget_at'),
          })),
        ),
    ),
    /** Every liveness row, with whether the store clock has passed its `forget_at`. */
    liveness: q(() =>
      db
        .selectFrom('liveness')
        .select(['lock_id', 'state', sql<number>`forget_at <= ${storeClock()}`.as('lapsed')])
        .orderBy('lock_id'),
    ),
    /** Deletes the rows past `forget_at`, judged again now (a row renewed since stays). */
    forget: q(() => db.deleteFrom('liveness').where('forget_at', '<=', storeClock())),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
