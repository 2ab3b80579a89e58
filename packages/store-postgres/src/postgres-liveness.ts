import type { InstanceRecord } from '@fate/core';
import { livenessRecords } from '@fate/sql-common';
import type pg from 'pg';
import type { PostgresClock } from './postgres-clock.js';
import type { PostgresStatements } from './postgres-statements.js';

/** What liveness runs on: its own pool, so a saturated main pool never delays a beat. */
interface LivenessConnection {
  readonly control: pg.Pool;
  readonly statements: PostgresStatements;
}

/** Writes one liveness record; its reply carries the server's clock, which `clock` takes in. */
export async function heartbeat(
  { control, statements }: LivenessConnection,
  clock: PostgresClock,
  beat: { readonly lockId: string; readonly state: string; readonly ttlMs: number },
): Promise<void> {
  const sentAt = performance.now();
  const args = { lockId: beat.lockId, state: beat.state, ttlMs: Math.ceil(beat.ttlMs) };
  const [row] = await statements.heartbeat.rows(control, args);
  if (row) clock.observe(row.now, sentAt);
}

/** Every liveness record; also deletes those past their time (crashed engines' rows must not pile up). */
export async function readInstances({
  control,
  statements,
}: LivenessConnection): Promise<InstanceRecord[]> {
  const { records, lapsed } = livenessRecords(await statements.liveness.rows(control, {}));
  if (lapsed) await statements.forget.changed(control, {});
  return records;
}
