import { runScenario, scenarioArb } from '@fate/conformance/simulation';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { cliAdmin } from './cli-admin.js';

const runs = Number(process.env.FATE_SIM_SEEDS ?? 2_000);
const seed = process.env.FATE_SIM_SEED === undefined ? undefined : Number(process.env.FATE_SIM_SEED);
const path = process.env.FATE_SIM_PATH;

it(`the simulation finds no violation in ${seed === undefined ? runs : 'the replayed'} run(s)`, async () => {
  const started = Date.now();
  const target = { backend: undefined as never, admin: cliAdmin };
  const details = await fc.check(
    fc.asyncProperty(scenarioArb, async (sc) => {
      const result = await runScenario(sc, { ...(await import('@fate/conformance/simulation')).memoryTarget, admin: target.admin });
      if (result.violations.length > 0) throw new Error(result.violations.join('\n'));
    }),
    { numRuns: seed === undefined ? runs : 1, ...(seed !== undefined ? { seed } : {}), ...(path ? { path } : {}) },
  );
  console.log(`simulation: ${details.numRuns} runs in ${Date.now() - started} ms (seed ${details.seed})`);
  if (details.failed) {
    const replay = `FATE_SIM_SEED=${details.seed} FATE_SIM_PATH=${details.counterexamplePath} npm run test:sim`;
    console.log(`counterexample: ${JSON.stringify(details.counterexample)}\n${String(details.errorInstance)}\nreplay: ${replay}`);
    expect.fail(`violation (replay: ${replay}):\n${String((details.errorInstance as Error)?.message)}`);
  }
}, 600_000);
