import { runConformance } from '@fate/conformance';
import { startRedisCluster } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { redisFixture } from './redis-fixture.js';

// Both suites, unchanged, on a Redis Cluster of 3 masters (no replicas: failover is
// redis-failover.test.ts's business), with the store cut into 3 shards, one per master.
const cluster = useService(() => startRedisCluster({ masters: 3, replicasPerMaster: 0 }));

runConformance({
  name: 'redis-cluster',
  factory: async () => redisFixture((await cluster()).url, 3),
});
