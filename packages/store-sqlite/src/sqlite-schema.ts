import { FateError, FateErrorCode, RUNNABLE_STATUSES } from '@fate/core';
import type { Database } from 'better-sqlite3';
import {
  type CompiledQuery,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
  sql,
} from 'kysely';

/** One transaction. `stack` and `info` are the guard's JSON texts, stored as they come. */
export interface TransactionRow {
  id: string;
  status: string;
  stack: string;
  info: string;
  /** Holder's instance id; NULL when unreserved (then `res_uuid` is NULL too). */
  res_lock: string | null;
  res_uuid: string | null;
  /** Epoch ms before which scans skip the row; 0 when not deferred. */
  defer_until: number;
}

/** One live fate instance: a lease that lapses at `expires_at` (epoch ms). */
export interface InstanceRow {
  id: string;
  expires_at: number;
}

/** Bookkeeping of this package, e.g. `schema_version`. */
export interface FateMetaRow {
  key: string;
  value: string;
}

export interface FateSchema {
  transactions: TransactionRow;
  instances: InstanceRow;
  fate_meta: FateMetaRow;
}

/** The partial index that holds exactly the runnable, unreserved transactions. */
export const RUNNABLE_INDEX = 'transactions_runnable';

/**
 * "Runnable and unreserved", shared by the partial index and the scan. SQLite uses a
 * partial index only when the query's WHERE contains the index's terms, so both are built
 * from this one expression, with the statuses as literals (a bound parameter would not
 * prove the index applies).
 */
export function runnableUnreserved(
  eb: ExpressionBuilder<{ transactions: TransactionRow }, 'transactions'>,
): Expression<SqlBool> {
  return eb.and([
    eb('res_lock', 'is', null),
    eb(
      'status',
      'in',
      [...RUNNABLE_STATUSES].map((s) => sql.lit(s)),
    ),
  ]);
}

/** One schema step. Applied once per file, in order, inside one write transaction. */
interface Migration {
  readonly version: number;
  readonly description: string;
  statements(db: Kysely<FateSchema>): CompiledQuery[];
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'transactions with a partial runnable index, instance leases',
    statements: (db) => [
      db.schema
        .createTable('transactions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('stack', 'text', (c) => c.notNull())
        .addColumn('info', 'text', (c) => c.notNull())
        .addColumn('res_lock', 'text')
        .addColumn('res_uuid', 'text')
        .addColumn('defer_until', 'integer', (c) => c.notNull().defaultTo(0))
        .modifyEnd(sql`strict`)
        .compile(),
      // Ordered by id, so a partition's range scan seeks to its start and reads only its
      // own runnable rows. status and res_lock are included so the scan never touches the
      // table (a covering index); res_lock is always NULL here and costs one byte.
      db.schema
        .createIndex(RUNNABLE_INDEX)
        .on('transactions')
        .columns(['id', 'defer_until', 'status', 'res_lock'])
        // createIndex types its builder loosely (any table); the expression is the same.
        .where((eb) => runnableUnreserved(eb as never))
        .compile(),
      db.schema
        .createTable('instances')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', 'integer', (c) => c.notNull())
        .modifyEnd(sql`strict`)
        .compile(),
    ],
  },
  {
    version: 2,
    description: 'partial index of held reservations, for the dead-reservation cleaner',
    statements: (db) => [
      // The cleaner lists reservations every second; without this it reads the whole table.
      db.schema
        .createIndex('transactions_reserved')
        .on('transactions')
        .columns(['id', 'res_lock', 'res_uuid'])
        .where(sql.ref('res_lock'), 'is not', null)
        .compile(),
    ],
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the file's schema up to `SCHEMA_VERSION`. Everything happens in one
 * `BEGIN IMMEDIATE` transaction: processes opening a fresh file at once queue on the
 * write lock, and each later one finds the work done.
 */
export function migrate(database: Database, db: Kysely<FateSchema>): void {
  const run = (query: CompiledQuery): void => {
    database.prepare(query.sql).run(...query.parameters);
  };
  database
    .transaction(() => {
      run(
        db.schema
          .createTable('fate_meta')
          .ifNotExists()
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .compile(),
      );
      const version = db
        .selectFrom('fate_meta')
        .select('value')
        .where('key', '=', 'schema_version')
        .compile();
      const row = database
        .prepare<unknown[], { value: string }>(version.sql)
        .get(...version.parameters);
      const current = row ? Number(row.value) : 0;
      if (!Number.isInteger(current) || current > SCHEMA_VERSION) {
        throw new FateError(
          FateErrorCode.STORE_UNAVAILABLE,
          `SQLite store: ${database.name} has schema version ${row?.value}; this @fate/store-sqlite knows up to ${SCHEMA_VERSION}`,
        );
      }
      for (const migration of MIGRATIONS) {
        if (migration.version > current) migration.statements(db).forEach(run);
      }
      if (current < SCHEMA_VERSION) {
        run(
          db
            .insertInto('fate_meta')
            .values({ key: 'schema_version', value: String(SCHEMA_VERSION) })
            .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(SCHEMA_VERSION) }))
            .compile(),
        );
      }
    })
    .immediate();
}
