import type { FateId, NewRecord } from '@fate/core';
import type pg from 'pg';
import type { PostgresStatements } from './postgres-statements.js';

/** Inserts one record unless its id exists; whether it did. */
export async function insertOne(
  pool: pg.Pool,
  statements: PostgresStatements,
  id: FateId,
  record: NewRecord,
): Promise<boolean> {
  const { status, stack, info, op, deferMs = 0, priority = 0 } = record;
  const args = { id, status, stack, info, op, deferMs, priority };
  return (await statements.insert.changed(pool, args)) === 1;
}

/** Inserts many records in one statement; for each, whether it was inserted. */
export async function insertAll(
  pool: pg.Pool,
  statements: PostgresStatements,
  records: ReadonlyArray<{ id: FateId; record: NewRecord }>,
): Promise<boolean[]> {
  const rows = await statements.insertMany.rows(pool, {
    ids: records.map((r) => r.id),
    statuses: records.map((r) => r.record.status),
    stacks: records.map((r) => r.record.stack),
    infos: records.map((r) => r.record.info),
    ops: records.map((r) => r.record.op),
    defers: records.map((r) => r.record.deferMs ?? 0),
    priorities: records.map((r) => r.record.priority ?? 0),
  });
  // An id given twice is inserted once: the first mention gets the answer.
  const inserted = new Set(rows.map((row) => row.id));
  return records.map((r) => inserted.delete(r.id));
}
