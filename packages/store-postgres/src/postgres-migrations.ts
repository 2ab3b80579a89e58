import { FateError, FateErrorCode } from '@fate/core';
import {
  addPriority,
  createAgeOffIndexes,
  createLivenessTable,
  createMetaTable,
  createReservedIndex,
  createRunnableIndex,
  createStatusOpIndex,
  STATUS_OP_INDEX,
} from '@fate/sql-common';
import { type CompiledQuery, sql } from 'kysely';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { countsDdl } from './postgres-counts.js';
import { postgresDialect } from './postgres-dialect.js';
import { inTransaction } from './postgres-transaction.js';

/** One schema step, applied once per schema, in order, all in one transaction. */
interface Migration {
  readonly version: number;
  readonly description: string;
  statements(schema: string): CompiledQuery[];
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'transactions with partial runnable and reserved indexes, liveness',
    statements: (schema) => {
      const { db } = postgresDialect(schema);
      return [
        db.schema
          .createTable('transactions')
          // Byte order (collation "C"), whatever the database's: range bounds are compared
          // as the engine compares ids, and index order is the scan order.
          .addColumn('id', 'text', (c) => c.primaryKey().modifyFront(sql`collate "C"`))
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('stack', 'text', (c) => c.notNull())
          .addColumn('info', 'text', (c) => c.notNull())
          .addColumn('res_lock', 'text')
          .addColumn('res_uuid', 'text')
          .addColumn('defer_until', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('op', 'text', (c) => c.notNull().defaultTo(''))
          .compile(),
        createRunnableIndex(db).compile(),
        createReservedIndex(db).compile(),
        createLivenessTable(db, 'bigint').compile(),
      ];
    },
  },
  {
    version: 2,
    description: 'age-off index by finish time, counts by status and op (issue 26)',
    statements: (schema) => {
      const { db } = postgresDialect(schema);
      // Rows finished before: the stamp and own retention from info, where it decodes (a
      // session-local function: PostgreSQL 15 cannot test JSON validity without failing the
      // statement); one with no stamp is indexed as finished now. Age-off decides on the
      // decoded record under its reservation: an index entry only says when to look.
      const field = (name: string) => sql<number>`pg_temp.fate_info_ms(info, ${sql.lit(name)})`;
      return [
        sql`CREATE FUNCTION pg_temp.fate_info_ms(info text, key text) RETURNS bigint AS $$
          BEGIN RETURN round((info::jsonb ->> key)::numeric)::bigint;
          EXCEPTION WHEN others THEN RETURN NULL; END $$ LANGUAGE plpgsql IMMUTABLE`.compile(db),
        db.schema.alterTable('transactions').addColumn('finished_at', 'bigint').compile(),
        db.schema.alterTable('transactions').addColumn('due_at', 'bigint').compile(),
        db
          .updateTable('transactions')
          .set({
            finished_at: sql<number>`coalesce(${field('ageOff')}, (extract(epoch from clock_timestamp()) * 1000)::bigint)`,
          })
          .where('status', 'in', ['SUCCESSFUL', 'FAILED'])
          .compile(),
        db
          .updateTable('transactions')
          .set({ due_at: sql<number>`finished_at + ${field('retainMs')}` })
          .where('finished_at', 'is not', null)
          .compile(),
        ...createAgeOffIndexes(db).map((index) => index.compile()),
        createStatusOpIndex(db).compile(),
        sql`DROP FUNCTION pg_temp.fate_info_ms(text, text)`.compile(db),
      ];
    },
  },
  {
    version: 3,
    description:
      'counts by status and op appended by triggers and folded on read, no (status, op) index (issue 26)',
    statements: (schema) => {
      const { db } = postgresDialect(schema);
      return [
        ...countsDdl(schema).map((text) => sql.raw(text).compile(db)),
        // counts no longer read it, and every insert and status change paid for it
        db.schema.dropIndex(STATUS_OP_INDEX).compile(),
      ];
    },
  },
  {
    version: 4,
    description:
      'priority column (rows written before: 0), runnable index by priority and id (issue 25)',
    statements: (schema) => addPriority(postgresDialect(schema).db).map((step) => step.compile()),
  },
  {
    version: 5,
    description:
      'reservations by holder: the claim finds its own after a lost reply without reading every reservation since the last vacuum (issue 23)',
    statements: (schema) => {
      const { db } = postgresDialect(schema);
      return [
        db.schema
          .createIndex(HOLDERS_INDEX)
          .ifNotExists()
          .on('transactions')
          .columns(['res_uuid', 'res_lock'])
          .where(sql.ref('res_lock'), 'is not', null)
          .compile(),
      ];
    },
  },
];

/**
 * Held rows by reservation uuid (then lock). The claim asks first for rows already holding
 * its reservations (a repeat after a lost reply); the reserved index is ordered by id, so
 * that question read all of it, and in PostgreSQL all of it is every reservation taken
 * since the last vacuum (an update leaves its old entry behind, and bitmap scans never
 * mark such entries dead): 9.5 ms a claim by the end of a drain of 20,000. A uuid is one
 * reservation's, so by uuid first the claim reads the entries of its own uuids only,
 * whatever the planner knows of the table (by lock first, it read all of its lock's).
 */
export const HOLDERS_INDEX = 'transactions_holders';

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `schema` up to `SCHEMA_VERSION` in one transaction, under a transaction-level
 * advisory lock on the schema's name: processes starting together queue on the lock and
 * each later one finds the work done (DDL is transactional: a failed step leaves nothing;
 * `CREATE SCHEMA IF NOT EXISTS` alone would race). A schema newer than this code is
 * `FATE_STORE_CONFIG`: upgrade the package.
 */
export async function migrate(pool: Pool, schema: string): Promise<void> {
  await inTransaction(pool, 'BEGIN', async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`fate:migrate:${schema}`]);
    // CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema
    // exists: a role that owns only its schema (least privilege) must not need it.
    const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
    const { db } = postgresDialect(schema);
    await run(client, createMetaTable(db).compile());
    const current = await version(client, schema);
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      for (const statement of migration.statements(schema)) await run(client, statement);
    }
    if (current < SCHEMA_VERSION) {
      await run(
        client,
        db
          .insertInto('fate_meta')
          .values({ key: 'schema_version', value: String(SCHEMA_VERSION) })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(SCHEMA_VERSION) }))
          .compile(),
      );
    }
  });
}

async function version(client: PoolClient, schema: string): Promise<number> {
  const { db } = postgresDialect(schema);
  const query = db.selectFrom('fate_meta').select('value').where('key', '=', 'schema_version');
  const { rows } = await run<{ value: string }>(client, query.compile());
  const current = rows[0] ? Number(rows[0].value) : 0;
  if (!Number.isInteger(current) || current > SCHEMA_VERSION) {
    throw new FateError(
      FateErrorCode.STORE_CONFIG,
      `PostgreSQL store: schema ${schema} has version ${rows[0]?.value}; this @fate/store-postgres knows up to ${SCHEMA_VERSION}`,
    );
  }
  return current;
}

function run<R extends QueryResultRow = QueryResultRow>(client: PoolClient, query: CompiledQuery) {
  return client.query<R>(query.sql, [...query.parameters]);
}
