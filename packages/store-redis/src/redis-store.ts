import { createFatesStore, type FatesStore, type OpenOptions, type StoreOptions } from '@fate/core';
import { RedisBackend } from './redis-backend.js';
import { parseRedisUrl, type RedisConfig, resolveRedisConfig } from './redis-config.js';

/**
 * Opens a fate store on Redis: a URL (`redis://[user:password@]host[:port][/db][?prefix=name]`,
 * `rediss://` for TLS) or config fields. The store is open when the promise resolves.
 *
 * @example
 * const store = await createRedisStore('redis://127.0.0.1:6379?prefix=jobs', { instanceId: 'engine-1' });
 */
export async function createRedisStore(
  config: RedisConfig | string,
  options?: StoreOptions,
): Promise<FatesStore> {
  return createFatesStore(createRedisBackend(config), options);
}

/** The unopened backend for a config or `redis://` URL. */
export function createRedisBackend(config: RedisConfig | string): RedisBackend {
  return new RedisBackend(
    typeof config === 'string' ? parseRedisUrl(config) : resolveRedisConfig(config),
  );
}

/**
 * What `openStore('redis://…')` calls: the unopened backend for a URL. A malformed URL
 * is a `FateError` with code `FATE_BAD_URL`.
 */
export function createStoreBackend(url: string, options?: OpenOptions): RedisBackend {
  return new RedisBackend(parseRedisUrl(url), options);
}
