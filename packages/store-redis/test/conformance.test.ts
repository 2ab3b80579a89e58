import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { startRedis } from '@fate/test-services';
import { afterAll, beforeAll } from 'vitest';
import { redisFixture } from './redis-fixture.js';

// One private Redis for the whole file; every fixture gets its own key prefix in it.
let service: ReturnType<typeof startRedis> | undefined;
const redisService = () => {
  service ??= startRedis();
  return service;
};

beforeAll(async () => {
  await redisService();
});

afterAll(async () => {
  await (await service)?.stop();
});

const factory = async () => redisFixture((await redisService()).url);

runStoreConformance({ name: 'redis', factory });
runEngineConformance({ name: 'redis', factory });
