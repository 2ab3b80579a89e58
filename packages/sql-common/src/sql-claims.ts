import { type ClaimedRecord, Status } from '@fate/core';
import { sql } from 'kysely';
import type { SqlDialect } from './sql-dialect.js';
import { type LevelArgs, levelWalk } from './sql-priority.js';
import { RECORD_COLUMNS } from './sql-queries.js';
import { rangeShapes } from './sql-ranges.js';
import { type RecordColumns, toRecord } from './sql-records.js';

export type ClaimableArgs = LevelArgs;

/** Claiming one row a claim picked: `tryReserve(id, r, true)` of an unreserved row. */
export interface ClaimOneArgs {
  id: string;
  lockId: string;
  uuid: string;
}

/** A row a claim took, with its op. */
export type ClaimedRow = RecordColumns & { id: string; op: string };

/**
 * The statements a store can claim many with in one transaction (SQLite: a transaction is
 * one commit, which is what costs): the due runnable rows of a range, from the runnable
 * index, then one conditional update per row. PostgreSQL claims in one statement instead
 * (`postgres-claims.ts`), so two of its engines never pick the same rows.
 */
export function claimQueries(d: SqlDialect) {
  const { db } = d;
  return {
    /**
     * Runnable, unreserved, due rows in the runnable order (priority, then id), at most
     * `limit`: a runnable-index range search per level (`sql-priority.ts`).
     */
    claimable: rangeShapes(
      (start, end) => (p: ClaimableArgs) =>
        levelWalk<{ id: string; op: string; status: string }>(d, { start, end, due: true }, p, [
          'id',
          'op',
          'status',
        ]),
    ),
    /** Reserves an unreserved row, starting it when SUBMITTED; the row as written. */
    claimOne: (p: ClaimOneArgs) =>
      db
        .updateTable('transactions')
        .set((eb) => ({
          res_lock: p.lockId,
          res_uuid: p.uuid,
          status: eb
            .case()
            .when('status', '=', sql.lit(Status.SUBMITTED))
            .then(sql.lit(Status.IN_PROGRESS))
            .else(eb.ref('status'))
            .end(),
        }))
        .where('id', '=', p.id)
        .where('res_lock', 'is', null)
        .returning(['id', 'op', ...RECORD_COLUMNS]),
    /** One record with its op (a repeated claim answers what it holds). */
    readWithOp: (p: { id: string }) =>
      db
        .selectFrom('transactions')
        .select(['id', 'op', ...RECORD_COLUMNS])
        .where('id', '=', p.id),
  };
}

/** What `claimMany` answers for a row, its status as `found`. */
export function toClaimed(row: ClaimedRow, found: string = row.status): ClaimedRecord {
  return { id: row.id, op: row.op, record: { ...toRecord(row), status: found } };
}
