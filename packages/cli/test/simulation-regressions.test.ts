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
    it(`${r.name}: its replay command (seed ${seed} and path) names that scenario`, () => {
      let replayed: unknown;
      fc.check(
        fc.property(scenarioArb, (sc) => {
          replayed = sc;
        }),
        { seed, path, numRuns: 1 },
      );
      expect(JSON.parse(JSON.stringify(replayed))).toEqual(r.scenario);
    });
  }
});
