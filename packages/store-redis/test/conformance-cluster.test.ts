import { runClusterConformance } from '@fate/conformance';
import { startRedisCluster } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { redisFixture } from './redis-fixture.js';

// The store suite and the multi-engine and multi-process cases (runClusterConformance),
// unchanged, on a Redis Cluster of 3 masters (no replicas: failover is
// redis-failover.test.ts's business), with the store cut into 3 shards, one per master.
// The whole engine suite runs on a single server in conformance.test.ts.
const cluster = useService(() => startRedisCluster({ masters: 3, replicasPerMaster: 0 }));

runClusterConformance({
  name: 'redis-cluster',
  factory: async () => redisFixture((await cluster()).url, 3),
});
