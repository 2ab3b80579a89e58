// Not part of `npm test`: `npm run test:stryker redis` runs it (docs/mutation.md). The store
// suite on a private Redis, for Stryker's mutants of the Redis backend's TypeScript (its Lua
// is rewritten by redis-lua.mutants.ts). Child-process cases skip: they would load dist/.
import { inProcessOnly, runStoreConformance } from '@fate/conformance';
import { startRedis } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { redisFixture } from './redis-fixture.js';

const redis = useService(() => startRedis());

runStoreConformance({
  name: 'redis',
  factory: inProcessOnly(async () => redisFixture((await redis()).url)),
});

// and cut into 3 shards on the same server, for the claims across shards (which a Cluster
// runs in CI: conformance-cluster.test.ts)
runStoreConformance({
  name: 'redis-sharded',
  factory: inProcessOnly(async () => redisFixture((await redis()).url, 3)),
});
