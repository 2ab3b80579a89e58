import type {
  BackendScan,
  IdRange,
  Reservation,
  ReservationFilter,
  RunnablePosition,
} from '@fate/core';
import { forRange, levelStart, scanPage, toReservations } from '@fate/sql-common';
import type pg from 'pg';
import type { PostgresStatements } from './postgres-statements.js';

/**
 * `scanRunnable` on the pool: an index range scan of the partial runnable index, one per
 * priority level, stopped at the limit: a full page ends at its last row, due or not.
 */
export async function scanRunnableOn(
  pool: pg.Pool,
  statements: PostgresStatements,
  range: IdRange | undefined,
  limit: number,
  after: RunnablePosition | undefined,
): Promise<BackendScan> {
  const [statement, bounds] = forRange(statements.scan, range);
  return scanPage(
    await statement.rows(pool, { limit, ...bounds, ...levelStart(bounds, after) }),
    limit,
  );
}

/** `reservations` on the pool: by holder's lock id alone, or from the range's reserved index. */
export async function reservationsOn(
  pool: pg.Pool,
  statements: PostgresStatements,
  filter: ReservationFilter,
): Promise<Array<{ id: string; reservation: Reservation }>> {
  const { range, lockId } = filter;
  if (!range && lockId !== undefined) {
    return toReservations(await statements.reservedBy.rows(pool, { lockId }));
  }
  const [statement, bounds] = forRange(statements.reserved, range);
  return toReservations(await statement.rows(pool, bounds), lockId);
}
