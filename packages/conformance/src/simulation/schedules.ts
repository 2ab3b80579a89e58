import { keyedFateId, SCHEDULE_OP, scheduledKey } from '@fate/core';
import fc from 'fast-check';
import { SCHEDULE_MAX_CATCH_UP, SCHEDULE_NAME } from './cast.js';
import { faultyWorldArb, slowCallsArb, sorted } from './faulty-world.js';
import type { SimEvent } from './history.js';
import { SCENARIO_MS, type Scenario, type ScheduleSpec } from './scenario.js';
import { plainStep } from './steps.js';

/**
 * Schedules under faults (issue 25): 1–3 engines all registering schedule `tick` (due every
 * 1 or 2 s, catch-up `all` or `latest`; its transactions kept a minute or aged off by the
 * engines' next sweep), engines crashed, restarted, paused, stalled or shut down, and
 * store calls delayed, failed, lost or held.
 */
export const scheduleScenarios: fc.Arbitrary<Scenario> = schedulesWithin(SCENARIO_MS);

/** `scheduleScenarios` whose commands fall within `scenarioMs` (a real-time run's is shorter). */
export function schedulesWithin(scenarioMs: number): fc.Arbitrary<Scenario> {
  const world = faultyWorldArb(scenarioMs, {
    layouts: ['one'],
    scanners: ['range', 'hash'],
    maxWorkers: 2,
  });
  const schedule = fc.record({
    everyS: fc.constantFrom(1 as const, 2 as const),
    catchUp: fc.constantFrom('all' as const, 'all' as const, 'latest' as const),
    retainMs: fc.constantFrom(0, 60_000),
    callMs: fc.integer({ min: 0, max: 400 }),
  });
  return fc.tuple(world, schedule).map(
    ([w, { callMs, ...g }]): Scenario => ({
      ...w,
      retentionMs: 60_000,
      ageOffCheckMs: 500,
      schedule: { ...g, steps: [plainStep(callMs)] },
    }),
  );
}

/**
 * The late insert of a cleared schedule holder (the failure model's known gap): 2–3 engines,
 * a schedule due every second whose transactions are aged off at once, one engine paused
 * just after a due time long enough to be cleared, and calls made slow around then, so a
 * holder's insert can land after the due time it duplicates ran and was deleted.
 */
export const lateInsertScenarios: fc.Arbitrary<Scenario> = fc
  .record({
    salt: fc.nat(),
    engines: fc.integer({ min: 2, max: 3 }),
    due: fc.integer({ min: 1, max: 5 }),
    offset: fc.integer({ min: 0, max: 300 }),
    victim: fc.integer({ min: 0, max: 2 }),
    ms: fc.integer({ min: 1_500, max: 4_000 }),
    crash: fc.boolean(),
    faults: slowCallsArb({ maxGap: 30, minDelayMs: 20, maxDelayMs: 400, maxLength: 12 }),
  })
  .map(
    (g): Scenario => ({
      salt: g.salt,
      livenessTimeoutMs: 1_000,
      retentionMs: 60_000,
      ageOffCheckMs: 500,
      engines: Array.from({ length: g.engines }, () => ({
        layout: 'one' as const,
        workers: 1,
        scanner: 'range' as const,
      })),
      commands: sorted([
        { at: g.due * 1_000 + g.offset, kind: 'pause', engine: g.victim, ms: g.ms },
        ...(g.crash
          ? [
              {
                at: g.due * 1_000 + g.offset + g.ms + 50,
                kind: 'crash' as const,
                engine: (g.victim + 1) % g.engines,
              },
            ]
          : []),
      ]),
      faults: g.faults,
      schedule: { everyS: 1, catchUp: 'all', retainMs: 0, steps: [plainStep(10)] },
    }),
  );

/** The schedule record's state as the run's end found it. */
export interface ScheduleRecordState {
  readonly through: number;
  readonly pending: readonly string[];
}

/**
 * (8) Schedules: every due time after the schedule record was created and up to `windowMs`
 * runs, as exactly one transaction (one incarnation of its keyed id whose steps began) —
 * none twice, none missed except as the catch-up rule allows (`latest`: a due time missed
 * only when a later one ran; `all`: only when a judgement came too late to seed it, one that
 * seeded a later due time as the oldest of its `maxCatchUp`). `startEpoch` is the store's
 * clock when the run began; `slackMs` how far the store's clock and the history's may
 * disagree (0 in virtual time).
 */
export function checkSchedule(
  events: readonly SimEvent[],
  spec: ScheduleSpec,
  o: { readonly startEpoch: number; readonly windowMs: number; readonly slackMs: number },
): string[] {
  const record = keyedFateId({ type: SCHEDULE_OP, key: SCHEDULE_NAME });
  const made = events.find((e) => e.e === 'inserted' && e.id === record);
  if (!made) return ['the schedule record was never created'];
  const ran = incarnationsThatRan(events);
  const every = spec.everyS * 1_000;
  const end = o.startEpoch + events.reduce((m, e) => Math.max(m, e.t), 0);
  const owedFrom = o.startEpoch + made.t + o.slackMs;
  const owedTo = o.startEpoch + o.windowMs - o.slackMs;
  const dues: number[] = [];
  for (let d = Math.floor(o.startEpoch / every) * every; d <= end; d += every) dues.push(d);
  const ids = dues.map((d) => keyedFateId(scheduledKey(SCHEDULE_NAME, d)));
  const runs = ids.map((id) => ran.get(id) ?? 0);
  const inserted = new Map<string, number[]>(); // id -> when its inserts applied, store clock
  for (const e of events)
    if (e.e === 'inserted') inserted.set(e.id, [...(inserted.get(e.id) ?? []), o.startEpoch + e.t]);
  const out: string[] = [];
  dues.forEach((d, i) => {
    const at = `due time ${d - o.startEpoch} ms`;
    const n = runs[i] ?? 0;
    if (n > 1) out.push(`schedule ${SCHEDULE_NAME}: ${at} ran as ${n} transactions`);
    if (n > 0 || d <= owedFrom || d > owedTo) return;
    const later = runs.slice(i + 1).some((m) => m > 0);
    // 'all' seeds at most maxCatchUp due times per judgement, the most recent: an older one
    // is skipped by design when a judgement came that late, i.e. seeded a later due time as
    // the oldest of its window (maxCatchUp due times from it were due). The first judgement
    // that covered this one may have been fenced off: what it seeded held never runs.
    const windowFrom = (x: number, t: number) =>
      dues.filter((y) => y >= x && y <= t + o.slackMs).length >= SCHEDULE_MAX_CATCH_UP;
    const tooLate = ids.some(
      (id, j) => j > i && (inserted.get(id) ?? []).some((t) => windowFrom(dues[j] as number, t)),
    );
    if ((spec.catchUp === 'all' && !tooLate) || !later) {
      out.push(`schedule ${SCHEDULE_NAME} (catch-up ${spec.catchUp}): ${at} never ran`);
    }
  });
  return out;
}

/** How many incarnations of each id had a step begin (`isReady` or `call`). */
function incarnationsThatRan(events: readonly SimEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  const counted = new Set<string>();
  const incarnation = new Map<string, number>();
  for (const e of events) {
    if (e.e === 'inserted') incarnation.set(e.id, (incarnation.get(e.id) ?? 0) + 1);
    if ((e.e !== 'call' && e.e !== 'ready') || e.end) continue;
    const k = `${e.id}#${incarnation.get(e.id) ?? 0}`;
    if (counted.has(k)) continue;
    counted.add(k);
    out.set(e.id, (out.get(e.id) ?? 0) + 1);
  }
  return out;
}
