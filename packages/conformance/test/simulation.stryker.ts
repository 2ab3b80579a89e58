// Not part of `npm test`: `npm run test:stryker` runs it for the core slices (docs/mutation.md).
// The simulation as a mutant killer: every stored counterexample, then a few runs of each
// generator from fixed seeds (the full counts run in `npm test`; a surviving mutant runs
// every case that reaches it, so these stay short).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GENERATORS,
  type GeneratorName,
  REGRESSIONS,
  runScenario,
  type Scenario,
} from '../src/simulation/index.js';

async function noViolation(sc: Scenario): Promise<void> {
  const { violations } = await runScenario(sc);
  if (violations.length > 0) throw new Error(violations.join('\n'));
}

describe('simulation under Stryker (memory backend, virtual time)', () => {
  for (const r of REGRESSIONS) it(`regression: ${r.name}`, () => noViolation(r.scenario));

  // runs of each generator: a surviving mutant runs every case that reaches it
  const runs: Record<GeneratorName, number> = {
    scenarioArb: 100,
    sweepScenarios: 30,
    featureScenarioArb: 30,
    limitScenarios: 20,
    runAtScenarioArb: 20,
    rateLimitScenarios: 20,
    scheduleScenarios: 10,
    lateInsertScenarios: 10,
    childScenarios: 20,
    priorityScenarios: 10,
    mixedScannerScenarioArb: 20,
    outageScenarios: 20,
    featureOutageScenarios: 20,
    priorityOutageScenarios: 10,
    batchScenarios: 20,
  };
  for (const [name, numRuns] of Object.entries(runs) as Array<[GeneratorName, number]>) {
    it(`${numRuns} runs of ${name}`, async () => {
      const arb: fc.Arbitrary<Scenario> = GENERATORS[name];
      const details = await fc.check(fc.asyncProperty(arb, noViolation), { numRuns, seed: 2_026 });
      expect(details.failed, String(details.errorInstance)).toBe(false);
    });
  }
});
