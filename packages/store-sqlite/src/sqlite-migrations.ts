import { FateError, FateErrorCode } from '@fate/core';
import {
  addPriority,
  createAgeOffIndexes,
  createLivenessTable,
  createMetaTable,
  createReservedIndex,
  createRunnableIndex,
  RUNNABLE_INDEX,
  runnableUnreserved,
} from '@fate/sql-common';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { type CompiledQuery, sql } from 'kysely';
import { sqliteDialect } from './sqlite-dialect.js';

const { SqliteError } = BetterSqlite3;

const { db } = sqliteDialect;

/**
 * One schema step. Applied once per file, in order, inside one write transaction. Steps
 * are history: a file written by an older version is brought up to date by the steps it
 * has not seen, so they never change once released.
 */
interface Migration {
  readonly version: number;
  readonly description: string;
  /** Its statements, made when it runs (after the steps before it): `database` as they left it. */
  statements(database: Database): CompiledQuery[];
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'transactions with a partial runnable index, instance leases',
    statements: () => [
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
      db.schema
        .createIndex(RUNNABLE_INDEX)
        .on('transactions')
        .columns(['id', 'defer_until', 'status', 'res_lock'])
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
    // The cleaner lists reservations every second; without this it reads the whole table.
    statements: () => [createReservedIndex(db).compile()],
  },
  {
    version: 3,
    description: 'op name beside each transaction and in the runnable index',
    statements: () => [
      db.schema
        .alterTable('transactions')
        .addColumn('op', 'text', (c) => c.notNull().defaultTo(''))
        .compile(),
      // Rows written before: their op name is in info (skipped where info is not valid JSON,
      // which reads fail on anyway).
      db
        .updateTable('transactions')
        .set({ op: sql<string>`json_extract(info, '$.opName')` })
        .where(sql<boolean>`json_valid(info) and json_type(info, '$.opName') = 'text'`)
        .compile(),
      db.schema.dropIndex(RUNNABLE_INDEX).compile(),
      createRunnableIndex(db).compile(),
    ],
  },
  {
    version: 4,
    description: 'liveness records of lock ids with opaque state, forgotten by the store clock',
    statements: () => [
      // Leases of the old protocol name instance ids, not lock ids: nothing to carry over.
      db.schema.dropTable('instances').compile(),
      createLivenessTable(db, 'integer').modifyEnd(sql`strict`).compile(),
    ],
  },
  {
    version: 5,
    description:
      'age-off index by finish time, counts by status and op kept by triggers (issue 26)',
    statements: () => [
      db.schema.alterTable('transactions').addColumn('finished_at', 'integer').compile(),
      db.schema.alterTable('transactions').addColumn('due_at', 'integer').compile(),
      // Rows finished before: their stamp and own retention are in info (where it decodes);
      // one with no stamp is indexed as finished now (age-off stamps it on first sight).
      db
        .updateTable('transactions')
        .set({
          finished_at: sql<number>`coalesce(case when json_valid(info) and json_type(info, '$.ageOff') in ('integer', 'real') then cast(json_extract(info, '$.ageOff') as integer) end, cast(round(unixepoch('subsec') * 1000) as integer))`,
        })
        .where('status', 'in', ['SUCCESSFUL', 'FAILED'])
        .compile(),
      db
        .updateTable('transactions')
        .set({
          due_at: sql<number>`finished_at + cast(json_extract(info, '$.retainMs') as integer)`,
        })
        .where('finished_at', 'is not', null)
        .where(sql<boolean>`json_valid(info) and json_type(info, '$.retainMs') = 'integer'`)
        .compile(),
      ...createAgeOffIndexes(db).map((index) => index.compile()),
      ...COUNT_TRIGGERS.map((text) => sql.raw(text).compile(db)),
      sql`INSERT INTO fate_counts (status, op, n) SELECT status, op, count(*) FROM transactions GROUP BY status, op`.compile(
        db,
      ),
    ],
  },
  {
    version: 6,
    description:
      'priority column (rows written before: 0), runnable index by priority and id (issue 25)',
    statements: () => addPriority(db).map((step) => step.compile()),
  },
  {
    version: 7,
    description:
      'transactions stored in id order (WITHOUT ROWID), its indexes and triggers as before (issue 23)',
    // A rowid table keeps rows in insertion order, so the rows of one claim (neighbours in id
    // order) sat on as many pages as rows: a claim of 16 and the finishing writes after it
    // dirtied 2.8 pages a transaction. In id order they share pages: 1.0 (benchmarks.md).
    // SQLite's own recipe for a table change ALTER TABLE cannot make: copy, drop, rename,
    // then every index and trigger of the table again, as its text in the schema says (a
    // user's own too). The rename is the legacy one, which leaves views and other tables'
    // triggers that name `transactions` alone (the other checks the whole schema in between,
    // and finds them naming a table that is not there).
    statements: (database) => {
      const attached = database
        .prepare<[], string>(
          `SELECT sql FROM sqlite_schema WHERE tbl_name = 'transactions' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY rowid`,
        )
        .pluck()
        .all();
      return [
        `CREATE TABLE transactions_by_id (${TRANSACTION_COLUMNS}) STRICT, WITHOUT ROWID`,
        `INSERT INTO transactions_by_id (${COLUMN_NAMES}) SELECT ${COLUMN_NAMES} FROM transactions ORDER BY id`,
        // its indexes and triggers go with it; the counts stand, since no row left
        'DROP TABLE transactions',
        'PRAGMA legacy_alter_table = 1', // a connection setting: `upgrade` restores it
        'ALTER TABLE transactions_by_id RENAME TO transactions',
        ...attached,
      ].map((text) => sql.raw(text).compile(db));
    },
  },
];

