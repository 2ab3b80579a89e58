import { type Kysely, sql } from 'kysely';
import {
  DUE_INDEX,
  type FateSchema,
  FINISHED_INDEX,
  RESERVED_INDEX,
  RUNNABLE_INDEX,
  runnableUnreserved,
  STATUS_OP_INDEX,
} from './sql-schema.js';

// The parts of the layout every SQL store creates alike, for their migrations. Migration
// steps are history: once released, a builder here never changes (a new layout is a new
// builder and a new step in every store).

/** `fate_meta(key, value)`: the schema version and other bookkeeping. */
export function createMetaTable(db: Kysely<FateSchema>) {
  return db.schema
    .createTable('fate_meta')
    .ifNotExists()
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull());
}

/**
 * The runnable index: exactly the runnable, unreserved transactions, ordered by id, so a
 * partition's range scan seeks to its start and reads only its own runnable rows. Every
 * column the scan reads or filters on is included, so the scan never touches the table (a
 * covering index); `res_lock` is always NULL here.
 */
export function createRunnableIndex(db: Kysely<FateSchema>) {
  return (
    db.schema
      .createIndex(RUNNABLE_INDEX)
      .on('transactions')
      .columns(['id', 'defer_until', 'op', 'status', 'res_lock'])
      // createIndex types its builder loosely (any table); the expression is the same.
      .where((eb) => runnableUnreserved(eb as never))
  );
}

/** The reserved index: the held reservations, for the dead-reservation cleaner. */
export function createReservedIndex(db: Kysely<FateSchema>) {
  return db.schema
    .createIndex(RESERVED_INDEX)
    .on('transactions')
    .columns(['id', 'res_lock', 'res_uuid'])
    .where('res_lock', 'is not', null);
}

/** `liveness(lock_id, state, forget_at)`; `epoch` is the 64-bit integer type's name. */
export function createLivenessTable(db: Kysely<FateSchema>, epoch: 'integer' | 'bigint') {
  return db.schema
    .createTable('liveness')
    .addColumn('lock_id', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('forget_at', epoch, (c) => c.notNull());
}

/**
 * The age-off indexes (partial): finished rows by finish time, those with their own
 * retention by due time. A sweep with nothing due reads one entry of each.
 */
export function createAgeOffIndexes(db: Kysely<FateSchema>) {
  return [
    db.schema
      .createIndex(FINISHED_INDEX)
      .on('transactions')
      .columns(['finished_at', 'id'])
      .where(sql.ref('finished_at'), 'is not', null)
      .where(sql.ref('due_at'), 'is', null),
    db.schema
      .createIndex(DUE_INDEX)
      .on('transactions')
      .columns(['due_at', 'id', 'finished_at'])
      .where('due_at', 'is not', null),
  ];
}

/** Every row by (status, op): counts are a GROUP BY over this index alone. */
export function createStatusOpIndex(db: Kysely<FateSchema>) {
  return db.schema.createIndex(STATUS_OP_INDEX).on('transactions').columns(['status', 'op']);
}
