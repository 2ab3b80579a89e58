import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type LocalServer, startLocalServer } from './local-server.js';
import {
  clusterInfo,
  clusterShards,
  type RedisShard,
  replicaInSync,
} from './redis-cluster-nodes.js';
import { ping, redisServerArgs } from './redis-process.js';
import { freePorts, hasBinary, type TestService, waitFor } from './support.js';

export type { RedisShard } from './redis-cluster-nodes.js';

/** A Redis Cluster on loopback whose masters a test can crash. */
export interface RedisCluster extends TestService {
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,…`: every node, as seeds. */
  readonly url: string;
  /** Every node's `127.0.0.1:port`, masters and replicas. */
  readonly nodes: readonly string[];
  /** The masters and their slot ranges and replicas, as a live node sees them now. */
  shards(): Promise<RedisShard[]>;
  /** SIGKILLs the master at `address` (default: the first); resolves with its shard as it was. */
  killMaster(address?: string): Promise<RedisShard>;
  /**
   * Waits until a replica of the killed `shard` serves its slots and every live node says
   * `cluster_state:ok`; resolves with the new master's address.
   */
  awaitFailover(shard: RedisShard, timeoutMs?: number): Promise<string>;
}

export interface RedisClusterOptions {
  readonly masters: number;
  readonly replicasPerMaster: number;
  /** `cluster-node-timeout`: how long a silent master takes to be failed over. Default 2,000 ms. */
  readonly nodeTimeoutMs?: number;
}

const run = promisify(execFile);
const READY_TIMEOUT_MS = 30_000;

const NOT_FOUND =
  'a Redis Cluster needs redis-server and redis-cli (`apt-get install -y redis-server`); ' +
  'it is not started in Docker';

/**
 * Starts `masters × (1 + replicasPerMaster)` cluster-enabled `redis-server`s on free
 * loopback ports in temp dirs, joins them with `redis-cli --cluster create`, and resolves
 * once every node says `cluster_state:ok` and every replica is in sync with its master
 * (a replica that never synced refuses to fail over).
 *
 * @example
 * const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
 * const killed = await cluster.killMaster();
 * const promoted = await cluster.awaitFailover(killed);
 */
export async function startRedisCluster(o: RedisClusterOptions): Promise<RedisCluster> {
  if (!hasBinary('redis-server') || !hasBinary('redis-cli')) throw new Error(NOT_FOUND);
  const count = o.masters * (1 + o.replicasPerMaster);
  const ports = await freePorts(2 * count);
  const clientPorts = ports.slice(0, count);
  const servers: LocalServer[] = [];
  const stop = () => Promise.all(servers.map((s) => s.stop())).then(() => undefined);
  try {
    for (const [i, port] of clientPorts.entries()) {
      servers.push(await startNode(port, ports[count + i] as number, o.nodeTimeoutMs ?? 2_000));
    }
    const nodes = clientPorts.map((p) => `127.0.0.1:${p}`);
    const replicas = ['--cluster-replicas', String(o.replicasPerMaster), '--cluster-yes'];
    await run('redis-cli', ['--cluster', 'create', ...nodes, ...replicas], { timeout: 30_000 });
    const live = () => clientPorts.filter((_, i) => servers[i]?.process);
    const cluster: RedisCluster = {
      url: `redis+cluster://${nodes.join(',')}`,
      nodes,
      shards: () => clusterShards(live()[0] as number),
      async killMaster(address) {
        const shards = await cluster.shards();
        const shard = address ? shards.find((s) => s.master === address) : shards[0];
        if (!shard) throw new Error(`${address} is not a master of this cluster`);
        await servers[nodes.indexOf(shard.master)]?.kill();
        return shard;
      },
      async awaitFailover(shard, timeoutMs = READY_TIMEOUT_MS) {
        let master: string | undefined;
        await waitFor(
          `a replica of ${shard.master} to take over its slots`,
          async () => {
            const views = await Promise.all(live().map(clusterShards));
            const owners = views.map((v) => v.find((s) => sameSlots(s, shard))?.master);
            master = owners[0];
            return (
              master !== undefined &&
              shard.replicas.includes(master) &&
              owners.every((m) => m === master) &&
              (await allOk(live()))
            );
          },
          timeoutMs,
        );
        return master as string;
      },
      stop,
    };
    await waitFor('the Redis Cluster to form', () => formed(cluster, o), READY_TIMEOUT_MS);
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One cluster-enabled node; its bus port is chosen too (port + 10000 may be taken). */
function startNode(port: number, busPort: number, nodeTimeoutMs: number): Promise<LocalServer> {
  const dir = mkdtempSync(join(tmpdir(), 'fate-redis-cluster-'));
  const args = [...redisServerArgs(port, dir), '--appendonly', 'no'];
  args.push('--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'));
  args.push('--cluster-port', String(busPort), '--cluster-node-timeout', String(nodeTimeoutMs));
  // Replicas sync at once (the master otherwise waits 5 s for more replicas), and any
  // replica may fail over however long ago it last heard from its master.
  args.push('--repl-diskless-sync-delay', '0', '--cluster-replica-validity-factor', '0');
  return startLocalServer({
    name: `redis-server (cluster node) on port ${port}`,
    command: 'redis-server',
    args,
    dir,
    ready: () => ping('127.0.0.1', port),
    startTimeoutMs: 20_000,
    termGraceMs: 5_000,
  });
}

/** True when `a` serves exactly the slot ranges of `b`. */
function sameSlots(a: RedisShard, b: RedisShard): boolean {
  return JSON.stringify(a.slots) === JSON.stringify(b.slots);
}

async function allOk(ports: readonly number[]): Promise<boolean> {
  const states = await Promise.all(ports.map((p) => clusterInfo(p, 'cluster_state')));
  return states.every((s) => s === 'ok');
}

/** Every master has its replicas, every replica is in sync, every node says ok. */
async function formed(cluster: RedisCluster, o: RedisClusterOptions): Promise<boolean> {
  const shards = await cluster.shards();
  const replicas = shards.flatMap((s) => s.replicas);
  if (shards.length !== o.masters || replicas.length !== o.masters * o.replicasPerMaster) {
    return false;
  }
  const ports = cluster.nodes.map((n) => Number(n.split(':')[1]));
  const synced = await Promise.all(replicas.map((r) => replicaInSync(Number(r.split(':')[1]))));
  return synced.every(Boolean) && (await allOk(ports));
}
