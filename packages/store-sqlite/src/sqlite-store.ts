import { createFatesStore, type FatesStore, type OpenOptions, type StoreOptions } from '@fate/core';
import { SqliteBackend } from './sqlite-backend.js';
import { parseSqliteUrl, resolveSqliteConfig, type SqliteConfig } from './sqlite-config.js';

/**
 * Opens a fate store in an SQLite file (created, with its parent directories, if missing,
 * unless `create: false`). Every process that opens the same file shares the transactions.
 * Takes a config or a `sqlite:` URL.
 *
 * @example
 * const store = await createSqliteStore({ path: './fate.db' });
 * const { id } = await store.seed({ opName: 'compact', step: { type: 'Compact', state: {} } });
 */
export async function createSqliteStore(
  config: SqliteConfig | string,
  options?: StoreOptions,
): Promise<FatesStore> {
  return createFatesStore(createSqliteBackend(config), options);
}

/** The unopened backend for a config or `sqlite:` URL. */
export function createSqliteBackend(config: SqliteConfig | string): SqliteBackend {
  const input = typeof config === 'string' ? parseSqliteUrl(config) : config;
  const resolved = resolveSqliteConfig(input);
  return new SqliteBackend(resolved, { create: input.create !== false });
}

/**
 * The unopened backend for `sqlite:<path>[?mode=open]`, for `openStore(url)`. A malformed
 * URL is a `FateError` with code `FATE_BAD_URL`.
 *
 * @example
 * const store = await openStore('sqlite:/var/lib/app/fate.db');
 */
export function createStoreBackend(url: string, options?: OpenOptions): SqliteBackend {
  const config = parseSqliteUrl(url);
  return createSqliteBackend(options?.create === false ? { ...config, create: false } : config);
}
