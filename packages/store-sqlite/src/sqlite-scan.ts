import type {
  BackendScan,
  IdRange,
  Reservation,
  ReservationFilter,
  RunnablePosition,
} from '@fate/core';
import { forRange, levelStart, scanPage, toReservations } from '@fate/sql-common';
import type { Statements } from './sqlite-statements.js';

/**
 * `scanRunnable` on the connection: one index range search per priority level, stopped at
 * the limit: a full page ends at its last row, due or not.
 */
export function scanRunnableOn(
  statements: Statements,
  range: IdRange | undefined,
  limit: number,
  after: RunnablePosition | undefined,
): BackendScan {
  const [statement, bounds] = forRange(statements.scan, range);
  return scanPage(statement.all({ limit, ...bounds, ...levelStart(bounds, after) }), limit);
}

/** `reservations` on the connection: by holder's lock id alone, or from the range's reserved index. */
export function reservationsOn(
  statements: Statements,
  filter: ReservationFilter,
): Array<{ id: string; reservation: Reservation }> {
  const { range, lockId } = filter;
  if (!range && lockId !== undefined) {
    return toReservations(statements.reservedBy.all({ lockId }));
  }
  const [statement, bounds] = forRange(statements.reserved, range);
  return toReservations(statement.all(bounds), lockId);
}
