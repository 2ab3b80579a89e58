import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { better, defineQueue, defineWorker, JobStatus, type Worker } from 'plainjob';
import {
  type PeerConsumer,
  type PeerHooks,
  type PeerQueue,
  type PeerSystem,
  type PeerTarget,
  SILENT,
} from './peer-system.js';
import { installedVersion } from './peer-versions.js';

// plainjob on a SQLite file (WAL, as plainjob sets it), a fresh file per run. Its workers
// poll; 10 ms between polls when the queue is empty (its default is 1 s).

const TYPE = 'noop';
const BULK = 1_000;
export const PLAINJOB_POLL_MS = 10;

function openQueue(file: string) {
  return defineQueue({ connection: better(new Database(file)), logger: SILENT });
}

export async function startPlainjob(): Promise<PeerSystem> {
  return {
    name: 'plainjob',
    version: installedVersion('plainjob'),
    store: 'sqlite',
    where: 'a temp file per run (WAL)',
    stop: async () => undefined,
    async open(): Promise<PeerQueue> {
      const dir = mkdtempSync(join(tmpdir(), 'fate-bench-plainjob-'));
      const remove = () => rmSync(dir, { recursive: true, force: true });
      process.once('exit', remove);
      const file = join(dir, 'queue.db');
      const queue = openQueue(file);
      return {
        target: { peer: 'plainjob', url: file, queue: TYPE },
        async seedMany(n) {
          for (let i = 0; i < n; i += BULK) {
            queue.addMany(
              TYPE,
              Array.from({ length: Math.min(BULK, n - i) }, () => ({})),
            );
          }
        },
        async seedOne() {
          return { id: String(queue.add(TYPE, {}).id) };
        },
        async done() {
          return queue.countJobs({ type: TYPE, status: JobStatus.Done });
        },
        async destroy() {
          queue.close();
          process.off('exit', remove);
          remove();
        },
      };
    },
  };
}

/** `workers` plainjob workers on one connection of this process, started on `go`. */
export async function plainjobConsumer(
  target: PeerTarget,
  workers: number,
  hooks: PeerHooks,
): Promise<PeerConsumer> {
  const queue = openQueue(target.url);
  const onStart = hooks.onStart;
  const all: Worker[] = Array.from({ length: workers }, () =>
    defineWorker(TYPE, () => undefined, {
      queue,
      logger: SILENT,
      pollIntervall: PLAINJOB_POLL_MS,
      onCompleted: () => hooks.onFinished(),
      // plainjob reads the job once more for this hook: only when latency is measured
      ...(onStart ? { onProcessing: (job) => onStart(String(job.id)) } : {}),
    }),
  );
  return {
    async start() {
      for (const worker of all) void worker.start();
    },
    async stop() {
      await Promise.all(all.map((w) => w.stop()));
      queue.close();
    },
  };
}
