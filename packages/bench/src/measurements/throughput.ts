import { type FateEvents, openStore, Status } from '@fate/core';
import type { BenchConfig } from '../config.js';
import { ENGINE_MODE, startEngines } from '../processes/engines.js';
import { noopStepData } from '../processes/steps.js';
import { progress, type ThroughputRow } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { commandsBetween } from '../services/cluster.js';
import { inParallel, withTimeout } from './stats.js';

const STEPS = [1, 5] as const;
const INSTANCES = [1, 3] as const;
/** Seeds in flight from the producer. */
const SEEDERS = 16;

export const THROUGHPUT_MODE = `${ENGINE_MODE}; seeded by a separate client, ${SEEDERS} seeds in flight`;

/**
 * Transactions per second, seed to completion: engines run and idle, then a separate
 * producer client seeds `throughputTxs` no-op transactions while they work; the clock runs
 * from the first seed to the last 'finished' event (counted from events, not by polling).
 */
export async function benchThroughput(
  backend: BenchBackend,
  config: BenchConfig,
): Promise<ThroughputRow[]> {
  // Untimed: the first run pays for JIT, connections and script loading; no row should.
  await runOne(
    backend,
    { ...config, throughputTxs: Math.max(50, Math.round(config.throughputTxs / 10)) },
    1,
    1,
  );
  const rows: ThroughputRow[] = [];
  // A sharded backend runs as many instances as shards: does the load spread?
  const layouts =
    backend.sharding?.shards.map((s) => ({ instances: s, shards: s })) ??
    INSTANCES.map((instances) => ({ instances, shards: undefined }));
  for (const steps of STEPS) {
    for (const { instances, shards } of layouts) {
      const before = await backend.sharding?.commandCounts();
      const row = await runOne(backend, config, steps, instances, shards);
      const after = await backend.sharding?.commandCounts();
      const spread = before && after ? { commandsPerNode: commandsBetween(before, after) } : {};
      rows.push({ ...row, ...spread });
      progress(
        `  throughput ${steps} step(s), ${instances} instance(s) × ${row.workers} workers` +
          `${shards ? ` on ${shards} shard(s)` : ''}: ${row.txPerSec.toFixed(0)} tx/s ` +
          `(${row.txs} in ${row.seconds.toFixed(2)} s)` +
          (spread.commandsPerNode
            ? `; commands per node ${JSON.stringify(spread.commandsPerNode)}`
            : ''),
      );
    }
  }
  return rows;
}

async function runOne(
  backend: BenchBackend,
  config: BenchConfig,
  steps: number,
  instances: number,
  shards?: number,
): Promise<ThroughputRow> {
  const total = config.throughputTxs;
  const ns = await backend.namespace(shards ? { shards } : undefined);
  const finished = new Set<string>();
  let failed = 0;
  let calls = 0;
  let lastAt = 0;
  let allDone: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    allDone = r;
  });
  const onEvent = <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => {
    if (type !== 'finished') return;
    const f = event as FateEvents['finished'];
    if (f.status !== Status.SUCCESSFUL) failed++;
    finished.add(f.id);
    lastAt = performance.now();
    if (finished.size === total) allDone();
  };
  const env = { onCall: () => void calls++ };
  const engines = await startEngines(ns.url, instances, config.throughputWorkers, env, onEvent);
  const producer = await openStore(ns.url);
  try {
    const step = noopStepData(steps);
    const started = performance.now();
    await inParallel(total, SEEDERS, async () => {
      await producer.seed({ step, opName: 'bench-throughput' });
    });
    await withTimeout(done, 120_000, `all ${total} transactions finishing`).catch((error) => {
      throw new Error(`${(error as Error).message} (${finished.size} did)`);
    });
    if (failed > 0) throw new Error(`${failed} of ${total} no-op transactions did not succeed`);
    // Every step ran at least once: a figure from transactions that skipped work would lie.
    if (calls < total * steps) throw new Error(`only ${calls} of ${total * steps} steps ran`);
    const seconds = (lastAt - started) / 1_000;
    return {
      backend: backend.name,
      steps,
      instances,
      ...(shards ? { shards } : {}),
      workers: config.throughputWorkers,
      txs: total,
      txPerSec: total / seconds,
      seconds,
      mode: THROUGHPUT_MODE,
    };
  } finally {
    await engines.stop();
    await producer.close();
    await ns.destroy();
  }
}
