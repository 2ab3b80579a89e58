import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { type RedisTlsTestService, startRedisTls } from '@fate/test-services';
import { afterAll, beforeAll } from 'vitest';
import { storeUser, storeUserRules } from './redis-acl.js';
import { redisFixture } from './redis-fixture.js';

// Both suites over TLS (rediss://, the server's certificate checked against a CA made at
// test time), each fixture as an ACL user that may touch only its own prefix's keys and
// channel, with only the commands a store sends.
let service: Promise<RedisTlsTestService> | undefined;
const redisService = () => {
  service ??= startRedisTls();
  return service;
};

beforeAll(async () => {
  await redisService();
});

afterAll(async () => {
  await (await service)?.stop();
});

const factory = async () => {
  const redis = await redisService();
  return redisFixture(redis.url, 1, {
    adminUrl: redis.plainUrl,
    async storeBase(prefix) {
      const { user, password } = storeUser(prefix);
      await redis.admin('ACL', 'SETUSER', user, ...storeUserRules(prefix, password));
      return redis.url.replace('rediss://', `rediss://${user}:${password}@`);
    },
  });
};

runStoreConformance({ name: 'redis over TLS as a least-privilege ACL user', factory });
runEngineConformance({ name: 'redis over TLS as a least-privilege ACL user', factory });
