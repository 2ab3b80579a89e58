import { runStoreConformance } from '@fate/conformance';
import { startRedis } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { redisFixture } from './redis-fixture.js';

// The store suite on a plain connection, one private Redis for the whole file; every fixture
// gets its own key prefix in it. Both suites run over TLS as an ACL user (conformance-tls).
const redis = useService(() => startRedis());

runStoreConformance({ name: 'redis', factory: async () => redisFixture((await redis()).url) });
