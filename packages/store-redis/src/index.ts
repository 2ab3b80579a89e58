export { RedisBackend } from './redis-backend.js';
export {
  DEFAULT_PREFIX,
  parseRedisUrl,
  type RedisConfig,
  type RedisNode,
  type ResolvedRedisConfig,
  resolveRedisConfig,
} from './redis-config.js';
export { MAX_SHARDS } from './redis-shards.js';
export { createRedisBackend, createRedisStore, createStoreBackend } from './redis-store.js';