/** The transactions table as migrations 1–6 left it, column by column. */
const TRANSACTION_COLUMNS = [
  'id text PRIMARY KEY NOT NULL',
  'status text NOT NULL',
  'stack text NOT NULL',
  'info text NOT NULL',
  'res_lock text',
  'res_uuid text',
  'defer_until integer DEFAULT 0 NOT NULL',
  "op text DEFAULT '' NOT NULL",
  'finished_at integer',
  'due_at integer',
  'priority integer DEFAULT 0 NOT NULL',
].join(', ');
const COLUMN_NAMES = TRANSACTION_COLUMNS.split(', ')
  .map((column) => column.split(' ')[0])
  .join(', ');

/**
 * Counts by status and op, kept exact by triggers in the writing statement's own
 * transaction (SQLite has one writer at a time, so the counter rows cost no contention):
 * `counts()` reads a handful of rows whatever the store's size.
 */
const COUNT_TRIGGERS = [
  `CREATE TABLE fate_counts (status text NOT NULL, op text NOT NULL, n integer NOT NULL, PRIMARY KEY (status, op)) STRICT`,
  `CREATE TRIGGER fate_count_insert AFTER INSERT ON transactions BEGIN
     INSERT INTO fate_counts (status, op, n) VALUES (new.status, new.op, 1)
       ON CONFLICT (status, op) DO UPDATE SET n = n + 1;
   END`,
  `CREATE TRIGGER fate_count_delete AFTER DELETE ON transactions BEGIN
     UPDATE fate_counts SET n = n - 1 WHERE status = old.status AND op = old.op;
   END`,
  `CREATE TRIGGER fate_count_update AFTER UPDATE OF status, op ON transactions
   WHEN old.status IS NOT new.status OR old.op IS NOT new.op BEGIN
     UPDATE fate_counts SET n = n - 1 WHERE status = old.status AND op = old.op;
     INSERT INTO fate_counts (status, op, n) VALUES (new.status, new.op, 1)
       ON CONFLICT (status, op) DO UPDATE SET n = n + 1;
   END`,
];

/**
 * Runs one step. A statement SQLite refuses for what the file holds (SQLITE_ERROR,
 * SQLITE_CONSTRAINT: a user's object or row the step cannot carry over) fails as
 * `FATE_STORE_CONFIG`, since opening again would fail the same way; the transaction rolls
 * back, so the file stays as it was. Busy, I/O and full-disk errors pass as they come.
 * `legacy_alter_table` (a connection setting, which no rollback undoes) is as before after
 * it, whether it applied or failed.
 */
function upgrade(database: Database, migration: Migration, run: (q: CompiledQuery) => void) {
  const legacy = Number(database.pragma('legacy_alter_table', { simple: true }));
  try {
    migration.statements(database).forEach(run);
  } catch (err) {
    if (!(err instanceof SqliteError) || !/^SQLITE_(ERROR|CONSTRAINT)/.test(err.code)) throw err;
    throw new FateError(
      FateErrorCode.STORE_CONFIG,
      `SQLite store ${database.name}: upgrading to schema ${migration.version} (${migration.description}) failed (${err.code}): ${err.message}`,
      { cause: err },
    );
  } finally {
    database.pragma(`legacy_alter_table = ${legacy}`);
  }
}

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the file's schema up to `SCHEMA_VERSION`. Everything happens in one
 * `BEGIN IMMEDIATE` transaction: processes opening a fresh file at once queue on the
 * write lock (the caller retries SQLITE_BUSY), and each later one finds the work done.
 * A file newer than this code is a `FATE_STORE_CONFIG` error: upgrade the package.
 */
export function migrate(database: Database): void {
  const run = (query: CompiledQuery): void => {
    database.prepare(query.sql).run(...query.parameters);
  };
  database
    .transaction(() => {
      run(createMetaTable(db).compile());
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
          FateErrorCode.STORE_CONFIG,
          `SQLite store: ${database.name} has schema version ${row?.value}; this @fate/store-sqlite knows up to ${SCHEMA_VERSION}`,
        );
      }
      for (const migration of MIGRATIONS) {
        if (migration.version > current) upgrade(database, migration, run);
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
