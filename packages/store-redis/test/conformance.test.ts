import { runConformance } from '@fate/conformance';
import { startRedis } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { redisFixture } from './redis-fixture.js';

// One private Redis for the whole file; every fixture gets its own key prefix in it.
const redis = useService(() => startRedis());

runConformance({ name: 'redis', factory: async () => redisFixture((await redis()).url) });
