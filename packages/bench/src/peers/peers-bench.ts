import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { BenchConfig } from '../config.js';
import { timeDrain } from '../measurements/drain.js';
import { sampleLatency } from '../measurements/latency.js';
import { Moments } from '../measurements/moments.js';
import { median, wallNow } from '../measurements/stats.js';
import { BenchProcesses } from '../processes/processes.js';
import {
  type BacklogRun,
  type PeerLatencyRow,
  type PeerRow,
  progress,
} from '../reporting/results.js';
import type { BackendName } from '../services/backends.js';
import { startBullmq } from './bullmq-peer.js';
import { startGraphile } from './graphile-peer.js';
import type { PeerSystem } from './peer-system.js';
import { startPlainjob } from './plainjob-peer.js';

const PROCESS = fileURLToPath(new URL('./peer-process.js', import.meta.url));

/** The job queue measured beside each fate backend (ZooKeeper has none). */
const PEER_OF: Partial<Record<BackendName, () => Promise<PeerSystem>>> = {
  redis: startBullmq,
  sqlite: startPlainjob,
  postgres: startGraphile,
};

/**
 * The peer of fate's `backend`, measured as fate's backlog is (measurements/backlog.ts): the same
 * backlog, layouts and repeats, a fresh queue and fresh processes each run; then seed-to-start
 * from another process as measurements/latency-process.ts measures fate's.
 */
export async function benchPeerOf(
  backend: BackendName,
  config: BenchConfig,
): Promise<{ rows: PeerRow[]; latency: PeerLatencyRow[] }> {
  const startPeer = PEER_OF[backend];
  if (!startPeer) return { rows: [], latency: [] };
  const system = await startPeer();
  try {
    progress(`${system.name} ${system.version}: ${system.where}`);
    const rows: PeerRow[] = [];
    for (const { processes, workers } of config.backlogLayouts) {
      const runs: BacklogRun[] = [];
      for (let i = 0; i < config.backlogRepeats; i++) {
        const run = await drainOnce(system, processes, workers, config.backlogTxs);
        runs.push(run);
        progress(
          `  ${system.name} ${processes} × ${workers}, run ${i + 1}: ${run.txPerSec.toFixed(0)} jobs/s`,
        );
      }
      const server = runs.map((r) => r.serverCpuUsPerTx).filter((v) => v !== undefined);
      rows.push({
        system: system.name,
        version: system.version,
        processes,
        workers,
        txs: config.backlogTxs,
        txPerSec: median(runs.map((r) => r.txPerSec)),
        processCpuUsPerTx: median(runs.map((r) => r.processCpuUsPerTx)),
        ...(server.length > 0 ? { serverCpuUsPerTx: median(server) } : {}),
        runs,
      });
    }
    return { rows, latency: [await latencyOf(system, config)] };
  } finally {
    await system.stop().catch((error) => progress(`  cleanup failed: ${String(error)}`));
  }
}

async function drainOnce(
  system: PeerSystem,
  count: number,
  workers: number,
  txs: number,
): Promise<BacklogRun> {
  const queue = await system.open();
  const processes = new BenchProcesses(JSON.stringify(queue.target), undefined, PROCESS);
  try {
    await queue.seedMany(txs);
    const run = await timeDrain(processes, count, workers, txs, system.serverCpuSeconds);
    const done = await queue.done(txs);
    if (done !== txs) throw new Error(`${system.name}: ${done} of ${txs} jobs done`);
    return run;
  } finally {
    await processes.stop();
    await queue.destroy();
  }
}

/** One idle process of 4 consumers; jobs added one at a time from this process. */
async function latencyOf(system: PeerSystem, config: BenchConfig): Promise<PeerLatencyRow> {
  const queue = await system.open();
  const starts = new Moments();
  const processes = new BenchProcesses(
    JSON.stringify(queue.target),
    (m) => m.kind === 'step' && starts.record(m.id, m.at),
    PROCESS,
  );
  try {
    await processes.start(`latency-${randomBytes(3).toString('hex')}`, { workers: 4 });
    const figures = await sampleLatency(
      config,
      system.name,
      () => queue.seedOne(),
      starts,
      wallNow,
    );
    return { system: system.name, version: system.version, ...figures };
  } finally {
    await processes.stop();
    await queue.destroy();
  }
}
