import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultyBackend } from '../faults/faulty-backend.js';
import type { ConformanceTarget } from '../fixture.js';
import { CHILD_RECHECK_MS, childrenWithin } from './children.js';
import { runScenario } from './runner.js';
import { type Scenario, scenarios } from './scenario.js';
import { schedulesWithin } from './schedules.js';

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
  options: { seeds?: number; workflowSeeds?: number } = {},
): void {
  const seeds = Number(process.env.FATE_SIM_REAL_SEEDS ?? options.seeds ?? 3);
  const workflowSeeds = Number(
    process.env.FATE_SIM_REAL_WORKFLOW_SEEDS ?? options.workflowSeeds ?? 1,
  );
  describe(`${target.name}: the simulation in real time`, () => {
    it(`${seeds} seeded runs end with no violation`, async () => {
      // every scenario seeds: a run of nothing proves nothing (about 28% of generated ones
      // seed nothing, so two runs seeded nothing at all one time in 13, and failed below)
      const arb = scenarios({
        scenarioMs: REAL_SCENARIO_MS,
        maxCommands: 6,
        maxEngines: 2,
        features: true,
      }).filter((sc) => sc.commands.some((c) => c.kind === 'seed'));
      const calls = await runReal(target, arb, seeds, 30_000);
      // the runs did run steps (a seed's transactions may all be cancelled first; not all runs')
      expect(calls).toBeGreaterThan(0);
    }, 180_000);

    it(`${workflowSeeds} seeded runs of a schedule, and ${workflowSeeds} of child transactions, end with no violation`, async () => {
      // a dropped wake is excused only after a fault: the parent's re-check (30 s) then ends it
      const quietMs = CHILD_RECHECK_MS + 15_000;
      const calls =
        (await runReal(target, schedulesWithin(REAL_SCENARIO_MS), workflowSeeds, quietMs)) +
        (await runReal(target, childrenWithin(REAL_SCENARIO_MS), workflowSeeds, quietMs));
      expect(calls).toBeGreaterThan(0);
    }, 240_000);
  });
}

/** `n` scenarios of `arb`, each on a fresh fixture in real time; how many calls began. */
async function runReal(
  target: ConformanceTarget,
  arb: fc.Arbitrary<Scenario>,
  n: number,
  quietMaxMs: number,
): Promise<number> {
  const seed = Date.now() % 2 ** 31;
  let calls = 0;
  for (const sc of fc.sample(arb, { numRuns: n, seed })) {
    const fixture = await target.factory();
    try {
      const { violations, history } = await runScenario(sc, {
        backend: () => new FaultyBackend(fixture.backend()),
        virtual: false,
        atomic: false,
        scenarioMs: REAL_SCENARIO_MS,
        quietMaxMs,
      });
      calls += history.events.filter((e) => e.e === 'call' && !e.end).length;
      expect(violations, `scenario (fast-check seed ${seed}): ${JSON.stringify(sc)}`).toEqual([]);
    } finally {
      await fixture.destroy();
    }
  }
  return calls;
}
