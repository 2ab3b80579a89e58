import type { FinishClaimed, IdRange, RecordWrite, Reservation } from '@fate/core';
import {
  type ClaimedRow,
  type Fence,
  fateQueries,
  fence,
  forRange,
  rangeShapes,
  toClaimed,
  type WriteArgs,
  writeArgs,
} from '@fate/sql-common';
import { type Compilable, sql } from 'kysely';
import type pg from 'pg';
import { claimParts, type PgClaimSlots } from './postgres-claims.js';
import { postgresDialect } from './postgres-dialect.js';
import { PgStatement } from './postgres-statements.js';

/** A finish-and-claim's arguments: the fenced write's and the claim's (its own lock id). */
export type PgFinishClaimArgs<W> = W & PgClaimSlots & { claimLock: string };

/** Its one row: whether the write applied, and the claimed (or held) rows as JSON. */
export interface PgFinishClaimRow {
  written: boolean;
  claimed: ClaimedRow[];
}

/**
 * `finishAndClaim` as one statement (one round trip) per write shape (update or delete)
 * and range shape: the fenced write is a data-modifying CTE `w`, and the claim of
 * `claimMany` (`postgres-claims.ts`) runs gated on it: its rows are picked only when `w`
 * changed a row (a fenced-off write claims nothing), or answered from `held` on a repeat
 * after a lost reply. All CTEs see one snapshot, so the claim never sees the row the write
 * released (it was reserved then) and takes it back.
 */
export function finishClaimStatements(schema: string) {
  const dialect = postgresDialect(schema);
  const { db } = dialect;
  const queries = fateQueries(dialect);
  const parts = claimParts(schema);
  const gate = sql`and exists (select 1 from w)`;
  const statement = <W>(write: (p: W) => Compilable<unknown>) =>
    rangeShapes((start, end) => {
      const build = (p: PgFinishClaimArgs<W>): Compilable<PgFinishClaimRow> => {
        const { ctes, rows } = parts(p.claimLock, p, start, end, gate);
        const w = (write(p) as unknown as { returning(c: string): Compilable<unknown> }).returning(
          'id',
        );
        return {
          compile: () =>
            sql<PgFinishClaimRow>`with w as (${w as never}), ${ctes}
select exists (select 1 from w) as written,
  coalesce((select json_agg(c order by c.priority desc, c.id) from (${rows}) c), '[]'::json) as claimed`.compile(
              db,
            ),
        };
      };
      return new PgStatement<PgFinishClaimArgs<W>, PgFinishClaimRow>(build);
    });
  return {
    write: statement<WriteArgs>(queries.write as never),
    remove: statement<Fence>(queries.remove as never),
  };
}

/**
 * `finishAndClaim` on the pool: the statement of the write's shape (a delete's binds only
 * the fence of a write's) and the range's, in one round trip.
 */
export async function finishAndClaimOn(
  pool: pg.Pool,
  finishClaims: ReturnType<typeof finishClaimStatements>,
  write: { readonly id: string; readonly reservation: Reservation; readonly change: RecordWrite },
  range: IdRange | undefined,
  reservations: readonly Reservation[],
): Promise<FinishClaimed> {
  const { id, reservation, change } = write;
  const claimLock = reservations[0]?.lockId ?? reservation.lockId;
  const uuids = reservations.map((r) => r.uuid);
  const slots = { claimLock, uuids, limit: uuids.length };
  const fenced = change.delete ? fence(id, reservation) : writeArgs(id, reservation, change);
  const shapes = change.delete ? finishClaims.remove : finishClaims.write;
  // one shape of arguments: a delete's statement binds only the fence of a write's
  const [statement, bounds] = forRange(shapes as typeof finishClaims.write, range);
  const [row] = await statement.rows(pool, { ...(fenced as WriteArgs), ...bounds, ...slots });
  return {
    written: row?.written === true,
    claimed: (row?.claimed ?? []).map((c) => toClaimed(c)),
  };
}
