import { redisCommand } from './redis-process.js';

/** One master of a Redis Cluster and the hash slots it serves, as one node sees it. */
export interface RedisShard {
  /** The master's node id. */
  readonly id: string;
  /** `127.0.0.1:port`. */
  readonly master: string;
  /** Inclusive slot ranges, `[first, last]`, in the order the node lists them. */
  readonly slots: ReadonlyArray<readonly [number, number]>;
  /** Addresses of its replicas. */
  readonly replicas: readonly string[];
  /** True when the node sees the master as failing (`fail` or `fail?`). */
  readonly failing: boolean;
}

/** One line of `CLUSTER NODES`: `<id> <ip:port@bus> <flags> <master> … <slot>…`. */
interface NodeLine {
  readonly id: string;
  readonly address: string;
  readonly flags: readonly string[];
  readonly masterId: string;
  readonly slots: Array<readonly [number, number]>;
}

function parseLine(line: string): NodeLine {
  const [id = '', endpoint = '', flags = '', masterId = '', ...rest] = line.split(' ');
  // the slots follow ping-sent, pong-recv, config-epoch and link-state; `[…]` entries are
  // slots being migrated, which a freshly created cluster does not have
  const slots = rest
    .slice(4)
    .filter((s) => !s.startsWith('['))
    .map((s) => {
      const [first, last = first] = s.split('-').map(Number) as [number, number?];
      return [first, last] as const;
    });
  return {
    id,
    address: endpoint.split('@')[0] as string,
    flags: flags.split(','),
    masterId,
    slots,
  };
}

/**
 * The masters serving slots, from `CLUSTER NODES` on the node at `port`: each with its
 * slot ranges and replicas, by first slot. A master that lost its slots to a failover is
 * not listed.
 */
export async function clusterShards(port: number): Promise<RedisShard[]> {
  const text = (await redisCommand('127.0.0.1', port, 'CLUSTER', 'NODES')) ?? '';
  const nodes = text.trim().split('\n').filter(Boolean).map(parseLine);
  return nodes
    .filter((n) => n.flags.includes('master') && n.slots.length > 0)
    .map((m) => ({
      id: m.id,
      master: m.address,
      slots: m.slots,
      replicas: nodes.filter((n) => n.masterId === m.id).map((n) => n.address),
      failing: m.flags.includes('fail') || m.flags.includes('fail?'),
    }))
    .sort((a, b) => (a.slots[0]?.[0] ?? 0) - (b.slots[0]?.[0] ?? 0));
}

/** A field of `CLUSTER INFO` (e.g. `cluster_state`) on the node at `port`. */
export async function clusterInfo(port: number, field: string): Promise<string | undefined> {
  const text = (await redisCommand('127.0.0.1', port, 'CLUSTER', 'INFO')) ?? '';
  return new RegExp(`^${field}:(.*?)\\r?$`, 'm').exec(text)?.[1];
}

/** True when the node at `port` is a replica whose link to its master is up (in sync). */
export async function replicaInSync(port: number): Promise<boolean> {
  const text = (await redisCommand('127.0.0.1', port, 'INFO', 'replication')) ?? '';
  return /^master_link_status:up\r?$/m.test(text);
}
