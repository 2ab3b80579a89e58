import { runConformance } from '@fate/conformance';
import { startRedisTls } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { storeUser, storeUserRules } from './redis-acl.js';
import { redisFixture } from './redis-fixture.js';

// Both suites over TLS (rediss://, the server's certificate checked against a CA made at
// test time), each fixture as an ACL user that may touch only its own prefix's keys and
// channel, with only the commands a store sends: the deployment the README recommends.
// The plain connection (conformance.test.ts) runs the store suite.
const redisTls = useService(() => startRedisTls());

const factory = async () => {
  const redis = await redisTls();
  return redisFixture(redis.url, 1, {
    adminUrl: redis.plainUrl,
    async storeBase(prefix) {
      const { user, password } = storeUser(prefix);
      await redis.admin('ACL', 'SETUSER', user, ...storeUserRules(prefix, password));
      return redis.url.replace('rediss://', `rediss://${user}:${password}@`);
    },
  });
};

runConformance({ name: 'redis over TLS as a least-privilege ACL user', factory });
