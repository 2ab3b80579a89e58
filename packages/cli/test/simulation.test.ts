import {
  featureScenarioArb,
  limitScenarios,
  memoryTarget,
  runScenario,
  type Scenario,
  scenarioArb,
  sweepScenarios,
} from '@fate/conformance/simulation';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cliAdmin } from './cli-admin.js';

// `npm run test:sim`: FATE_SIM_SEEDS runs (default 2,000) of the simulation on the memory
// backend, in virtual time, with the CLI's own admin functions. A failing run prints the one
// command that replays its shrunk counterexample (FATE_SIM_SEED and FATE_SIM_PATH).
const runs = Number(process.env.FATE_SIM_SEEDS ?? 2_000);
const seed =
  process.env.FATE_SIM_SEED === undefined ? undefined : Number(process.env.FATE_SIM_SEED);
const path = process.env.FATE_SIM_PATH;
const focused = Number(process.env.FATE_SIM_FOCUSED ?? 300);
const features = Number(process.env.FATE_SIM_FEATURES ?? 300);
const target = { ...memoryTarget, admin: cliAdmin };

async function noViolation(sc: Scenario): Promise<void> {
  const { violations } = await runScenario(sc, target);
  if (violations.length > 0) throw new Error(violations.join('\n'));
}

describe('simulation (memory backend, virtual time)', () => {
  it(`finds no violation in ${seed === undefined ? `${runs} seeded runs` : 'the replayed run'}`, async () => {
    const started = Date.now();
    const details = await fc.check(fc.asyncProperty(scenarioArb, noViolation), {
      numRuns: seed === undefined ? runs : 1,
      ...(seed !== undefined ? { seed } : {}),
      ...(path ? { path } : {}),
    });
    console.log(
      `simulation: ${details.numRuns} runs, ${details.failed ? 'a violation' : '0 violations'}, ${Date.now() - started} ms (seed ${details.seed})`,
    );
    if (details.failed) {
      const replay = `FATE_SIM_SEED=${details.seed} FATE_SIM_PATH=${details.counterexamplePath} npm run test:sim`;
      console.log(`counterexample: ${JSON.stringify(details.counterexample?.[0])}`);
      expect.fail(`${(details.errorInstance as Error)?.message}\nreplay: ${replay}`);
    }
  }, 900_000);

  it(`finds no violation in ${focused} runs aimed at the sweep of strays`, async () => {
    const details = await fc.check(fc.asyncProperty(sweepScenarios, noViolation), {
      numRuns: focused,
    });
    if (details.failed) {
      expect.fail(
        `${(details.errorInstance as Error)?.message}\nscenario: ${JSON.stringify(details.counterexample?.[0])} (sweepScenarios seed ${details.seed})`,
      );
    }
  }, 300_000);

  it(`finds no violation in ${features} runs with retries, timeouts and deferred seeds`, async () => {
    const details = await fc.check(fc.asyncProperty(featureScenarioArb, noViolation), {
      numRuns: features,
    });
    if (details.failed) {
      expect.fail(
        `${(details.errorInstance as Error)?.message}\nscenario: ${JSON.stringify(details.counterexample?.[0])} (featureScenarioArb seed ${details.seed})`,
      );
    }
  }, 600_000);

  it(`finds no violation in ${focused} runs of cluster-wide limits under faults`, async () => {
    const details = await fc.check(fc.asyncProperty(limitScenarios, noViolation), {
      numRuns: focused,
    });
    if (details.failed) {
      expect.fail(
        `${(details.errorInstance as Error)?.message}\nscenario: ${JSON.stringify(details.counterexample?.[0])} (limitScenarios seed ${details.seed})`,
      );
    }
  }, 300_000);

  it.each([
    ['', scenarioArb],
    [' with retries, timeouts and deferred seeds', featureScenarioArb],
  ])('runs a seed%s the same way twice (same history, event for event)', async (_, arb) => {
    const [sc] = fc.sample(arb, { numRuns: 1, seed: 2_026 }) as [Scenario];
    const a = await runScenario(sc, target);
    const b = await runScenario(sc, target);
    expect(a.history.events.length).toBeGreaterThan(10);
    expect(JSON.stringify(b.history.events)).toBe(JSON.stringify(a.history.events));
  });
});
