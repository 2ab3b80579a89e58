import type { FatesStore } from '../contract/fates-store.js';
import type { SeedRequest } from '../contract/types.js';
import { isFateError } from '../errors.js';
import { type FateId, type FateKey, keyedFateId } from '../ids.js';
import { Status } from '../status.js';
import type { StepRegistry } from '../step.js';
import { internalState, submitHeld } from './held-records.js';
import { type CompiledSchedule, dueTimes } from './schedule-types.js';

/** The op name of schedule records (NEW, never run; one per schedule name). */
export const SCHEDULE_OP = 'fate:schedule';

/** What a schedule record keeps in `internal`. */
export interface ScheduleState {
  readonly kind: 'schedule';
  readonly name: string;
  readonly pattern: string;
  readonly timezone?: string;
  /** Every due time up to this (store clock, epoch ms) was judged: seeded or skipped. */
  readonly through: number;
  /** Seeded held and not yet known submitted: whoever holds the record next submits them. */
  readonly pending: readonly FateId[];
}

export interface TickContext<Env> {
  readonly store: FatesStore;
  readonly steps: StepRegistry<Env>;
  /** False when this engine's lease lapsed: it inserts nothing then. */
  leaseValid(): boolean;
  warn(message: string, error?: unknown): void;
}

/** What one tick did: `busy` when another client held the record or a submit is left. */
export interface TickResult {
  readonly busy: boolean;
  readonly submitted: readonly FateId[];
  readonly skipped: number;
}

export function scheduleId(name: string): FateId {
  return keyedFateId({ type: SCHEDULE_OP, key: name });
}

/** The key of the transaction due at `due`: one per schedule and due time, in every engine. */
export function scheduledKey(name: string, due: number): FateKey {
  return { type: 'fate:scheduled', key: `${name}@${new Date(due).toISOString()}` };
}

/**
 * One judgement of a schedule (docs/architecture.md, schedules): under the schedule
 * record's reservation, the due times since `through` are seeded held (NEW, keyed by name
 * and due time), then `through` and the pending ids are written — fenced, so only a live
 * holder's judgement counts — and only then are they submitted. A holder cleared meanwhile
 * (paused, dead) fails that write: what it inserted stays NEW and never runs, or is
 * submitted by the next holder, which finds the same keys for the same due times.
 */
export async function scheduleTick<Env>(
  ctx: TickContext<Env>,
  s: CompiledSchedule<Env>,
): Promise<TickResult> {
  const { store } = ctx;
  const id = scheduleId(s.name);
  const idle = { busy: false, submitted: [], skipped: 0 };
  const view = await store.read(id);
  if (view.status === Status.UNKNOWN) {
    // nothing is owed for times before the schedule existed
    await store.seed(scheduleRecord(s, store.now()));
    return idle;
  }
  const seen = readState(id, view.info.internal);
  if (seen && seen.pending.length === 0 && dueTimes(s, seen.through, store.now()).seed.length === 0)
    return idle; // the cheap path of every engine but the one that seeds
  const h = await store.tryReserve(id);
  if (!h) return { busy: true, submitted: [], skipped: 0 };
  try {
    const state = readState(id, await h.getInfo('internal'));
    if (!state) ctx.warn(`schedule record ${s.name} was unreadable; judged again from now`);
    const now = store.now();
    const base = state ?? { through: now, pending: [] };
    const due = dueTimes(s, base.through, now);
    const requests: SeedRequest[] = [];
    let skipped = due.skipped;
    for (const t of due.seed) {
      try {
        requests.push(scheduledRequest(ctx, s, t));
      } catch (error) {
        skipped++;
        ctx.warn(
          `schedule ${s.name}: its step factory failed for ${new Date(t).toISOString()}`,
          error,
        );
      }
    }
    // a lapsed lease: others may have cleared this reservation and judged these times
    if (requests.length > 0 && !ctx.leaseValid()) return { busy: true, submitted: [], skipped: 0 };
    const seeded = requests.length > 0 ? await store.seedMany(requests) : [];
    const pending = [...new Set([...base.pending, ...seeded.map((r) => r.id)])];
    const next = (left: readonly FateId[]) => ({
      ...stateFields(s),
      through: Math.max(base.through, due.through),
      pending: [...left],
    });
    // fenced: a holder cleared meanwhile stops here, and submits nothing
    await h.commit([{ op: 'setInfo', key: 'internal', value: next(pending) }]);
    const { left, submitted } = await submitHeld(store, pending);
    await h.commit([{ op: 'setInfo', key: 'internal', value: next(left) }, { op: 'unreserve' }]);
    return { busy: left.length > 0, submitted, skipped };
  } finally {
    if (h.isReserved) await h.unreserve().catch(ignoreNotReserved);
  }
}

function scheduleRecord(s: CompiledSchedule<unknown>, now: number): SeedRequest {
  return {
    held: true,
    key: { type: SCHEDULE_OP, key: s.name },
    opName: SCHEDULE_OP,
    step: { type: SCHEDULE_OP, state: { name: s.name } },
    internal: { ...stateFields(s), through: now, pending: [] },
  };
}

function stateFields(s: CompiledSchedule<unknown>) {
  return {
    kind: 'schedule',
    name: s.name,
    pattern: s.pattern,
    ...(s.timezone ? { timezone: s.timezone } : {}),
  };
}

function scheduledRequest<Env>(
  ctx: TickContext<Env>,
  s: CompiledSchedule<Env>,
  due: number,
): SeedRequest {
  return {
    held: true,
    key: scheduledKey(s.name, due),
    opName: s.opName,
    step: ctx.steps.serialize(s.factory(new Date(due))),
    ...(s.retainMs !== undefined ? { retainMs: s.retainMs } : {}),
  };
}

/** The stored state, or undefined when it cannot be read (then judged again from now). */
function readState(id: FateId, value: unknown): ScheduleState | undefined {
  try {
    const state = internalState(id, value, 'schedule');
    if (typeof state.through !== 'number' || !Array.isArray(state.pending)) return undefined;
    return state as unknown as ScheduleState;
  } catch {
    return undefined;
  }
}

function ignoreNotReserved(error: unknown): void {
  if (!isFateError(error)) throw error;
}
