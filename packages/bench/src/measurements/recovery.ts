import { randomBytes } from 'node:crypto';
import { eventually } from '@fate/conformance/harness';
import { type FatesStore, openStore } from '@fate/core';
import type { BenchConfig } from '../config.js';
import { BenchProcesses } from '../processes/processes.js';
import { sleepStepData } from '../processes/steps.js';
import { progress, type RecoveryRow } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { median, wallNow, withTimeout } from './stats.js';

/** Slow transactions seeded per trial: no more than one engine's 4 workers, so all start. */
const SEEDED = 4;
/** Long enough that the victim still holds its transactions when it is killed. */
const STEP_MS = 60_000;

/**
 * Recovery after a crash: two engine processes (default liveness timeout 3,000 ms,
 * heartbeat and dead-holder check every 750 ms) run slow transactions; the one
 * holding more is killed with SIGKILL, and the clock runs until one of the transactions
 * it held begins its step on the other. Both processes are gone when a trial ends.
 */
export async function benchRecovery(
  backend: BenchBackend,
  config: BenchConfig,
): Promise<RecoveryRow[]> {
  if (!backend.multiProcess) return [];
  const trials: number[] = [];
  let held = 0;
  for (let t = 0; t < config.recoveryTrials; t++) {
    const trial = await runTrial(backend);
    trials.push(trial.ms);
    held = trial.held;
    progress(`  recovery trial ${t + 1}: ${trial.ms} ms (the killed instance held ${trial.held})`);
  }
  return [{ backend: backend.name, ms: median(trials), trials, held }];
}

async function runTrial(backend: BenchBackend): Promise<{ ms: number; held: number }> {
  const ns = await backend.namespace();
  const started = new Map<string, string>(); // id → instance that began its step
  let store: FatesStore | undefined;
  let kill: { victim: string; at: number; held: Set<string> } | undefined;
  let recovered: (ms: number) => void = () => undefined;
  const recovery = new Promise<number>((r) => {
    recovered = r;
  });
  const processes = new BenchProcesses(ns.url, (m) => {
    if (m.kind !== 'step') return;
    if (kill && m.instance !== kill.victim && kill.held.has(m.id)) recovered(m.at - kill.at);
    else if (!started.has(m.id)) started.set(m.id, m.instance);
  });
  try {
    const run = randomBytes(3).toString('hex');
    await Promise.all(['a', 'b'].map((n) => processes.start(`bench-${run}-${n}`)));
    store = await openStore(ns.url);
    for (let i = 0; i < SEEDED; i++)
      await store.seed({ step: sleepStepData(1, STEP_MS), opName: 'bench-recovery' });
    await eventually(
      'the seeded transactions to start',
      async () => started.size === SEEDED,
      10_000,
    );
    const counts = new Map<string, string[]>();
    for (const [id, instance] of started)
      counts.set(instance, [...(counts.get(instance) ?? []), id]);
    const [victim, ids] = [...counts].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
    if (!victim || !ids) throw new Error('no instance holds a transaction');
    kill = { victim, at: wallNow(), held: new Set(ids) };
    await processes.kill(victim);
    const ms = await withTimeout(recovery, 30_000, 'a held transaction resuming elsewhere');
    return { ms, held: ids.length };
  } finally {
    await processes.stop();
    await store?.close();
    await ns.destroy();
  }
}
