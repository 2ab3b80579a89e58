import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropMemoryNamespace } from '@fate/core';
import {
  dropPostgresSchema,
  dropRedisPrefix,
  dropZkTree,
  startPostgres,
  startRedis,
  startRedisCluster,
  startZooKeeper,
  type TestService,
} from '@fate/test-services';
import { clusterCommandCounts } from './cluster.js';
import {
  postgresCpuSeconds,
  redisCommands,
  redisCpuSeconds,
  zkRequestsReceived,
} from './server-stats.js';

export type BackendName = 'sqlite' | 'redis' | 'zk' | 'postgres' | 'memory' | 'redis-cluster';

/**
 * What `--backend all` runs. `memory` is there for developing the script itself;
 * `redis-cluster` (three masters on this machine) is asked for by name.
 */
export const ALL_BACKENDS: readonly BackendName[] = ['sqlite', 'redis', 'zk', 'postgres'];
export const KNOWN_BACKENDS: readonly BackendName[] = [...ALL_BACKENDS, 'memory', 'redis-cluster'];

/** One isolated store for one measurement: its URL, and how to remove it. */
export interface Namespace {
  readonly url: string;
  /** Removes the data; safe to call twice. */
  destroy(): Promise<void>;
}

/** A backend ready to hand out fresh namespaces. */
export interface BenchBackend {
  readonly name: BackendName;
  /** Where the data lives, for the report. */
  readonly where: string;
  /** Clients in separate processes share the data (needed by the recovery benchmark). */
  readonly multiProcess: boolean;
  /** A fresh namespace; `shards` for a sharded store where the backend has shards. */
  namespace(options?: { shards?: number }): Promise<Namespace>;
  /**
   * Shard counts the throughput benchmark runs with as many instances each (a Redis
   * Cluster: 1 and 3), and the commands each server has run so far, to show the spread.
   */
  readonly sharding?: {
    readonly shards: readonly number[];
    commandCounts(): Promise<Record<string, number>>;
  };
  /**
   * CPU seconds the store's server has used so far, where it says: Redis `INFO cpu`, the
   * PostgreSQL backends of the database (from /proc).
   */
  serverCpuSeconds?(): Promise<number>;
  /** Requests or commands the store's server has handled so far, where it says. */
  readonly serverRequests?: {
    /** What is counted, for the report. */
    readonly what: string;
    count(): Promise<number>;
  };
  /** Destroys every namespace still present and stops a server this script started. */
  stop(): Promise<void>;
}

const unique = () => randomBytes(5).toString('hex');

/** Starts what `name` needs: nothing for SQLite and memory, a server for the others. */
export async function startBackend(name: BackendName): Promise<BenchBackend> {
  switch (name) {
    case 'sqlite':
      return tracked(name, 'a temp file per namespace (WAL)', true, undefined, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'fate-bench-'));
        // An interrupted run (Ctrl-C exits through 'exit') must not leave the file behind.
        const remove = () => rmSync(dir, { recursive: true, force: true });
        process.once('exit', remove);
        return {
          url: `sqlite:${join(dir, 'fate.db')}`,
          destroy: async () => {
            process.off('exit', remove);
            remove();
          },
        };
      });
    case 'memory':
      return tracked(name, 'this process', false, undefined, async () => {
        const space = `bench-${unique()}`;
        return { url: `memory:${space}`, destroy: async () => dropMemoryNamespace(space) };
      });
    case 'redis': {
      const service = await startRedis();
      const external = Boolean(process.env.FATE_REDIS_URL);
      const where = external ? `FATE_REDIS_URL (${service.url})` : 'a private redis-server';
      const backend = tracked(
        name,
        `${where}, a key prefix per namespace`,
        true,
        service,
        async () => {
          const prefix = `fate-bench-${unique()}`;
          const url = new URL(service.url);
          url.searchParams.set('prefix', prefix);
          return { url: url.href, destroy: () => dropRedisPrefix(service.url, prefix) };
        },
      );
      return {
        ...backend,
        serverCpuSeconds: () => redisCpuSeconds(service.url),
        // a server of our own: nobody else's commands in the count
        ...(external
          ? {}
          : {
              serverRequests: {
                what: 'Redis commands, those inside scripts included',
                count: () => redisCommands(service.url),
              },
            }),
      };
    }
    case 'redis-cluster': {
      const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
      const where = 'a private Redis Cluster of 3 masters, a key prefix per namespace';
      const backend = tracked(name, where, true, cluster, async (options) => {
        const shards = options?.shards ?? 1;
        // the cluster is deleted whole at the end
        const url = `${cluster.url}?prefix=fate-bench-${unique()}&shards=${shards}`;
        return { url, destroy: async () => undefined };
      });
      const commandCounts = () => clusterCommandCounts(cluster.nodes);
      return { ...backend, sharding: { shards: [1, 3], commandCounts } };
    }
    case 'postgres': {
      const service = await startPostgres();
      const where = process.env.FATE_PG_URL
        ? `FATE_PG_URL (${service.url})`
        : 'a database on the local PostgreSQL server (or a private cluster)';
      const backend = tracked(name, `${where}, a schema per namespace`, true, service, async () => {
        const schema = `fate_bench_${unique()}`;
        const url = new URL(service.url);
        url.searchParams.set('schema', schema);
        // As many connections as the throughput benchmark has workers per engine.
        url.searchParams.set('poolSize', '16');
        return { url: url.href, destroy: () => dropPostgresSchema(service.url, schema) };
      });
      return { ...backend, serverCpuSeconds: () => postgresCpuSeconds(service.url) };
    }
    case 'zk': {
      const service = await startZooKeeper();
      const external = Boolean(process.env.FATE_ZK_CONNECT);
      const connect = service.url.replace(/^zk:\/\//, '').replace(/\/.*$/, '');
      const where = external ? `FATE_ZK_CONNECT (${connect})` : 'a private ZooKeeper server';
      const backend = tracked(name, `${where}, a chroot per namespace`, true, service, async () => {
        const chroot = `/fate-bench-${unique()}`;
        return {
          url: `zk://${connect}${chroot}`,
          // A private server's data goes with it: deleting 100,000 znodes one by one
          // would only cost time. A shared server is cleaned node by node.
          destroy: external ? () => dropZkTree(connect, chroot) : async () => undefined,
        };
      });
      const what = 'ZooKeeper requests received, pings included';
      if (external) return backend;
      return { ...backend, serverRequests: { what, count: () => zkRequestsReceived(connect) } };
    }
  }
}

/** Wraps a namespace factory so `stop` can destroy whatever a failed measurement left. */
function tracked(
  name: BackendName,
  where: string,
  multiProcess: boolean,
  service: TestService | undefined,
  make: (options?: { shards?: number }) => Promise<Namespace>,
): BenchBackend {
  const live = new Set<Namespace>();
  return {
    name,
    where,
    multiProcess,
    async namespace(options) {
      const ns = await make(options);
      let destroyed: Promise<void> | undefined;
      const handle: Namespace = {
        url: ns.url,
        destroy() {
          live.delete(handle);
          destroyed ??= ns.destroy();
          return destroyed;
        },
      };
      live.add(handle);
      return handle;
    },
    async stop() {
      try {
        for (const ns of [...live]) await ns.destroy();
      } finally {
        await service?.stop();
      }
    },
  };
}
