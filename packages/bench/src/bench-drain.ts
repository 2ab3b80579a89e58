import { randomBytes } from 'node:crypto';
import type { WorkerProcesses } from './bench-processes.js';
import type { BacklogRun } from './bench-results.js';
import { sleep, wallNow } from './bench-stats.js';

/** How long to wait for a backlog to drain before giving up, ms. */
const DRAIN_TIMEOUT_MS = 300_000;

/**
 * Times the drain of a seeded backlog of `txs`: starts `count` processes of `workers` each
 * (told to start on `go`), tells them `go` together and waits until their reports count
 * `txs` finished. The processes count their own finishes (asked over IPC, so the wait adds
 * no load to the store); the caller confirms the count in the store afterwards. CPU: the
 * processes' own `process.cpuUsage()` since `go`, and `serverCpuSeconds` over the same span.
 */
export async function timeDrain(
  processes: WorkerProcesses,
  count: number,
  workers: number,
  txs: number,
  serverCpuSeconds?: () => Promise<number>,
): Promise<BacklogRun> {
  const run = randomBytes(3).toString('hex');
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      processes.start(`backlog-${run}-${i}`, { workers, startOnGo: true, silent: true }),
    ),
  );
  const serverBefore = await serverCpuSeconds?.();
  const startedAt = wallNow();
  processes.send({ kind: 'go' });
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  let reports = await processes.reports();
  while (reports.reduce((n, r) => n + r.finished, 0) < txs) {
    if (Date.now() > deadline) throw new Error(`the backlog of ${txs} did not drain`);
    await sleep(100);
    reports = await processes.reports();
  }
  const serverAfter = await serverCpuSeconds?.();
  const seconds = (Math.max(...reports.map((r) => r.lastFinishedAt)) - startedAt) / 1_000;
  const cpuUs = reports.reduce((n, r) => n + r.cpuUs, 0);
  return {
    txPerSec: txs / seconds,
    workerCpuUsPerTx: cpuUs / txs,
    ...(serverBefore !== undefined && serverAfter !== undefined
      ? { serverCpuUsPerTx: ((serverAfter - serverBefore) * 1e6) / txs }
      : {}),
  };
}
