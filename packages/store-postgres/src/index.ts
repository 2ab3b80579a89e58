export { PostgresBackend } from './postgres-backend.js';
export {
  DEFAULT_POOL_SIZE,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_SCHEMA,
  type PostgresConfig,
  parsePostgresUrl,
  type ResolvedPostgresConfig,
} from './postgres-config.js';
export { SCHEMA_VERSION } from './postgres-migrations.js';
export {
  createPostgresBackend,
  createPostgresStore,
  createStoreBackend,
} from './postgres-store.js';
