import { type RedisCluster, type RedisShard, startRedisCluster } from '@fate/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
});

afterAll(async () => {
  await cluster?.stop();
});

/** The slot ranges of all shards in order; all 16384 slots, once each, are [[0, 16383]]. */
function coverage(shards: readonly RedisShard[]): Array<[number, number]> {
  const ranges = shards.flatMap((s) => s.slots).sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [first, last] of ranges) {
    const prev = merged.at(-1);
    if (prev && prev[1] + 1 === first) prev[1] = last;
    else merged.push([first, last]);
  }
  return merged;
}

it('covers all 16384 slots with 3 masters of one in-sync replica each', async () => {
  expect(cluster.nodes).toHaveLength(6);
  expect(cluster.url).toBe(`redis+cluster://${cluster.nodes.join(',')}`);
  const shards = await cluster.shards();
  expect(shards).toHaveLength(3);
  expect(coverage(shards)).toEqual([[0, 16383]]);
  for (const s of shards) {
    expect(s.replicas).toHaveLength(1);
    expect(s.failing).toBe(false);
  }
  const members = shards.flatMap((s) => [s.master, ...s.replicas]);
  expect(members.sort()).toEqual([...cluster.nodes].sort());
});

it('promotes the replica of a SIGKILLed master, and all slots are served again', async () => {
  const before = await cluster.shards();
  const killedAt = Date.now();
  const killed = await cluster.killMaster(before[1]?.master);
  expect(killed).toEqual(before[1]);
  const promoted = await cluster.awaitFailover(killed);
  const failoverMs = Date.now() - killedAt;
  expect(promoted).toBe(killed.replicas[0]);

  const after = await cluster.shards();
  expect(after.map((s) => s.master)).not.toContain(killed.master);
  expect(after.find((s) => s.master === promoted)?.slots).toEqual(killed.slots);
  expect(coverage(after)).toEqual([[0, 16383]]);
  console.log(
    `Redis Cluster: master ${killed.master} SIGKILLed, ${promoted} served its slots after ${failoverMs} ms`,
  );
});
