import { createFatesStore, type FatesStore, type StoreOptions } from '@fate/core';
import { PostgresBackend } from './postgres-backend.js';
import { type PostgresConfig, parsePostgresUrl, resolvePostgresConfig } from './postgres-config.js';

/**
 * Opens a fate store in a PostgreSQL schema (created, with its tables, if missing). Every
 * client on the same database and schema shares the transactions, from any host.
 *
 * @example
 * const store = await createPostgresStore({ connectionString: 'postgres://app@db:5432/app' });
 * const { id } = await store.seed({ opName: 'compact', step: { type: 'Compact', state: {} } });
 */
export async function createPostgresStore(
  config: PostgresConfig,
  options?: StoreOptions,
): Promise<FatesStore> {
  return createFatesStore(new PostgresBackend(resolvePostgresConfig(config)), options);
}

/**
 * The unopened backend for `postgres://…` or `postgresql://…`, for `openStore(url)`. A
 * malformed URL is a `FateError` with code `FATE_BAD_URL`.
 *
 * @example
 * const store = await openStore('postgres://app@db:5432/app?schema=fate&poolSize=16');
 */
export function createStoreBackend(url: string): PostgresBackend {
  return new PostgresBackend(resolvePostgresConfig(parsePostgresUrl(url)));
}
