import { createFatesStore, type FatesStore, type OpenOptions, type StoreOptions } from '@fate/core';
import { PostgresBackend } from './postgres-backend.js';
import { type PostgresConfig, parsePostgresUrl, resolvePostgresConfig } from './postgres-config.js';

/**
 * Opens a fate store in a PostgreSQL schema (created, with its tables, if missing). Every
 * client on the same database and schema shares the transactions, from any host. Takes a
 * config or a `postgres://` URL.
 *
 * @example
 * const store = await createPostgresStore({ connectionString: 'postgres://app@db:5432/app' });
 * const { id } = await store.seed({ opName: 'compact', step: { type: 'Compact', state: {} } });
 */
export async function createPostgresStore(
  config: PostgresConfig | string,
  options?: StoreOptions,
): Promise<FatesStore> {
  return createFatesStore(createPostgresBackend(config), options);
}

/** The unopened backend for a config or `postgres://` URL. */
export function createPostgresBackend(config: PostgresConfig | string): PostgresBackend {
  return new PostgresBackend(
    resolvePostgresConfig(typeof config === 'string' ? parsePostgresUrl(config) : config),
  );
}

/**
 * The unopened backend for `postgres://…` or `postgresql://…`, for `openStore(url)`. A
 * malformed URL is a `FateError` with code `FATE_BAD_URL`.
 *
 * @example
 * const store = await openStore('postgres://app@db:5432/app?schema=fate&poolSize=16');
 */
export function createStoreBackend(url: string, options?: OpenOptions): PostgresBackend {
  return new PostgresBackend(resolvePostgresConfig(parsePostgresUrl(url)), options);
}
