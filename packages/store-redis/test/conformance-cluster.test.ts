import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { type RedisCluster, startRedisCluster } from '@fate/test-services';
import { afterAll, beforeAll } from 'vitest';
import { redisFixture } from './redis-fixture.js';

// Both suites, unchanged, on a Redis Cluster of 3 masters (no replicas: failover is
// redis-failover.test.ts's business), with the store cut into 3 shards, one per master.
let cluster: Promise<RedisCluster> | undefined;
const redisCluster = () => {
  cluster ??= startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  return cluster;
};

beforeAll(async () => {
  await redisCluster();
});

afterAll(async () => {
  await (await cluster)?.stop();
});

const target = {
  name: 'redis-cluster',
  factory: async () => redisFixture((await redisCluster()).url, 3),
};
runStoreConformance(target);
runEngineConformance(target);
