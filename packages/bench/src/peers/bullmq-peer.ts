import { randomBytes } from 'node:crypto';
import { dropRedisPrefix, startRedis } from '@fate/test-services';
import { Queue, Worker } from 'bullmq';
import { redisCpuSeconds } from '../services/server-stats.js';
import type { PeerConsumer, PeerHooks, PeerQueue, PeerSystem, PeerTarget } from './peer-system.js';
import { installedVersion } from './peer-versions.js';

// BullMQ on a private redis-server (the one fate-redis is measured on is started the same
// way): a key prefix per run, default job options (completed jobs are kept, as fate keeps
// its finished transactions).

const QUEUE = 'bench';
const BULK = 1_000;

function connection(url: string) {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port || 6379), maxRetriesPerRequest: null };
}

export async function startBullmq(): Promise<PeerSystem> {
  const service = await startRedis();
  return {
    name: 'bullmq',
    version: installedVersion('bullmq'),
    store: 'redis',
    where: 'a private redis-server, a key prefix per run',
    serverCpuSeconds: () => redisCpuSeconds(service.url),
    stop: () => service.stop(),
    async open(): Promise<PeerQueue> {
      const prefix = `bull-bench-${randomBytes(5).toString('hex')}`;
      const queue = new Queue(QUEUE, { connection: connection(service.url), prefix });
      return {
        target: { peer: 'bullmq', url: service.url, queue: prefix },
        async seedMany(n) {
          for (let i = 0; i < n; i += BULK) {
            const size = Math.min(BULK, n - i);
            await queue.addBulk(Array.from({ length: size }, () => ({ name: 'noop', data: {} })));
          }
        },
        async seedOne() {
          const job = await queue.add('noop', {});
          return { id: String(job.id) };
        },
        async done() {
          return (await queue.getJobCounts('completed')).completed ?? 0;
        },
        async destroy() {
          await queue.close();
          await dropRedisPrefix(service.url, prefix);
        },
      };
    },
  };
}

/** One BullMQ `Worker` of concurrency `workers`, run on `go`. */
export async function bullmqConsumer(
  target: PeerTarget,
  workers: number,
  hooks: PeerHooks,
): Promise<PeerConsumer> {
  const onStart = hooks.onStart;
  const worker = new Worker(
    QUEUE,
    async (job) => {
      onStart?.(String(job.id));
    },
    {
      connection: connection(target.url),
      prefix: target.queue,
      concurrency: workers,
      autorun: false,
    },
  );
  worker.on('completed', () => hooks.onFinished());
  worker.on('error', () => undefined);
  await worker.waitUntilReady();
  return {
    async start() {
      void worker.run();
    },
    stop: () => worker.close(true),
  };
}
