import fc from 'fast-check';
import type { SimEvent } from './history.js';
import type { Command, Scenario } from './scenario.js';
import { callSpans, leases, type StepEvent } from './spans.js';
import { plainStep } from './steps.js';

/**
 * (6) A cluster-wide concurrency limit (issue 25): never more than `limit` calls of op `b`
 * running at once across every engine, each call counted, as in (1), from its beginning to
 * the end of the lease stretch it began in (a call that ignores its signal and outlives its
 * holder's lease is the case the failure model leaves out).
 */
export function checkLimit(
  events: readonly SimEvent[],
  options: { readonly leaseMs: number; readonly limit: number; readonly op: string },
): string[] {
  const ids = new Set(events.flatMap((e) => (e.e === 'seed' && e.op === options.op ? [e.id] : [])));
  const end = events.reduce((m, e) => Math.max(m, e.t), 0) + 1;
  const valid = leases(events, options.leaseMs);
  const steps = events.filter((e): e is StepEvent => e.e === 'call' && ids.has(e.id));
  const edges: Array<[number, number]> = [];
  for (const list of callSpans(steps, end).values()) {
    for (const c of list) {
      const stretch = (valid.get(c.lockId) ?? []).find(([a, b]) => a <= c.from && c.from < b);
      const to = Math.min(c.to, stretch?.[1] ?? c.from);
      if (to > c.from) edges.push([c.from, 1], [to, -1]);
    }
  }
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]); // an end before a start at the same instant
  let running = 0;
  for (const [t, d] of edges) {
    running += d;
    if (running > options.limit) {
      return [
        `at ${t} ms: ${running} calls of op ${options.op} ran at once (limit ${options.limit})`,
      ];
    }
  }
  return [];
}

/**
 * Cluster-wide limits under faults: 2–3 engines sharing a limit of 1–2 on op `b`, a herd of
 * `b` (and some `a`) seeded at once, one engine crashed, paused or stalled while it holds
 * slots, and slow or failing store calls.
 */
export const limitScenarios: fc.Arbitrary<Scenario> = fc
  .record({
    limit: fc.integer({ min: 1, max: 2 }),
    engines: fc.integer({ min: 2, max: 3 }),
    workers: fc.integer({ min: 1, max: 3 }),
    b: fc.integer({ min: 2, max: 6 }),
    a: fc.integer({ min: 0, max: 2 }),
    callMs: fc.integer({ min: 50, max: 1_500 }),
    ignoresSignal: fc.boolean(),
    fault: fc.constantFrom('crash' as const, 'pause' as const, 'stall' as const),
    at: fc.integer({ min: 100, max: 2_000 }),
    victim: fc.integer({ min: 0, max: 2 }),
    ms: fc.integer({ min: 500, max: 3_000 }),
    faults: fc.array(
      fc.record({
        gap: fc.integer({ min: 0, max: 60 }),
        delayMs: fc.integer({ min: 50, max: 2_000 }),
        fault: fc.constantFrom('none' as const, 'fail' as const, 'lose' as const, 'hang' as const),
      }),
      { maxLength: 4 },
    ),
  })
  .map((g): Scenario => {
    const tx = (op: 'a' | 'b') => ({
      op,
      autoClean: false,
      steps: [plainStep(g.callMs, g.ignoresSignal), plainStep(g.callMs)],
    });
    const fault: Command =
      g.fault === 'crash'
        ? { at: g.at, kind: 'crash' as const, engine: g.victim }
        : { at: g.at, kind: g.fault, engine: g.victim, ms: g.ms };
    return {
      salt: 0,
      livenessTimeoutMs: 1_000,
      retentionMs: 60_000,
      ageOffCheckMs: 10_000,
      engines: Array.from({ length: g.engines }, () => ({
        layout: 'one' as const,
        workers: g.workers,
        scanner: 'range' as const,
      })),
      commands: [
        {
          at: 0,
          kind: 'seed' as const,
          many: true,
          txs: [
            ...Array.from({ length: g.b }, () => tx('b')),
            ...Array.from({ length: g.a }, () => tx('a')),
          ],
        },
        fault,
        ...(g.fault === 'crash'
          ? [{ at: g.at + g.ms, kind: 'restart' as const, engine: g.victim }]
          : []),
      ],
      faults: g.faults,
      limitB: g.limit,
    };
  });

/**
 * `limitScenarios` with a cluster-wide rate on op `b` too (issue 25): 0.5–4 starts a second,
 * with the concurrency limit or alone. A generator of its own, so `limitScenarios`' values
 * (and what replays them) stay as they were.
 */
export const rateLimitScenarios: fc.Arbitrary<Scenario> = fc
  .tuple(
    limitScenarios,
    fc.integer({ min: 1, max: 8 }).map((n) => n / 2),
    fc.boolean(),
  )
  .map(([{ limitB, ...sc }, perSecondB, withConcurrency]) => ({
    ...sc,
    perSecondB,
    ...(withConcurrency && limitB ? { limitB } : {}),
  }));
