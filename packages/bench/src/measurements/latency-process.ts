import { randomBytes } from 'node:crypto';
import { type FatesStore, openStore } from '@fate/core';
import type { BenchConfig } from '../config.js';
import { BenchProcesses } from '../processes/processes.js';
import { noopStepData } from '../processes/steps.js';
import type { LatencyRow } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { sampleLatency } from './latency.js';
import { Moments } from './moments.js';
import { wallNow } from './stats.js';

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
  const processes = new BenchProcesses(ns.url, (m) => {
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
