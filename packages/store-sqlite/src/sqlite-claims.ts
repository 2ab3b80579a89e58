import type { ClaimedRecord, IdRange, Reservation } from '@fate/core';
import {
  type ClaimableArgs,
  type ClaimedRow,
  type ClaimOneArgs,
  claimQueries,
  forRange,
  levelStart,
  mapShapes,
  toClaimed,
} from '@fate/sql-common';
import type { Database } from 'better-sqlite3';
import { sqliteDialect } from './sqlite-dialect.js';
import { PreparedQuery } from './sqlite-prepared.js';
import type { Statements } from './sqlite-statements.js';

const queries = claimQueries(sqliteDialect);

/** A claim of many, as one `BEGIN IMMEDIATE` transaction on `database`. */
export type SqliteClaim = (
  range: IdRange | undefined,
  reservations: readonly Reservation[],
) => ClaimedRecord[];

/**
 * Prepares `claimMany` on a connection: one transaction (one commit, the part that costs)
 * in which a repeat finds what it took through the reserved index (this lock id's rows:
 * the work in flight), and otherwise the due runnable rows of the range are read from the
 * runnable index and each is reserved (and started) by a conditional update, under the
 * write lock, so no other client can take one in between.
 */
export function prepareClaims(database: Database, statements: Statements): SqliteClaim {
  const steps = prepareClaimSteps(database, statements);
  const transaction = database.transaction(
    (range: IdRange | undefined, reservations: readonly Reservation[]) => {
      const held = steps.held(reservations);
      return held.length > 0 ? held : steps.fresh(range, reservations);
    },
  );
  return (range, reservations) => transaction.immediate(range, reservations);
}

/** A claim's two parts, to run inside a transaction the caller opened. */
export interface SqliteClaimSteps {
  /** The records holding one of `reservations` (a repeat after a lost reply). */
  held(reservations: readonly Reservation[]): ClaimedRecord[];
  /** Reserves and starts the due runnable rows of the range, one reservation each. */
  fresh(range: IdRange | undefined, reservations: readonly Reservation[]): ClaimedRecord[];
}

export function prepareClaimSteps(database: Database, statements: Statements): SqliteClaimSteps {
  const claimable = mapShapes(
    queries.claimable,
    (build) =>
      new PreparedQuery<ClaimableArgs, { id: string; op: string; status: string }>(database, build),
  );
  const claimOne = new PreparedQuery<ClaimOneArgs, ClaimedRow>(database, queries.claimOne);
  const readWithOp = new PreparedQuery<{ id: string }, ClaimedRow>(database, queries.readWithOp);
  return {
    held(reservations) {
      const lockId = reservations[0]?.lockId;
      if (lockId === undefined) return [];
      const uuids = new Set(reservations.map((r) => r.uuid));
      const held: ClaimedRecord[] = [];
      for (const row of statements.reservedBy.all({ lockId })) {
        if (row.res_uuid === null || !uuids.has(row.res_uuid)) continue;
        const stored = readWithOp.get({ id: row.id });
        if (stored) held.push(toClaimed(stored));
      }
      return held;
    },
    fresh(range, reservations) {
      const [statement, bounds] = forRange(claimable, range);
      const out: ClaimedRecord[] = [];
      for (const row of statement.all({
        limit: reservations.length,
        ...bounds,
        ...levelStart(bounds),
      })) {
        const r = reservations[out.length] as Reservation;
        const claimed = claimOne.get({ id: row.id, lockId: r.lockId, uuid: r.uuid });
        if (claimed) out.push(toClaimed(claimed, row.status)); // the status as found
      }
      return out;
    },
  };
}
