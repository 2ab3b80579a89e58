import fc from 'fast-check';
import { slowCallsArb } from './faulty-world.js';
import type { Scenario } from './scenario.js';
import { plainStep } from './steps.js';

/**
 * Generators aimed at one rare interleaving each, for faults `scenarioArb` reaches too seldom
 * to be found in a few thousand runs. Each found its fault (REGRESSIONS.md) where
 * `scenarioArb` had not in 6,000 runs.
 */
/**
 * The sweep of strays (fault 1): 2–3 range engines, one paused long enough to be judged a
 * stray, transactions seeded after it is back, and a few slow calls anywhere (one of them,
 * sometimes, a sweeper's listing).
 */
export const sweepScenarios: fc.Arbitrary<Scenario> = fc
  .record({
    pauseMs: fc.integer({ min: 1_500, max: 4_000 }),
    at: fc.integer({ min: 200, max: 1_000 }),
    after: fc.integer({ min: 0, max: 1_500 }),
    callMs: fc.integer({ min: 500, max: 3_000 }),
    txs: fc.integer({ min: 1, max: 4 }),
    engines: fc.integer({ min: 2, max: 3 }),
    paused: fc.integer({ min: 0, max: 2 }),
    faults: slowCallsArb({ maxGap: 60, minDelayMs: 50, maxDelayMs: 2_000, maxLength: 4 }),
  })
  .map((g) => ({
    salt: 0,
    livenessTimeoutMs: 1_000,
    retentionMs: 60_000,
    ageOffCheckMs: 10_000,
    engines: Array.from({ length: g.engines }, () => ({
      layout: 'one' as const,
      workers: 2,
      scanner: 'range' as const,
    })),
    commands: [
      { at: g.at, kind: 'pause' as const, engine: g.paused, ms: g.pauseMs },
      {
        at: g.at + g.pauseMs + g.after,
        kind: 'seed' as const,
        many: true,
        txs: Array.from({ length: g.txs }, () => ({
          op: 'a' as const,
          autoClean: false,
          steps: [plainStep(g.callMs), plainStep(g.callMs)],
        })),
      },
    ],
    faults: g.faults,
  }));

/**
 * Age-off against a re-seeded key (fault 3): a keyed transaction finishes, an admin age-off
 * reads it, an admin delete and the engines' pauses follow, the key is seeded again, and one
 * call anywhere is slow (sometimes the age-off's reservation).
 */
export const ageOffScenarios: fc.Arbitrary<Scenario> = fc
  .record({
    t1: fc.integer({ min: 100, max: 2_000 }),
    d2: fc.integer({ min: 0, max: 1_000 }),
    d3: fc.integer({ min: 0, max: 1_000 }),
    gap: fc.integer({ min: 0, max: 300 }),
    delayMs: fc.integer({ min: 50, max: 2_500 }),
    engines: fc.integer({ min: 1, max: 2 }),
  })
  .map((g) => {
    const seed = (at: number) => ({
      at,
      kind: 'seed' as const,
      many: false,
      txs: [{ key: 'k0', op: 'a' as const, autoClean: false, steps: [plainStep(10)] }],
    });
    return {
      salt: 0,
      livenessTimeoutMs: 1_000,
      retentionMs: 60_000,
      ageOffCheckMs: 10_000,
      engines: Array.from({ length: g.engines }, () => ({
        layout: 'one' as const,
        workers: 1,
        scanner: 'range' as const,
      })),
      commands: [
        seed(0),
        { at: g.t1, kind: 'ageOff' as const, retentionMs: 0 },
        { at: g.t1 + g.d2, kind: 'admin' as const, op: 'delete' as const, target: 0 },
        { at: g.t1 + g.d2, kind: 'pause' as const, engine: 0, ms: 3_000 },
        { at: g.t1 + g.d2, kind: 'pause' as const, engine: 1, ms: 3_000 },
        seed(g.t1 + g.d2 + g.d3),
      ],
      faults: [{ gap: g.gap, delayMs: g.delayMs, fault: 'none' as const }],
    };
  });
