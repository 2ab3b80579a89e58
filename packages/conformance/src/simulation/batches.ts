import fc from 'fast-check';
import { featureOutageScenarios, outageScenarios } from './outages.js';
import { featureScenarioArb, type Scenario, scenarioArb } from './scenario.js';

/** Step times rounded to this, so that workers finish, and write, at the same instants. */
const QUANTUM_MS = 250;
const quantized = (ms: number) => Math.round(ms / QUANTUM_MS) * QUANTUM_MS;

/**
 * The worlds of `scenarioArb` and `featureScenarioArb` (single faults) and of the outage
 * generators (runs of failed or lost calls), with the finishing writes and reservations of
 * one client and instant sharing their fault (`batches`): as PostgreSQL and Redis send the
 * calls of one tick as one statement or script (core's `TickBatch`), a fault there fails, loses or
 * delays every call of the batch at once, and each caller must resolve its own. So that
 * batches form, every engine has 4 more workers and step times are whole quarter seconds;
 * the fault plan aims at the batched calls alone (`SimCalls`), its gaps a tenth as long.
 */
export const batchScenarios: fc.Arbitrary<Scenario> = fc
  .oneof(scenarioArb, featureScenarioArb, outageScenarios, featureOutageScenarios)
  .map(
    (sc): Scenario => ({
      ...sc,
      batches: true,
      // gaps counted in batched calls only: a tenth as many, so that the faults land
      faults: sc.faults.map((f) => ({ ...f, gap: Math.floor(f.gap / 10) })),
      engines: sc.engines.map((e) => ({ ...e, workers: e.workers + 4 })),
      commands: sc.commands.map((c) =>
        c.kind === 'seed'
          ? {
              ...c,
              txs: c.txs.map((tx) => ({
                ...tx,
                steps: tx.steps.map((s) => ({
                  ...s,
                  readyMs: quantized(s.readyMs),
                  callMs: quantized(s.callMs),
                  undoMs: quantized(s.undoMs),
                })),
              })),
            }
          : c,
      ),
    }),
  );
