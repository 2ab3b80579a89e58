import {
  type ClaimedRecord,
  type IdRange,
  PRIORITY_LEVELS,
  type Reservation,
  RUNNABLE_STATUSES,
  Status,
} from '@fate/core';
import {
  type ClaimedRow,
  forRange,
  type RangeArgs,
  rangeShapes,
  toClaimed,
} from '@fate/sql-common';
import { type Compilable, type RawBuilder, sql } from 'kysely';
import type pg from 'pg';
import { postgresDialect } from './postgres-dialect.js';
import { PgStatement } from './postgres-statements.js';

export interface PgClaimArgs extends RangeArgs {
  lockId: string;
  /** One uuid per slot: the n-th row claimed gets `uuids[n]`. */
  uuids: string[];
  limit: number;
}

/** One level's due runnable rows of the range, locked as read, skipping locked ones. */
function levelPick(
  table: ReturnType<typeof sql.table>,
  runnable: ReturnType<typeof sql.join>,
  clock: ReturnType<typeof postgresDialect>['clock'],
  level: number,
  start: boolean,
  end: boolean,
  p: PgClaimSlots,
  gate: RawBuilder<unknown>,
) {
  return sql`select * from (select id, status, priority from ${table}
  where res_lock is null and status in (${runnable}) and priority = ${sql.lit(level)}
    and defer_until <= ${clock()}
    ${start ? sql`and id >= ${p.start}` : sql``} ${end ? sql`and id < ${p.end}` : sql``}
    and not exists (select 1 from held) ${gate}
  order by id limit ${p.limit}
  for update skip locked) as ${sql.ref(`level_${level < 0 ? `m${-level}` : level}`)}`;
}

/**
 * `claimMany` as one statement per range shape. `held`: rows already holding one of the
 * reservations (a repeat after a lost reply), answered as stored, and then nothing more is
 * claimed. Otherwise `picked` takes the due runnable rows of the range from the runnable
 * index, highest priority first and lowest ids within a level (one index range per level,
 * joined by UNION ALL under the limit), `FOR UPDATE SKIP LOCKED` (two engines claiming at once take
 * different rows instead of queueing on the same ones); each is reserved with the uuid of
 * its rank and started when SUBMITTED, and answered with the status as found.
 */
export function claimStatements(schema: string) {
  const parts = claimParts(schema);
  const { db } = postgresDialect(schema);
  return rangeShapes((start, end) => {
    const build = (p: PgClaimArgs): Compilable<ClaimedRow> => {
      const { ctes, rows } = parts(p.lockId, p, start, end, sql``);
      return {
        compile: () => sql<ClaimedRow>`with ${ctes} ${rows} order by priority desc, id`.compile(db),
      };
    };
    return new PgStatement<PgClaimArgs, ClaimedRow>(build);
  });
}

/** The claim's arguments but its lock id (a finish-and-claim names it apart from the write's). */
export type PgClaimSlots = Omit<PgClaimArgs, 'lockId'>;

/**
 * The claim's common table expressions (`held`, `picked`, `numbered`, `claimed`) and the
 * select of its rows, for a statement to embed; `gate` adds a condition to `picked` (a
 * finish-and-claim claims only after its write applied).
 */
export function claimParts(schema: string) {
  const dialect = postgresDialect(schema);
  const table = sql.table(`${schema}.transactions`);
  // the partial runnable index's predicate, literally, so the planner may use it
  const runnable = sql.join(
    [...RUNNABLE_STATUSES].map((s) => sql.lit(s)),
    sql`, `,
  );
  return (
    lockId: string,
    p: PgClaimSlots,
    start: boolean,
    end: boolean,
    gate: RawBuilder<unknown>,
  ) => ({
    ctes: sql`held as (
  select id from ${table} where res_lock = ${lockId} and res_uuid = any(${p.uuids}::text[])
), picked as (
  ${sql.join(
    PRIORITY_LEVELS.map((level) =>
      levelPick(table, runnable, () => dialect.clock(), level, start, end, p, gate),
    ),
    sql` union all `,
  )}
  limit ${p.limit}
), numbered as (
  select id, status, row_number() over (order by priority desc, id) as n from picked
), claimed as (
  update ${table} t
  set res_lock = ${lockId},
    res_uuid = (${p.uuids}::text[])[numbered.n],
    status = case when t.status = ${sql.lit(Status.SUBMITTED)} then ${sql.lit(Status.IN_PROGRESS)} else t.status end
  from numbered
  where t.id = numbered.id and t.res_lock is null
  returning t.id, t.op, numbered.status, t.stack, t.info, t.res_lock, t.res_uuid, t.defer_until, t.priority
)`,
    rows: sql`select id, op, status, stack, info, res_lock, res_uuid, defer_until, priority from claimed
union all
select id, op, status, stack, info, res_lock, res_uuid, defer_until, priority from ${table}
where id in (select id from held)`,
  });
}

/** `claimMany` on the pool: one statement of the range's shape, one uuid per slot. */
export async function claimManyOn(
  pool: pg.Pool,
  claims: ReturnType<typeof claimStatements>,
  range: IdRange | undefined,
  reservations: readonly Reservation[],
): Promise<ClaimedRecord[]> {
  const lockId = reservations[0]?.lockId;
  if (lockId === undefined) return [];
  const uuids = reservations.map((r) => r.uuid);
  const [statement, bounds] = forRange(claims, range);
  const rows = await statement.rows(pool, { lockId, uuids, limit: uuids.length, ...bounds });
  return rows.map((row) => toClaimed(row));
}
