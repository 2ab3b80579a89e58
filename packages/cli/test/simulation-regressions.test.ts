import { memoryTarget, REGRESSIONS, runScenario, scenarioArb } from '@fate/conformance/simulation';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cliAdmin } from './cli-admin.js';

// Each counterexample the simulation found (REGRESSIONS.md), replayed exactly: it violated
// an invariant on the code before its fix and must not now.
describe('simulation regressions', () => {
  for (const r of REGRESSIONS) {
    it(`${r.name}: no violation`, async () => {
      const { violations } = await runScenario(r.scenario, { ...memoryTarget, admin: cliAdmin });
      expect(violations).toEqual([]);
    });

    if (r.seed === undefined || r.path === undefined) continue;
    const { seed, path } = r;
    it(`${r.name}: its replay command (seed ${seed} and path) names that scenario`, async () => {
      // fails exactly on the stored scenario, as the run that found it failed on it
      const stored = JSON.stringify(r.scenario);
      const details = await fc.check(
        fc.asyncProperty(scenarioArb, async (sc) => JSON.stringify(sc) !== stored),
        { seed, path, numRuns: 1 },
      );
      expect(details.failed).toBe(true);
      expect(details.counterexamplePath).toBe(path);
    });
  }
});
