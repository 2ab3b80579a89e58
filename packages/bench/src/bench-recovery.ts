import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { stopWorkers } from '@fate/conformance/harness';
import { type FatesStore, openStore } from '@fate/core';
import type { BenchBackend } from './bench-backends.js';
import type { BenchConfig } from './bench-config.js';
import { progress, type RecoveryRow } from './bench-results.js';
import { median, sleep, withTimeout } from './bench-stats.js';
import { slowStepData } from './bench-steps.js';
import type { WorkerMessage } from './bench-worker.js';

const WORKER = fileURLToPath(new URL('./bench-worker.js', import.meta.url));
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
  const children = new Map<string, ChildProcess>();
  const started = new Map<string, string>(); // id → instance that began its step
  let store: FatesStore | undefined;
  let kill: { victim: string; at: number; held: Set<string> } | undefined;
  let recovered: (ms: number) => void = () => undefined;
  const recovery = new Promise<number>((r) => {
    recovered = r;
  });
  const onMessage = (m: WorkerMessage) => {
    if (m.kind !== 'step') return;
    if (kill && m.instance !== kill.victim && kill.held.has(m.id)) recovered(m.at - kill.at);
    else if (!started.has(m.id)) started.set(m.id, m.instance);
  };
  try {
    const run = randomBytes(3).toString('hex');
    await Promise.all(
      ['a', 'b'].map((n) => startWorker(ns.url, `bench-${run}-${n}`, onMessage, children)),
    );
    store = await openStore(ns.url);
    for (let i = 0; i < SEEDED; i++)
      await store.seed({ step: slowStepData(STEP_MS), opName: 'bench-recovery' });
    await waitUntil(() => started.size === SEEDED, 10_000, 'the seeded transactions to start');
    const counts = new Map<string, string[]>();
    for (const [id, instance] of started)
      counts.set(instance, [...(counts.get(instance) ?? []), id]);
    const [victim, ids] = [...counts].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
    if (!victim || !ids) throw new Error('no instance holds a transaction');
    kill = { victim, at: Date.now(), held: new Set(ids) };
    children.get(victim)?.kill('SIGKILL');
    const ms = await withTimeout(recovery, 30_000, 'a held transaction resuming elsewhere');
    return { ms, held: ids.length };
  } finally {
    // SIGTERM, then SIGKILL after 5 s: no engine process outlives the trial
    await stopWorkers([...children.values()], 5_000);
    await store?.close();
    await ns.destroy();
  }
}

async function waitUntil(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function startWorker(
  url: string,
  instance: string,
  onMessage: (m: WorkerMessage) => void,
  children: Map<string, ChildProcess>,
): Promise<void> {
  const child = fork(WORKER, [url, instance], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.set(instance, child);
  child.on('message', onMessage);
  return new Promise((resolve, reject) => {
    child.on('message', (m: WorkerMessage) => m.kind === 'ready' && resolve());
    child.once('exit', (code, signal) =>
      reject(new Error(`${instance} exited early (${code ?? signal})`)),
    );
  });
}
