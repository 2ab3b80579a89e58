export { RedisBackend } from './redis-backend.js';
export {
  DEFAULT_PREFIX,
  parseRedisUrl,
  type RedisConfig,
  type RedisConfigInput,
  type RedisNode,
  resolveRedisConfig,
} from './redis-config.js';
export { type RedisKeys, redisKeys, type ShardKeys } from './redis-keys.js';
export { MAX_SHARDS, slotOfTag } from './redis-shards.js';
export { createRedisBackend, createRedisStore, createStoreBackend } from './redis-store.js';
