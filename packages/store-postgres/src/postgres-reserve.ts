import { type FateId, type Reservation, Status, type StoredRecord } from '@fate/core';
import { fence, holderVerdict, toRecord } from '@fate/sql-common';
import type pg from 'pg';
import type { PostgresStatements } from './postgres-statements.js';

/**
 * `tryReserve` on the pool: reserves `id` for `reservation` (starting a SUBMITTED record
 * in the same statement when `start`), or says why not.
 */
export async function reserveOne(
  pool: pg.Pool,
  s: PostgresStatements,
  id: FateId,
  reservation: Reservation,
  start: boolean,
): Promise<StoredRecord | 'absent' | 'held'> {
  const args = fence(id, reservation);
  for (;;) {
    if (start) {
      // a SUBMITTED record is started by the same statement; answered as found
      const [started] = await s.reserveToRun.rows(pool, args);
      if (started) return { ...toRecord(started), status: Status.SUBMITTED };
    }
    const [row] = await s.reserve.rows(pool, args);
    // SUBMITTED after all (released between the two statements): held by us now, so
    // the next turn's reserveToRun starts it
    if (row && start && row.status === Status.SUBMITTED) continue;
    if (row) return toRecord(row);
    const [holder] = await s.holder.rows(pool, { id });
    const verdict = holderVerdict(holder, reservation);
    if (verdict !== 'free') return verdict;
  }
}
