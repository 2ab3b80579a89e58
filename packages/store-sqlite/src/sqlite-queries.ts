import type { Status, StoredRecord } from '@fate/core';
import type { Database } from 'better-sqlite3';
import { db } from './sqlite-schema.js';
import type { RecordColumns } from './sqlite-statements.js';

// The less frequent queries (admin listings): built per call, since the few µs that
// building and preparing cost do not matter here.

/** Every record, or those in `statuses`, in id order. */
export function listRecords(
  database: Database,
  statuses?: ReadonlySet<Status>,
): Array<{ id: string; record: StoredRecord }> {
  if (statuses?.size === 0) return [];
  let query = db
    .selectFrom('transactions')
    .select(['id', 'status', 'stack', 'info', 'res_lock', 'res_uuid', 'defer_until']);
  if (statuses) query = query.where('status', 'in', [...statuses]);
  const compiled = query.orderBy('id').compile();
  const rows = database
    .prepare<unknown[], RecordColumns & { id: string }>(compiled.sql)
    .all(...compiled.parameters);
  return rows.map((row) => ({ id: row.id, record: toRecord(row) }));
}

/** A row as the guard expects it: no reservation is `null`, never a half one. */
export function toRecord(row: RecordColumns): StoredRecord {
  return {
    status: row.status,
    stack: row.stack,
    info: row.info,
    reservation:
      row.res_lock === null ? null : { lockId: row.res_lock, uuid: row.res_uuid as string },
    deferUntil: row.defer_until,
  };
}
