// Internals the package's own tests reach into (`@fate/store-redis/internal`): key names and
// hash slots. Not the public API: they change whenever the layout does.
export { type RedisKeys, redisKeys, type ShardKeys } from './redis-keys.js';
export { slotOfTag } from './redis-shards.js';
