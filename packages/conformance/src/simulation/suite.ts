import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultyBackend } from '../faults/faulty-backend.js';
import type { ConformanceTarget } from '../fixture.js';
import { runScenario } from './runner.js';
import { scenarios } from './scenario.js';

/** How long the real-time scenarios run before their quiet end, ms. */
const REAL_SCENARIO_MS = 3_000;

/**
 * The simulation on a real store, in real time: `seeds` short scenarios (3 s of commands,
 * at most 6, two engines; default 3, `FATE_SIM_REAL_SEEDS` overrides), each on a fresh
 * fixture, every client's backend wrapped in `FaultyBackend` and then the simulation's own
 * `SimBackend`, which injects the fault plan. Real time and real randomness: a failing run
 * prints its scenario (and the seed that generated it) rather than a replay command.
 * Deletes are recorded but not judged at the instant (a real store's read and delete are two
 * calls); the other invariants are the memory run's.
 */
export function runSimulationSuite(
  target: ConformanceTarget,
  options: { seeds?: number } = {},
): void {
  const seeds = Number(process.env.FATE_SIM_REAL_SEEDS ?? options.seeds ?? 3);
  describe(`${target.name}: the simulation in real time`, () => {
    it(`${seeds} seeded runs end with no violation`, async () => {
      const seed = Date.now() % 2 ** 31;
      // the first scenario always seeds: a run of nothing proves nothing
      const samples = fc.sample(
        scenarios({ scenarioMs: REAL_SCENARIO_MS, maxCommands: 6, maxEngines: 2, features: true }),
        {
          numRuns: seeds,
          seed,
        },
      );
      let calls = 0;
      for (const sc of samples) {
        const fixture = await target.factory();
        try {
          const { violations, history } = await runScenario(sc, {
            backend: () => new FaultyBackend(fixture.backend()),
            virtual: false,
            atomic: false,
            scenarioMs: REAL_SCENARIO_MS,
            quietMaxMs: 30_000,
          });
          calls += history.events.filter((e) => e.e === 'call' && !e.end).length;
          expect(violations, `scenario (fast-check seed ${seed}): ${JSON.stringify(sc)}`).toEqual(
            [],
          );
        } finally {
          await fixture.destroy();
        }
      }
      // the runs did run steps (a scenario may seed nothing; all of them seeding nothing is a bug)
      expect(calls).toBeGreaterThan(0);
    }, 180_000);
  });
}
