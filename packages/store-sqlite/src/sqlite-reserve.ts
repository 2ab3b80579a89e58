import { type FateId, type Reservation, Status, type StoredRecord } from '@fate/core';
import { fence, holderVerdict, toRecord } from '@fate/sql-common';
import type { Statements } from './sqlite-statements.js';

/**
 * `tryReserve` on the open file: reserves `id` for `reservation` (starting a SUBMITTED
 * record in the same statement when `start`), or says why not.
 */
export function reserveOne(
  s: Statements,
  id: FateId,
  reservation: Reservation,
  start: boolean,
): StoredRecord | 'absent' | 'held' {
  const args = fence(id, reservation);
  for (;;) {
    if (start) {
      // a SUBMITTED record is started by the same statement; answered as found
      const started = s.reserveToRun.get(args);
      if (started) return { ...toRecord(started), status: Status.SUBMITTED };
    }
    const row = s.reserve.get(args);
    // SUBMITTED after all (another process released it between the two statements):
    // held by us now, so the next turn's reserveToRun starts it
    if (row && start && row.status === Status.SUBMITTED) continue;
    if (row) return toRecord(row);
    const verdict = holderVerdict(s.holder.get({ id }), reservation);
    if (verdict !== 'free') return verdict;
  }
}
