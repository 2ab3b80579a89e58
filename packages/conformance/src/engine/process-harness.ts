import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FateId } from '@fate/core';

export { eventually, mapLimit } from '../util.js';

// Helpers for tests that run fate engines in real child processes; exported so a backend's
// own process tests (session expiry, restarts) use the same engine process and log format.

const ENGINE_PROCESS = fileURLToPath(new URL('../child/engine-process.js', import.meta.url));

/** One execution of a step's `call`; `end` is undefined when it never finished. */
export interface StepRun {
  readonly instance: string;
  readonly id: FateId;
  readonly n: number;
  readonly start: number;
  readonly end?: number;
}

export interface EngineProcessOptions {
  readonly livenessMs: number;
  /** Workers in the engine's pool (default 8). */
  readonly workers?: number;
  /** For stores `openStore` does not know: a module exporting `createStoreBackend`. */
  readonly backendModule?: string;
  /** The process's `Date.now()` runs off by this much, as on a host with a wrong clock. */
  readonly clockSkewMs?: number;
}

/**
 * Forks a `Fate` engine process on `url`, named `name` (its instance id), running `proc`
 * steps (`{ n, total, sleepMs }`) and logging every step run to `log`. Resolves once started.
 */
export function startEngineProcess(
  url: string,
  name: string,
  log: string,
  options: EngineProcessOptions,
): Promise<ChildProcess> {
  const args = [
    url,
    name,
    log,
    String(options.workers ?? 8),
    String(options.livenessMs),
    options.backendModule ?? '',
  ];
  const env = { ...process.env, FATE_TEST_CLOCK_SKEW_MS: String(options.clockSkewMs ?? 0) };
  const child = fork(ENGINE_PROCESS, args, { stdio: 'inherit', env });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`engine process ${name} exited with ${code}`)));
  });
}

/**
 * The seed of a `proc` transaction the engine processes run: `total` steps of `sleepMs` each; with
 * `deferMs`, step 1 first asks to wait that long, once.
 */
export function procStep(total: number, sleepMs: number, deferMs?: number) {
  return { type: 'proc', state: { n: 1, total, sleepMs, ...(deferMs ? { deferMs } : {}) } };
}

/** When each transaction's step 1 asked to wait (`defer` lines of the log), real clock. */
export function readDeferrals(file: string): Map<FateId, number> {
  const out = new Map<FateId, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [event, id = '', , , at] = line.split(' ');
    if (event === 'defer') out.set(id as FateId, Number(at));
  }
  return out;
}

/** Every step run in the log, pairing each `start` with its `end`. */
export function readStepRuns(file: string): StepRun[] {
  const open = new Map<string, { instance: string; id: FateId; n: number; start: number }>();
  const runs: StepRun[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const [event, instance = '', id = '', n, at] = line.split(' ');
    if (event !== 'start' && event !== 'end') continue;
    const key = `${instance} ${id} ${n}`;
    if (event === 'start')
      open.set(key, { instance, id: id as FateId, n: Number(n), start: Number(at) });
    else {
      const s = open.get(key);
      open.delete(key);
      runs.push({
        instance,
        id: id as FateId,
        n: Number(n),
        start: s?.start ?? Number(at),
        end: Number(at),
      });
    }
  }
  return [...runs, ...open.values()];
}

/**
 * Pairs of runs of one transaction by different instances that overlap in time, except
 * those `excused` (e.g. a run of an instance that was dead at the time). `cutAt` ends runs
 * that never finished.
 */
export function overlappingRuns(
  runs: readonly StepRun[],
  cutAt: number,
  excused: (run: StepRun) => boolean = () => false,
): Array<[StepRun, StepRun]> {
  const byId = new Map<FateId, StepRun[]>();
  for (const r of runs) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
  const found: Array<[StepRun, StepRun]> = [];
  for (const list of byId.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const [prev, next] = [list[i - 1] as StepRun, list[i] as StepRun];
      if (prev.instance === next.instance || excused(prev) || excused(next)) continue;
      if (next.start < (prev.end ?? cutAt)) found.push([prev, next]);
    }
  }
  return found;
}

/** SIGTERM (graceful shutdown), then SIGKILL after `graceMs`; resolves when all exited. */
export async function stopProcesses(
  children: readonly ChildProcess[],
  graceMs = 15_000,
): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((done) => {
          if (c.exitCode !== null || c.signalCode !== null) return done();
          const force = setTimeout(() => c.kill('SIGKILL'), graceMs);
          c.once('exit', () => {
            clearTimeout(force);
            done();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}
