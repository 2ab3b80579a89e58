import { type FateId, type Reservation, Status, type StoredRecord, TickBatch } from '@fate/core';
import { type RecordColumns, toRecord } from '@fate/sql-common';
import type pg from 'pg';
import { rolledBack } from './postgres-errors.js';
import { statementName } from './postgres-statements.js';

/** A `tryReserve(id, reservation, true)`: reserve and start. */
export interface ReserveToRun {
  readonly id: FateId;
  readonly reservation: Reservation;
}

type Answer = StoredRecord | 'absent' | 'held';

/**
 * The reservations that start their record (a worker's `tryReserve(id, r, true)`) of one
 * turn of the event loop, as one `UPDATE … FROM unnest(…)`: the shared `reserveToRun`
 * query (see `sql-queries.ts`) for each row. A SUBMITTED record that is free (or already
 * this reservation's) is reserved and started, and answered as found (SUBMITTED); every
 * other id of the batch then takes `one`, the whole single-id protocol (`reserveOne`),
 * which also tells "absent" from "held".
 */
export function groupReserve(
  schema: string,
  pool: pg.Pool,
  one: (call: ReserveToRun) => Promise<Answer>,
): TickBatch<ReserveToRun, Answer> {
  const text = `update "${schema}"."transactions" as t
    set res_lock = u.lock_id, res_uuid = u.uuid, status = '${Status.IN_PROGRESS}'
  from unnest($1::text[], $2::text[], $3::text[]) as u(id, lock_id, uuid)
  where t.id = u.id and t.status = '${Status.SUBMITTED}'
    and (t.res_lock is null or (t.res_lock = u.lock_id and t.res_uuid = u.uuid))
  returning t.id, t.status, t.stack, t.info, t.res_lock, t.res_uuid, t.defer_until, t.priority`;
  const name = statementName(text);
  return new TickBatch<ReserveToRun, Answer>({
    key: (c) => c.id,
    one,
    sendAgainAlone: rolledBack,
    async many(calls) {
      const values = [
        calls.map((c) => c.id),
        calls.map((c) => c.reservation.lockId),
        calls.map((c) => c.reservation.uuid),
      ];
      const { rows } = await pool.query<RecordColumns & { id: string }>({ name, text, values });
      const started = new Map(rows.map((r) => [r.id, r]));
      return Promise.all(
        calls.map((c): Answer | Promise<Answer> => {
          const row = started.get(c.id);
          return row ? { ...toRecord(row), status: Status.SUBMITTED } : one(c);
        }),
      );
    },
  });
}
