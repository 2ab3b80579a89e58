import { Status } from '@fate/core';
import { sql } from 'kysely';
import type { SqlDialect } from './sql-dialect.js';
import { type LevelArgs, levelWalk } from './sql-priority.js';
import { type RangeArgs, rangeShapes } from './sql-ranges.js';
import { RESERVED_INDEX } from './sql-schema.js';

/** A fenced call: the record and the reservation its holder believes it has. */
export interface Fence {
  id: string;
  lockId: string;
  uuid: string;
}

/** One row of a runnable scan; `due` is the database's verdict (0/1 or a boolean). */
export interface ScanRow {
  id: string;
  op: string;
  priority: number;
  defer_until: number;
  due: number | boolean;
}

export interface InsertArgs {
  id: string;
  status: string;
  stack: string;
  info: string;
  op: string;
  /** Whole ms from the insert by the store clock; 0: not deferred. */
  deferMs: number;
  priority: number;
}

/** A fenced update; NULL leaves a field as it is (`newLock` NULL releases). */
export interface WriteArgs extends Fence {
  status: string | null;
  stack: string | null;
  info: string | null;
  newLock: string | null;
  newUuid: string | null;
  /** NULL keeps the stored deferral; 0 clears it; more defers that long by the store clock. */
  deferMs: number | null;
  /** The age-off entry: 0 keeps it, 1 clears it (unfinished), 2 sets it from the two below. */
  finishMode: number;
  /** The finish stamp; NULL: the store clock. */
  finishAt: number | null;
  /** Its own retention; NULL: none. */
  retainMs: number | null;
}

export type ScanArgs = LevelArgs;

export interface HeartbeatArgs {
  lockId: string;
  state: string;
  ttlMs: number;
}

/** The columns a record is read from. */
export const RECORD_COLUMNS = [
  'status',
  'stack',
  'info',
  'res_lock',
  'res_uuid',
  'defer_until',
  'priority',
] as const;

/**
 * Every query of a fate SQL store, built for `d`: one SQL statement each, hence atomic;
 * every write carries its fence (`res_lock` and `res_uuid`) in its WHERE clause, and every
 * use of the clock is the database's own, inside the statement. Numbers bound into
 * arithmetic are cast to 64 bits (PostgreSQL would otherwise type them as int4).
 */
