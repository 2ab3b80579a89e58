// Not part of `npm test`: `npm run test:stryker` runs it for the core slices (docs/mutation.md).
// The simulation as a mutant killer: every stored counterexample, then a few runs of each
// generator from fixed seeds (the full counts run in `npm test`; a surviving mutant runs
// every case that reaches it, so these stay short).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  childScenarios,
  featureScenarioArb,
  lateInsertScenarios,
  limitScenarios,
  mixedScannerScenarioArb,
  priorityScenarios,
  REGRESSIONS,
  rateLimitScenarios,
  runAtScenarioArb,
  runScenario,
  type Scenario,
  scenarioArb,
  scheduleScenarios,
  sweepScenarios,
} from '../src/simulation/index.js';

async function noViolation(sc: Scenario): Promise<void> {
  const { violations } = await runScenario(sc);
  if (violations.length > 0) throw new Error(violations.join('\n'));
}

describe('simulation under Stryker (memory backend, virtual time)', () => {
  for (const r of REGRESSIONS) it(`regression: ${r.name}`, () => noViolation(r.scenario));

  const generators: Array<[string, fc.Arbitrary<Scenario>, number]> = [
    ['scenarioArb', scenarioArb, 100],
    ['sweepScenarios', sweepScenarios, 30],
    ['featureScenarioArb', featureScenarioArb, 30],
    ['limitScenarios', limitScenarios, 20],
    ['runAtScenarioArb', runAtScenarioArb, 20],
    ['rateLimitScenarios', rateLimitScenarios, 20],
    ['scheduleScenarios', scheduleScenarios, 10],
    ['lateInsertScenarios', lateInsertScenarios, 10],
    ['childScenarios', childScenarios, 20],
    ['priorityScenarios', priorityScenarios, 10],
    ['mixedScannerScenarioArb', mixedScannerScenarioArb, 20],
  ];
  for (const [name, arb, numRuns] of generators) {
    it(`${numRuns} runs of ${name}`, async () => {
      const details = await fc.check(fc.asyncProperty(arb, noViolation), { numRuns, seed: 2_026 });
      expect(details.failed, String(details.errorInstance)).toBe(false);
    });
  }
});
