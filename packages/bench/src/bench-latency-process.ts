import { randomBytes } from 'node:crypto';
import { type FatesStore, openStore } from '@fate/core';
import type { BenchBackend } from './bench-backends.js';
import type { BenchConfig } from './bench-config.js';
import { sampleLatency } from './bench-latency.js';
import { Moments } from './bench-moments.js';
import { WorkerProcesses } from './bench-processes.js';
import type { LatencyRow } from './bench-results.js';
import { wallNow } from './bench-stats.js';
import { noopStepData } from './bench-steps.js';

/**
 * Seed-to-start latency from another process: one idle engine process (4 workers, default
 * settings) and a store client in this process seeding one no-op transaction at a time.
 * Both ends are stamped with `wallNow()` (wall clock plus monotonic, sub-millisecond), so
 * the IPC message that carries the child's stamp adds nothing.
 */
export async function benchProcessLatency(
  backend: BenchBackend,
  config: BenchConfig,
): Promise<LatencyRow[]> {
  if (!backend.multiProcess) return [];
  const ns = await backend.namespace();
  const starts = new Moments();
  const processes = new WorkerProcesses(ns.url, (m) => {
    if (m.kind === 'step') starts.record(m.id, m.at);
  });
  let producer: FatesStore | undefined;
  try {
    await processes.start(`latency-${randomBytes(3).toString('hex')}`);
    const store = await openStore(ns.url);
    producer = store;
    const seed = () => store.seed({ step: noopStepData(1), opName: 'bench-latency' });
    const figures = await sampleLatency(config, 'other-process', seed, starts, wallNow);
    return [{ backend: backend.name, seededBy: 'other-process', ...figures }];
  } finally {
    await processes.stop();
    await producer?.close();
    await ns.destroy();
  }
}
