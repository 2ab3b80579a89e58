import { eventually } from '@fate/conformance/harness';
import { type FateEvents, type FateId, openStore, type PoolOptions } from '@fate/core';
import type { BenchConfig } from '../config.js';
import { startEngines } from '../processes/engines.js';
import { NoopStep, SleepStep, sleepStepData } from '../processes/steps.js';
import { type PoolsRow, progress } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { Moments } from './moments.js';
import { percentile, sleep } from './stats.js';

/** How long each slow step takes, ms. */
export const SLOW_STEP_MS = 500;
/** Pause between fast seeds, ms: a random value in this range. */
const SPACING_MS = [20, 40] as const;

const POOLS: readonly PoolOptions[] = [
  { name: 'slow', ops: ['slow'], workers: 2 },
  { name: 'fast', workers: 8 },
];
export const POOL_LAYOUTS: ReadonlyArray<{
  readonly name: string;
  readonly workers: number | readonly PoolOptions[];
}> = [
  { name: 'pools slow 2 + fast 8', workers: POOLS },
  { name: 'one pool of 10', workers: 10 },
];

/**
 * Fast-op latency with and without a backlog of slow work, per worker layout: one engine
 * (in this process); `poolsSlow` transactions of op `slow` (one 500 ms step) seeded first,
 * or none; then `poolsFast` no-op transactions of op `fast` seeded through `fate.seed`,
 * one every 20–40 ms whether or not the earlier ones finished (open loop), each timed from
 * just before its seed to its 'finished' event.
 */
export async function benchPools(backend: BenchBackend, config: BenchConfig): Promise<PoolsRow[]> {
  const rows: PoolsRow[] = [];
  for (const layout of POOL_LAYOUTS) {
    for (const slow of [0, config.poolsSlow]) {
      const row = await sampleFast(backend, config, layout, slow);
      rows.push(row);
      progress(
        `  pools, ${layout.name}, ${slow} slow queued: fast p50 ${row.p50Ms.toFixed(1)} ms, ` +
          `p99 ${row.p99Ms.toFixed(1)} ms, max ${row.maxMs.toFixed(1)} ms`,
      );
    }
  }
  return rows;
}

async function sampleFast(
  backend: BenchBackend,
  config: BenchConfig,
  layout: (typeof POOL_LAYOUTS)[number],
  slow: number,
): Promise<PoolsRow> {
  const ns = await backend.namespace();
  const finishes = new Moments();
  let slowStarted = 0;
  const env = {
    onCall: (_: FateId, type: string) => void (type === SleepStep.type && slowStarted++),
  };
  const onEvent = <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => {
    if (type === 'finished')
      finishes.record((event as FateEvents['finished']).id, performance.now());
  };
  const engines = await startEngines(ns.url, 1, layout.workers, env, onEvent);
  const producer = await openStore(ns.url);
  try {
    const fate = engines.fates[0];
    if (!fate) throw new Error('no engine');
    if (slow > 0) {
      const step = sleepStepData(1, SLOW_STEP_MS);
      await producer.seedMany(Array.from({ length: slow }, () => ({ step, opName: 'slow' })));
      await eventually('the slow backlog to start', async () => slowStarted >= 2, 10_000);
    }
    const samples: Promise<number>[] = [];
    for (let i = 0; i < config.poolsFast; i++) {
      await sleep(SPACING_MS[0] + Math.random() * (SPACING_MS[1] - SPACING_MS[0]));
      const before = performance.now();
      const { id } = await fate.seed(new NoopStep(1), { opName: 'fast' });
      const sample = finishes.of(id, 120_000).then((at) => at - before);
      sample.catch(() => undefined); // awaited below; a timeout must not go unhandled first
      samples.push(sample);
    }
    const ms = await Promise.all(samples);
    return {
      backend: backend.name,
      layout: layout.name,
      slowBacklog: slow,
      samples: ms.length,
      p50Ms: percentile(ms, 50),
      p99Ms: percentile(ms, 99),
      maxMs: Math.max(...ms),
    };
  } finally {
    await engines.stop();
    await producer.close();
    await ns.destroy();
  }
}
