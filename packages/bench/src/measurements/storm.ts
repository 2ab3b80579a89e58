import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { overlappingRuns, readStepRuns, type StepRun } from '@fate/conformance/harness';
import { type FateId, type FatesStore, instanceIdOf, openStore } from '@fate/core';
import type { BenchConfig } from '../config.js';
import { waitSucceeded } from '../processes/engines.js';
import { BenchProcesses } from '../processes/processes.js';
import { sleepStepData } from '../processes/steps.js';
import { progress, type StormRow } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { percentile, sleep } from './stats.js';

export const STORM = { processes: 3, workers: 8, steps: 3, stepMs: [10, 30] } as const;
/** Seeds per `seedMany` call. */
const SEED_CHUNK = 500;

interface Kill {
  readonly victim: string;
  /** `Date.now()` when the SIGKILL was sent. */
  readonly at: number;
  /** What the victim held: its reservations, read after it died and before they lapsed. */
  readonly held: readonly FateId[];
}

/**
 * A crash storm: 3 engine processes × 8 workers (default liveness settings) run
 * `stormTxs` three-step transactions of 10–30 ms steps; every `stormKillEveryMs` a random
 * process is SIGKILLed and a new one started at once, `stormKills` times. Every step's
 * start and end are appended to a log by the processes themselves (synchronously, so a
 * SIGKILL loses nothing logged), from which come the kill-to-resume times, the re-runs and
 * the overlaps; the store says whether anything was lost.
 */
export async function benchStorm(backend: BenchBackend, config: BenchConfig): Promise<StormRow[]> {
  if (!backend.multiProcess) return [];
  const ns = await backend.namespace();
  const dir = mkdtempSync(join(tmpdir(), 'fate-bench-storm-'));
  const log = join(dir, 'steps.log');
  const processes = new BenchProcesses(ns.url);
  const run = randomBytes(3).toString('hex');
  let spawned = 0;
  const spawn = () => processes.start(`storm-${run}-${spawned++}`, { workers: STORM.workers, log });
  let store: FatesStore | undefined;
  try {
    await Promise.all(Array.from({ length: STORM.processes }, spawn));
    store = await openStore(ns.url);
    const ids = await seed(store, config.stormTxs);
    const startedAt = Date.now();
    const kills = await killRepeatedly(store, processes, spawn, config);
    const succeeded = await waitSucceeded(store, ids.length, 120_000);
    const row = stormFigures(backend, config, readStepRuns(log), kills, succeeded, startedAt);
    progress(
      `  storm: ${row.victims} victims of ${row.killsWithVictims}/${row.kills} kills resumed ` +
        `p50 ${row.p50ResumeMs} ms, max ${row.maxResumeMs} ms; lost ${row.lost}, ` +
        `steps run twice ${row.stepsRunTwice}, overlaps ${row.overlaps}; work done after ` +
        `${row.workSeconds.toFixed(1)} s; max per kill ${row.maxResumeMsByKill.join(', ')} ms`,
    );
    return [row];
  } finally {
    await processes.stop();
    await store?.close();
    await ns.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function seed(store: FatesStore, count: number): Promise<FateId[]> {
  const [min, max] = STORM.stepMs;
  const ids: FateId[] = [];
  for (let i = 0; i < count; i += SEED_CHUNK) {
    const requests = Array.from({ length: Math.min(SEED_CHUNK, count - i) }, () => ({
      step: sleepStepData(STORM.steps, min + Math.floor(Math.random() * (max - min + 1))),
      opName: 'bench-storm',
    }));
    ids.push(...(await store.seedMany(requests)).map((r) => r.id));
  }
  return ids;
}

/** The kills, each on schedule; every victim is replaced at once (not waited for). */
async function killRepeatedly(
  store: FatesStore,
  processes: BenchProcesses,
  spawn: () => Promise<void>,
  config: BenchConfig,
): Promise<Kill[]> {
  const kills: Kill[] = [];
  const replacements: Promise<void>[] = [];
  const t0 = Date.now();
  try {
    for (let k = 1; k <= config.stormKills; k++) {
      await sleep(t0 + k * config.stormKillEveryMs - Date.now());
      const live = processes.live();
      const victim = live[Math.floor(Math.random() * live.length)];
      if (!victim) throw new Error('no live engine process to kill');
      const at = Date.now();
      await processes.kill(victim);
      const replacement = spawn();
      replacement.catch(() => undefined); // awaited below; a failure must not go unhandled
      replacements.push(replacement);
      const held = (await store.reservations())
        .filter((r) => instanceIdOf(r.reservation.lockId) === victim)
        .map((r) => r.id);
      kills.push({ victim, at, held });
      progress(`  storm kill ${k}: ${victim}, holding ${held.length}`);
    }
  } finally {
    await Promise.allSettled(replacements);
  }
  await Promise.all(replacements);
  return kills;
}

function stormFigures(
  backend: BenchBackend,
  config: BenchConfig,
  runs: readonly StepRun[],
  kills: readonly Kill[],
  succeeded: number,
  startedAt: number,
): StormRow {
  const byId = new Map<string, StepRun[]>();
  for (const r of runs) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
  // never resumed: Infinity, which the report shows as a dash and JSON as null
  const resumeByKill = kills.map((kill) =>
    kill.held.map((id) => {
      const elsewhere = (byId.get(id) ?? [])
        .filter((r) => r.instance !== kill.victim && r.start >= kill.at)
        .map((r) => r.start);
      return Math.min(...elsewhere) - kill.at;
    }),
  );
  const resume = resumeByKill.flat();
  const lastEnd = Math.max(...runs.map((r) => r.end ?? 0));
  // A killed process's unfinished runs end when it was killed: only live holders count.
  const killedAt = new Map(kills.map((k) => [k.victim, k.at]));
  const ended = runs.map((r) =>
    r.end === undefined && killedAt.has(r.instance) ? { ...r, end: killedAt.get(r.instance) } : r,
  );
  return {
    backend: backend.name,
    processes: STORM.processes,
    workers: STORM.workers,
    txs: config.stormTxs,
    steps: STORM.steps,
    kills: kills.length,
    killEveryMs: config.stormKillEveryMs,
    killsWithVictims: kills.filter((k) => k.held.length > 0).length,
    victims: resume.length,
    p50ResumeMs: percentile(resume, 50),
    maxResumeMs: resume.length > 0 ? Math.max(...resume) : Number.NaN,
    lost: config.stormTxs - succeeded,
    stepsRunTwice: runs.length - config.stormTxs * STORM.steps,
    overlaps: overlappingRuns(ended, Date.now()).length,
    workSeconds: (lastEnd - startedAt) / 1_000,
    maxResumeMsByKill: resumeByKill.map((ms) => (ms.length > 0 ? Math.max(...ms) : Number.NaN)),
  };
}