export function fateQueries(d: SqlDialect) {
  const { db } = d;
  const reserve = (p: Fence, start: boolean) =>
    db
      .updateTable('transactions')
      .set({
        res_lock: p.lockId,
        res_uuid: p.uuid,
        ...(start ? { status: sql.lit(Status.IN_PROGRESS) } : {}),
      })
      .where('id', '=', p.id)
      .$if(start, (qb) => qb.where('status', '=', sql.lit(Status.SUBMITTED)))
      .where((eb) =>
        eb.or([
          eb('res_lock', 'is', null),
          eb.and([eb('res_lock', '=', p.lockId), eb('res_uuid', '=', p.uuid)]),
        ]),
      )
      .returning(RECORD_COLUMNS);
  const ms = (value: number | null) => sql<number>`cast(${value} as bigint)`;
  const reservedRows = () =>
    db
      .selectFrom('transactions')
      .select(['id', 'res_lock', 'res_uuid'])
      .where('res_lock', 'is not', null);
  return {
    now: () => db.selectNoFrom(d.clock().as('now')),
    insert: (p: InsertArgs) =>
      db
        .insertInto('transactions')
        .values({
          id: p.id,
          status: p.status,
          stack: p.stack,
          info: p.info,
          op: p.op,
          priority: p.priority,
          res_lock: null,
          res_uuid: null,
          defer_until: sql<number>`case when ${ms(p.deferMs)} > 0 then ${d.clock()} + ${ms(p.deferMs)} else 0 end`,
        })
        .onConflict((oc) => oc.doNothing()),
    read: (p: { id: string }) =>
      db.selectFrom('transactions').select(RECORD_COLUMNS).where('id', '=', p.id),
    /** Takes an unreserved record, or re-takes one already held by this very reservation. */
    reserve: (p: Fence) => reserve(p, false),
    /**
     * `reserve` of a SUBMITTED record only, which becomes IN_PROGRESS in the same statement
     * (a row back means this statement started it); any other status takes `reserve`.
     */
    reserveToRun: (p: Fence) => reserve(p, true),
    /** Tells "absent" from "held" after `reserve` matched nothing. */
    holder: (p: { id: string }) =>
      db.selectFrom('transactions').select(['res_lock', 'res_uuid']).where('id', '=', p.id),
    write: (p: WriteArgs) =>
      db
        .updateTable('transactions')
        .set((eb) => ({
          status: eb.fn.coalesce(eb.val(p.status), eb.ref('status')),
          stack: eb.fn.coalesce(eb.val(p.stack), eb.ref('stack')),
          info: eb.fn.coalesce(eb.val(p.info), eb.ref('info')),
          res_lock: p.newLock,
          res_uuid: p.newUuid,
          defer_until: sql<number>`coalesce(case when ${ms(p.deferMs)} > 0 then ${d.clock()} + ${ms(p.deferMs)} when ${ms(p.deferMs)} = 0 then 0 end, defer_until)`,
          finished_at: sql<
            number | null
          >`case when ${ms(p.finishMode)} = 2 then coalesce(${ms(p.finishAt)}, ${d.clock()}) when ${ms(p.finishMode)} = 1 then null else finished_at end`,
          due_at: sql<
            number | null
          >`case when ${ms(p.finishMode)} = 2 then coalesce(${ms(p.finishAt)}, ${d.clock()}) + ${ms(p.retainMs)} when ${ms(p.finishMode)} = 1 then null else due_at end`,
        }))
        .where('id', '=', p.id)
        .where('res_lock', '=', p.lockId)
        .where('res_uuid', '=', p.uuid),
    remove: (p: Fence) =>
      db
        .deleteFrom('transactions')
        .where('id', '=', p.id)
        .where('res_lock', '=', p.lockId)
        .where('res_uuid', '=', p.uuid),
    clearReservation: (p: Fence) =>
      db
        .updateTable('transactions')
        .set({ res_lock: null, res_uuid: null })
        .where('id', '=', p.id)
        .where('res_lock', '=', p.lockId)
        .where('res_uuid', '=', p.uuid),
    /**
     * Runnable, unreserved rows in the runnable order (priority, then id), level by level
     * (`sql-priority.ts`), deferred ones included (they are read anyway and give the
     * earliest deferral); `due` is judged by the store clock.
     */
    scan: rangeShapes(
      (start, end) => (p: ScanArgs) =>
        levelWalk<ScanRow>(d, { start, end, due: false }, p, [
          'id',
          'op',
          'priority',
          'defer_until',
        ]),
    ),
    /** Held reservations in a range: a search of the partial index of held rows. */
    reserved: rangeShapes((start, end) => (p: RangeArgs) => {
      let query = reservedRows();
      if (start) query = query.where('id', '>=', p.start);
      if (end) query = query.where('id', '<', p.end);
      return d.pin(query.orderBy('id'), 'transactions', RESERVED_INDEX);
    }),
    /**
     * Held reservations of one lock id: the same partial index, read whole; its size is the
     * work in flight (an index by lock id would cost every reserve and release a page).
     */
    reservedBy: (p: { lockId: string }) =>
      d.pin(
        reservedRows().where('res_lock', '=', p.lockId).orderBy('id'),
        'transactions',
        RESERVED_INDEX,
      ),
    /** Every record, or those in `statuses`, in id order (built per call: not hot). */
    list: (statuses?: readonly string[]) => {
      let query = db.selectFrom('transactions').select(['id', ...RECORD_COLUMNS]);
      if (statuses) query = query.where('status', 'in', statuses);
      return query.orderBy('id');
    },
    heartbeat: (p: HeartbeatArgs) =>
      db
        .insertInto('liveness')
        .values({
          lock_id: p.lockId,
          state: p.state,
          forget_at: sql<number>`${d.clock()} + ${ms(p.ttlMs)}`,
        })
        .onConflict((oc) =>
          oc.column('lock_id').doUpdateSet((eb) => ({
            state: eb.ref('excluded.state'),
            forget_at: eb.ref('excluded.forget_at'),
          })),
        ),
    /** Every liveness row, with whether the store clock has passed its `forget_at`. */
    liveness: () =>
      db
        .selectFrom('liveness')
        .select(['lock_id', 'state', sql<number | boolean>`forget_at <= ${d.clock()}`.as('lapsed')])
        .orderBy('lock_id'),
    /** Deletes the rows past `forget_at`, judged again now (a row renewed since stays). */
    forget: () => db.deleteFrom('liveness').where('forget_at', '<=', d.clock()),
  };
}

export type FateQueries = ReturnType<typeof fateQueries>;
