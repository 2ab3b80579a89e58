import type { Reservation, Status, StoredRecord } from '@fate/core';
import type { Kysely } from 'kysely';
import type { FateSchema } from './sqlite-schema.js';
import type { RecordColumns } from './sqlite-statements.js';

// The less frequent queries (admin listings, membership): built and run through kysely
// as usual, since its few µs per call do not matter here.

/** Every record, or those in `statuses`, in id order. */
export async function listRecords(
  db: Kysely<FateSchema>,
  statuses?: ReadonlySet<Status>,
): Promise<Array<{ id: string; record: StoredRecord }>> {
  if (statuses?.size === 0) return [];
  let query = db
    .selectFrom('transactions')
    .select(['id', 'status', 'stack', 'info', 'res_lock', 'res_uuid', 'defer_until']);
  if (statuses) query = query.where('status', 'in', [...statuses]);
  const rows = await query.orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, record: toRecord(row) }));
}

/** Every held reservation, in id order. */
export async function listReservations(
  db: Kysely<FateSchema>,
): Promise<Array<{ id: string; reservation: Reservation }>> {
  const rows = await db
    .selectFrom('transactions')
    .select(['id', 'res_lock', 'res_uuid'])
    .where('res_lock', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    reservation: { lockId: row.res_lock as string, uuid: row.res_uuid as string },
  }));
}

export async function deleteInstance(db: Kysely<FateSchema>, instanceId: string): Promise<void> {
  await db.deleteFrom('instances').where('id', '=', instanceId).execute();
}

/** Instances whose lease has not lapsed at `now`. */
export async function liveInstanceIds(db: Kysely<FateSchema>, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom('instances')
    .select('id')
    .where('expires_at', '>', now)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
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
