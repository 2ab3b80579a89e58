import { FINISHED_STATUSES, type Status, type StoreBackend } from '@fate/core';
import { SCHEDULE_NAME } from './cast.js';
import { type FinalRecord, retryOf } from './invariants.js';
import type { ScheduleRecordState } from './schedules.js';

/** What the store holds at a run's end, read past every simulated fault. */
export interface FinalState {
  /** Every record but the engine's own (op `fate:…`, NEW by design) and unsubmitted ticks. */
  readonly records: FinalRecord[];
  /** The schedule record's state, when there is one. */
  readonly schedule?: ScheduleRecordState;
}

const opOf = (info: string): string | undefined => {
  try {
    return (JSON.parse(info) as { opName?: string }).opName;
  } catch {
    return undefined;
  }
};

/**
 * Reads the world's store through a fresh backend client. A schedule's transaction still NEW
 * is left out: one whose due time ran is a late insert nobody submits (the failure model's
 * answer), and one whose due time never ran is reported by the schedule's invariant.
 */
export async function readFinal(raw: StoreBackend): Promise<FinalState> {
  await raw.open();
  try {
    const out: FinalRecord[] = [];
    let schedule: ScheduleRecordState | undefined;
    for (const { id, record } of await raw.list()) {
      const op = opOf(record.info);
      if (op === 'fate:schedule') schedule = scheduleState(record.info);
      if (op?.startsWith('fate:') || (op === SCHEDULE_NAME && record.status === 'NEW')) continue;
      out.push({
        id,
        status: record.status,
        holder: record.reservation?.lockId,
        defer: record.deferUntil,
        ...retryOf(record.info),
      });
    }
    return { records: out, ...(schedule ? { schedule } : {}) };
  } finally {
    await raw.close();
  }
}

function scheduleState(info: string): ScheduleRecordState | undefined {
  try {
    const s = (JSON.parse(info) as { internal?: ScheduleRecordState }).internal;
    return s && typeof s.through === 'number' ? { through: s.through, pending: s.pending } : s;
  } catch {
    return undefined;
  }
}

/**
 * True once every record is finished and, with a schedule, every due time up to `dueBy`
 * (store clock) was judged and nothing it seeded is left to submit.
 */
export function settled(state: FinalState, dueBy: number | undefined): boolean {
  if (!state.records.every((r) => FINISHED_STATUSES.has(r.status as Status))) return false;
  if (dueBy === undefined) return true;
  const s = state.schedule;
  return s !== undefined && s.through >= dueBy && s.pending.length === 0;
}
