export { SqliteBackend } from './sqlite-backend.js';
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  parseSqliteUrl,
  type ResolvedSqliteConfig,
  type SqliteConfig,
} from './sqlite-config.js';
export { SCHEMA_VERSION } from './sqlite-migrations.js';
export { createSqliteBackend, createSqliteStore, createStoreBackend } from './sqlite-store.js';
