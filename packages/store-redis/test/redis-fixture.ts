import { randomBytes } from 'node:crypto';
import type { StoreFixture } from '@fate/conformance';
import { createFatesStore } from '@fate/core';
import { createRedisBackend } from '@fate/store-redis';
import { redisKeys } from '@fate/store-redis/internal';
import { Cluster, Redis } from 'ioredis';

/** How a fixture's store and admin clients connect, when not both to `base` as is. */
export interface FixtureOptions {
  /** The URL the admin client (cleanup, corruption) uses, as the default user. */
  readonly adminUrl?: string;
  /**
   * The store's URL without `prefix`, made for the fixture's fresh prefix (an ACL user
   * limited to that prefix, say); may have parameters already (`?ca=`).
   */
  readonly storeBase?: (prefix: string) => Promise<string>;
}

/**
 * A store under a fresh key prefix on the Redis or Redis Cluster at `base` (a store URL
 * without parameters), cut into `shards` shards: every `backend()` is a new client;
 * `corrupt` writes garbage into one field of a transaction's hash through a raw client (the
 * indexes keep the id, as after a bad write from outside); `leftovers` lists every key of
 * the prefix but the layout record and the query marker (Redis drops an emptied set or hash by itself, so an
 * empty store has no other key); `destroy` unlinks every key of the prefix. The
 * conformance suites and other packages' tests (the CLI's) use it.
 */
export async function redisFixture(
  base: string,
  shards = 1,
  options: FixtureOptions = {},
): Promise<StoreFixture> {
  const prefix = `t${randomBytes(6).toString('hex')}`;
  const storeBase = (await options.storeBase?.(prefix)) ?? base;
  const params = `prefix=${prefix}${shards > 1 ? `&shards=${shards}` : ''}`;
  const url = `${storeBase}${storeBase.includes('?') ? '&' : '?'}${params}`;
  const keys = redisKeys(prefix, shards);
  const admin = adminClient(options.adminUrl ?? base);
  await admin.connect();
  // every key of the store starts with '{<prefix>' (its own tag or a shard's)
  const storeKeys = async () => {
    const nodes = admin instanceof Cluster ? admin.nodes('master') : [admin];
    const found: Array<{ node: Redis; key: string }> = [];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, page] = await node.scan(cursor, 'MATCH', `{${prefix}*`, 'COUNT', 1_000);
        found.push(...page.map((key) => ({ node, key })));
        cursor = next;
      } while (cursor !== '0');
    }
    return found;
  };
  return {
    url,
    backend: () => createRedisBackend(url),
    // for tests that open clients themselves (the CLI's): the same as the suites do
    open: (options) => createFatesStore(createRedisBackend(url), options),
    async corrupt(id, field) {
      await admin.hset(keys.shardOf(id).tx(id), field, '{not json');
    },
    async leftovers() {
      return (await storeKeys())
        .map((k) => k.key)
        .filter((key) => key !== keys.layout && key !== keys.queries);
    },
    async destroy() {
      for (const { node, key } of await storeKeys()) await node.unlink(key);
      await admin.quit();
    },
  };
}

function adminClient(base: string): Redis | Cluster {
  if (!base.startsWith('redis+cluster://')) return new Redis(base, { lazyConnect: true });
  const seeds = base
    .slice('redis+cluster://'.length)
    .split(',')
    .map((node) => ({ host: node.split(':')[0] as string, port: Number(node.split(':')[1]) }));
  return new Cluster(seeds, { lazyConnect: true });
}
