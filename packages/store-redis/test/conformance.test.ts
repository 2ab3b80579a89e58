import { randomBytes } from 'node:crypto';
import { runEngineConformance, runStoreConformance, type StoreFixture } from '@fate/conformance';
import { RedisBackend, redisKeys } from '@fate/store-redis';
import { startRedis } from '@fate/test-services';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';

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

async function redisFixture(): Promise<StoreFixture> {
  const base = (await redisService()).url;
  const prefix = `t${randomBytes(6).toString('hex')}`;
  const url = new URL(base);
  url.searchParams.set('prefix', prefix);
  const keys = redisKeys(prefix);
  const admin = new Redis(base, { lazyConnect: true });
  await admin.connect();
  return {
    url: url.href,
    backend: () => new RedisBackend(url.href),
    async corrupt(id, field) {
      await admin.hset(keys.shards[0]?.tx(id) as string, field, '{not json');
    },
    async destroy() {
      let cursor = '0';
      do {
        const [next, found] = await admin.scan(cursor, 'MATCH', `${keys.tag}:*`, 'COUNT', 1_000);
        if (found.length) await admin.unlink(...found);
        cursor = next;
      } while (cursor !== '0');
      await admin.quit();
    },
  };
}

runStoreConformance({ name: 'redis', factory: redisFixture });
runEngineConformance({ name: 'redis', factory: redisFixture });
