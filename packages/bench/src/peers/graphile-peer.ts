import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { dropPostgresSchema, startPostgres } from '@fate/test-services';
import { Logger, makeWorkerUtils, run, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import { postgresCpuSeconds } from '../services/server-stats.js';
import type { PeerConsumer, PeerHooks, PeerQueue, PeerSystem, PeerTarget } from './peer-system.js';
import { installedVersion } from './peer-versions.js';

// graphile-worker on the local PostgreSQL server, in a private database like fate-postgres's,
// a fresh schema per run. Default options: it deletes a job once it succeeded, and learns
// of new jobs by LISTEN/NOTIFY.

const TASK = 'noop';
const BULK = 1_000;
const logger = new Logger(() => () => undefined);

export async function startGraphile(): Promise<PeerSystem> {
  const service = await startPostgres();
  return {
    name: 'graphile-worker',
    version: installedVersion('graphile-worker'),
    store: 'postgres',
    where: 'a database on the local PostgreSQL server, a schema per run',
    serverCpuSeconds: () => postgresCpuSeconds(service.url),
    stop: () => service.stop(),
    async open(): Promise<PeerQueue> {
      const schema = `gw_bench_${randomBytes(5).toString('hex')}`;
      const utils = await makeWorkerUtils({ connectionString: service.url, schema, logger });
      await utils.migrate();
      return {
        target: { peer: 'graphile-worker', url: service.url, queue: schema },
        async seedMany(n) {
          for (let i = 0; i < n; i += BULK) {
            const size = Math.min(BULK, n - i);
            await utils.addJobs(
              Array.from({ length: size }, () => ({ identifier: TASK, payload: {} })),
            );
          }
        },
        async seedOne() {
          const job = await utils.addJob(TASK, {});
          return { id: String(job.id) };
        },
        async done(seeded) {
          const left = await utils.withPgClient((client) =>
            client.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}._private_jobs`),
          );
          return seeded - Number(left.rows[0]?.n ?? seeded);
        },
        async destroy() {
          await utils.release();
          await dropPostgresSchema(service.url, schema);
        },
      };
    },
  };
}

/**
 * One graphile-worker runner of concurrency `workers`, run on `go`. Its pool connects
 * before `go` (as fate's engine opens its store before), so the timed run pays no connects.
 */
export async function graphileConsumer(
  target: PeerTarget,
  workers: number,
  hooks: PeerHooks,
): Promise<PeerConsumer> {
  const pgPool = new pg.Pool({ connectionString: target.url, max: workers + 2 });
  pgPool.on('error', () => undefined);
  pgPool.on('connect', (client) => client.on('error', () => undefined));
  const clients = await Promise.all(Array.from({ length: workers }, () => pgPool.connect()));
  for (const client of clients) client.release();
  const events: WorkerEvents = new EventEmitter();
  events.on('job:success', () => hooks.onFinished());
  const onStart = hooks.onStart;
  let runner: Awaited<ReturnType<typeof run>> | undefined;
  return {
    async start() {
      runner = await run({
        pgPool,
        schema: target.queue,
        concurrency: workers,
        noHandleSignals: true,
        logger,
        events,
        taskList: {
          [TASK]: async (_payload, helpers) => {
            onStart?.(String(helpers.job.id));
          },
        },
      });
    },
    async stop() {
      await runner?.stop();
      await pgPool.end();
    },
  };
}
