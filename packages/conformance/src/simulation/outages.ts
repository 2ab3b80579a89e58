import fc from 'fast-check';
import type { FaultDecision } from './faults.js';
import { type Scenario, scenarioArb } from './scenario.js';
import { scheduleScenarios } from './schedules.js';

/**
 * A run of `length` calls in a row (of any client), the first after `gap` untouched calls,
 * each delayed `delayMs` and then failed before it applies or applied with its reply lost.
 */
const outageArb = fc
  .record({
    gap: fc.integer({ min: 0, max: 150 }),
    length: fc.integer({ min: 3, max: 10 }),
    delayMs: fc.integer({ min: 0, max: 30 }),
    fault: fc.constantFrom('fail' as const, 'lose' as const),
  })
  .map(({ gap, length, delayMs, fault }): FaultDecision[] =>
    Array.from({ length }, (_, i) => ({ gap: i === 0 ? gap : 0, delayMs, fault })),
  );

/**
 * Short outages of the store (issue 21): the worlds of `scenarioArb` and
 * `scheduleScenarios`, with their fault plan replaced by 1–4 runs of consecutive failed or
 * lost calls, long enough that the guard's three repeats (20, 100, 400 ms) of one call can
 * all fail. Single faults, which the other generators draw, are hidden by those repeats; an
 * outcome the guard cannot learn ("unknown", `STORE_UNAVAILABLE`) comes only from runs like
 * these. It found a held record a schedule tick kept reserved after such a write
 * (REGRESSIONS.md).
 */
export const outageScenarios: fc.Arbitrary<Scenario> = fc
  .tuple(
    fc.oneof(scenarioArb, scheduleScenarios),
    fc.array(outageArb, { minLength: 1, maxLength: 4 }),
  )
  .map(([sc, outages]): Scenario => ({ ...sc, faults: outages.flat() }));
