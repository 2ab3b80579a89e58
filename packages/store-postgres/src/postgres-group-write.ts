import { TickBatch } from '@fate/core';
import type { WriteArgs } from '@fate/sql-common';
import type pg from 'pg';
import { SERVER_CLOCK as CLOCK } from './postgres-dialect.js';
import { rolledBack } from './postgres-errors.js';
import { statementName } from './postgres-statements.js';

/**
 * Group commit of the fenced writes (not deletes) of one turn of the event loop: one
 * `UPDATE … FROM unnest(…)` with the shared `write` query's SET for each row (see
 * `sql-queries.ts`). A row is updated only where its id, lock and uuid all match, and a
 * write applied exactly when the statement returns its id, so one fenced off answers
 * false alone.
 */
export function groupWrite(
  schema: string,
  pool: pg.Pool,
  one: (args: WriteArgs) => Promise<boolean>,
): TickBatch<WriteArgs, boolean> {
  const text = `update "${schema}"."transactions" as t set
    status = coalesce(u.status, t.status),
    stack = coalesce(u.stack, t.stack),
    info = coalesce(u.info, t.info),
    res_lock = u.new_lock,
    res_uuid = u.new_uuid,
    defer_until = coalesce(case when u.defer_ms > 0 then ${CLOCK} + u.defer_ms when u.defer_ms = 0 then 0 end, t.defer_until),
    finished_at = case when u.finish_mode = 2 then coalesce(u.finish_at, ${CLOCK}) when u.finish_mode = 1 then null else t.finished_at end,
    due_at = case when u.finish_mode = 2 then coalesce(u.finish_at, ${CLOCK}) + u.retain_ms when u.finish_mode = 1 then null else t.due_at end
  from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
              $8::text[], $9::bigint[], $10::int[], $11::bigint[], $12::bigint[])
    as u(id, lock_id, uuid, status, stack, info, new_lock, new_uuid, defer_ms, finish_mode, finish_at, retain_ms)
  where t.id = u.id and t.res_lock = u.lock_id and t.res_uuid = u.uuid
  returning t.id`;
  const name = statementName(text);
  return new TickBatch<WriteArgs, boolean>({
    key: (w) => w.id,
    one,
    sendAgainAlone: rolledBack,
    async many(writes) {
      const values = [
        writes.map((w) => w.id),
        writes.map((w) => w.lockId),
        writes.map((w) => w.uuid),
        writes.map((w) => w.status),
        writes.map((w) => w.stack),
        writes.map((w) => w.info),
        writes.map((w) => w.newLock),
        writes.map((w) => w.newUuid),
        writes.map((w) => w.deferMs),
        writes.map((w) => w.finishMode),
        writes.map((w) => w.finishAt),
        writes.map((w) => w.retainMs),
      ];
      const { rows } = await pool.query<{ id: string }>({ name, text, values });
      const applied = new Set(rows.map((r) => r.id));
      return writes.map((w) => applied.has(w.id));
    },
  });
}
