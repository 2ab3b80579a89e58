import { randomBytes } from 'node:crypto';
import type { StoreFixture } from '@fate/conformance';
import { createRedisStore, redisKeys } from '@fate/store-redis';
import { Redis } from 'ioredis';

/**
 * A store under a fresh key prefix on the Redis at `serviceUrl`: every `open` is a new
 * client; `corrupt` writes garbage into one field of a transaction's hash through a raw
 * client (the status indexes keep the id, as after a bad write from outside); `destroy`
 * unlinks every key of the prefix.
 */
export async function redisFixture(serviceUrl: string): Promise<StoreFixture> {
  const prefix = `t${randomBytes(6).toString('hex')}`;
  const url = new URL(serviceUrl);
  url.searchParams.set('prefix', prefix);
  const keys = redisKeys(prefix);
  const admin = new Redis(serviceUrl, { lazyConnect: true });
  await admin.connect();
  return {
    url: url.href,
    open: (options) => createRedisStore(url.href, options),
    async corrupt(id, field) {
      await admin.hset(keys.tx(id), field, '{not json');
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
