import { type FatesStore, openStore } from '@fate/core';
import type { BenchConfig } from '../config.js';
import { countSucceeded } from '../processes/engines.js';
import { BenchProcesses } from '../processes/processes.js';
import { noopStepData } from '../processes/steps.js';
import { type BacklogRow, type BacklogRun, progress } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { timeDrain } from './drain.js';
import { median } from './stats.js';

/** Seeds per `seedMany` call. */
const SEED_CHUNK = 1_000;

/** The transactions of a backlog run on this backend. */
export const backlogTxs = (backend: BenchBackend, config: BenchConfig): number =>
  backend.name === 'zk' ? config.backlogZkTxs : config.backlogTxs;

/**
 * Draining a backlog: `backlogTxs` one-step no-op transactions are seeded first (untimed,
 * `seedMany`), then P engine processes × W workers start together and the clock runs until
 * the last transaction finishes. A fresh store and fresh processes each run; median of
 * `backlogRepeats`. CPU per transaction: the processes' own `process.cpuUsage()`
 * from `go` to the end, and the server's (`BenchBackend.serverCpuSeconds`) over the same span.
 */
export async function benchBacklog(
  backend: BenchBackend,
  config: BenchConfig,
): Promise<BacklogRow[]> {
  if (!backend.multiProcess) return [];
  const txs = backlogTxs(backend, config);
  const rows: BacklogRow[] = [];
  for (const { processes, workers } of config.backlogLayouts) {
    const runs: BacklogRun[] = [];
    for (let i = 0; i < config.backlogRepeats; i++) {
      const run = await drainOnce(backend, processes, workers, txs);
      runs.push(run);
      const server =
        run.serverCpuUsPerTx === undefined ? '' : ` + ${run.serverCpuUsPerTx.toFixed(0)} server`;
      progress(
        `  backlog ${processes} × ${workers}, run ${i + 1}: ${run.txPerSec.toFixed(0)} tx/s, ` +
          `CPU ${run.processCpuUsPerTx.toFixed(0)} µs/tx processes${server}`,
      );
    }
    const server = runs.map((r) => r.serverCpuUsPerTx).filter((v) => v !== undefined);
    rows.push({
      backend: backend.name,
      processes,
      workers,
      txs,
      txPerSec: median(runs.map((r) => r.txPerSec)),
      processCpuUsPerTx: median(runs.map((r) => r.processCpuUsPerTx)),
      ...(server.length > 0 ? { serverCpuUsPerTx: median(server) } : {}),
      runs,
    });
  }
  return rows;
}

async function drainOnce(
  backend: BenchBackend,
  count: number,
  workers: number,
  txs: number,
): Promise<BacklogRun> {
  const ns = await backend.namespace();
  const processes = new BenchProcesses(ns.url);
  let store: FatesStore | undefined;
  try {
    store = await openStore(ns.url);
    const step = noopStepData(1);
    for (let i = 0; i < txs; i += SEED_CHUNK) {
      const n = Math.min(SEED_CHUNK, txs - i);
      await store.seedMany(Array.from({ length: n }, () => ({ step, opName: 'bench-backlog' })));
    }
    const run = await timeDrain(processes, count, workers, txs, backend.serverCpuSeconds);
    const succeeded = await countSucceeded(store);
    if (succeeded !== txs) throw new Error(`${succeeded} of ${txs} transactions succeeded`);
    return run;
  } finally {
    await processes.stop();
    await store?.close();
    await ns.destroy();
  }
}
