export * from './support.js';
export { type RedisTestService, startRedis } from './redis-service.js';
export { startZooKeeper } from './zookeeper-service.js';
