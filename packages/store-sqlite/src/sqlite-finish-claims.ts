import type { FinishClaimed, IdRange, RecordWrite, Reservation } from '@fate/core';
import { fence, writeArgs } from '@fate/sql-common';
import type { Database } from 'better-sqlite3';
import type { SqliteClaimSteps } from './sqlite-claims.js';
import type { Statements } from './sqlite-statements.js';

/** A finish-and-claim, as one `BEGIN IMMEDIATE` transaction on `database`. */
export type SqliteFinishClaim = (
  id: string,
  reservation: Reservation,
  change: RecordWrite,
  range: IdRange | undefined,
  reservations: readonly Reservation[],
) => FinishClaimed;

/**
 * Prepares `finishAndClaim` on a connection: the fenced write and the claim of the next
 * rows in one transaction, so one commit (the part that costs) instead of two. The claim
 * runs only when the write applied, or when rows already hold the claim's reservations
 * (a repeat after a lost reply: those are answered, nothing more is claimed).
 */
export function prepareFinishClaims(
  database: Database,
  statements: Statements,
  steps: SqliteClaimSteps,
): SqliteFinishClaim {
  const body = (
    id: string,
    reservation: Reservation,
    change: RecordWrite,
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): FinishClaimed => {
    const args = change.delete ? fence(id, reservation) : writeArgs(id, reservation, change);
    const statement = change.delete ? statements.remove : statements.write;
    const written = statement.run(args as never).changes === 1;
    // A write that ended the reservation now cannot follow an attempt that applied (that
    // one ended it): only otherwise may the claim's reservations be held already.
    const first = written && (change.release !== undefined || change.delete === true);
    const held = first ? [] : steps.held(reservations);
    if (held.length > 0) return { written, claimed: held };
    return { written, claimed: written ? steps.fresh(range, reservations) : [] };
  };
  const transaction = database.transaction(body);
  return (...args) => transaction.immediate(...args);
}
