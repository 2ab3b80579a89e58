import { RUNNABLE_STATUSES, Status } from '@fate/core';
import { type ClaimedRow, type RangeArgs, rangeShapes } from '@fate/sql-common';
import { type Compilable, sql } from 'kysely';
import { postgresDialect } from './postgres-dialect.js';
import { PgStatement } from './postgres-statements.js';

export interface PgClaimArgs extends RangeArgs {
  lockId: string;
  /** One uuid per slot: the n-th row claimed gets `uuids[n]`. */
  uuids: string[];
  limit: number;
}

/**
 * `claimMany` as one statement per range shape. `held`: rows already holding one of the
 * reservations (a repeat after a lost reply), answered as stored, and then nothing more is
 * claimed. Otherwise `picked` takes the due runnable rows of the range from the runnable
 * index, lowest ids first, `FOR UPDATE SKIP LOCKED` (two engines claiming at once take
 * different rows instead of queueing on the same ones); each is reserved with the uuid of
 * its rank and started when SUBMITTED, and answered with the status as found.
 */
export function claimStatements(schema: string) {
  const dialect = postgresDialect(schema);
  const { db } = dialect;
  const table = sql.table(`${schema}.transactions`);
  // the partial runnable index's predicate, literally, so the planner may use it
  const runnable = sql.join(
    [...RUNNABLE_STATUSES].map((s) => sql.lit(s)),
    sql`, `,
  );
  return rangeShapes((start, end) => {
    const build = (p: PgClaimArgs): Compilable<ClaimedRow> => ({
      compile: () =>
        sql<ClaimedRow>`with held as (
  select id from ${table} where res_lock = ${p.lockId} and res_uuid = any(${p.uuids}::text[])
), picked as (
  select id, status from ${table}
  where res_lock is null and status in (${runnable})
    and defer_until <= ${dialect.clock()}
    ${start ? sql`and id >= ${p.start}` : sql``} ${end ? sql`and id < ${p.end}` : sql``}
    and not exists (select 1 from held)
  order by id limit ${p.limit}
  for update skip locked
), numbered as (
  select id, status, row_number() over (order by id) as n from picked
), claimed as (
  update ${table} t
  set res_lock = ${p.lockId},
    res_uuid = (${p.uuids}::text[])[numbered.n],
    status = case when t.status = ${sql.lit(Status.SUBMITTED)} then ${sql.lit(Status.IN_PROGRESS)} else t.status end
  from numbered
  where t.id = numbered.id and t.res_lock is null
  returning t.id, t.op, numbered.status, t.stack, t.info, t.res_lock, t.res_uuid, t.defer_until
)
select id, op, status, stack, info, res_lock, res_uuid, defer_until from claimed
union all
select id, op, status, stack, info, res_lock, res_uuid, defer_until from ${table}
where id in (select id from held)
order by id`.compile(db),
    });
    return new PgStatement<PgClaimArgs, ClaimedRow>(build);
  });
}
