import { randomBytes } from 'node:crypto';
import type { BenchProcesses } from '../processes/processes.js';
import type { BacklogRun } from '../reporting/results.js';
import { sleep, wallNow } from './stats.js';

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
  processes: BenchProcesses,
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
  // Until the deadline: plainjob's workers never yield to the event loop while jobs remain,
  // so its processes answer once the backlog is drained (the finishes are stamped per job).
  const reports = () => processes.reports(Math.max(10_000, deadline - Date.now()));
  let last = await reports();
  while (last.reduce((n, r) => n + r.finished, 0) < txs) {
    if (Date.now() > deadline) throw new Error(`the backlog of ${txs} did not drain`);
    await sleep(100);
    last = await reports();
  }
  const serverAfter = await serverCpuSeconds?.();
  const seconds = (Math.max(...last.map((r) => r.lastFinishedAt)) - startedAt) / 1_000;
  const cpuUs = last.reduce((n, r) => n + r.cpuUs, 0);
  return {
    txPerSec: txs / seconds,
    processCpuUsPerTx: cpuUs / txs,
    ...(serverBefore !== undefined && serverAfter !== undefined
      ? { serverCpuUsPerTx: ((serverAfter - serverBefore) * 1e6) / txs }
      : {}),
  };
}
