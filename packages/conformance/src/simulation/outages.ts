import fc from 'fast-check';
import { childScenarios } from './children.js';
import type { FaultDecision } from './faults.js';
import { ageOffScenarios, sweepScenarios } from './focused.js';
import { limitScenarios, rateLimitScenarios } from './limits.js';
import { priorityScenarios } from './priorities.js';
import { featureScenarioArb, runAtScenarioArb, type Scenario, scenarioArb } from './scenario.js';
import { lateInsertScenarios, scheduleScenarios } from './schedules.js';

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
 * `arb`'s scenarios with their fault plan replaced by 1–4 outages (`outageArb`), the first
 * after at least `firstGap` untouched calls.
 */
function withOutages(arb: fc.Arbitrary<Scenario>, firstGap = 0): fc.Arbitrary<Scenario> {
  return fc
    .tuple(arb, fc.array(outageArb, { minLength: 1, maxLength: 4 }))
    .map(([sc, outages]): Scenario => {
      const faults = outages.flat();
      const [first, ...rest] = faults;
      return {
        ...sc,
        faults: first ? [{ ...first, gap: Math.max(first.gap, firstGap) }, ...rest] : faults,
      };
    });
}

/**
 * Short outages of the store (issue 21): the worlds of `scenarioArb` and
 * `scheduleScenarios`, with their fault plan replaced by 1–4 runs of consecutive failed or
 * lost calls, long enough that the guard's three repeats (20, 100, 400 ms) of one call can
 * all fail. Single faults, which the other generators draw, are hidden by those repeats; an
 * outcome the guard cannot learn ("unknown", `STORE_UNAVAILABLE`) comes only from runs like
 * these. It found a held record a schedule tick kept reserved after such a write
 * (REGRESSIONS.md).
 */
export const outageScenarios: fc.Arbitrary<Scenario> = withOutages(
  fc.oneof(scenarioArb, scheduleScenarios),
);

/**
 * The same outages in the worlds of the workflow features: child transactions, cluster-wide
 * concurrency and rate limits, retries, timeouts and deferred seeds (`delayMs`, `runAt`),
 * the sweep of strays, age-off and a schedule holder's late insert. The priority scenarios
 * have their own (`priorityOutageScenarios`, below).
 */
export const featureOutageScenarios: fc.Arbitrary<Scenario> = withOutages(
  fc.oneof(
    childScenarios,
    limitScenarios,
    rateLimitScenarios,
    featureScenarioArb,
    runAtScenarioArb,
    sweepScenarios,
    ageOffScenarios,
    lateInsertScenarios,
  ),
);

/**
 * The same outages under a steady higher-priority load: check (7), a low transaction is not
 * started after the last higher one, must hold across them too — an id handed out and then
 * not run (its reservation failed, or the engine's lease lapsed before a worker took it) is
 * offered again first, not left to the next sweep. The first outage comes after the engine
 * registered (its first calls): an engine that fails to start is started again only once
 * the world is quiet, after the whole load, when a low transaction behind more than a page
 * of higher ones rightly runs last and check (7) does not apply.
 */
export const priorityOutageScenarios: fc.Arbitrary<Scenario> = withOutages(priorityScenarios, 8);
