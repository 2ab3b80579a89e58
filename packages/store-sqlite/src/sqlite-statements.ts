import type { Database } from 'better-sqlite3';
import type { Compilable, Kysely } from 'kysely';
import { PreparedQuery } from './sqlite-prepared.js';
import { type FateSchema, RUNNABLE_INDEX, runnableUnreserved } from './sqlite-schema.js';

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
}

/** A fenced update; NULL leaves a field as it is (`newLock` NULL releases). */
interface WriteArgs extends Fence {
  status: string | null;
  stack: string | null;
  info: string | null;
  newLock: string | null;
  newUuid: string | null;
  deferUntil: number | null;
}

interface RangeArgs {
  start: string;
  end: string;
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
 * carries its fence (`res_lock` and `res_uuid`) in its WHERE clause.
 */
export function prepareStatements(database: Database, db: Kysely<FateSchema>) {
  const q = <A extends object, R>(build: (p: A) => Compilable<R>) =>
    new PreparedQuery<A, R>(database, build);
  const tx = db.updateTable('transactions');
  const scan = (p: RangeArgs, start: boolean, end: boolean) => {
    let query = db
      .selectFrom('transactions')
      .select(['id', 'defer_until'])
      .where(runnableUnreserved);
    if (start) query = query.where('id', '>=', p.start);
    if (end) query = query.where('id', '<', p.end);
    return indexedBy(query.orderBy('id'), 'transactions', RUNNABLE_INDEX);
  };
  return {
    insert: q((p: InsertArgs) =>
      db
        .insertInto('transactions')
        .values({
          id: p.id,
          status: p.status,
          stack: p.stack,
          info: p.info,
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
          defer_until: eb.fn.coalesce(eb.val(p.deferUntil), eb.ref('defer_until')),
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
    /** One statement per shape of range, so each seeks with the bounds it has. */
    scanAll: q((p: RangeArgs) => scan(p, false, false)),
    scanFrom: q((p: RangeArgs) => scan(p, true, false)),
    scanTo: q((p: RangeArgs) => scan(p, false, true)),
    scanBetween: q((p: RangeArgs) => scan(p, true, true)),
    heartbeat: q((p: { id: string; expiresAt: number }) =>
      db
        .insertInto('instances')
        .values({ id: p.id, expires_at: p.expiresAt })
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({ expires_at: eb.ref('excluded.expires_at') })),
        ),
    ),
  };
}

/**
 * Pins a query to `index` with SQLite's INDEXED BY, which kysely does not build, so it is
 * added to the compiled SQL. Statistics (ANALYZE) could otherwise move a bounded scan to
 * the primary key, which reads every row of the range instead of the runnable ones; and
 * should the index ever stop matching the query, preparing fails at open instead of the
 * scan silently reading the whole table.
 */
function indexedBy<R>(query: Compilable<R>, table: string, index: string): Compilable<R> {
  return {
    compile() {
      const compiled = query.compile();
      const from = `from "${table}"`;
      if (compiled.sql.split(from).length !== 2) {
        throw new Error(`cannot pin ${index}: expected one ${from} in ${compiled.sql}`);
      }
      return { ...compiled, sql: compiled.sql.replace(from, `${from} indexed by "${index}"`) };
    },
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
