import { Redis } from 'ioredis';

/**
 * Commands each node of a Redis Cluster has run since it started (the sum of `calls` in
 * `INFO commandstats`, commands inside scripts included), by `host:port`: the difference
 * between two readings shows how a run's load spread over the masters.
 */
export async function clusterCommandCounts(
  nodes: readonly string[],
): Promise<Record<string, number>> {
  const counts = await Promise.all(
    nodes.map(async (node) => {
      const [host, port] = node.split(':');
      const redis = new Redis({ host, port: Number(port), lazyConnect: true });
      try {
        await redis.connect();
        const stats = await redis.info('commandstats');
        const calls = [...stats.matchAll(/calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
        return [node, calls] as const;
      } finally {
        redis.disconnect();
      }
    }),
  );
  return Object.fromEntries(counts);
}

/** The commands each node ran between two readings. */
export function commandsBetween(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([node, n]) => [node, n - (before[node] ?? 0)]),
  );
}
