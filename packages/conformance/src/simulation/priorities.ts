import fc from 'fast-check';
import type { SimEvent } from './history.js';
import type { Command, Scenario, TxSpec } from './scenario.js';
import { plainStep } from './steps.js';

/** The steady load of `priorityScenarios`: high-priority seeds from 0 to this, virtual ms. */
const LOAD_MS = 6_000;

/**
 * (7) Priorities never starve (issue 25): under a higher-priority load that outlasts it, a
 * lower-priority transaction begins the call that completes it before the last
 * higher-priority transaction begins its first — not only once everything above it ran,
 * which is what a plain "highest first" order does under a steady load, nor after a call
 * cut short (a lapse, an outage) left it to the next sweep. Judged from the history: the
 * seeds' priorities, each first `call`, and the begin of each call that ended `ok`.
 */
export function checkStarvation(events: readonly SimEvent[]): string[] {
  const priority = new Map<string, number>();
  for (const e of events) if (e.e === 'seed' && e.created) priority.set(e.id, e.priority ?? 0);
  const firstCall = new Map<string, number>();
  const lastBegin = new Map<string, number>();
  const completed = new Map<string, number>();
  for (const e of events) {
    if (e.e !== 'call') continue;
    if (!e.end) {
      if (!firstCall.has(e.id)) firstCall.set(e.id, e.t);
      lastBegin.set(e.id, e.t);
    } else if (e.outcome === 'ok' && !completed.has(e.id)) {
      completed.set(e.id, lastBegin.get(e.id) ?? e.t);
    }
  }
  let lastHigh = -1;
  for (const [id, t] of firstCall)
    if ((priority.get(id) ?? 0) > 0) lastHigh = Math.max(lastHigh, t);
  const out: string[] = [];
  for (const [id, p] of priority) {
    if (p >= 0) continue;
    const began = completed.get(id);
    if (began === undefined || began >= lastHigh) {
      out.push(
        `low-priority ${id} began its completing call ${began === undefined ? 'never' : `at ${began} ms`}, not before the last higher-priority call (at ${lastHigh} ms)`,
      );
    }
  }
  return out;
}

/**
 * A higher-priority load that outlasts the lower one (issue 25): one engine of one worker
 * (a range or hash scanner; with or without `claimOnFinish`, whose finishing writes claim
 * too, under the same rule, where the range scanner claims), a backlog of 5–15 high-priority transactions seeded with one
 * or two low ones, then more high ones every 100–200 ms until 6 s — more than the worker
 * runs, so one above the low ones is always runnable — with slow store calls and a pause.
 * The starvation rule lets the low ones run within the first sweep page that reaches them
 * (the backlog fits in one page); without it they would run last. Priorities appear only
 * here: `scenarioArb` draws none, so its stored replays hold.
 */
export const priorityScenarios: fc.Arbitrary<Scenario> = fc
  .record({
    scanner: fc.constantFrom('range' as const, 'hash' as const),
    claimOnFinish: fc.boolean(),
    every: fc.integer({ min: 100, max: 200 }),
    backlog: fc.integer({ min: 5, max: 15 }),
    callMs: fc.integer({ min: 200, max: 300 }),
    lows: fc.integer({ min: 1, max: 2 }),
    low: fc.integer({ min: -5, max: -1 }),
    high: fc.integer({ min: 1, max: 5 }),
    pause: fc.record({
      at: fc.integer({ min: 0, max: 3_000 }),
      ms: fc.integer({ min: 100, max: 1_000 }),
    }),
    faults: fc.array(
      fc.record({
        gap: fc.integer({ min: 0, max: 60 }),
        delayMs: fc.integer({ min: 1, max: 300 }),
        fault: fc.constant('none' as const),
      }),
      { maxLength: 6 },
    ),
  })
  .map(priorityWorld);

/** What `priorityScenarios` draws: the load, the engine, a pause and the fault plan. */
export interface PriorityLoad {
  readonly scanner: 'range' | 'hash';
  readonly claimOnFinish: boolean;
  /** High-priority seeds come two at a time every this many ms, until `LOAD_MS`. */
  readonly every: number;
  /** High-priority transactions seeded at 0 with the low ones. */
  readonly backlog: number;
  readonly callMs: number;
  /** How many low-priority transactions, seeded at 0, and their priority. */
  readonly lows: number;
  readonly low: number;
  readonly high: number;
  readonly pause: { readonly at: number; readonly ms: number };
  readonly faults: Scenario['faults'];
}

/** The world of one `priorityScenarios` draw (stored counterexamples are kept this way). */
export function priorityWorld(g: PriorityLoad): Scenario {
  const tx = (priority: number): TxSpec => ({
    op: 'a',
    autoClean: false,
    steps: [plainStep(g.callMs)],
    priority,
  });
  const seeds: Command[] = [];
  for (let at = 0; at <= LOAD_MS; at += g.every) {
    const txs =
      at === 0
        ? [
            ...Array.from({ length: g.backlog }, () => tx(g.high)),
            ...Array.from({ length: g.lows }, () => tx(g.low)),
          ]
        : [tx(g.high), tx(g.high)];
    seeds.push({ at, kind: 'seed', many: true, txs });
  }
  return {
    salt: 0,
    livenessTimeoutMs: 1_000,
    retentionMs: 60_000,
    ageOffCheckMs: 10_000,
    engines: [
      {
        layout: 'one' as const,
        workers: 1,
        scanner: g.scanner,
        ...(g.claimOnFinish ? {} : { claimOnFinish: false as const }),
      },
    ],
    commands: [
      ...seeds,
      { at: g.pause.at, kind: 'pause' as const, engine: 0, ms: g.pause.ms },
    ].sort((a, b) => a.at - b.at),
    faults: g.faults,
    starvation: true,
  };
}
