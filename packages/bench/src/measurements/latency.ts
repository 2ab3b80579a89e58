import { type FateId, openStore } from '@fate/core';
import type { BenchConfig } from '../config.js';
import { startEngines } from '../processes/engines.js';
import { NoopStep, noopStepData } from '../processes/steps.js';
import { type LatencyFigures, type LatencyRow, progress } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { Moments } from './moments.js';
import { percentile, sleep } from './stats.js';

/**
 * Seed-to-start latency on an idle engine (one instance, default finder backoff): from
 * just before `seed` until the step's `call` begins. `other-client` seeds through a
 * separate store client, so only the backend's wake-ups (or the finder's next poll) can
 * start the work; `same-instance` seeds through `fate.seed`, which also wakes the finder
 * in-process. Samples are spaced by a random pause so they do not lock to the backoff.
 */
export async function benchLatency(
  backend: BenchBackend,
  config: BenchConfig,
): Promise<LatencyRow[]> {
  const ns = await backend.namespace();
  const starts = new Moments();
  const env = { onCall: (id: FateId) => starts.record(id, performance.now()) };
  const engines = await startEngines(ns.url, 1, 4, env);
  const producer = await openStore(ns.url);
  const fate = engines.fates[0];
  try {
    if (!fate) throw new Error('no engine');
    const seeds = {
      'other-client': () => producer.seed({ step: noopStepData(1), opName: 'bench-latency' }),
      'same-instance': () => fate.seed(new NoopStep(1), { opName: 'bench-latency' }),
    } as const;
    const rows: LatencyRow[] = [];
    for (const [seededBy, seed] of Object.entries(seeds) as [
      LatencyRow['seededBy'],
      () => Promise<{ id: FateId }>,
    ][]) {
      const figures = await sampleLatency(config, seededBy, seed, starts, () => performance.now());
      rows.push({ backend: backend.name, seededBy, ...figures });
    }
    return rows;
  } finally {
    await engines.stop();
    await producer.close();
    await ns.destroy();
  }
}

/**
 * `config.latencySamples` seeds, spaced by a random pause in `config.latencySpacingMs`;
 * each sample is from just before `seed` (by `now`) to the moment `starts` records.
 * `label` names the row in the progress line.
 */
export async function sampleLatency(
  config: BenchConfig,
  label: string,
  seed: () => Promise<{ id: string }>,
  starts: Moments,
  now: () => number,
): Promise<LatencyFigures> {
  const [min, max] = config.latencySpacingMs;
  const samples: number[] = [];
  await sleep(max);
  for (let i = 0; i < config.latencySamples; i++) {
    await sleep(min + Math.random() * (max - min));
    const before = now();
    const { id } = await seed();
    samples.push((await starts.of(id, 10_000)) - before);
  }
  const row: LatencyFigures = {
    samples: samples.length,
    p50Ms: percentile(samples, 50),
    p99Ms: percentile(samples, 99),
    maxMs: Math.max(...samples),
  };
  progress(
    `  latency (${label}): p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms, ` +
      `max ${row.maxMs.toFixed(1)} ms over ${row.samples} samples`,
  );
  return row;
}
