import { randomBytes } from 'node:crypto';
import type { FatesStore, StoreOptions } from '@fate/core';
import {
  createRedisBackend,
  createRedisStore,
  type RedisBackend,
  type RedisConfig,
} from '@fate/store-redis';
import { type RedisTestService, startRedis } from '@fate/test-services';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** A private Redis for one test file, an admin connection to it, and clients closed after each test. */
export interface RedisTestContext {
  service: RedisTestService;
  /** A plain connection for looking behind the store's back. */
  admin: Redis;
  /** The service URL with `prefix` (and optionally another database). */
  url(prefix: string, db?: number): string;
  /** A guarded store client, closed after the test. */
  open(config: RedisConfig | string, options?: StoreOptions): Promise<FatesStore>;
  /** An opened raw backend (no guard), closed after the test. */
  backend(url: string): Promise<RedisBackend>;
}

export const newPrefix = (): string => `t${randomBytes(6).toString('hex')}`;

export const step = { type: 'step', state: {} };

/** Starts the Redis before the file's tests and stops it after them. */
export function useRedis(): RedisTestContext {
  const stores: FatesStore[] = [];
  const backends: RedisBackend[] = [];
  const ctx = {
    url(prefix: string, db?: number) {
      const url = new URL(ctx.service.url);
      if (db !== undefined) url.pathname = `/${db}`;
      url.searchParams.set('prefix', prefix);
      return url.href;
    },
    async open(config: RedisConfig | string, options?: StoreOptions) {
      const store = await createRedisStore(config, options);
      stores.push(store);
      return store;
    },
    async backend(url: string) {
      const backend = createRedisBackend(url);
      await backend.open();
      backends.push(backend);
      return backend;
    },
  } as RedisTestContext;
  beforeAll(async () => {
    ctx.service = await startRedis();
    ctx.admin = new Redis(ctx.service.url, { lazyConnect: true });
    ctx.admin.on('error', () => undefined); // tests that restart Redis see it drop
    await ctx.admin.connect();
  });
  afterEach(async () => {
    await Promise.allSettled([
      ...stores.splice(0).map((s) => s.close()),
      ...backends.splice(0).map((b) => b.close()),
    ]);
  });
  afterAll(async () => {
    await ctx.admin?.quit();
    await ctx.service?.stop();
  });
  return ctx;
}

/** The code of the error `p` rejects (or `fn` throws) with; fails when it succeeds. */
export async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    return (err as { code?: string }).code;
  }
  throw new Error('expected a failure');
}
